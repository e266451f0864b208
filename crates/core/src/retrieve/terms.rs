//! The compact parts of the index: the term dictionary and the posting lists.
//!
//! A large tree has millions of distinct terms (the Linux kernel: 4.1M, most of them seen once:
//! hex constants, unique identifiers), so what a term costs beyond its postings decides the
//! index's size. Here a term is its bytes in one shared arena, an end offset (4 bytes) and a
//! slot in an open-addressing table of term ids (4 bytes, at most half full); a term seen in
//! one chunk keeps its single posting inline instead of in a heap allocation; and path
//! postings, which only a few thousand terms have, live in a side map. About 45 bytes per term
//! instead of about 170 with a `HashMap<Box<str>, u32>` and two `Vec`s per term.

use rustc_hash::FxHashMap as HashMap;
use std::hash::Hasher;

/// One posting: a chunk and the term's frequencies in its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Posting {
    pub chunk: u32,
    /// Occurrences in the chunk's text (saturating).
    pub tf: u16,
    /// Occurrences in the names the chunk defines (saturating).
    pub sym: u16,
}

/// Interned terms: id -> text and text -> id, in one arena.
#[derive(Debug, Default)]
pub(crate) struct TermDict {
    arena: String,
    /// End offset in `arena` of each term, by id.
    ends: Vec<u32>,
    /// Open addressing, linear probing; `EMPTY` or a term id. Length a power of two, at most
    /// half full.
    table: Vec<u32>,
}

const EMPTY: u32 = u32::MAX;

fn hash(t: &str) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    h.write(t.as_bytes());
    h.finish()
}

impl TermDict {
    /// An empty dictionary whose table holds `terms` terms without growing (a restored index
    /// knows its count: growing rehashes every term held, about twice over).
    pub fn with_capacity(terms: usize) -> TermDict {
        TermDict {
            arena: String::new(),
            ends: Vec::with_capacity(terms),
            table: vec![EMPTY; (terms * 2 + 2).next_power_of_two().max(1024)],
        }
    }

    /// Terms held.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// The text of term `id`.
    pub fn term(&self, id: u32) -> &str {
        let i = id as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.arena[start..self.ends[i] as usize]
    }

    /// The id of `t`, if interned (a reference into the table, so callers can write
    /// `let &id = dict.get(t)?`).
    pub fn get(&self, t: &str) -> Option<&u32> {
        if self.table.is_empty() {
            return None;
        }
        let mask = self.table.len() - 1;
        let mut i = hash(t) as usize & mask;
        loop {
            let id = &self.table[i];
            if *id == EMPTY {
                return None;
            }
            if self.term(*id) == t {
                return Some(id);
            }
            i = (i + 1) & mask;
        }
    }

    /// The id of `t`, interned if new; and whether it was new. One hash and one probe: a new
    /// term takes the empty slot its probe ended on.
    pub fn intern(&mut self, t: &str) -> (u32, bool) {
        if (self.ends.len() + 1) * 2 > self.table.len() {
            self.grow();
        }
        let mask = self.table.len() - 1;
        let mut i = hash(t) as usize & mask;
        loop {
            let id = self.table[i];
            if id == EMPTY {
                break;
            }
            if self.term(id) == t {
                return (id, false);
            }
            i = (i + 1) & mask;
        }
        let id = self.ends.len() as u32;
        self.arena.push_str(t);
        self.ends.push(self.arena.len() as u32);
        self.table[i] = id;
        (id, true)
    }

    fn place(&mut self, id: u32) {
        let mask = self.table.len() - 1;
        let mut i = hash(self.term(id)) as usize & mask;
        while self.table[i] != EMPTY {
            i = (i + 1) & mask;
        }
        self.table[i] = id;
    }

    fn grow(&mut self) {
        let size = (self.table.len() * 2).max(1024);
        self.table = vec![EMPTY; size];
        for id in 0..self.ends.len() as u32 {
            self.place(id);
        }
    }

    /// Releases spare capacity (after a build).
    pub fn shrink(&mut self) {
        self.arena.shrink_to_fit();
        self.ends.shrink_to_fit();
    }

    /// Approximate heap bytes.
    pub fn bytes(&self) -> usize {
        self.arena.len() + self.ends.len() * 4 + self.table.len() * 4
    }
}

/// The postings of one term: none, one inline, or a list.
#[derive(Debug, Clone, Default)]
pub(crate) enum PostingList {
    #[default]
    Empty,
    One(Posting),
    Many(Vec<Posting>),
}

impl PostingList {
    pub fn as_slice(&self) -> &[Posting] {
        match self {
            PostingList::Empty => &[],
            PostingList::One(p) => std::slice::from_ref(p),
            PostingList::Many(v) => v,
        }
    }

    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    pub fn push(&mut self, p: Posting) {
        match self {
            PostingList::Empty => *self = PostingList::One(p),
            PostingList::One(first) => *self = PostingList::Many(vec![*first, p]),
            PostingList::Many(v) => v.push(p),
        }
    }

    /// Keeps the postings `f` returns true for (it may rewrite them), then releases spare
    /// capacity.
    pub fn retain_mut(&mut self, f: impl FnMut(&mut Posting) -> bool) {
        let mut v = match std::mem::take(self) {
            PostingList::Empty => return,
            PostingList::One(p) => vec![p],
            PostingList::Many(v) => v,
        };
        v.retain_mut(f);
        *self = PostingList::from(v);
    }

    pub fn shrink(&mut self) {
        if let PostingList::Many(v) = self {
            v.shrink_to_fit();
        }
    }

    /// Heap bytes beyond the inline part (by length, so equal indexes report equal sizes).
    pub fn heap_bytes(&self) -> usize {
        match self {
            PostingList::Many(v) => v.len() * std::mem::size_of::<Posting>(),
            _ => 0,
        }
    }
}

impl From<Vec<Posting>> for PostingList {
    fn from(mut v: Vec<Posting>) -> PostingList {
        match v.len() {
            0 => PostingList::Empty,
            1 => PostingList::One(v[0]),
            _ => {
                v.shrink_to_fit();
                PostingList::Many(v)
            }
        }
    }
}

impl<'a> IntoIterator for &'a PostingList {
    type Item = &'a Posting;
    type IntoIter = std::slice::Iter<'a, Posting>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// File ids per term for the path field: only terms that occur in paths have an entry.
#[derive(Debug, Default, Clone)]
pub(crate) struct PathPostings {
    map: HashMap<u32, Vec<u32>>,
}

impl PathPostings {
    pub fn push(&mut self, term: u32, file: u32) {
        self.map.entry(term).or_default().push(file);
    }

    pub fn insert(&mut self, term: u32, files: Vec<u32>) {
        if !files.is_empty() {
            self.map.insert(term, files);
        }
    }

    pub fn retain_mut(&mut self, mut f: impl FnMut(&mut u32) -> bool) {
        self.map.retain(|_, files| {
            files.retain_mut(&mut f);
            files.shrink_to_fit();
            !files.is_empty()
        });
    }

    pub fn bytes(&self) -> usize {
        self.map.values().map(|v| v.len() * 4 + 48).sum::<usize>()
    }
}

impl std::ops::Index<usize> for PathPostings {
    type Output = [u32];
    fn index(&self, term: usize) -> &[u32] {
        u32::try_from(term)
            .ok()
            .and_then(|t| self.map.get(&t))
            .map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_and_finds_terms_across_growth() {
        let mut d = TermDict::default();
        assert!(d.get("a").is_none());
        for i in 0..5000u32 {
            assert_eq!(d.intern(&format!("t{i}")), (i, true));
        }
        assert_eq!(d.intern("t42"), (42, false));
        for i in 0..5000u32 {
            assert_eq!(d.get(&format!("t{i}")), Some(&i));
            assert_eq!(d.term(i), format!("t{i}"));
        }
        assert!(d.get("t5000").is_none());
        assert_eq!(d.len(), 5000);
    }

    #[test]
    fn posting_lists_stay_inline_for_one_posting() {
        let p = |c| Posting {
            chunk: c,
            tf: 1,
            sym: 0,
        };
        let mut l = PostingList::default();
        assert_eq!(l.len(), 0);
        l.push(p(1));
        assert!(matches!(l, PostingList::One(_)));
        l.push(p(2));
        l.push(p(3));
        assert_eq!(l.as_slice(), &[p(1), p(2), p(3)]);
        l.retain_mut(|x| x.chunk != 2);
        assert_eq!(l.len(), 2);
        l.retain_mut(|x| x.chunk == 3);
        assert!(matches!(l, PostingList::One(_)));
        let mut paths = PathPostings::default();
        paths.push(7, 1);
        paths.push(7, 2);
        assert_eq!(&paths[7], &[1, 2]);
        assert!(paths[8].is_empty());
    }
}

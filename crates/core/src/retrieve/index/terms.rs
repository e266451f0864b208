//! The compact parts of the index: the term dictionary and the posting lists.
//!
//! A large tree has millions of distinct terms (the Linux kernel: 4.1M, most of them seen once:
//! hex constants, unique identifiers) and tens of millions of postings, so what a term and a
//! posting cost decides the index's size. Here the index knows a term by its 64-bit
//! fingerprint (8 bytes, whatever the term's length) and a slot in an open-addressing table
//! of term ids (5 bytes, 60-70% full): [`TermIds`]; its postings are a run of
//! variable-length numbers in one shared buffer (1-3 bytes a posting, 8 bytes of bookkeeping a
//! term: [`Postings`]); and path postings, which only a few thousand terms have, live in a
//! side map. Only the dictionary of a batch of files being indexed keeps texts ([`TermDict`]).

use rustc_hash::FxHashMap as HashMap;

use super::mapped::{Bytes, Map, Region, Seq};
use std::sync::Arc;

/// One posting: a chunk and the term's frequencies in its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Posting {
    pub chunk: u32,
    /// Occurrences in the chunk's text (saturating).
    pub tf: u16,
    /// Occurrences in the names the chunk defines (saturating).
    pub sym: u16,
}

const EMPTY: u32 = u32::MAX;

/// An open-addressing table of ids (linear probing from the slot the hash's high bits pick,
/// any length, at most [`MAX_LOAD_TENTHS`] tenths full), with eight bits of each occupied
/// slot's hash beside it: a probe compares an entry's key (a cache miss) only when they match
/// (interning the kernel's 4.1M terms on restart spent 40% of it comparing at every occupied
/// slot). The keys live with the table's owner, which passes the comparison. Any length,
/// rather than a power of two, lets a table built at once be sized to what it holds
/// ([`TermIds::from_fingerprints`]: the kernel's restored table 34 MB instead of 42).
#[derive(Debug, Default)]
struct Slots {
    ids: Vec<u32>,
    tags: Vec<u8>,
}

/// The tag of a hash: bits the slot index (from its high bits) does not use.
fn tag(h: u64) -> u8 {
    h as u8
}

/// Most tenths of a table's slots in use; a table grows (doubles) past it.
const MAX_LOAD_TENTHS: usize = 7;

/// Tenths of a table's slots in use when it is sized to what it holds (on restore): below
/// [`MAX_LOAD_TENTHS`], so that the terms of later edits fit without doubling it (the
/// kernel: room for ~0.7M new terms).
const FITTED_LOAD_TENTHS: usize = 6;

/// A hint to bring the cache line of `p` in; no effect on results (nothing is read).
#[inline]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch does not access memory; any address is allowed.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Table slots per bucket when a table is filled at once ([`Slots::fill`]).
const BUCKET: usize = 1024;

impl Slots {
    /// The slot holding the id whose key `same` accepts, or the empty slot where a key of
    /// hash `h` goes.
    #[inline]
    fn probe(&self, h: u64, same: impl Fn(u32) -> bool) -> Result<usize, usize> {
        let mut i = self.home(h);
        loop {
            let id = self.ids[i];
            if id == EMPTY {
                return Err(i);
            }
            if self.tags[i] == tag(h) && same(id) {
                return Ok(i);
            }
            i += 1;
            if i == self.ids.len() {
                i = 0;
            }
        }
    }

    /// The first slot a key of hash `h` may take: the hash's high bits scaled to the length.
    #[inline]
    fn home(&self, h: u64) -> usize {
        ((u128::from(h) * self.ids.len() as u128) >> 64) as usize
    }

    fn set(&mut self, i: usize, id: u32, h: u64) {
        self.ids[i] = id;
        self.tags[i] = tag(h);
    }

    /// Whether one more id fits.
    fn fits(&self, held: usize) -> bool {
        (held + 1) * 10 <= self.ids.len() * MAX_LOAD_TENTHS
    }

    /// The length of a table with room for `n` ids.
    fn size_for(n: usize) -> usize {
        (n * 10).div_ceil(MAX_LOAD_TENTHS).max(1024)
    }

    /// The length of a table fitted to `n` ids, with room for more ([`FITTED_LOAD_TENTHS`]).
    fn fitted_size(n: usize) -> usize {
        (n * 10).div_ceil(FITTED_LOAD_TENTHS).max(1024)
    }

    /// An empty table with room for `n` ids.
    fn sized(n: usize) -> Slots {
        Slots::of_len(Slots::size_for(n))
    }

    /// An empty table of `size` slots.
    fn of_len(size: usize) -> Slots {
        Slots {
            ids: vec![EMPTY; size],
            tags: vec![0; size],
        }
    }

    /// A table twice as large (or more) holding ids `0..n`, of hashes `hash(id)`, with room
    /// for one more.
    fn grown(&self, n: usize, hash: impl Fn(u32) -> u64) -> Slots {
        let mut s = Slots::sized((n + 1).max(self.ids.len() * MAX_LOAD_TENTHS / 5));
        for id in 0..n as u32 {
            let h = hash(id);
            if let Err(i) = s.probe(h, |_| false) {
                s.set(i, id, h);
            }
        }
        s
    }

    /// Places ids `0..hashes.len()` of hashes `hashes` in an empty table in the order of
    /// their home slots, in buckets of [`BUCKET`] slots, so that its writes go through memory
    /// once instead of missing the cache at every id (4.1M interns were a third of the
    /// kernel's restart); `false` if two keys are the same (`same(a, b)`).
    fn fill(&mut self, hashes: &[u64], same: impl Fn(u32, u32) -> bool) -> bool {
        let bucket = |h: u64| self.home(h) / BUCKET;
        let mut firsts = vec![0usize; self.ids.len() / BUCKET + 2];
        for &h in hashes {
            firsts[bucket(h) + 1] += 1;
        }
        for b in 1..firsts.len() {
            firsts[b] += firsts[b - 1];
        }
        let mut order = vec![0u32; hashes.len()];
        for (id, &h) in hashes.iter().enumerate() {
            let at = &mut firsts[bucket(h)];
            order[*at] = id as u32;
            *at += 1;
        }
        for id in order {
            let h = hashes[id as usize];
            match self.probe(h, |other| same(other, id)) {
                Ok(_) => return false,
                Err(i) => self.set(i, id, h),
            }
        }
        true
    }

    fn bytes(&self) -> usize {
        self.ids.len() * 5
    }
}

/// A batch's terms with their texts: id -> text and text -> id, in one arena. A batch of
/// files being indexed numbers its terms here; the index keeps only their fingerprints
/// ([`TermIds`]).
#[derive(Debug, Default)]
pub(crate) struct TermDict {
    arena: String,
    /// End offset in `arena` of each term, by id.
    ends: Vec<u32>,
    /// Open addressing, linear probing, a power of two long (or empty), at most
    /// [`MAX_LOAD_TENTHS`] tenths full. A slot is 0 if empty, else a term's id (low 32 bits)
    /// under its [`dict_key`] (high 32): a probe reads one array, and compares a term's text
    /// only under the same key. (With ids and tags in two arrays, as [`Slots`] keeps them, a
    /// probe missed the cache twice: interning was ~6% of a kernel build.)
    table: Vec<u64>,
}

/// The key of a term of hash `h` and length `len` in [`TermDict`]'s table: 24 bits of the
/// hash above seven of the length, with the bit between set, so never 0 (an empty slot).
#[inline]
fn dict_key(h: u64, len: usize) -> u32 {
    (((h >> 40) as u32) << 8) | 0x80 | (len as u32 & 0x7f)
}

impl TermDict {
    /// An empty dictionary with room for `terms` terms before its table grows.
    pub fn with_capacity(terms: usize) -> TermDict {
        TermDict {
            table: vec![0; Self::table_len(terms)],
            ..TermDict::default()
        }
    }

    /// The length of a table with room for `n` terms.
    fn table_len(n: usize) -> usize {
        (n * 10)
            .div_ceil(MAX_LOAD_TENTHS)
            .next_power_of_two()
            .max(1024)
    }

    /// Terms held.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// The text of term `id`.
    #[inline]
    pub fn term(&self, id: u32) -> &str {
        let i = id as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.arena[start..self.ends[i] as usize]
    }

    /// The slot holding `t` (of hash `h`), or the empty slot where it goes.
    #[inline]
    fn probe(&self, t: &str, h: u64) -> Result<usize, usize> {
        let key = u64::from(dict_key(h, t.len())) << 32;
        let mask = self.table.len() - 1;
        let mut i = (h as usize) & mask;
        loop {
            let s = self.table[i];
            if s == 0 {
                return Err(i);
            }
            if s & !0xffff_ffff == key {
                let u = self.term(s as u32);
                if u.len() == t.len() && super::idents::same(u.as_bytes(), t.as_bytes()) {
                    return Ok(i);
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// The id of `t`, interned if new; and whether it was new. One hash and one probe: a new
    /// term takes the empty slot its probe ended on.
    pub fn intern(&mut self, t: &str) -> (u32, bool) {
        if (self.ends.len() + 1) * 10 > self.table.len() * MAX_LOAD_TENTHS {
            self.grow();
        }
        let h = super::idents::hash(t.as_bytes());
        match self.probe(t, h) {
            Ok(i) => (self.table[i] as u32, false),
            Err(i) => {
                let id = self.ends.len() as u32;
                self.arena.push_str(t);
                self.ends.push(self.arena.len() as u32);
                self.table[i] = (u64::from(dict_key(h, t.len())) << 32) | u64::from(id);
                (id, true)
            }
        }
    }

    /// Doubles the table (or makes the first one), placing the terms held again.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let len = Self::table_len(self.ends.len() + 1).max(self.table.len() * 2);
        let mut table = vec![0u64; len];
        let mask = len - 1;
        for id in 0..self.ends.len() as u32 {
            let t = self.term(id);
            let h = super::idents::hash(t.as_bytes());
            let mut i = (h as usize) & mask;
            while table[i] != 0 {
                i = (i + 1) & mask;
            }
            table[i] = (u64::from(dict_key(h, t.len())) << 32) | u64::from(id);
        }
        self.table = table;
    }

    #[cfg(test)]
    fn get(&self, t: &str) -> Option<u32> {
        if self.table.is_empty() {
            return None;
        }
        let i = self.probe(t, super::idents::hash(t.as_bytes())).ok()?;
        Some(self.table[i] as u32)
    }
}

/// The fingerprint the index knows a term by: 64 bits of XXH3, a hash with a fixed
/// definition (the cache file stores fingerprints, so they must not change with a compiler
/// or platform). Two different terms share one with a probability of about n² / 2⁶⁵ for n
/// terms (5·10⁻⁷ for the kernel's 4.1M); if they did, each would also find the other's
/// postings.
pub(crate) fn fingerprint(t: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(t.as_bytes())
}

/// What [`TermIds::prefetch`] asks for: a fingerprint's table slot; once that is cached, the
/// fingerprint of the term in it.
#[derive(Clone, Copy)]
pub(crate) enum Stage {
    Slot,
    Key,
}

/// The index's terms by [`fingerprint`]: id -> fingerprint and fingerprint -> id. 8 bytes a
/// term instead of its text and offset (the kernel's 4.1M terms took 90 MB as texts, 33 as
/// fingerprints); ranking looks terms up and the cache file stores them, neither needs
/// their text.
#[derive(Debug, Default)]
pub(crate) struct TermIds {
    /// Term `i`'s fingerprint; read from the cache file once one is mapped
    /// ([`TermIds::map_fingerprints`]).
    fps: Seq<u64>,
    slots: Slots,
}

impl TermIds {
    /// The terms of fingerprints `fps`, term `i` of `fps[i]` (a restored index's, in id
    /// order); `None` if one is repeated.
    pub fn from_fingerprints(fps: Vec<u64>) -> Option<TermIds> {
        let mut slots = Slots::of_len(Slots::fitted_size(fps.len()));
        slots
            .fill(&fps, |a, b| fps[a as usize] == fps[b as usize])
            .then(|| TermIds {
                fps: Seq::from_vec(fps),
                slots,
            })
    }

    /// Reads the fingerprints from `fps` from now on, a mapped copy of them (of a cache file
    /// just written or checked): their heap copy is released.
    pub fn map_fingerprints(&mut self, fps: Seq<u64>) {
        debug_assert!(
            fps.len() == self.fps.len() && (0..fps.len()).all(|i| fps.get(i) == self.fps.get(i))
        );
        self.fps = fps;
    }

    /// Terms held.
    pub fn len(&self) -> usize {
        self.fps.len()
    }

    /// The fingerprint of term `id`.
    pub fn fingerprint(&self, id: u32) -> u64 {
        self.fps.get(id as usize)
    }

    /// The id of `t`, if known.
    pub fn get(&self, t: &str) -> Option<u32> {
        self.get_fingerprint(fingerprint(t))
    }

    /// The id of the term of fingerprint `fp`, if known.
    pub fn get_fingerprint(&self, fp: u64) -> Option<u32> {
        if self.fps.is_empty() {
            return None;
        }
        let i = self
            .slots
            .probe(fp, |id| self.fps.get(id as usize) == fp)
            .ok()?;
        Some(self.slots.ids[i])
    }

    /// The id of the term of fingerprint `fp`, added if new; and whether it was new.
    pub fn intern(&mut self, fp: u64) -> (u32, bool) {
        if !self.slots.fits(self.fps.len()) {
            self.slots = self
                .slots
                .grown(self.fps.len(), |id| self.fps.get(id as usize));
        }
        match self.slots.probe(fp, |id| self.fps.get(id as usize) == fp) {
            Ok(i) => (self.slots.ids[i], false),
            Err(i) => {
                let id = self.fps.len() as u32;
                self.fps.push(fp);
                self.slots.set(i, id, fp);
                (id, true)
            }
        }
    }

    /// Asks the processor for what interning `fp` will read ([`Stage`], the second reading
    /// what the first brought in): a merge interns a batch's terms with these issued some
    /// terms ahead, so that the slots and fingerprints of a dictionary of millions of terms (a
    /// cache miss each) are read in parallel instead of one after another.
    pub fn prefetch(&self, fp: u64, stage: Stage) {
        if self.fps.is_empty() {
            return;
        }
        let i = self.slots.home(fp);
        match stage {
            Stage::Slot => {
                prefetch(self.slots.ids.as_ptr().wrapping_add(i));
                prefetch(self.slots.tags.as_ptr().wrapping_add(i));
            }
            Stage::Key => {
                let id = self.slots.ids[i];
                if id != EMPTY && self.slots.tags[i] == tag(fp) {
                    prefetch(self.fps.addr(id as usize));
                }
            }
        }
    }

    /// Releases spare capacity (after a build). The table is not refilled at a fitted size
    /// here: on the kernel that took ~0.2 s at the end of the cold build, serial, for 8 MB;
    /// a restored table is fitted ([`TermIds::from_fingerprints`]).
    pub fn shrink(&mut self) {
        self.fps.shrink_to_fit();
    }

    /// Approximate heap bytes.
    pub fn bytes(&self) -> usize {
        self.fps.heap_bytes() + self.slots.bytes()
    }

    /// Bytes read from a mapped cache file.
    pub fn mapped_bytes(&self) -> usize {
        self.fps.mapped_bytes()
    }

    /// Heap bytes of the fingerprints (what mapping them would release).
    pub fn fingerprint_heap_bytes(&self) -> usize {
        self.fps.heap_bytes()
    }
}

/// The postings of every term, compressed: each term's list is one run of bytes in a shared
/// buffer (each posting as [`encode`] writes it: 1-3 bytes instead of 8, and no allocation or
/// 24-byte header per term). Lists are ordered by term id, so a posting added later for a term cannot
/// go at its end in place: it waits in `pending` (read after the term's stored run, so a list
/// is always in chunk-id order) until enough have gathered, then all are merged in one pass
/// that moves each stored run once ([`Postings::flush`]). A build adds its batches' postings
/// through [`Postings::defer`] instead: they wait encoded in [`Deferred`], several times
/// smaller than `pending`, so less memory holds more and the runs move fewer times.
#[derive(Debug, Clone)]
pub(crate) struct Postings {
    /// The runs: on the heap, or read from a mapped cache file ([`Postings::attach`]), in
    /// which case postings added later all wait in `pending` (the mapping is read-only) until
    /// the next save maps the merged runs it wrote.
    bytes: Bytes,
    /// Start of term `i`'s run in `bytes`; `starts[i + 1]` is its end (one more entry than
    /// terms).
    starts: Starts,
    /// Postings and last chunk (the base of the next gap) of each stored run of at least
    /// [`LONG_RUN`] bytes; a shorter run is decoded when they are asked for (most of a large
    /// tree's terms are seen once or twice: two `u32`s each for all 4.1M kernel terms cost
    /// 33 MB, this map a few).
    long: HashMap<u32, (u32, u32)>,
    pending: HashMap<u32, Vec<Posting>>,
    pending_len: usize,
    /// Postings of a build waiting to be merged (empty whenever the index is read).
    deferred: Deferred,
    total: usize,
}

/// Postings added by a build, waiting, encoded, to be merged into the runs: one record per
/// term and batch, in the order added. A record is the term (4 bytes, little-endian), the
/// number of postings, the chunk of the last, and the length of the postings' encoding, each
/// a LEB128 number, then the postings as the runs hold them, the first with its gap from
/// chunk 0. A posting takes its 1-3 bytes here and a share of its record's header (up to 19
/// bytes a term and batch) instead of about 30 in `pending` (a list per term in a map), so a
/// merge comes after about twice as many postings in less memory, and only the first
/// posting of each record is encoded again when it is merged.
#[derive(Debug, Clone, Default)]
struct Deferred {
    log: Vec<u8>,
    records: usize,
    postings: usize,
}

/// One record of [`Deferred`]: its term, postings, last chunk and encoded postings.
struct Record<'a> {
    term: u32,
    count: u32,
    last: u32,
    body: &'a [u8],
}

impl Deferred {
    fn is_empty(&self) -> bool {
        self.log.is_empty()
    }

    /// The record at `log[at..]`, and where the next starts.
    fn record(&self, at: usize) -> (Record<'_>, usize) {
        let term = u32::from_le_bytes(self.log[at..at + 4].try_into().expect("4 bytes"));
        let mut i = at + 4;
        let count = get_var(&self.log, &mut i) as u32;
        let last = get_var(&self.log, &mut i) as u32;
        let len = get_var(&self.log, &mut i) as usize;
        let body = &self.log[i..i + len];
        (
            Record {
                term,
                count,
                last,
                body,
            },
            i + len,
        )
    }

    /// The offset of every record, with its term in the high half, ordered by term and, for
    /// one term, by offset (the order added): a stable radix sort on the term, 11 bits a pass.
    fn by_term(&self) -> Vec<u64> {
        let mut order = Vec::with_capacity(self.records);
        let mut max = 0u32;
        let mut at = 0;
        while at < self.log.len() {
            let (r, next) = self.record(at);
            order.push(u64::from(r.term) << 32 | at as u64);
            max = max.max(r.term);
            at = next;
        }
        let bits = 32 - max.leading_zeros();
        let mut other = vec![0u64; order.len()];
        let mut shift = 32;
        while shift < 32 + bits {
            let mut at = vec![0usize; 1 << 11];
            for &k in &order {
                at[(k >> shift) as usize & 0x7ff] += 1;
            }
            let mut sum = 0;
            for a in &mut at {
                (*a, sum) = (sum, sum + *a);
            }
            for &k in &order {
                let d = (k >> shift) as usize & 0x7ff;
                other[at[d]] = k;
                at[d] += 1;
            }
            std::mem::swap(&mut order, &mut other);
            shift += 11;
        }
        order
    }
}

/// The first posting of `body` (encoded with its gap from chunk 0) and its encoded length.
fn first_posting(body: &[u8]) -> (Posting, usize) {
    let mut it = PostingIter {
        bytes: body,
        ..PostingIter::default()
    };
    let p = it.next().expect("a record has a posting");
    (p, it.at)
}

/// Non-decreasing offsets into a buffer that may pass 4 GiB, 4 bytes each: their low halves,
/// and the indices at which the high half steps up (none below 4 GiB; a kernel's runs are
/// 101 MB), so the kernel's 4.1M run starts take 16 MB instead of 33.
///
/// Read from a cache file ([`Starts::packed`]), the first starts are [`PackedStarts`] and
/// `low` and `steps` hold only the starts of terms added since (all at the runs' end: the
/// mapped runs are never extended in place).
#[derive(Debug, Clone, Default)]
struct Starts {
    low: Seq<u32>,
    /// `steps[k]`: the first index of `low` whose value is at least `(k + 1) << 32`.
    steps: Vec<u32>,
    packed: Option<PackedStarts>,
}

impl Starts {
    fn zero() -> Starts {
        Starts {
            low: Seq::from_vec(vec![0]),
            steps: Vec::new(),
            packed: None,
        }
    }

    /// The starts of a cache file.
    fn packed(p: PackedStarts) -> Starts {
        Starts {
            low: Seq::default(),
            steps: Vec::new(),
            packed: Some(p),
        }
    }

    #[inline]
    fn get(&self, i: usize) -> u64 {
        let i = match &self.packed {
            Some(p) if i < p.len() => return p.get(i),
            Some(p) => i - p.len(),
            None => i,
        };
        let high = if self.steps.is_empty() {
            0
        } else {
            self.steps.partition_point(|&s| s as usize <= i) as u64
        };
        high << 32 | u64::from(self.low.get(i))
    }

    /// Starts `i` and `i + 1` (one walk of a packed block for both).
    #[inline]
    fn pair(&self, i: usize) -> (u64, u64) {
        match &self.packed {
            Some(p) if i + 1 < p.len() => p.pair(i),
            _ => (self.get(i), self.get(i + 1)),
        }
    }

    fn len(&self) -> usize {
        self.packed.as_ref().map_or(0, PackedStarts::len) + self.low.len()
    }

    /// Bytes read from a mapped cache file.
    fn mapped_bytes(&self) -> usize {
        self.packed.as_ref().map_or(0, PackedStarts::mapped_bytes) + self.low.mapped_bytes()
    }

    /// Every start, in order (one walk over packed blocks, not one per start).
    fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        let packed = self.packed.as_ref();
        let head = packed
            .into_iter()
            .flat_map(|p| std::iter::once(0).chain(p.ends()));
        let from = packed.map_or(0, PackedStarts::len);
        head.chain((from..self.len()).map(move |i| self.get(i)))
    }

    /// Appends `v`, at least the last value.
    fn push(&mut self, v: u64) {
        let i = self.low.len() as u32;
        while (self.steps.len() as u64) < v >> 32 {
            self.steps.push(i);
        }
        self.low.push(v as u32);
    }

    /// Moves each start by what `adds` (term, bytes added at the end of its run; by term, each
    /// once) added to the runs before it: in place when every start is on the heap and below
    /// 4 GiB (a build's), else by rebuilding them.
    fn add_after(&mut self, adds: impl Iterator<Item = (u32, u64)> + Clone) {
        let total: u64 = adds.clone().map(|a| a.1).sum();
        let n = self.len();
        // Packed starts (read from a cache file) hold the first terms, so `low` would not be
        // indexed by term: those are rebuilt.
        if self.packed.is_none()
            && self.steps.is_empty()
            && u32::try_from(self.get(n - 1) + total).is_ok()
        {
            if let Some(low) = self.low.tail_mut() {
                let (mut from, mut added) = (0usize, 0u32);
                for (t, len) in adds {
                    for v in &mut low[from..=t as usize] {
                        *v += added;
                    }
                    from = t as usize + 1;
                    added += len as u32;
                }
                for v in &mut low[from..] {
                    *v += added;
                }
                return;
            }
        }
        let mut added = 0u64;
        let mut next = adds.peekable();
        let mut moved = Starts::default();
        moved.low.reserve(n);
        for i in 0..n {
            moved.push(self.get(i) + added);
            while let Some((t, len)) = next.next_if(|a| a.0 as usize == i) {
                debug_assert_eq!(t as usize, i);
                added += len;
            }
        }
        *self = moved;
    }

    /// Raises the last value to `v` (on the heap: a mapped run is never extended in place).
    fn set_last(&mut self, v: u64) {
        self.low
            .pop_tail()
            .expect("the last run start is on the heap");
        let i = self.low.len() as u32;
        while self.steps.last() == Some(&i) {
            self.steps.pop();
        }
        self.push(v);
    }
}

/// Terms per block of [`PackedStarts`].
const BLOCK_TERMS: usize = 64;

/// Bytes of a block of [`PackedStarts`]: the block's first start and the offset of its first
/// escape (4 bytes each, little-endian), then a nibble per term (the low one first).
const BLOCK_BYTES: usize = 8 + BLOCK_TERMS / 2;

/// The nibble of a run of at least this many bytes, whose length less this follows in the
/// escapes as a LEB128 number.
const NIBBLE_ESCAPE: u8 = 15;

/// Run starts as a cache file stores them, read where they lie (a mapped file's pages): in
/// blocks of [`BLOCK_TERMS`] terms, each with its first start in full and then the length of
/// each term's run in four bits, a length of [`NIBBLE_ESCAPE`] or more continuing in a
/// separate stream of escapes. Most of a large tree's terms are seen once or twice, their
/// runs a few bytes long: the kernel's 4.1M starts take 3.0 MB instead of 16.4, and reading
/// one sums at most 63 nibbles of one block of 40 bytes.
#[derive(Debug, Clone)]
pub(crate) struct PackedStarts {
    blocks: Bytes,
    escapes: Bytes,
    /// Starts held: one more than terms.
    len: usize,
}

/// Writes [`PackedStarts`] from the run lengths, one term after another.
#[derive(Debug)]
pub(crate) struct PackWriter {
    start: u64,
    block: [u8; BLOCK_BYTES],
    /// Terms in `block`.
    k: usize,
    escapes: Vec<u8>,
}

impl PackWriter {
    pub fn new() -> PackWriter {
        let mut w = PackWriter {
            start: 0,
            block: [0; BLOCK_BYTES],
            k: 0,
            escapes: Vec::new(),
        };
        w.begin();
        w
    }

    /// Starts a block at the present start and escape.
    fn begin(&mut self) {
        self.block = [0; BLOCK_BYTES];
        self.block[..4].copy_from_slice(&(self.start as u32).to_le_bytes());
        self.block[4..8].copy_from_slice(&(self.escapes.len() as u32).to_le_bytes());
        self.k = 0;
    }

    /// The next term's run is `len` bytes long; a full block is appended to `out`. `None`
    /// once the runs or escapes pass 4 GiB, which the file cannot number.
    pub fn push(&mut self, len: u64, out: &mut Vec<u8>) -> Option<()> {
        let nibble = if len >= u64::from(NIBBLE_ESCAPE) {
            put_var(&mut self.escapes, len - u64::from(NIBBLE_ESCAPE));
            NIBBLE_ESCAPE
        } else {
            len as u8
        };
        self.block[8 + self.k / 2] |= nibble << (4 * (self.k % 2));
        self.k += 1;
        self.start = self.start.checked_add(len)?;
        if self.start > u64::from(u32::MAX) || self.escapes.len() > u32::MAX as usize {
            return None;
        }
        if self.k == BLOCK_TERMS {
            out.extend_from_slice(&self.block);
            self.begin();
        }
        Some(())
    }

    /// Appends the last block (the one holding the final start, the runs' length) to `out`;
    /// returns the escapes and the runs' length.
    pub fn finish(self, out: &mut Vec<u8>) -> (Vec<u8>, u64) {
        out.extend_from_slice(&self.block);
        (self.escapes, self.start)
    }
}

/// The nibble of the `k`th term of a block of [`PackedStarts`].
#[inline]
fn nibble(block: &[u8], k: usize) -> u8 {
    block[8 + k / 2] >> (4 * (k % 2)) & 15
}

/// The length of the `k`th term's run in a block of [`PackedStarts`]: its nibble, or for
/// [`NIBBLE_ESCAPE`] the escape at `escapes[*at..]` (moving `at` past it) plus the escape;
/// `None` for an escape that does not read.
#[inline]
fn run_len(block: &[u8], k: usize, escapes: &[u8], at: &mut usize) -> Option<u64> {
    match nibble(block, k) {
        NIBBLE_ESCAPE => checked_var(escapes, at)?.checked_add(u64::from(NIBBLE_ESCAPE)),
        n => Some(u64::from(n)),
    }
}

impl PackedStarts {
    /// The bytes of the blocks of `terms` terms.
    pub fn blocks_len(terms: usize) -> Option<usize> {
        (terms / BLOCK_TERMS)
            .checked_add(1)?
            .checked_mul(BLOCK_BYTES)
    }

    /// The starts of `terms` terms in `blocks` and `escapes`, checked in full: every block's
    /// start and escape offset where the lengths before it put them, the unused nibbles of
    /// the last block zero, every escape read, the last start `runs_len`; `None` otherwise.
    pub fn checked(
        blocks: Bytes,
        escapes: Bytes,
        terms: usize,
        runs_len: usize,
    ) -> Option<PackedStarts> {
        let p = PackedStarts {
            blocks,
            escapes,
            len: terms.checked_add(1)?,
        };
        let (b, esc) = (p.blocks.as_slice(), p.escapes.as_slice());
        if b.len() != PackedStarts::blocks_len(terms)? {
            return None;
        }
        let (mut start, mut at) = (0u64, 0usize);
        for (i, block) in b.chunks_exact(BLOCK_BYTES).enumerate() {
            if u64::from(u32::from_le_bytes(block[..4].try_into().ok()?)) != start
                || u32::from_le_bytes(block[4..8].try_into().ok()?) as usize != at
            {
                return None;
            }
            for k in 0..BLOCK_TERMS {
                if i * BLOCK_TERMS + k >= terms {
                    if nibble(block, k) != 0 {
                        return None;
                    }
                    continue;
                }
                start = start.checked_add(run_len(block, k, esc, &mut at)?)?;
                if start > runs_len as u64 {
                    return None;
                }
            }
        }
        (start == runs_len as u64 && at == esc.len()).then_some(p)
    }

    /// Starts held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Start `i` (below [`PackedStarts::len`]).
    #[inline]
    fn get(&self, i: usize) -> u64 {
        self.walk(i, false).0
    }

    /// Starts `i` and `i + 1` (`i + 1` below [`PackedStarts::len`]).
    #[inline]
    fn pair(&self, i: usize) -> (u64, u64) {
        if (i + 1).is_multiple_of(BLOCK_TERMS) {
            (self.get(i), self.get(i + 1))
        } else {
            self.walk(i, true)
        }
    }

    /// Start `i`, and with `next` the one after it in the same block. The bytes were checked
    /// at load: a file changed under the mapping reads as wrong numbers, never out of bounds.
    #[inline]
    fn walk(&self, i: usize, next: bool) -> (u64, u64) {
        let at = i / BLOCK_TERMS * BLOCK_BYTES;
        let Some(block) = self.blocks.as_slice().get(at..at + BLOCK_BYTES) else {
            return (0, 0);
        };
        let mut start = u64::from(u32::from_le_bytes(block[..4].try_into().unwrap_or([0; 4])));
        let mut esc = u32::from_le_bytes(block[4..8].try_into().unwrap_or([0; 4])) as usize;
        let escapes = self.escapes.as_slice();
        let mut len = |k: usize| run_len(block, k, escapes, &mut esc).unwrap_or(0);
        let k = i % BLOCK_TERMS;
        for j in 0..k {
            start += len(j);
        }
        let end = if next { start + len(k) } else { start };
        (start, end)
    }

    /// The end of each term's run, in term order: one walk over the blocks.
    fn ends(&self) -> impl Iterator<Item = u64> + '_ {
        let (blocks, escapes) = (self.blocks.as_slice(), self.escapes.as_slice());
        let (mut start, mut at) = (0u64, 0usize);
        (0..self.len - 1).map(move |t| {
            let at_block = t / BLOCK_TERMS * BLOCK_BYTES;
            start += blocks
                .get(at_block..at_block + BLOCK_BYTES)
                .and_then(|block| run_len(block, t % BLOCK_TERMS, escapes, &mut at))
                .unwrap_or(0);
            start
        })
    }

    /// Bytes read from a mapped cache file.
    fn mapped_bytes(&self) -> usize {
        self.blocks.mapped_bytes() + self.escapes.mapped_bytes()
    }

    /// Heap bytes.
    fn heap_bytes(&self) -> usize {
        self.blocks.heap_bytes() + self.escapes.heap_bytes()
    }
}

/// Pending postings merged at once: big enough that merges are rare during a build (each
/// moves the whole buffer), small enough that they, their lists and the map holding them
/// (~30 bytes a posting in all) stay a small part of a build's peak memory. On the kernel,
/// 1M instead of 2M took the in-process peak from 463-479 to 440-450 MB for ~2% more CPU.
const FLUSH_AT: usize = 1 << 20;

/// Deferred postings at the end of an update above which [`Postings::settle`] merges them
/// into the runs rather than keeping them pending.
const SETTLE_PENDING_AT: usize = FLUSH_AT / 16;

/// Bytes of [`Deferred`] records at which they are merged into the runs. A merge also needs
/// 16 bytes a record (their order, sorted through a second buffer) and 12 a term (what it
/// adds): with records of 12-20 bytes, about 2.5 times this in all, less than what
/// [`FLUSH_AT`] pending postings took.
const DEFER_AT: usize = 8 << 20;

/// Room past [`DEFER_AT`] reserved in the deferred log, for the record that crosses it.
const DEFER_SLACK: usize = 64 << 10;

/// Pending postings of an index whose runs are mapped above which they are merged anyway,
/// into a heap copy of the runs (a save maps merged runs again): only when saves keep
/// failing while files change.
const MAPPED_FLUSH_AT: usize = 4 * FLUSH_AT;

/// Runs at least this long keep their count and last chunk in [`Postings::long`].
const LONG_RUN: usize = 48;

/// How many records ahead [`Postings::merge_deferred`] asks for the next records it reads.
const RECORDS_AHEAD: usize = 16;

impl Default for Postings {
    fn default() -> Postings {
        Postings {
            bytes: Bytes::default(),
            starts: Starts::zero(),
            long: HashMap::default(),
            pending: HashMap::default(),
            pending_len: 0,
            deferred: Deferred::default(),
            total: 0,
        }
    }
}

/// Appends `v` as a LEB128 number (seven bits a byte, low first), the encoding of the runs.
pub(in crate::retrieve) fn put_var(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The code of a posting in the two low bits of its first number: tf 1, 2 or 3 and no symbol
/// (0, 1, 2; 85% of the kernel's 56.8M postings), or [`ESCAPE`].
const ESCAPE: u64 = 3;

/// A posting as the runs hold it: `gap << 2 | code` (the chunk-id gap to the previous
/// posting), then, for an [`ESCAPE`], `tf << 1 | has_sym` and `sym` when set; each a LEB128
/// number. A posting with a small gap and tf 1 is one byte (the kernel's postings took 2.4
/// bytes each with tf in a number of its own, 1.8 this way).
fn encode(out: &mut Vec<u8>, prev: u32, p: Posting) {
    let code = match (p.tf, p.sym) {
        (1..=3, 0) => u64::from(p.tf) - 1,
        _ => ESCAPE,
    };
    put_var(out, u64::from(p.chunk.wrapping_sub(prev)) << 2 | code);
    if code == ESCAPE {
        put_var(out, u64::from(p.tf) << 1 | u64::from(p.sym > 0));
        if p.sym > 0 {
            put_var(out, u64::from(p.sym));
        }
    }
}

/// Appends `list` (chunk ids above `prev`, in order) as [`encode`] writes postings that
/// follow one in chunk `prev`; returns the chunk of the last (`prev` if none).
fn encode_list(out: &mut Vec<u8>, mut prev: u32, list: &[Posting]) -> u32 {
    for p in list {
        encode(out, prev, *p);
        prev = p.chunk;
    }
    prev
}

impl Postings {
    /// Room for `terms` terms and `bytes` bytes of runs (a restored index knows both).
    pub fn with_capacity(terms: usize, bytes: usize) -> Postings {
        let mut p = Postings::default();
        p.starts.low.reserve(terms);
        p.bytes.heap().reserve(bytes);
        p
    }

    /// Terms held.
    pub fn terms(&self) -> usize {
        self.starts.len() - 1
    }

    /// Adds a term with no postings; its id is the previous [`Postings::terms`].
    pub fn add_term(&mut self) {
        self.starts.push(self.bytes.len() as u64);
    }

    /// The stored run of term `t` (empty for an unknown term).
    fn run(&self, t: usize) -> &[u8] {
        if t + 1 < self.starts.len() {
            let (a, b) = self.starts.pair(t);
            self.bytes
                .as_slice()
                .get(a as usize..b as usize)
                .unwrap_or(&[])
        } else {
            &[]
        }
    }

    /// Postings in term `t`'s stored run, and the chunk of its last (0 if none).
    fn stored(&self, t: u32) -> (u32, u32) {
        if let Some(&v) = self.long.get(&t) {
            return v;
        }
        let mut it = self.stored_list(t);
        let mut n = 0;
        while it.next().is_some() {
            n += 1;
        }
        (n, it.prev)
    }

    /// Records term `t`'s count and last chunk if its run is long (see [`Postings::long`]).
    fn note(&mut self, t: u32, count: u32, last: u32) {
        if self.run(t as usize).len() >= LONG_RUN {
            self.long.insert(t, (count, last));
        }
    }

    /// Postings of `term` (dead chunks included).
    pub fn len(&self, term: u32) -> usize {
        debug_assert!(self.deferred.is_empty(), "deferred postings are settled");
        self.stored(term).0 as usize + self.pending.get(&term).map_or(0, Vec::len)
    }

    /// Postings held in all.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Adds `list` to `term`'s postings (chunk ids above those it has, in order): at the end
    /// of its run when it is the last term's, else to its pending list (one look-up for all).
    pub fn extend(&mut self, term: u32, list: impl IntoIterator<Item = Posting>) {
        let mut list = list.into_iter().peekable();
        if list.peek().is_none() {
            return;
        }
        let t = term as usize;
        if t + 2 == self.starts.len()
            && !self.pending.contains_key(&term)
            && !self.bytes.is_mapped()
        {
            let (mut count, mut last) = self.stored(term);
            let buf = self.bytes.heap();
            for p in list {
                encode(buf, last, p);
                last = p.chunk;
                count += 1;
                self.total += 1;
            }
            let end = buf.len() as u64;
            self.starts.set_last(end);
            self.note(term, count, last);
            return;
        }
        // Postings deferred earlier come first (the last term has none: a term is deferred
        // only while another follows it).
        self.merge_deferred();
        let v = self.pending.entry(term).or_default();
        let before = v.len();
        v.extend(list);
        self.pending_len += v.len() - before;
        self.total += v.len() - before;
    }

    /// Adds `list` to `term`'s postings as [`Postings::extend`] does, for a build: a posting
    /// that cannot go at the end of its run waits encoded in [`Deferred`] (merged when enough
    /// have gathered, or by [`Postings::settle`], which must come before the postings are
    /// read).
    pub fn defer(&mut self, term: u32, list: impl IntoIterator<Item = Posting>) {
        if term as usize + 2 == self.starts.len()
            || self.bytes.is_mapped()
            || !self.pending.is_empty()
        {
            self.extend(term, list);
            return;
        }
        let d = &mut self.deferred;
        if d.log.capacity() == 0 {
            // Room for a full log at once: grown by doubling, each step was a copy that left
            // the one before freed in the allocator's arena (it is kept from merge to merge).
            d.log.reserve_exact(DEFER_AT + DEFER_SLACK);
        }
        let at = d.log.len();
        d.log.extend_from_slice(&term.to_le_bytes());
        // The body is written first; its header (known only then) is appended after it and
        // rotated in front of it.
        let head = at + 4;
        let (mut count, mut last) = (0u32, 0u32);
        for p in list {
            encode(&mut d.log, last, p);
            last = p.chunk;
            count += 1;
        }
        if count == 0 {
            d.log.truncate(at);
            return;
        }
        let len = d.log.len() - head;
        for v in [u64::from(count), u64::from(last), len as u64] {
            put_var(&mut d.log, v);
        }
        let header = d.log.len() - head - len;
        d.log[head..].rotate_right(header);
        d.records += 1;
        d.postings += count as usize;
        self.total += count as usize;
        if d.log.len() >= DEFER_AT {
            self.merge_deferred();
        }
    }

    /// Ends a build's [`Postings::defer`] calls: a few deferred postings (an update's) join
    /// `pending`, so that a small update does not move every run; more are merged into the
    /// runs (decoding them into `pending` at the end of a cold build held the log and the
    /// map at once: 16 MB more at the peak of a 200k-file build, and kept by the allocator).
    pub fn settle(&mut self) {
        if self.deferred.is_empty() {
            // The log's room, kept between merges, is not needed once the build ends.
            self.deferred.log = Vec::new();
            return;
        }
        if self.deferred.postings + self.pending_len > SETTLE_PENDING_AT {
            self.merge_deferred();
            self.deferred.log = Vec::new();
            return;
        }
        let d = std::mem::take(&mut self.deferred);
        let mut at = 0;
        while at < d.log.len() {
            let (r, next) = d.record(at);
            let list = self.pending.entry(r.term).or_default();
            list.extend(PostingIter {
                bytes: r.body,
                ..PostingIter::default()
            });
            at = next;
        }
        self.pending_len += d.postings;
    }

    /// Merges the [`Deferred`] postings into the runs, as [`Postings::flush`] merges pending
    /// ones: each stored run moves once, and each record is copied as it is but for its
    /// first posting, whose gap is taken again from the chunk before it.
    fn merge_deferred(&mut self) {
        if self.deferred.is_empty() {
            return;
        }
        debug_assert!(self.pending.is_empty() && !self.bytes.is_mapped());
        let d = std::mem::take(&mut self.deferred);
        let order = d.by_term();
        let term_of = |k: u64| (k >> 32) as u32;
        let offset_of = |k: u64| k as u32 as usize;
        let mut one = Vec::with_capacity(16);
        // (term, bytes added to its run, the chunk of its stored run's last posting), by term.
        let mut groups: Vec<(u32, u32, u32)> = Vec::new();
        let mut added = 0usize;
        // Records are read in term order, all over the log (8 MB, beyond the second-level
        // cache): each is asked for `RECORDS_AHEAD` records before it is read, so that
        // those misses overlap instead of stalling one after another.
        let ahead = |k: usize| {
            if let Some(&o) = order.get(k) {
                prefetch(d.log.as_ptr().wrapping_add(offset_of(o)));
            }
        };
        for k in 0..RECORDS_AHEAD {
            ahead(k);
        }
        let mut i = 0;
        while i < order.len() {
            let t = term_of(order[i]);
            let (mut count, base) = self.stored(t);
            let (mut prev, mut len) = (base, 0usize);
            while i < order.len() && term_of(order[i]) == t {
                ahead(i + RECORDS_AHEAD);
                let (r, _) = d.record(offset_of(order[i]));
                let (p, first) = first_posting(r.body);
                one.clear();
                encode(&mut one, prev, p);
                len += one.len() + r.body.len() - first;
                count += r.count;
                prev = r.last;
                i += 1;
            }
            if self.run(t as usize).len() + len >= LONG_RUN {
                self.long.insert(t, (count, prev));
            }
            groups.push((t, len as u32, base));
            added += len;
        }
        let bytes = self.bytes.heap();
        let old_len = bytes.len();
        let mut shift = added;
        bytes.resize(old_len + shift, 0);
        let mut hi = old_len;
        let mut j = order.len();
        // The records still to be asked for are `order[..asked]` (this pass goes down).
        let mut asked = order.len();
        for &(t, len, base) in groups.iter().rev() {
            let mut s = j;
            while s > 0 && term_of(order[s - 1]) == t {
                s -= 1;
            }
            while asked > s.saturating_sub(RECORDS_AHEAD) {
                asked -= 1;
                prefetch(d.log.as_ptr().wrapping_add(offset_of(order[asked])));
            }
            let end = self.starts.get(t as usize + 1) as usize;
            bytes.copy_within(end..hi, end + shift);
            shift -= len as usize;
            let mut w = end + shift;
            let mut prev = base;
            for &k in &order[s..j] {
                let (r, _) = d.record(offset_of(k));
                let (p, first) = first_posting(r.body);
                one.clear();
                encode(&mut one, prev, p);
                bytes[w..w + one.len()].copy_from_slice(&one);
                w += one.len();
                let rest = &r.body[first..];
                bytes[w..w + rest.len()].copy_from_slice(rest);
                w += rest.len();
                prev = r.last;
            }
            debug_assert_eq!(w, end + shift + len as usize);
            hi = end;
            j = s;
        }
        self.starts
            .add_after(groups.iter().map(|&(t, len, _)| (t, u64::from(len))));
        // The log's room is kept for the next records ([`Postings::settle`] releases it).
        let mut log = d.log;
        log.clear();
        self.deferred.log = log;
    }

    /// Merges pending postings when enough have gathered (call between files).
    pub fn maybe_flush(&mut self) {
        if self.pending_len >= FLUSH_AT {
            self.flush();
        }
    }

    /// The limit of pending postings above which [`Postings::flush`] merges them.
    fn flush_limit(&self) -> usize {
        if self.bytes.is_mapped() {
            MAPPED_FLUSH_AT
        } else {
            0
        }
    }

    /// Merges every pending posting into the stored runs: the buffer grows by their encoded
    /// size once, and each run moves once, from the last term down (in place, so a merge
    /// needs no second buffer). Mapped runs are left as they are unless
    /// [`MAPPED_FLUSH_AT`] postings wait.
    pub fn flush(&mut self) {
        self.merge_deferred();
        if self.pending.is_empty() || self.pending_len < self.flush_limit() {
            return;
        }
        // (term, encoded postings, count and last chunk of the run they extend).
        let mut adds: Vec<(u32, Vec<u8>, u32, u32)> = std::mem::take(&mut self.pending)
            .into_iter()
            .map(|(t, list)| {
                let mut enc = Vec::with_capacity(list.len() * 3);
                let (count, prev) = self.stored(t);
                let last = encode_list(&mut enc, prev, &list);
                (t, enc, count + list.len() as u32, last)
            })
            .collect();
        self.pending_len = 0;
        adds.sort_unstable_by_key(|a| a.0);
        let bytes = self.bytes.heap();
        let old_len = bytes.len();
        let mut shift: usize = adds.iter().map(|a| a.1.len()).sum();
        bytes.resize(old_len + shift, 0);
        let mut hi = old_len;
        for (t, enc, ..) in adds.iter().rev() {
            let end = self.starts.get(*t as usize + 1) as usize;
            bytes.copy_within(end..hi, end + shift);
            shift -= enc.len();
            bytes[end + shift..end + shift + enc.len()].copy_from_slice(enc);
            hi = end;
        }
        self.starts
            .add_after(adds.iter().map(|(t, enc, ..)| (*t, enc.len() as u64)));
        for (t, _, count, last) in adds {
            self.note(t, count, last);
        }
    }

    /// The postings of `term`'s stored run (not its pending ones).
    fn stored_list(&self, term: u32) -> PostingIter<'_> {
        PostingIter {
            bytes: self.run(term as usize),
            at: 0,
            prev: 0,
            pending: [].iter(),
        }
    }

    /// The postings of `term` from a place a [`PostingIter::state`] of its list recorded,
    /// valid while [`Postings::shape`] of the term is what it was then.
    pub fn list_at(&self, term: u32, state: IterState) -> PostingIter<'_> {
        let pending = self.pending.get(&term).map_or(&[][..], Vec::as_slice);
        let skip = pending.len().saturating_sub(state.pending as usize);
        PostingIter {
            bytes: self.run(term as usize),
            at: state.at as usize,
            prev: state.prev,
            pending: pending[skip..].iter(),
        }
    }

    /// The length of `term`'s stored run and its pending postings: a place in its list
    /// ([`IterState`]) stays valid while these do not change.
    pub fn shape(&self, term: u32) -> (usize, usize) {
        (
            self.run(term as usize).len(),
            self.pending.get(&term).map_or(0, Vec::len),
        )
    }

    /// The postings of `term`, in chunk-id order.
    pub fn list(&self, term: u32) -> PostingIter<'_> {
        debug_assert!(self.deferred.is_empty(), "deferred postings are settled");
        PostingIter {
            pending: self
                .pending
                .get(&term)
                .map_or(&[][..], Vec::as_slice)
                .iter(),
            ..self.stored_list(term)
        }
    }

    /// Appends `term`'s postings to `out` in the run encoding (its stored run as it is, then
    /// its pending postings encoded after it: what a merge would make). The cache file
    /// stores runs this way ([`Postings::runs`] and [`Postings::encode_pending`]).
    #[cfg(test)]
    pub fn encoded(&self, term: u32, out: &mut Vec<u8>) {
        debug_assert!(self.deferred.is_empty(), "deferred postings are settled");
        out.extend_from_slice(self.run(term as usize));
        if let Some(list) = self.pending.get(&term) {
            encode_list(out, self.stored(term).1, list);
        }
    }

    /// The postings of a cache file: term `t`'s run is `runs[starts[t]..starts[t + 1]]`, the
    /// starts already checked against the runs' length ([`PackedStarts::checked`]). Every
    /// run is checked to be well formed, its chunk ids increasing and below `n_chunks`:
    /// `None` otherwise.
    pub fn checked(runs: Bytes, starts: PackedStarts, n_chunks: usize) -> Option<Postings> {
        let all = runs.as_slice();
        if starts.len() == 0 || starts.get(starts.len() - 1) != all.len() as u64 {
            return None;
        }
        let mut long = HashMap::default();
        let mut total = 0usize;
        let mut a = 0usize;
        for (t, b) in starts.ends().enumerate() {
            let b = usize::try_from(b).ok()?;
            let run = all.get(a..b)?;
            let (count, last) = check_run(run, n_chunks)?;
            if run.len() >= LONG_RUN {
                long.insert(t as u32, (count, last));
            }
            total += count as usize;
            a = b;
        }
        Some(Postings {
            bytes: runs,
            starts: Starts::packed(starts),
            long,
            pending: HashMap::default(),
            pending_len: 0,
            deferred: Deferred::default(),
            total,
        })
    }

    /// Reads the runs from `runs` and their starts from `starts` from now on: a mapped copy
    /// of what [`Postings::encoded`] gives for every term (the stored and pending postings
    /// merged), written by a save of this index in this state. The heap runs and the
    /// pending postings are released.
    pub fn attach(&mut self, runs: Region, starts: PackedStarts) {
        debug_assert!(self.deferred.is_empty(), "deferred postings are settled");
        debug_assert_eq!(starts.len(), self.starts.len());
        let merged: Vec<u32> = self.pending.keys().copied().collect();
        self.bytes = Bytes::Mapped(runs);
        self.starts = Starts::packed(starts);
        self.pending = HashMap::default();
        self.pending_len = 0;
        for t in merged {
            self.long.remove(&t);
            let (count, last) = self.stored(t);
            self.note(t, count, last);
        }
    }

    /// The mapped cache file the runs are read from, if they are.
    pub fn map(&self) -> Option<&Arc<Map>> {
        match &self.bytes {
            Bytes::Mapped(r) => Some(r.map()),
            Bytes::Heap(_) => None,
        }
    }

    /// Bytes of the runs and their starts read from a mapped cache file.
    pub fn mapped_bytes(&self) -> usize {
        self.bytes.mapped_bytes() + self.starts.mapped_bytes()
    }

    /// The length of `term`'s pending postings in the run encoding.
    pub fn pending_encoded_len(&self, term: u32) -> usize {
        debug_assert!(self.deferred.is_empty(), "deferred postings are settled");
        self.pending.get(&term).map_or(0, |list| {
            let mut enc = Vec::with_capacity(list.len() * 3);
            encode_list(&mut enc, self.stored(term).1, list);
            enc.len()
        })
    }

    /// Appends `term`'s pending postings to `out` in the run encoding (what follows its
    /// stored run in [`Postings::encoded`]).
    pub fn encode_pending(&self, term: u32, out: &mut Vec<u8>) {
        if let Some(list) = self.pending.get(&term) {
            encode_list(out, self.stored(term).1, list);
        }
    }

    /// Each term's stored run, in term order: a save's pass over all of them (one walk over
    /// packed starts instead of one per term).
    pub fn runs(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let all = self.bytes.as_slice();
        let mut a = 0usize;
        self.starts.iter().skip(1).map(move |b| {
            let b = b as usize;
            let run = all.get(a..b).unwrap_or(&[]);
            a = b;
            run
        })
    }

    /// Keeps the postings whose chunk `map` gives a new id for (in the same order: a
    /// compaction renumbers densely), rewriting the runs.
    pub fn remap(&mut self, map: impl Fn(u32) -> Option<u32>) {
        let mut out = Postings::with_capacity(self.terms(), self.bytes.len());
        for t in 0..self.terms() as u32 {
            out.add_term();
            out.extend(
                t,
                self.list(t)
                    .filter_map(|p| map(p.chunk).map(|chunk| Posting { chunk, ..p })),
            );
        }
        *self = out;
        self.shrink();
    }

    /// Merges pending postings (unless the runs are mapped) and releases spare capacity
    /// (after a build).
    pub fn shrink(&mut self) {
        self.flush();
        if let Bytes::Heap(b) = &mut self.bytes {
            b.shrink_to_fit();
        }
        self.starts.low.shrink_to_fit();
        self.long.shrink_to_fit();
        self.pending.shrink_to_fit();
    }

    /// Approximate heap bytes.
    pub fn bytes(&self) -> usize {
        self.bytes.heap_bytes()
            + self.starts.low.heap_bytes()
            + self
                .starts
                .packed
                .as_ref()
                .map_or(0, PackedStarts::heap_bytes)
            + self.long.len() * 16
            + self.pending.len() * 32
            + self.pending_len * std::mem::size_of::<Posting>()
            + self.deferred.log.capacity()
    }
}

/// A LEB128 number of at most 64 bits at `b[*at..]`, checked (`None` past the end or 64
/// bits); moves `at` past it. The cache files' reader, shared.
pub(in crate::retrieve) use crate::cache_file::checked_var;

/// The number of postings in `run` and the chunk of its last, if `run` is a well-formed run
/// ([`encode`]) of increasing chunk ids below `n_chunks` that ends where its last posting does.
fn check_run(run: &[u8], n_chunks: usize) -> Option<(u32, u32)> {
    let (mut at, mut count, mut prev) = (0usize, 0u32, 0u32);
    while at < run.len() {
        let v = checked_var(run, &mut at)?;
        let gap = u32::try_from(v >> 2).ok()?;
        let chunk = prev.checked_add(gap)?;
        if (count > 0 && gap == 0) || chunk as usize >= n_chunks {
            return None;
        }
        if v & 3 == ESCAPE {
            let f = checked_var(run, &mut at)?;
            u16::try_from(f >> 1).ok()?;
            if f & 1 == 1 && u16::try_from(checked_var(run, &mut at)?).ok()? == 0 {
                return None;
            }
        }
        prev = chunk;
        count = count.checked_add(1)?;
    }
    Some((count, prev))
}

/// The postings of one term: its stored run, decoded as it goes, then its pending ones.
#[derive(Debug, Clone, Default)]
pub(crate) struct PostingIter<'a> {
    bytes: &'a [u8],
    at: usize,
    prev: u32,
    pending: std::slice::Iter<'a, Posting>,
}

/// The LEB128 number [`put_var`] wrote at `bytes[*at..]`, moving `at` past it.
#[inline]
pub(in crate::retrieve) fn get_var(bytes: &[u8], at: &mut usize) -> u64 {
    let mut v = 0u64;
    let mut shift = 0u32;
    loop {
        let b = bytes[*at];
        *at += 1;
        v |= u64::from(b & 0x7f).wrapping_shl(shift);
        if b & 0x80 == 0 {
            return v;
        }
        shift += 7;
    }
}

/// A place in a term's posting list: what [`Postings::list_at`] resumes from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct IterState {
    /// Offset in the stored run.
    at: u32,
    /// The chunk of the posting before (the base of the next gap).
    prev: u32,
    /// Pending postings not yet read.
    pending: u32,
}

impl PostingIter<'_> {
    /// Where the iterator is: [`Postings::list_at`] with it gives the postings still to come.
    #[inline]
    pub fn state(&self) -> IterState {
        IterState {
            at: self.at as u32,
            prev: self.prev,
            pending: self.pending.len() as u32,
        }
    }

    #[inline]
    fn var(&mut self) -> u64 {
        get_var(self.bytes, &mut self.at)
    }

    /// Calls `f` with each posting, in order, after `at(posting)` (if any) was prefetched for it and
    /// the next ones of a group of [`GROUP`]: ranking reads a chunk's metadata for every
    /// posting of a query term, in chunks scattered over a large index, and one cache miss
    /// after another was a fifth of a kernel query's CPU; asked for ahead, they overlap.
    #[inline]
    pub fn for_each_prefetched<T>(
        self,
        at: impl Fn(Posting) -> Option<*const T>,
        mut f: impl FnMut(Posting),
    ) {
        self.for_each_prefetched_while(at, |p| {
            f(p);
            true
        });
    }
}

impl PostingIter<'_> {
    /// [`PostingIter::for_each_prefetched`] that stops at the first posting for which `f`
    /// returns false (the rest are not passed; at most a group more were decoded).
    #[inline]
    pub fn for_each_prefetched_while<T>(
        mut self,
        at: impl Fn(Posting) -> Option<*const T>,
        mut f: impl FnMut(Posting) -> bool,
    ) {
        let mut group = [Posting {
            chunk: 0,
            tf: 0,
            sym: 0,
        }; GROUP];
        loop {
            let mut n = 0;
            while n < GROUP {
                let Some(p) = self.next() else { break };
                if let Some(a) = at(p) {
                    prefetch(a);
                }
                group[n] = p;
                n += 1;
            }
            for &p in &group[..n] {
                if !f(p) {
                    return;
                }
            }
            if n < GROUP {
                return;
            }
        }
    }
}

impl PostingIter<'_> {
    /// [`PostingIter::for_each_prefetched`] for the postings whose chunk is in `chunks` only
    /// (the list is in chunk order: the ones below are decoded and passed over, and the walk
    /// stops at the first one above).
    #[inline]
    pub fn for_each_prefetched_in<T>(
        mut self,
        chunks: std::ops::Range<u32>,
        at: impl Fn(Posting) -> Option<*const T>,
        mut f: impl FnMut(Posting),
    ) {
        let mut group = [Posting {
            chunk: 0,
            tf: 0,
            sym: 0,
        }; GROUP];
        loop {
            let mut n = 0;
            let mut past = false;
            while n < GROUP {
                let Some(p) = self.next() else { break };
                if p.chunk < chunks.start {
                    continue;
                }
                if p.chunk >= chunks.end {
                    past = true;
                    break;
                }
                if let Some(a) = at(p) {
                    prefetch(a);
                }
                group[n] = p;
                n += 1;
            }
            for &p in &group[..n] {
                f(p);
            }
            if n < GROUP || past {
                return;
            }
        }
    }
}

/// Postings decoded and prefetched at a time by [`PostingIter::for_each_prefetched`].
const GROUP: usize = 16;

impl Iterator for PostingIter<'_> {
    type Item = Posting;
    #[inline]
    fn next(&mut self) -> Option<Posting> {
        if self.at < self.bytes.len() {
            let v = self.var();
            let chunk = self.prev.wrapping_add((v >> 2) as u32);
            self.prev = chunk;
            let (tf, sym) = if v & 3 == ESCAPE {
                let f = self.var();
                let sym = if f & 1 == 1 { self.var() as u16 } else { 0 };
                ((f >> 1) as u16, sym)
            } else {
                ((v & 3) as u16 + 1, 0)
            };
            return Some(Posting { chunk, tf, sym });
        }
        self.pending.next().copied()
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

    /// The terms that have files, in order.
    pub fn terms_sorted(&self) -> Vec<u32> {
        let mut t: Vec<u32> = self.map.keys().copied().collect();
        t.sort_unstable();
        t
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
            assert_eq!(d.get(&format!("t{i}")), Some(i));
            assert_eq!(d.term(i), format!("t{i}"));
        }
        assert!(d.get("t5000").is_none());
        assert_eq!(d.len(), 5000);
        let mut d = TermDict::with_capacity(3000);
        let slots = d.table.len();
        for i in 0..3000u32 {
            d.intern(&format!("t{i}"));
        }
        assert_eq!(d.table.len(), slots, "reserved room needs no growth");
    }

    proptest::proptest! {
        /// A dictionary numbers terms in the order first met, gives a known term its number
        /// back and its text by number, through growth from empty or from a reserved size,
        /// for terms of any length (longer than a key's seven bits of length included).
        #[test]
        fn dictionary_numbers_as_a_map_does(
            terms in proptest::collection::vec("[a-c]{0,3}|[a-z\u{e9}_]{1,12}|x{120,140}", 1..3000),
            reserved in proptest::sample::select(vec![0usize, 16, 5000]),
        ) {
            let mut d = TermDict::with_capacity(reserved);
            let mut want: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
            for t in &terms {
                let next = want.len() as u32;
                let id = *want.entry(t.clone()).or_insert(next);
                proptest::prop_assert_eq!(d.intern(t), (id, id == next));
            }
            proptest::prop_assert_eq!(d.len(), want.len());
            for (t, &id) in &want {
                proptest::prop_assert_eq!(d.get(t), Some(id));
                proptest::prop_assert_eq!(d.term(id), t.as_str());
            }
            proptest::prop_assert_eq!(d.get("not a term"), None);
        }
    }

    #[test]
    fn fingerprints_intern_across_growth_and_prefetching_changes_no_id() {
        let fp = |i: u32| fingerprint(&format!("t{i}"));
        let mut d = TermIds::default();
        assert!(d.get("t0").is_none());
        d.prefetch(fp(0), Stage::Slot);
        for i in 0..8000u32 {
            for stage in [Stage::Slot, Stage::Key] {
                d.prefetch(fp(i + 7), stage);
            }
            assert_eq!(d.intern(fp(i)), (i, true));
        }
        assert_eq!(d.intern(fp(42)), (42, false));
        for i in 0..8000u32 {
            assert_eq!(d.get(&format!("t{i}")), Some(i));
            assert_eq!(d.fingerprint(i), fp(i));
        }
        assert!(d.get("t8000").is_none());
        assert_eq!(d.len(), 8000);
        // Restored at the size it needs, with room for new terms: every term still found.
        let mut d = TermIds::from_fingerprints(d.fps.to_vec()).unwrap();
        assert_eq!(d.slots.ids.len(), 8000 * 10 / FITTED_LOAD_TENTHS + 1);
        for i in 0..8000u32 {
            assert_eq!(d.get(&format!("t{i}")), Some(i));
        }
        let fitted = d.slots.ids.len();
        assert_eq!(d.intern(fp(8000)), (8000, true));
        assert_eq!(d.get("t8000"), Some(8000));
        assert_eq!(
            d.slots.ids.len(),
            fitted,
            "a fitted table has room for new terms"
        );
    }

    #[test]
    fn fingerprints_are_fixed() {
        // The cache file stores them: a change of hash would silently break every restore.
        // XXH3-64 of the reference implementation (C xxhash 0.8, through Python's `xxhash`).
        assert_eq!(fingerprint(""), 0x2d06_8005_38d3_94c2);
        assert_eq!(fingerprint("copy_from_user"), 0x39dc_4673_32ad_e5a8);
    }

    #[test]
    fn a_dictionary_built_at_once_finds_every_term_and_refuses_repeats() {
        let fps: Vec<u64> = (0..5000u32)
            .map(|i| fingerprint(&format!("t{i}é")))
            .collect();
        let d = TermIds::from_fingerprints(fps.clone()).expect("valid");
        for i in 0..5000u32 {
            assert_eq!(d.get(&format!("t{i}é")), Some(i));
        }
        assert!(d.get("t5000é").is_none());
        let mut d = d;
        assert_eq!(d.intern(fingerprint("new")), (5000, true));
        assert_eq!(d.intern(fingerprint("t7é")), (7, false));
        let mut rep = fps;
        rep.push(rep[3]);
        assert!(TermIds::from_fingerprints(rep).is_none());
        assert_eq!(
            TermIds::from_fingerprints(Vec::new()).unwrap().get("x"),
            None
        );
    }

    #[test]
    fn postings_keep_chunk_order_across_pending_merges_and_remaps() {
        let p = |c, tf, sym| Posting { chunk: c, tf, sym };
        let mut s = Postings::default();
        for _ in 0..4 {
            s.add_term();
        }
        // Term 3 is last: appended in place; terms 0-2 wait in pending.
        let mut want: Vec<Vec<Posting>> = vec![Vec::new(); 4];
        let mut chunk = 0u32;
        for round in 0..3u16 {
            for t in [3u32, 0, 2] {
                let q = p(chunk, round + 1, if t == 2 { 300 } else { 0 });
                s.extend(t, [q]);
                want[t as usize].push(q);
                chunk += 200; // gaps past one byte
            }
            if round == 1 {
                s.flush();
            }
        }
        let got = |s: &Postings, t: u32| s.list(t).collect::<Vec<_>>();
        for t in 0..4 {
            assert_eq!(got(&s, t), want[t as usize], "term {t}");
            assert_eq!(s.len(t), want[t as usize].len());
        }
        s.flush();
        for t in 0..4 {
            assert_eq!(got(&s, t), want[t as usize], "term {t} after flush");
        }
        assert_eq!(s.total(), 9);
        s.remap(|c| (c % 400 == 0).then_some(c / 400));
        let kept = |t: usize| -> Vec<Posting> {
            want[t]
                .iter()
                .filter(|q| q.chunk % 400 == 0)
                .map(|q| p(q.chunk / 400, q.tf, q.sym))
                .collect()
        };
        for t in 0..4 {
            assert_eq!(got(&s, t as u32), kept(t), "term {t} after remap");
        }
        assert!(got(&s, 9).is_empty());
    }

    #[test]
    fn run_starts_past_four_gibibytes_keep_their_high_half() {
        let g = 1u64 << 32;
        let mut s = Starts::zero();
        let want = [0, 5, g - 1, g, g + 7, 3 * g + 1, 3 * g + 1];
        for &v in &want[1..] {
            s.push(v);
        }
        for (i, &v) in want.iter().enumerate() {
            assert_eq!(s.get(i), v, "{i}");
        }
        s.set_last(5 * g);
        assert_eq!(s.get(6), 5 * g);
        assert_eq!(s.get(5), 3 * g + 1);
        s.set_last(3 * g + 2);
        assert_eq!((s.get(5), s.get(6)), (3 * g + 1, 3 * g + 2));
        assert_eq!(s.steps, [3, 5, 5]);
    }

    #[test]
    fn a_posting_is_one_byte_when_it_can_be_and_any_gap_and_counts_survive() {
        let p = |chunk, tf, sym| Posting { chunk, tf, sym };
        let mut s = Postings::default();
        s.add_term();
        let list = [
            p(3, 1, 0),
            p(4, 3, 0),
            p(5, 4, 0),
            p(6, 2, 1),
            p(7, 0, 9),
            p(1 << 31, u16::MAX, u16::MAX),
            p(u32::MAX, 1, 0),
        ];
        s.extend(0, list);
        assert_eq!(s.list(0).collect::<Vec<_>>(), list);
        // Two one-byte postings (gap < 32, tf 1 or 3, no symbol), then escapes.
        let mut one = Vec::new();
        encode(&mut one, 0, list[0]);
        encode(&mut one, 3, list[1]);
        assert_eq!(one, [3 << 2, 1 << 2 | 2]);
        encode(&mut one, 4, list[2]);
        assert_eq!(one.len(), 4, "tf 4: gap and code, then tf");
    }

    /// Random operations against a plain model (a `Vec` of postings per term): new terms,
    /// postings for any term in chunk order (in place or pending), merges, remaps.
    #[test]
    fn postings_agree_with_a_plain_model_under_random_operations() {
        use proptest::prelude::*;
        let config = ProptestConfig {
            cases: 256,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x5057),
            ..ProptestConfig::default()
        };
        // (operation, term pick, gap, tf, sym)
        let ops = prop::collection::vec(
            (
                0u8..12,
                any::<prop::sample::Index>(),
                1u32..70_000,
                // tf 1-3 without a symbol have a code of their own; the rest are escaped.
                prop_oneof![1u16..4, 0u16..400, Just(u16::MAX)],
                0u16..3,
            ),
            1..300,
        );
        proptest!(config, |(ops in ops)| {
            let mut s = Postings::default();
            let mut model: Vec<Vec<Posting>> = Vec::new();
            let mut chunk = 0u32;
            for (op, pick, gap, tf, sym) in ops {
                match op {
                    0 | 1 => {
                        s.add_term();
                        model.push(Vec::new());
                    }
                    2 => s.flush(),
                    3 if chunk > 0 => {
                        // Drop every third chunk, renumbering the rest densely.
                        let map = |c: u32| (!c.is_multiple_of(3)).then(|| c - c / 3 - 1);
                        s.remap(map);
                        for list in &mut model {
                            *list = list
                                .iter()
                                .filter_map(|p| map(p.chunk).map(|chunk| Posting { chunk, ..*p }))
                                .collect();
                        }
                        chunk = chunk - chunk / 3;
                    }
                    10 | 11 if !model.is_empty() => {
                        // Several postings at once (none when `sym` is 0).
                        let t = pick.index(model.len());
                        let list: Vec<Posting> = (0..sym * 2)
                            .map(|i| {
                                chunk += gap + u32::from(i);
                                Posting { chunk, tf, sym }
                            })
                            .collect();
                        s.extend(t as u32, list.iter().copied());
                        model[t].extend(list);
                    }
                    _ if !model.is_empty() => {
                        chunk += gap;
                        let t = pick.index(model.len());
                        let p = Posting { chunk, tf, sym };
                        s.extend(t as u32, [p]);
                        model[t].push(p);
                    }
                    _ => {}
                }
            }
            prop_assert_eq!(s.terms(), model.len());
            prop_assert_eq!(s.total(), model.iter().map(Vec::len).sum::<usize>());
            for (t, want) in model.iter().enumerate() {
                prop_assert_eq!(&s.list(t as u32).collect::<Vec<_>>(), want);
                prop_assert_eq!(s.len(t as u32), want.len());
            }
            // What the cache file stores, read back as checked runs.
            let (runs, starts) = file_runs(&s);
            let starts = pack(&starts, runs.len()).expect("well formed starts");
            let back = Postings::checked(Bytes::Heap(runs), starts, usize::MAX)
                .expect("well formed");
            prop_assert_eq!(back.total(), s.total());
            for (t, want) in model.iter().enumerate() {
                prop_assert_eq!(&back.list(t as u32).collect::<Vec<_>>(), want);
                prop_assert_eq!(back.len(t as u32), want.len());
            }
        });
    }

    #[test]
    fn the_deferred_log_keeps_its_room_between_merges_and_releases_it_when_settled() {
        // Enough postings that the end of the build merges them (not an update's few).
        let mut s = Postings::default();
        let terms = 2000u32;
        for _ in 0..terms {
            s.add_term();
        }
        let per_term = SETTLE_PENDING_AT / terms as usize + 8;
        let mut want = vec![Vec::new(); terms as usize];
        for round in 0..per_term as u32 {
            // A term before the last: its postings wait in the log.
            for t in 0..terms - 1 {
                let p = Posting {
                    chunk: round * terms + t + 1,
                    tf: 1 + (t % 5) as u16,
                    sym: (t % 3) as u16,
                };
                s.defer(t, [p]);
                want[t as usize].push(p);
            }
            if round == 0 {
                assert!(s.deferred.log.capacity() >= DEFER_AT, "room for a full log");
                s.merge_deferred();
                assert!(s.deferred.is_empty());
                assert!(s.deferred.log.capacity() >= DEFER_AT, "kept after a merge");
            }
        }
        assert!(s.deferred.postings > SETTLE_PENDING_AT);
        s.settle();
        assert_eq!(s.deferred.log.capacity(), 0, "released at the end");
        assert!(s.pending.is_empty(), "merged into the runs, not pending");
        for (t, want) in want.iter().enumerate() {
            assert_eq!(&s.list(t as u32).collect::<Vec<_>>(), want);
        }
    }

    #[test]
    fn deferred_postings_merge_to_the_runs_pending_ones_make() {
        use proptest::prelude::*;
        let config = ProptestConfig {
            cases: 256,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0xdefe),
            ..ProptestConfig::default()
        };
        // (operation, term pick, gap, tf, postings)
        let ops = prop::collection::vec(
            (
                0u8..16,
                any::<prop::sample::Index>(),
                prop_oneof![1u32..4, 1u32..70_000],
                prop_oneof![1u16..4, 0u16..400, Just(u16::MAX)],
                1usize..40,
            ),
            1..300,
        );
        proptest!(config, |(ops in ops)| {
            // The same postings deferred (`s`) and added as pending ones (`plain`).
            let mut s = Postings::default();
            let mut plain = Postings::default();
            let mut model: Vec<Vec<Posting>> = Vec::new();
            let mut chunk = 0u32;
            for (op, pick, gap, tf, n) in ops {
                match op {
                    0..=2 => {
                        s.add_term();
                        plain.add_term();
                        model.push(Vec::new());
                    }
                    3 => s.merge_deferred(),
                    4 => {
                        // An update's end: few enough postings join `pending` (and later
                        // ones with them, until a flush).
                        s.settle();
                        if pick.index(2) == 0 {
                            s.flush();
                        }
                    }
                    5 => {
                        s.flush();
                        plain.flush();
                    }
                    6 if !model.is_empty() => {
                        // Added the old way in between: the deferred ones stay first.
                        chunk += gap;
                        let t = pick.index(model.len());
                        let p = Posting { chunk, tf, sym: 0 };
                        s.extend(t as u32, [p]);
                        plain.extend(t as u32, [p]);
                        model[t].push(p);
                        s.flush();
                    }
                    _ if !model.is_empty() => {
                        // A batch: several terms, each with a list.
                        let first = chunk + 1;
                        chunk += n as u32 * gap;
                        for k in 0..(op as usize - 6).min(model.len()) {
                            let t = (pick.index(model.len()) + k * 7) % model.len();
                            let list: Vec<Posting> = (0..n)
                                .filter(|i| (i + k + t) % 3 != 1)
                                .map(|i| Posting {
                                    chunk: first + i as u32 * gap,
                                    tf: tf.wrapping_add(i as u16),
                                    sym: (i % 4 == 3).into(),
                                })
                                .collect();
                            s.defer(t as u32, list.iter().copied());
                            plain.extend(t as u32, list.iter().copied());
                            model[t].extend(list);
                        }
                    }
                    _ => {}
                }
            }
            s.settle();
            // The log's room, kept from merge to merge, is released at the end.
            prop_assert_eq!(s.deferred.log.capacity(), 0);
            prop_assert_eq!(s.terms(), model.len());
            prop_assert_eq!(s.total(), model.iter().map(Vec::len).sum::<usize>());
            for (t, want) in model.iter().enumerate() {
                prop_assert_eq!(&s.list(t as u32).collect::<Vec<_>>(), want);
                prop_assert_eq!(s.len(t as u32), want.len());
            }
            // Byte for byte what pending postings would have made, merged or not.
            prop_assert_eq!(file_runs(&s), file_runs(&plain));
            s.flush();
            plain.flush();
            prop_assert_eq!(&s.bytes.as_slice(), &plain.bytes.as_slice());
            prop_assert_eq!(s.starts.low.to_vec(), plain.starts.low.to_vec());
            prop_assert_eq!(&s.long, &plain.long);
        });
    }

    #[test]
    fn a_merge_of_deferred_postings_keeps_every_one_in_order() {
        // Two terms, then a third that takes postings at the end of the runs; the first two
        // get theirs deferred over several batches, then merged at once.
        let mut s = Postings::default();
        for _ in 0..3 {
            s.add_term();
        }
        let p = |chunk, tf| Posting { chunk, tf, sym: 0 };
        s.extend(0, [p(1, 1), p(2, 7)]);
        s.extend(2, [p(3, 1)]);
        s.flush();
        s.defer(1, [p(4, 2), p(200, 1)]);
        s.defer(0, [p(300, 1)]);
        s.defer(2, [p(301, 3)]); // the last term's: at the end of its run at once
        assert_eq!(
            s.deferred.records, 2,
            "the last term's postings merge nothing"
        );
        s.defer(1, [p(302, 1), p(100_000, 9)]);
        s.defer(0, [p(100_001, 1)]);
        assert!(!s.deferred.is_empty());
        s.merge_deferred();
        assert!(s.deferred.is_empty() && s.pending.is_empty());
        let got = |s: &Postings, t| s.list(t).map(|p| (p.chunk, p.tf)).collect::<Vec<_>>();
        assert_eq!(got(&s, 0), [(1, 1), (2, 7), (300, 1), (100_001, 1)]);
        assert_eq!(got(&s, 1), [(4, 2), (200, 1), (302, 1), (100_000, 9)]);
        assert_eq!(got(&s, 2), [(3, 1), (301, 3)]);
        assert_eq!(s.total(), 10);
        // A few left at the end join the pending ones instead of moving the runs.
        s.defer(0, [p(100_002, 2)]);
        let runs = s.bytes.as_slice().to_vec();
        s.settle();
        assert_eq!(s.bytes.as_slice(), &runs[..]);
        assert_eq!(s.pending_len, 1);
        assert_eq!(got(&s, 0).last(), Some(&(100_002, 2)));
    }

    /// The runs and run starts a cache file stores for `p`.
    fn file_runs(p: &Postings) -> (Vec<u8>, Vec<u32>) {
        let mut runs = Vec::new();
        let mut starts = vec![0u32];
        for t in 0..p.terms() as u32 {
            p.encoded(t, &mut runs);
            starts.push(runs.len() as u32);
        }
        (runs, starts)
    }

    /// `starts` as a cache file stores them, checked against runs of `runs_len` bytes.
    fn pack(starts: &[u32], runs_len: usize) -> Option<PackedStarts> {
        let (blocks, escapes) = packed_bytes(starts)?;
        PackedStarts::checked(
            Bytes::Heap(blocks),
            Bytes::Heap(escapes),
            starts.len() - 1,
            runs_len,
        )
    }

    /// The blocks and escapes of `starts` (`None` if they do not start at 0 or go back).
    fn packed_bytes(starts: &[u32]) -> Option<(Vec<u8>, Vec<u8>)> {
        if starts.first() != Some(&0) {
            return None;
        }
        let mut w = PackWriter::new();
        let mut blocks = Vec::new();
        for pair in starts.windows(2) {
            w.push(u64::from(pair[1].checked_sub(pair[0])?), &mut blocks)?;
        }
        let (escapes, _) = w.finish(&mut blocks);
        Some((blocks, escapes))
    }

    #[test]
    fn packed_starts_read_back_every_start_and_refuse_damage() {
        // Lengths around the nibble's escape and the block's edges, and long runs.
        let mut starts = vec![0u32];
        let lens = [
            0u32,
            1,
            14,
            15,
            16,
            3,
            127,
            128,
            300,
            70_000,
            2,
            0,
            0,
            1 << 20,
        ];
        for i in 0..200usize {
            let len = lens[i % lens.len()] + (i as u32 % 3);
            starts.push(starts.last().unwrap() + len);
        }
        for n in [0usize, 1, 31, 32, 33, 63, 64, 65, 127, 128, 200] {
            let st = &starts[..=n];
            let end = *st.last().unwrap() as usize;
            let p = pack(st, end).expect("well formed");
            assert_eq!(p.len(), n + 1);
            for (i, &v) in st.iter().enumerate() {
                assert_eq!(p.get(i), u64::from(v), "start {i} of {n}");
                if i < n {
                    assert_eq!(p.pair(i), (u64::from(v), u64::from(st[i + 1])));
                }
            }
            let ends: Vec<u64> = p.ends().collect();
            let want: Vec<u64> = st[1..].iter().map(|&v| u64::from(v)).collect();
            assert_eq!(ends, want);
            assert!(
                pack(st, end + 1).is_none(),
                "runs longer than the starts say"
            );
        }
        let (blocks, escapes) = packed_bytes(&starts).unwrap();
        let end = *starts.last().unwrap() as usize;
        let ok = |b: &[u8], e: &[u8]| {
            PackedStarts::checked(Bytes::Heap(b.to_vec()), Bytes::Heap(e.to_vec()), 200, end)
                .is_some()
        };
        assert!(ok(&blocks, &escapes));
        let mut b = blocks.clone();
        b[BLOCK_BYTES] ^= 1;
        assert!(!ok(&b, &escapes), "a block's start");
        let mut b = blocks.clone();
        b[BLOCK_BYTES + 4] ^= 1;
        assert!(!ok(&b, &escapes), "a block's escape offset");
        let mut b = blocks.clone();
        *b.last_mut().unwrap() = 0x10;
        assert!(!ok(&b, &escapes), "a nibble past the last term");
        let mut b = blocks.clone();
        b[8] ^= 0x01;
        assert!(!ok(&b, &escapes), "a length");
        assert!(!ok(&blocks[..blocks.len() - 1], &escapes), "a short block");
        assert!(
            !ok(&blocks, &escapes[..escapes.len() - 1]),
            "a short escape"
        );
        let mut e = escapes.clone();
        e.push(0);
        assert!(!ok(&blocks, &e), "an escape too many");
        let mut e = escapes.clone();
        e[0] |= 0x80;
        assert!(!ok(&blocks, &e), "an escape running on");
        // What the writer refuses: runs past 4 GiB.
        let mut w = PackWriter::new();
        let mut out = Vec::new();
        assert!(w.push(u64::from(u32::MAX), &mut out).is_some());
        assert!(w.push(1, &mut out).is_none());
    }

    #[test]
    fn checked_runs_refuse_every_malformed_file() {
        let p = |c, tf, sym| Posting { chunk: c, tf, sym };
        let mut s = Postings::default();
        s.add_term();
        s.extend(0, [p(1, 1, 0), p(5, 9, 2), p(300, 2, 0)]);
        s.add_term();
        s.extend(1, [p(2, 1, 0)]);
        let (runs, starts) = file_runs(&s);
        let ok = |runs: &[u8], starts: &[u32], n| {
            pack(starts, runs.len())
                .and_then(|st| Postings::checked(Bytes::Heap(runs.to_vec()), st, n))
                .is_some()
        };
        assert!(ok(&runs, &starts, 301));
        assert!(!ok(&runs, &starts, 300), "a chunk id out of range");
        let mut cut = starts.clone();
        cut[1] -= 1;
        assert!(!ok(&runs, &cut, 301), "a run ending inside a posting");
        let mut back = starts.clone();
        back[1] = back[2] + 1;
        assert!(!ok(&runs, &back, 301), "starts going back");
        let mut short = starts.clone();
        *short.last_mut().unwrap() -= 1;
        assert!(!ok(&runs, &short, 301), "runs longer than the starts say");
        assert!(!ok(&runs, &[], 301));
        let mut repeated = runs.clone();
        repeated.extend([0]);
        let mut st = starts.clone();
        *st.last_mut().unwrap() += 1;
        assert!(!ok(&repeated, &st, 301), "a repeated chunk (gap 0)");
        let mut long = runs.clone();
        long.splice(0..0, [0xff; 10]);
        let st: Vec<u32> = std::iter::once(0)
            .chain(starts[1..].iter().map(|s| s + 10))
            .collect();
        assert!(!ok(&long, &st, 301), "a number past 64 bits");
    }

    #[cfg(unix)]
    #[test]
    fn attached_runs_read_as_the_heap_ones_and_take_later_postings() {
        use super::super::mapped::{Map, Region};
        use std::io::Write;
        let p = |c, tf, sym| Posting { chunk: c, tf, sym };
        let mut s = Postings::default();
        let mut model: Vec<Vec<Posting>> = Vec::new();
        for t in 0..40u32 {
            s.add_term();
            let list: Vec<Posting> = (0..t * 3)
                .map(|i| p(i * 2 + t, 1 + (i % 5) as u16, (i % 3) as u16))
                .collect();
            s.extend(t, list.iter().copied());
            model.push(list);
        }
        // Later postings for an early term wait as pending ones, merged by the save.
        s.extend(3, [p(500, 1, 0)]);
        model[3].push(p(500, 1, 0));
        let (runs, starts) = file_runs(&s);
        let (blocks, escapes) = packed_bytes(&starts).unwrap();
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(b"head").unwrap();
        f.write_all(&runs).unwrap();
        f.write_all(&blocks).unwrap();
        f.write_all(&escapes).unwrap();
        let map = Map::of(&f).unwrap();
        let at = 4 + runs.len();
        let packed = PackedStarts::checked(
            Bytes::Mapped(Region::new(&map, at, blocks.len()).unwrap()),
            Bytes::Mapped(Region::new(&map, at + blocks.len(), escapes.len()).unwrap()),
            starts.len() - 1,
            runs.len(),
        )
        .unwrap();
        s.attach(Region::new(&map, 4, runs.len()).unwrap(), packed);
        assert_eq!(s.mapped_bytes(), runs.len() + blocks.len() + escapes.len());
        let check = |s: &Postings, model: &[Vec<Posting>]| {
            for (t, want) in model.iter().enumerate() {
                assert_eq!(&s.list(t as u32).collect::<Vec<_>>(), want, "term {t}");
                assert_eq!(s.len(t as u32), want.len());
            }
        };
        check(&s, &model);
        // Edits after: to existing and new terms; none writes into the mapping.
        s.extend(39, [p(900, 2, 0)]);
        model[39].push(p(900, 2, 0));
        s.add_term();
        s.extend(40, [p(901, 1, 1)]);
        model.push(vec![p(901, 1, 1)]);
        // A save's walk over every run reads the packed starts and the new ones after them.
        assert_eq!(s.runs().count(), s.terms());
        for (t, run) in s.runs().enumerate() {
            assert_eq!(run, s.run(t), "term {t}");
        }
        s.shrink();
        assert!(
            s.bytes.is_mapped(),
            "a few pending postings do not copy the runs"
        );
        check(&s, &model);
        let mut out = Vec::new();
        s.encoded(39, &mut out);
        assert_eq!(
            check_run(&out, usize::MAX),
            Some((model[39].len() as u32, 900))
        );
        // Saves that keep failing: past MAPPED_FLUSH_AT pending postings the runs are copied
        // to the heap and merged.
        let mut edited = s.clone();
        let mut model2 = model.clone();
        let many: Vec<Posting> = (0..MAPPED_FLUSH_AT as u32)
            .map(|i| p(1000 + i, 1, 0))
            .collect();
        edited.extend(5, many.iter().copied());
        model2[5].extend(many);
        edited.maybe_flush();
        assert!(!edited.bytes.is_mapped());
        assert!(edited.pending.is_empty());
        check(&edited, &model2);
        s.remap(Some);
        assert!(!s.bytes.is_mapped());
        check(&s, &model);
    }

    #[test]
    fn path_postings_list_files_by_term() {
        let mut paths = PathPostings::default();
        paths.push(7, 1);
        paths.push(7, 2);
        assert_eq!(&paths[7], &[1, 2]);
        assert!(paths[8].is_empty());
    }
}

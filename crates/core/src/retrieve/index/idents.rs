//! The identifiers a batch of files being indexed has met, each with the span of its terms:
//! the table the indexer looks every identifier occurrence up in (a kernel build does so
//! ~10⁸ times), so it is made for that one look-up. Each slot holds all a hit needs: 24 bits
//! of the identifier's hash and its length, where its bytes are and its terms' span; so a
//! probe reads one slot and then compares bytes (eight at a time, in place) only for an
//! identifier of the same length and hash bits.

/// Longest identifier the table holds (its length is a byte of the slot's key); the
/// tokenizer keeps none longer than 64 bytes.
pub(super) const MAX_IDENT_BYTES: usize = 255;

/// One slot: `key` is 0 if empty, else 24 bits of the hash above the identifier's length;
/// its bytes are `bytes[start..start + len]`, its terms `ids[a..a + n]`, of which `halves`
/// are halves of run-together words.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    key: u32,
    start: u32,
    a: u32,
    n: u16,
    halves: u16,
}

/// An identifier's terms: `ids[a..b]`, of which `halves` are halves of run-together words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    pub a: u32,
    pub b: u32,
    pub halves: u32,
}

/// Where a look-up that found nothing would put the identifier: its slot and key.
#[derive(Clone, Copy, Debug)]
pub(super) struct Vacant {
    slot: usize,
    key: u32,
}

#[derive(Debug)]
pub(super) struct Idents {
    /// Open addressing, linear probing, a power of two long.
    slots: Vec<Slot>,
    /// The bytes of every identifier, one after another.
    bytes: Vec<u8>,
    len: usize,
}

impl Default for Idents {
    fn default() -> Idents {
        Idents::with_capacity(0)
    }
}

/// A hash of an identifier's bytes (at most [`MAX_IDENT_BYTES`]): its eight-byte words folded
/// by multiplication (the last word overlapping the one before). Not stored anywhere: its
/// quality decides only how long probes are.
#[inline]
pub(super) fn hash(b: &[u8]) -> u64 {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let n = b.len();
    let mut h = (n as u64).wrapping_mul(K);
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            h = (h ^ load8(b, i)).wrapping_mul(K).rotate_left(29);
            i += 8;
        }
        h ^= load8(b, n - 8);
    } else if n >= 4 {
        h ^= u64::from(load4(b, 0)) | (u64::from(load4(b, n - 4)) << 32);
    } else if n > 0 {
        h ^= u64::from(b[0]) | (u64::from(b[n / 2]) << 8) | (u64::from(b[n - 1]) << 16);
    }
    let m = u128::from(h) * u128::from(K);
    (m as u64) ^ ((m >> 64) as u64)
}

#[inline]
fn load8(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().expect("eight bytes"))
}

#[inline]
fn load4(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[i..i + 4].try_into().expect("four bytes"))
}

/// Whether `a` and `b`, of the same length, are the same bytes: compared a word at a time in
/// place instead of through a call (most identifiers are shorter than 16 bytes).
#[inline]
pub(super) fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    debug_assert_eq!(n, b.len());
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            if load8(a, i) != load8(b, i) {
                return false;
            }
            i += 8;
        }
        load8(a, n - 8) == load8(b, n - 8)
    } else if n >= 4 {
        load4(a, 0) == load4(b, 0) && load4(a, n - 4) == load4(b, n - 4)
    } else {
        // First, middle and last cover all of at most three bytes (`==` on slices would
        // call `memcmp`).
        n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1])
    }
}

impl Idents {
    /// An empty table with room for `n` identifiers before it grows.
    pub fn with_capacity(n: usize) -> Idents {
        Idents {
            slots: vec![Slot::default(); (n * 10 / 7 + 1).next_power_of_two().max(1024)],
            bytes: Vec::with_capacity(n * 12),
            len: 0,
        }
    }

    /// Identifiers held.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// The terms of `ident` (at most [`MAX_IDENT_BYTES`] long), or where to
    /// [`Idents::insert`] it.
    #[inline]
    pub fn find(&mut self, ident: &[u8]) -> Result<Entry, Vacant> {
        debug_assert!(ident.len() <= MAX_IDENT_BYTES);
        if (self.len + 1) * 10 > self.slots.len() * 7 {
            self.grow();
        }
        let h = hash(ident);
        let key = key(h, ident.len());
        let mask = self.slots.len() - 1;
        let mut i = (h as usize) & mask;
        loop {
            let s = self.slots[i];
            if s.key == 0 {
                return Err(Vacant { slot: i, key });
            }
            if s.key == key {
                let start = s.start as usize;
                if same(&self.bytes[start..start + ident.len()], ident) {
                    return Ok(Entry {
                        a: s.a,
                        b: s.a + u32::from(s.n),
                        halves: u32::from(s.halves),
                    });
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds `ident`, not held, where [`Idents::find`] said, with its terms `ids[a..b]`, of
    /// which `halves` are halves; its entry.
    pub fn insert(&mut self, at: Vacant, ident: &[u8], a: u32, b: u32, halves: u32) -> Entry {
        self.slots[at.slot] = Slot {
            key: at.key,
            start: self.bytes.len() as u32,
            a,
            n: (b - a) as u16,
            halves: halves as u16,
        };
        self.bytes.extend_from_slice(ident);
        self.len += 1;
        Entry { a, b, halves }
    }

    /// Doubles the table (before a look-up, so that a vacant slot stays valid).
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let mut slots = vec![Slot::default(); self.slots.len() * 2];
        let mask = slots.len() - 1;
        for s in &self.slots {
            if s.key == 0 {
                continue;
            }
            let start = s.start as usize;
            let len = (s.key & 0xff) as usize;
            let mut i = (hash(&self.bytes[start..start + len]) as usize) & mask;
            while slots[i].key != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = *s;
        }
        self.slots = slots;
    }
}

/// Slots of [`Hot`]: 512 of 16 bytes, 8 KB, which stays in the first-level cache.
const HOT_BITS: u32 = 9;

/// A small direct-mapped cache in front of [`Idents`] for identifiers of at most eight bytes,
/// keyed by their bytes as one number: the most frequent identifiers of any tree are short
/// (keywords, common types and names, the words of comments), and a hit here reads one slot
/// of a table that stays in the first-level cache, with no hash of the bytes and no read of
/// [`Idents`]' slots (a batch's take 256 KB, one cache line per identifier) or of its bytes.
/// Each slot keeps the last identifier that came to it; a hit gives the entry [`Idents`]
/// would give, so the cache changes no count.
#[derive(Debug)]
pub(super) struct Hot {
    slots: Vec<HotSlot>,
}

/// `key` is 0 if empty, else the identifier's bytes (little-endian, zero above them: no
/// identifier has a zero byte, so the key of a prefix differs).
#[derive(Clone, Copy, Debug, Default)]
struct HotSlot {
    key: u64,
    a: u32,
    n: u16,
    halves: u16,
}

impl Default for Hot {
    fn default() -> Hot {
        Hot {
            slots: vec![HotSlot::default(); 1 << HOT_BITS],
        }
    }
}

impl Hot {
    /// The key of `ident`, a slice of `text`, if it is at most eight bytes long (none of them
    /// zero): its bytes loaded as one word in place when the text has eight bytes from its
    /// start.
    #[inline]
    pub fn key(text: &str, ident: &str) -> Option<u64> {
        let n = ident.len();
        if n > 8 || n == 0 {
            return None;
        }
        let at = ident.as_ptr() as usize - text.as_ptr() as usize;
        debug_assert!(at + n <= text.len());
        let t = text.as_bytes();
        let w = if at + 8 <= t.len() {
            load8(t, at) & (u64::MAX >> (64 - 8 * n))
        } else {
            ident
                .bytes()
                .rev()
                .fold(0u64, |k, b| (k << 8) | u64::from(b))
        };
        Some(w)
    }

    #[inline]
    fn index(key: u64) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - HOT_BITS)) as usize
    }

    /// The entry of the identifier of `key`, if its slot holds it.
    #[inline]
    pub fn get(&self, key: u64) -> Option<Entry> {
        let s = self.slots[Self::index(key)];
        (s.key == key).then_some(Entry {
            a: s.a,
            b: s.a + u32::from(s.n),
            halves: u32::from(s.halves),
        })
    }

    /// Keeps `e` as the entry of the identifier of `key`, in place of its slot's last one.
    #[inline]
    pub fn put(&mut self, key: u64, e: Entry) {
        self.slots[Self::index(key)] = HotSlot {
            key,
            a: e.a,
            n: (e.b - e.a) as u16,
            halves: e.halves as u16,
        };
    }
}

/// A slot's key for hash `h` and length `len`: never 0 (an empty slot) for an identifier,
/// which is never empty.
#[inline]
fn key(h: u64, len: usize) -> u32 {
    (((h >> 40) as u32) << 8) | (len as u32 & 0xff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_it_holds_through_growth() {
        let mut t = Idents::default();
        let words: Vec<String> = (0..5000)
            .map(|i| match i % 4 {
                0 => format!("x{i}"),
                1 => format!("a_rather_long_identifier_{i}_and_more_of_it"),
                2 => "ab".repeat(i % 40 + 1),
                _ => format!("{i}"),
            })
            .collect();
        let mut held: Vec<&str> = Vec::new();
        for (k, w) in words.iter().enumerate() {
            match t.find(w.as_bytes()) {
                Ok(e) => assert!(held.contains(&w.as_str()), "{w} {e:?}"),
                Err(at) => {
                    let k = k as u32;
                    let e = t.insert(at, w.as_bytes(), k, k + 3, 1);
                    assert_eq!((e.a, e.b, e.halves), (k, k + 3, 1));
                    held.push(w);
                }
            }
        }
        assert_eq!(t.len(), held.len());
        for w in &held {
            let e = t.find(w.as_bytes()).expect("held");
            assert_eq!(words[e.a as usize], *w);
            assert_eq!((e.b - e.a, e.halves), (3, 1));
        }
        for w in [
            "",
            "x",
            "ab_",
            "x5000",
            "abababababababababababababababababababababababababababababababababababababababababab",
        ] {
            assert!(t.find(w.as_bytes()).is_err(), "{w}");
        }
    }

    /// A short identifier's key is the same wherever it stands in a text (read in place or,
    /// near the end, byte by byte), two identifiers share a key only if they are the same
    /// bytes, and a slot gives back only the last identifier put in it.
    #[test]
    fn short_identifiers_are_keyed_by_their_bytes() {
        let words = [
            "a",
            "ab",
            "b",
            "ba",
            "if",
            "int",
            "u32",
            "NULL",
            "return",
            "sizeof",
            "abcdefgh",
            "_",
            "x1",
            "\u{e9}t\u{e9}",
        ];
        let mut keys = std::collections::HashMap::new();
        for w in words {
            let mut seen = None;
            for pad in ["", "(", "  ", "0123456789 "] {
                for tail in ["", ")", ";\n", " more text after it"] {
                    let text = format!("{pad}{w}{tail}");
                    let at = pad.len();
                    let k = Hot::key(&text, &text[at..at + w.len()]).expect("short");
                    assert_eq!(*seen.get_or_insert(k), k, "{w:?} in {text:?}");
                }
            }
            let k = seen.expect("a key");
            assert_ne!(k, 0);
            assert_eq!(keys.insert(k, w), None, "{w}");
        }
        let long = "abcdefghi";
        assert_eq!(Hot::key(long, long), None);
        let mut hot = Hot::default();
        let mut held = Vec::new();
        for (i, w) in (0..3000).map(|i| (i, format!("w{i}"))) {
            let k = Hot::key(&w, &w).expect("short");
            assert!(hot.get(k).is_none(), "{w}");
            let e = Entry {
                a: i,
                b: i + (i % 5),
                halves: i % 2,
            };
            hot.put(k, e);
            assert_eq!(hot.get(k), Some(e));
            held.push((k, e));
        }
        // Evicted identifiers miss; the others give their own entry.
        let mut hits = 0;
        for (k, e) in held {
            if let Some(got) = hot.get(k) {
                assert_eq!(got, e);
                hits += 1;
            }
        }
        assert!(hits > 0 && hits <= 1 << HOT_BITS, "{hits}");
    }

    #[test]
    fn compares_bytes_of_every_length() {
        for n in 0..=40usize {
            let a: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(same(&a, &a.clone()));
            for i in 0..n {
                let mut b = a.clone();
                b[i] = b'_';
                assert!(!same(&a, &b), "{n} {i}");
            }
        }
    }
}

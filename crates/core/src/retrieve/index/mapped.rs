//! The parts of an index that can be served from its memory-mapped cache file instead of
//! the heap: the posting runs, the run starts and the term fingerprints (on the kernel 101,
//! 16 and 33 MB, two thirds of the index). Once a root's index is saved (or loaded), these
//! are read from the file's pages, which the operating system keeps in its page cache and
//! maps into the process only where a query reads them: the process's resident memory
//! counts the pages its queries touched, not the whole index, and under memory pressure the
//! system can drop them and read them again, as it does for any file.
//!
//! Only a file this process wrote itself (mapped through the descriptor it wrote, before the
//! rename that publishes it) or checked in full on load is mapped. Another process that
//! rewrites the file in place afterwards (not a save: saves replace the file by renaming a new
//! one over it, and an open mapping keeps the old one) changes what the mapping reads: the
//! readers here never index out of bounds or read uninitialised memory on any bytes (slices
//! are checked), so the worst such a change can cause is wrong results or a panic that the
//! binding turns into an `internal` error; truncating the file while it is mapped would
//! raise `SIGBUS`, as it does for every memory-mapped store (LMDB, `SQLite`'s mmap mode,
//! tantivy). The cache directory is the caller's own, files in it are created owner-only.
//! A root without `indexCacheDir` whose index is large is written to an unnamed temporary
//! file instead ([`spill_yielding`](super::persist::spill_yielding)): no other process can
//! open it, and it is mapped the same way; a small one stays on the heap.

use std::sync::Arc;

/// Most bytes of file pages the process may gain (from its mapped indexes: the pages queries
/// read) before a root's mapped pages are released ([`Residency`]). Queries read scattered
/// pages, and the system maps in a whole folio of the page cache (up to hundreds of KiB on
/// Linux 6.x with large folios) for each: the 40 kernel queries of the benchmark left 107 MB
/// of the 150 MB mapped. Released pages stay in the page cache, so a later read maps them
/// again with a minor fault (no disk read).
pub(crate) const RESIDENT_BUDGET: u64 = 16 << 20;

/// The bytes of file pages resident in this process (Linux: `/proc/self/statm`'s shared
/// pages, counters the kernel keeps, read in microseconds); `None` elsewhere.
pub(crate) fn resident_file_bytes() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
        let shared: u64 = statm.split_ascii_whitespace().nth(2)?.parse().ok()?;
        // SAFETY: `sysconf` has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        Some(shared * u64::try_from(page).ok()?)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Keeps what one index's mapping adds to the process's resident memory under
/// [`RESIDENT_BUDGET`]: after each request, the mapped pages are released once the
/// process's file pages grew past the budget since the last release (other file pages count
/// too, so this errs toward releasing).
#[derive(Debug, Default)]
pub(crate) struct Residency {
    since: Option<u64>,
}

impl Residency {
    /// Call after a request that read `map`.
    pub fn after_request(&mut self, map: &Map) {
        let Some(now) = resident_file_bytes() else {
            return;
        };
        match self.since {
            Some(since) if now > since.saturating_add(RESIDENT_BUDGET) => {
                map.release_pages();
                self.since = resident_file_bytes();
            }
            Some(_) => {}
            None => self.since = Some(now),
        }
    }

    /// The mapping changed (a save mapped a new file): count from now.
    pub fn reset(&mut self) {
        self.since = resident_file_bytes();
    }
}

/// A read-only byte range of a memory-mapped file.
#[derive(Clone)]
pub(crate) struct Region {
    map: Arc<Map>,
    start: usize,
    len: usize,
}

/// A file mapped read-only (on Unix; elsewhere indexes stay on the heap).
pub(crate) struct Map {
    #[cfg(unix)]
    map: memmap2::Mmap,
}

impl Map {
    /// Maps all of `file` read-only. On platforms without it, `None`.
    #[cfg(unix)]
    pub fn of(file: &std::fs::File) -> Option<Arc<Map>> {
        // SAFETY: the mapping is read-only, and nothing here relies on its bytes staying
        // valid: every reader checks bounds and treats the bytes as untrusted (see the module
        // documentation for a file changed under the mapping).
        let map = unsafe { memmap2::Mmap::map(file) }.ok()?;
        // Queries read scattered pages (a fingerprint, a run start, a term's run): without
        // this the system maps in the pages around each one read too (on Linux, 64 KiB
        // around each fault), which made the mapped pages of 40 kernel queries 111 MB.
        let _ = map.advise(memmap2::Advice::Random);
        Some(Arc::new(Map { map }))
    }

    /// Maps all of `file` read-only. On platforms without it, `None`.
    #[cfg(not(unix))]
    pub fn of(_file: &std::fs::File) -> Option<Arc<Map>> {
        None
    }

    /// The mapped bytes.
    pub fn bytes(&self) -> &[u8] {
        #[cfg(unix)]
        {
            &self.map
        }
        #[cfg(not(unix))]
        {
            &[]
        }
    }

    /// Drops this process's mapping of every page (their next reads map them again from
    /// the page cache): after a load that checked the whole file, which touched every page.
    pub fn release_pages(&self) {
        #[cfg(unix)]
        {
            // SAFETY: a read-only shared mapping of a file: `MADV_DONTNEED` only unmaps the
            // pages, whose contents the file still holds (it would zero a private anonymous
            // mapping's, which this is not).
            let _ = unsafe {
                self.map
                    .unchecked_advise(memmap2::UncheckedAdvice::DontNeed)
            };
        }
    }
}

impl Region {
    /// `len` bytes of `map` from `start`, if it holds them.
    pub fn new(map: &Arc<Map>, start: usize, len: usize) -> Option<Region> {
        (start.checked_add(len)? <= map.bytes().len()).then(|| Region {
            map: map.clone(),
            start,
            len,
        })
    }

    /// The region's bytes.
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        &self.map.bytes()[self.start..self.start + self.len]
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The mapping the region is in.
    pub fn map(&self) -> &Arc<Map> {
        &self.map
    }
}

impl std::fmt::Debug for Region {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Region({}..{})", self.start, self.start + self.len)
    }
}

impl std::fmt::Debug for Map {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Map({} bytes)", self.bytes().len())
    }
}

/// A fixed-size number as a cache file stores it (little-endian).
pub(crate) trait Word: Copy + Default {
    const SIZE: usize;
    fn from_le(b: &[u8]) -> Self;
}

impl Word for u32 {
    const SIZE: usize = 4;
    #[inline]
    fn from_le(b: &[u8]) -> u32 {
        u32::from_le_bytes(b.try_into().expect("4 bytes"))
    }
}

impl Word for u64 {
    const SIZE: usize = 8;
    #[inline]
    fn from_le(b: &[u8]) -> u64 {
        u64::from_le_bytes(b.try_into().expect("8 bytes"))
    }
}

/// The little-endian numbers of `bytes` (a whole number of them).
pub(crate) fn words<T: Word>(bytes: &[u8]) -> Vec<T> {
    bytes.chunks_exact(T::SIZE).map(T::from_le).collect()
}

/// A sequence of numbers: an optional mapped prefix (read from a cache file) and a heap
/// tail (what was added since), read as one.
#[derive(Debug, Clone, Default)]
pub(crate) struct Seq<T> {
    base: Option<Region>,
    base_len: usize,
    tail: Vec<T>,
}

impl<T: Word> Seq<T> {
    /// A heap sequence.
    pub fn from_vec(tail: Vec<T>) -> Seq<T> {
        Seq {
            base: None,
            base_len: 0,
            tail,
        }
    }

    /// The numbers of `r` (its length a multiple of the number's size).
    pub fn mapped(r: Region) -> Seq<T> {
        debug_assert_eq!(r.len() % T::SIZE, 0);
        Seq {
            base_len: r.len() / T::SIZE,
            base: Some(r),
            tail: Vec::new(),
        }
    }

    #[inline]
    pub fn get(&self, i: usize) -> T {
        match &self.base {
            Some(b) if i < self.base_len => T::from_le(&b.bytes()[i * T::SIZE..(i + 1) * T::SIZE]),
            _ => self.tail[i - self.base_len],
        }
    }

    /// The address of number `i`, for a prefetch (any `i`: never read through).
    #[inline]
    pub fn addr(&self, i: usize) -> *const u8 {
        match &self.base {
            Some(b) if i < self.base_len => b.bytes().as_ptr().wrapping_add(i * T::SIZE),
            _ => self
                .tail
                .as_ptr()
                .wrapping_add(i.wrapping_sub(self.base_len))
                .cast(),
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.base_len + self.tail.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn push(&mut self, v: T) {
        self.tail.push(v);
    }

    /// All numbers, to change in place, if none is mapped.
    pub fn tail_mut(&mut self) -> Option<&mut [T]> {
        self.base.is_none().then_some(&mut self.tail[..])
    }

    /// Removes the last number if it is in the heap tail (a mapped one stays).
    pub fn pop_tail(&mut self) -> Option<T> {
        self.tail.pop()
    }

    pub fn reserve(&mut self, n: usize) {
        self.tail.reserve(n);
    }

    pub fn shrink_to_fit(&mut self) {
        self.tail.shrink_to_fit();
    }

    /// Bytes of the mapped prefix (0 if none).
    pub fn mapped_bytes(&self) -> usize {
        self.base_len * T::SIZE
    }

    /// Heap bytes (the tail's).
    pub fn heap_bytes(&self) -> usize {
        self.tail.capacity() * T::SIZE
    }

    /// All numbers, copied.
    #[cfg(test)]
    pub fn to_vec(&self) -> Vec<T> {
        (0..self.len()).map(|i| self.get(i)).collect()
    }
}

/// Bytes on the heap, or a mapped region: the posting runs.
#[derive(Debug, Clone)]
pub(crate) enum Bytes {
    Heap(Vec<u8>),
    Mapped(Region),
}

impl Default for Bytes {
    fn default() -> Bytes {
        Bytes::Heap(Vec::new())
    }
}

impl Bytes {
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Heap(v) => v,
            Bytes::Mapped(r) => r.bytes(),
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        match self {
            Bytes::Heap(v) => v.len(),
            Bytes::Mapped(r) => r.len(),
        }
    }

    /// The heap vector, copied out of the mapping first if mapped.
    pub fn heap(&mut self) -> &mut Vec<u8> {
        if let Bytes::Mapped(r) = self {
            *self = Bytes::Heap(r.bytes().to_vec());
        }
        match self {
            Bytes::Heap(v) => v,
            Bytes::Mapped(_) => unreachable!("copied to the heap above"),
        }
    }

    pub fn is_mapped(&self) -> bool {
        matches!(self, Bytes::Mapped(_))
    }

    /// Heap bytes.
    pub fn heap_bytes(&self) -> usize {
        match self {
            Bytes::Heap(v) => v.capacity(),
            Bytes::Mapped(_) => 0,
        }
    }

    /// Mapped bytes.
    pub fn mapped_bytes(&self) -> usize {
        match self {
            Bytes::Heap(_) => 0,
            Bytes::Mapped(r) => r.len(),
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_mapped_prefix_and_a_heap_tail_read_as_one() {
        let mut f = tempfile::tempfile().unwrap();
        let words: Vec<u64> = vec![7, 1 << 40, 3];
        for w in &words {
            f.write_all(&w.to_le_bytes()).unwrap();
        }
        f.write_all(&[9, 9]).unwrap();
        let map = Map::of(&f).unwrap();
        assert!(Region::new(&map, 0, 27).is_none());
        let mut s: Seq<u64> = Seq::mapped(Region::new(&map, 0, 24).unwrap());
        s.push(11);
        assert_eq!(s.to_vec(), vec![7, 1 << 40, 3, 11]);
        assert_eq!(s.pop_tail(), Some(11));
        assert_eq!(s.pop_tail(), None);
        assert_eq!(s.len(), 3);
        map.release_pages();
        assert_eq!(s.get(1), 1 << 40, "released pages read again from the file");
        let mut b = Bytes::Mapped(Region::new(&map, 24, 2).unwrap());
        assert_eq!(b.as_slice(), &[9, 9]);
        b.heap().push(1);
        assert!(!b.is_mapped());
        assert_eq!(b.as_slice(), &[9, 9, 1]);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn residency_releases_mapped_pages_past_the_budget() {
        let len = (RESIDENT_BUDGET as usize) * 3;
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&vec![1u8; len]).unwrap();
        let map = Map::of(&f).unwrap();
        let mut r = Residency::default();
        r.reset();
        let touch = || {
            map.bytes()
                .iter()
                .step_by(4096)
                .map(|&b| u64::from(b))
                .sum::<u64>()
        };
        assert_eq!(touch(), (len / 4096) as u64);
        let before = resident_file_bytes().unwrap();
        r.after_request(&map);
        let after = resident_file_bytes().unwrap();
        assert!(
            after + RESIDENT_BUDGET < before,
            "released: {before} -> {after}"
        );
        // Released pages read back from the file as they were.
        assert_eq!(touch(), (len / 4096) as u64);
    }
}

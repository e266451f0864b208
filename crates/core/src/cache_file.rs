//! Cache files: the framing, the checks and the careful file handling shared by the crate's
//! on-disk caches (the retrieval index, [`crate::retrieve`]; the symbol index,
//! [`crate::symbols`]). A cache file is never an error: anything that does not match makes
//! the reader return `None`, and the caller builds what it held again.
//!
//! Layout, little-endian: a magic (8 bytes, one per kind of cache), the kind's format
//! version (`u32`), the engine version (length-prefixed bytes), a key saying what the file
//! is of (length-prefixed bytes: a root path, a repository name), the body, then a trailer:
//! the body's length (`u64`) and its [`Checksum`] (`u64`). [`checked_body`] gives the body
//! only when magic, versions, length and checksum all match; the caller compares the key.
//!
//! Hostile cache directories: [`open_regular`] opens without following a symlink and without
//! blocking (a FIFO), and accepts only a regular file of a bounded size; [`write_atomically`]
//! writes a temporary file with an unpredictable name created exclusively (so a link planted
//! at that name is never followed), owner-only, syncs it and renames it over the target, so a
//! reader sees the old file or the new one, never a partial one.

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

const SEED: u64 = 0xcbf2_9ce4_8422_2325;
/// Odd, so multiplying by it is a bijection (rustc-hash's constant).
const K: u64 = 0xf135_7aea_2e62_a9c5;

/// The body's checksum, for damage: the bytes as little-endian 64-bit words (the last one
/// zero-padded; the length is checked beside it), each mixed in by a rotation, an xor and a
/// multiplication by an odd constant. Every step is a bijection of the state, so one damaged
/// word always changes the result. Eight bytes a multiplication: the bytewise FNV-1a of
/// the retrieval cache's format v3 took ~0.35 s of a kernel restart (252 MB).
#[derive(Clone, Copy)]
pub(crate) struct Checksum {
    h: u64,
    /// Bytes of the word being filled, and how many.
    word: u64,
    n: u32,
}

impl Checksum {
    pub(crate) const fn new() -> Checksum {
        Checksum {
            h: SEED,
            word: 0,
            n: 0,
        }
    }

    fn mix(&mut self, w: u64) {
        self.h = (self.h.rotate_left(5) ^ w).wrapping_mul(K);
    }

    pub(crate) fn update(&mut self, mut b: &[u8]) {
        while self.n != 0 {
            let Some((&x, rest)) = b.split_first() else {
                return;
            };
            self.word |= u64::from(x) << (8 * self.n);
            self.n += 1;
            b = rest;
            if self.n == 8 {
                self.mix(self.word);
                (self.word, self.n) = (0, 0);
            }
        }
        let mut words = b.chunks_exact(8);
        for w in &mut words {
            self.mix(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        for &x in words.remainder() {
            self.word |= u64::from(x) << (8 * self.n);
            self.n += 1;
        }
    }

    pub(crate) fn finish(self) -> u64 {
        let mut c = self;
        if c.n > 0 {
            c.mix(c.word);
        }
        c.h
    }

    pub(crate) fn of(b: &[u8]) -> u64 {
        let mut c = Checksum::new();
        c.update(b);
        c.finish()
    }
}

/// A writer of the format's primitives that counts and hashes what it writes; the first I/O
/// error is kept and reported by [`Out::finish`].
pub(crate) struct Out<'w, W: Write> {
    pub(crate) w: &'w mut W,
    pub(crate) hash: Checksum,
    /// The file position of this writer's first byte, and bytes written since.
    pub(crate) base: u64,
    pub(crate) len: u64,
    pub(crate) err: Option<std::io::Error>,
}

impl<'w, W: Write> Out<'w, W> {
    /// A writer whose first byte lands at file position `base`.
    pub(crate) fn at(w: &'w mut W, base: u64) -> Out<'w, W> {
        Out {
            w,
            hash: Checksum::new(),
            base,
            len: 0,
            err: None,
        }
    }
    /// The file position of the next byte.
    pub(crate) fn pos(&self) -> u64 {
        self.base + self.len
    }
    pub(crate) fn raw(&mut self, b: &[u8]) {
        if self.err.is_some() {
            return;
        }
        if let Err(e) = self.w.write_all(b) {
            self.err = Some(e);
            return;
        }
        self.hash.update(b);
        self.len += b.len() as u64;
    }
    pub(crate) fn u8(&mut self, v: u8) {
        self.raw(&[v]);
    }
    pub(crate) fn u32(&mut self, v: u32) {
        self.raw(&v.to_le_bytes());
    }
    pub(crate) fn u64(&mut self, v: u64) {
        self.raw(&v.to_le_bytes());
    }
    pub(crate) fn len(&mut self, n: usize) {
        self.u64(n as u64);
    }
    /// LEB128: seven bits a byte, low first.
    pub(crate) fn var(&mut self, mut v: u64) {
        let mut buf = [0u8; 10];
        let mut n = 0;
        while v >= 0x80 {
            buf[n] = (v as u8) | 0x80;
            v >>= 7;
            n += 1;
        }
        buf[n] = v as u8;
        self.raw(&buf[..=n]);
    }
    /// Bytes after their length as a `u64`.
    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.len(b.len());
        self.raw(b);
    }
    /// Bytes after their length as a variable-length number (short strings: one byte).
    pub(crate) fn var_bytes(&mut self, b: &[u8]) {
        self.var(b.len() as u64);
        self.raw(b);
    }
    pub(crate) fn finish(self) -> std::io::Result<u64> {
        match self.err {
            Some(e) => Err(e),
            None => Ok(self.len),
        }
    }
}

/// A reader of the format's primitives; every read is bounds-checked and returns `None` past
/// the end or on a malformed value.
pub(crate) struct In<'a> {
    pub(crate) b: &'a [u8],
}

impl<'a> In<'a> {
    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.b.len() {
            return None;
        }
        let (head, tail) = self.b.split_at(n);
        self.b = tail;
        Some(head)
    }
    pub(crate) fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    pub(crate) fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    pub(crate) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    /// A count of items of at least `min` bytes each, refused if the rest cannot hold them
    /// (so a damaged count never allocates much).
    pub(crate) fn len(&mut self, min: usize) -> Option<usize> {
        let n = usize::try_from(self.u64()?).ok()?;
        (n.checked_mul(min.max(1))? <= self.b.len()).then_some(n)
    }
    pub(crate) fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.len(1)?;
        self.take(n)
    }
    /// A number written by `Out::var`; `None` past 64 bits.
    pub(crate) fn var(&mut self) -> Option<u64> {
        let mut at = 0;
        let v = checked_var(self.b, &mut at)?;
        self.b = &self.b[at..];
        Some(v)
    }
    pub(crate) fn var_u32(&mut self) -> Option<u32> {
        u32::try_from(self.var()?).ok()
    }
    /// [`In::len`] written by `Out::var`.
    pub(crate) fn var_len(&mut self, min: usize) -> Option<usize> {
        let n = usize::try_from(self.var()?).ok()?;
        (n.checked_mul(min.max(1))? <= self.b.len()).then_some(n)
    }
    pub(crate) fn str(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.bytes()?).ok()
    }
    /// A string written by `Out::var_bytes`.
    pub(crate) fn var_str(&mut self) -> Option<&'a str> {
        let n = self.var_len(1)?;
        std::str::from_utf8(self.take(n)?).ok()
    }
}

/// The LEB128 number at `b[*at..]` (advancing `at`); `None` when it runs past the end or past
/// 64 bits.
pub(crate) fn checked_var(b: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let x = *b.get(*at)?;
        *at += 1;
        let part = u64::from(x & 0x7f);
        if shift == 63 && part > 1 {
            return None;
        }
        v |= part << shift;
        if x & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// What a kind of cache file starts with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Header<'a> {
    /// Eight bytes naming the kind of cache.
    pub(crate) magic: &'a [u8; 8],
    /// The kind's body layout version.
    pub(crate) format: u32,
    /// The engine release that wrote it.
    pub(crate) version: &'a str,
}

impl Header<'_> {
    /// Writes the header and `key`; returns the bytes written (the body's file position).
    pub(crate) fn write<W: Write>(&self, w: &mut W, key: &[u8]) -> std::io::Result<u64> {
        let mut h = Out::at(w, 0);
        h.raw(self.magic);
        h.u32(self.format);
        h.bytes(self.version.as_bytes());
        h.bytes(key);
        h.finish()
    }
}

/// Writes the trailer of a body written through `body` (its length and checksum) and returns
/// the body's length, or the first error `body` met.
pub(crate) fn write_trailer<W: Write>(body: Out<'_, W>) -> std::io::Result<u64> {
    let Out {
        w, hash, len, err, ..
    } = body;
    if let Some(e) = err {
        return Err(e);
    }
    w.write_all(&len.to_le_bytes())?;
    w.write_all(&hash.finish().to_le_bytes())?;
    Ok(len)
}

/// The key and the body of `bytes` once the header (magic, format and engine versions) and the
/// trailer (length and checksum) match `header`.
pub(crate) fn checked_body<'a>(bytes: &'a [u8], header: &Header<'_>) -> Option<(&'a [u8], In<'a>)> {
    let split = bytes.len().checked_sub(16)?;
    let (head, trailer) = bytes.split_at(split);
    let body_len = usize::try_from(u64::from_le_bytes(trailer[..8].try_into().ok()?)).ok()?;
    let hash = u64::from_le_bytes(trailer[8..].try_into().ok()?);
    let mut r = In { b: head };
    if r.take(header.magic.len())? != header.magic || r.u32()? != header.format {
        return None;
    }
    if r.bytes()? != header.version.as_bytes() {
        return None;
    }
    let key = r.bytes()?;
    if r.b.len() != body_len || Checksum::of(r.b) != hash {
        return None;
    }
    Some((key, r))
}

/// An unpredictable 64-bit value (the standard library's randomly keyed hasher, the clock,
/// the process and a counter), for temporary file names.
fn unpredictable() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(SEQ.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    if let Ok(d) = SystemTime::now().duration_since(UNIX_EPOCH) {
        h.write_u128(d.as_nanos());
    }
    h.finish()
}

/// Creates a new file exclusively, never through a symlink, readable by the owner only.
pub(crate) fn create_exclusive(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    // Readable too: a save may map the file it wrote.
    options.read(true).write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path)
}

/// A new file without a name in the system's temporary folder (Linux `O_TMPFILE`, owner-only):
/// no other process can open it, and its space is freed when the last descriptor and mapping
/// of it close, however the process ends. Refused (`Unsupported`) where that is not available
/// and where the folder is held in memory (tmpfs, ramfs), in which case a file would hold the
/// same memory as the heap copy it replaces.
#[cfg(target_os = "linux")]
// `f_type` and the magic numbers are `i64` here, other widths on other targets.
#[allow(clippy::useless_conversion)]
pub(crate) fn unnamed_temp_file() -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;
    // ramfs's magic number (not in `libc`).
    const RAMFS_MAGIC: i64 = 0x8584_58f6;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .mode(0o600)
        .custom_flags(libc::O_TMPFILE | libc::O_CLOEXEC)
        .open(std::env::temp_dir())?;
    let mut fs = std::mem::MaybeUninit::<libc::statfs>::zeroed();
    // SAFETY: `fstatfs` writes one `statfs` into the buffer given, for a descriptor that is
    // open for as long as `file` lives.
    let r = unsafe { libc::fstatfs(file.as_raw_fd(), fs.as_mut_ptr()) };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fstatfs` succeeded, so it filled the buffer (which was zeroed anyway).
    let kind = i64::from(unsafe { fs.assume_init() }.f_type);
    if kind == i64::from(libc::TMPFS_MAGIC) || kind == RAMFS_MAGIC {
        return Err(std::io::ErrorKind::Unsupported.into());
    }
    Ok(file)
}

/// [`unnamed_temp_file`] where it is not available: always `Unsupported`.
#[cfg(not(target_os = "linux"))]
pub(crate) fn unnamed_temp_file() -> std::io::Result<File> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// Writes `target` (a file of `dir`, created if needed) atomically: `write` fills a temporary
/// file beside it ([`create_exclusive`], an unpredictable name), which is synced and renamed
/// over `target`; on any error the temporary file is removed and `target` left as it was.
/// Returns what `write` returned and the written file, still open (to map it).
pub(crate) fn write_atomically<T>(
    dir: &Path,
    target: &Path,
    write: impl FnOnce(&mut File) -> std::io::Result<T>,
) -> std::io::Result<(T, File)> {
    std::fs::create_dir_all(dir)?;
    let stem = target
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("cache")
        .to_owned();
    let (tmp, mut file) = {
        let mut attempt = 0;
        loop {
            let tmp = dir.join(format!(".{stem}.{:016x}.tmp", unpredictable()));
            match create_exclusive(&tmp) {
                Ok(f) => break (tmp, f),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 8 => {
                    attempt += 1;
                }
                Err(e) => return Err(e),
            }
        }
    };
    let result = (|| {
        let value = write(&mut file)?;
        file.sync_all()?;
        std::fs::rename(&tmp, target)?;
        Ok(value)
    })();
    match result {
        Ok(value) => Ok((value, file)),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// The file at `path` if it is a regular file of at most `max_bytes`: opened without following
/// a symlink and without blocking.
pub(crate) fn open_regular(path: &Path, max_bytes: u64) -> Option<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_NOCTTY);
    }
    let file = options.open(path).ok()?;
    let meta = file.metadata().ok()?;
    (meta.is_file() && meta.len() <= max_bytes).then_some(file)
}

/// All of `file`, if it holds at most `max_bytes` (it may have grown since it was opened).
pub(crate) fn read_limited(file: File, max_bytes: u64) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(max_bytes + 1).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= max_bytes).then_some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variable_length_numbers_round_trip_and_refuse_overflow() {
        let values = [
            0u64,
            1,
            127,
            128,
            300,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ];
        let mut buf = Vec::new();
        let mut out = Out::at(&mut buf, 0);
        for v in values {
            out.var(v);
        }
        assert!(out.err.is_none());
        assert_eq!(buf.len(), 1 + 1 + 1 + 2 + 2 + 2 + 3 + 5 + 10);
        let mut r = In { b: &buf };
        for v in values {
            assert_eq!(r.var(), Some(v));
        }
        assert_eq!(r.var(), None, "nothing left");
        // Past 64 bits, a continuation that never ends, and a u32 that is too large.
        assert_eq!(
            In {
                b: &[0xff; 9].iter().chain(&[0x02]).copied().collect::<Vec<_>>()
            }
            .var(),
            None
        );
        assert_eq!(In { b: &[0x80; 12] }.var(), None);
        assert_eq!(
            In {
                b: &[0x80, 0x80, 0x80, 0x80, 0x10]
            }
            .var_u32(),
            None
        );
    }

    #[test]
    fn the_checksum_does_not_depend_on_how_the_bytes_are_split() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        let whole = Checksum::of(&data);
        for sizes in [&[1usize][..], &[3, 5], &[7, 9, 1], &[8], &[13, 2, 64]] {
            let mut c = Checksum::new();
            let (mut at, mut k) = (0, 0);
            while at < data.len() {
                let n = sizes[k % sizes.len()].min(data.len() - at);
                c.update(&data[at..at + n]);
                (at, k) = (at + n, k + 1);
            }
            assert_eq!(c.finish(), whole, "{sizes:?}");
        }
        // One damaged byte anywhere changes it.
        for i in [0, 7, 8, 500, 999] {
            let mut d = data.clone();
            d[i] ^= 0x40;
            assert_ne!(Checksum::of(&d), whole, "byte {i}");
        }
    }

    const TEST: Header<'static> = Header {
        magic: b"CETEST\r\0",
        format: 3,
        version: "1.2.3",
    };

    fn framed(header: &Header<'_>, key: &[u8], body: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        let at = header.write(&mut v, key).unwrap();
        let mut out = Out::at(&mut v, at);
        out.raw(body);
        write_trailer(out).unwrap();
        v
    }

    #[test]
    fn framing_checks_magic_versions_length_and_checksum() {
        let bytes = framed(&TEST, b"acme/api", b"the body");
        let (key, body) = checked_body(&bytes, &TEST).unwrap();
        assert_eq!((key, body.b), (&b"acme/api"[..], &b"the body"[..]));
        let other = |h: Header<'_>| checked_body(&framed(&h, b"k", b"x"), &TEST).is_none();
        assert!(other(Header {
            magic: b"CEOTHER\0",
            ..TEST
        }));
        assert!(other(Header { format: 4, ..TEST }));
        assert!(other(Header {
            version: "1.2.4",
            ..TEST
        }));
        // Any damaged byte, a short file, an empty one.
        for i in 0..bytes.len() {
            let mut d = bytes.clone();
            d[i] ^= 0x01;
            if let Some((key, _)) = checked_body(&d, &TEST) {
                // Only the key is outside the checks; the caller compares it.
                assert_ne!(key, b"acme/api", "byte {i}");
            }
        }
        assert!(checked_body(&bytes[..bytes.len() - 1], &TEST).is_none());
        assert!(checked_body(&[], &TEST).is_none());
    }

    #[test]
    fn atomic_writes_replace_whole_files_and_leave_nothing_on_failure() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("sub/x.cache");
        let parent = target.parent().unwrap();
        write_atomically(parent, &target, |f| f.write_all(b"one")).unwrap();
        write_atomically(parent, &target, |f| f.write_all(b"two")).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"two");
        let failed = write_atomically(parent, &target, |f| {
            f.write_all(b"half")?;
            Err::<(), _>(std::io::Error::other("no"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&target).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(parent).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file left");
        let file = open_regular(&target, 3).unwrap();
        assert_eq!(read_limited(file, 3).unwrap(), b"two");
        assert!(open_regular(&target, 2).is_none(), "over the size bound");
        assert!(
            open_regular(parent, 1 << 20).is_none(),
            "not a regular file"
        );
    }
}

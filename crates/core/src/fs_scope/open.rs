//! Opening a canonical path as a regular file without ever blocking, and reading it under a
//! byte cap.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

/// Opens `abs` read-only for inspection.
///
/// On unix the open uses `O_NONBLOCK` (opening a FIFO without a writer returns at once instead
/// of waiting), `O_NOCTTY` (a terminal never becomes the controlling one) and `O_NOFOLLOW`
/// (the last component must not be a symlink; the caller passes a canonical path, so one
/// appearing there means the tree changed under us).
pub(super) fn open_nonblocking(abs: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_NOFOLLOW);
    }
    options.open(abs)
}

/// Opens `rel`, a plain relative path (names only: no empty, `.` or `..` component, no
/// leading `/`), under the directory `root` through lookups that the kernel confines: Linux's
/// `openat2` (5.6+) with `RESOLVE_BENEATH` (no component may lead out of `root`, checked
/// atomically with the lookup) and `RESOLVE_NO_SYMLINKS` (no component may be a symlink). So
/// what it opens is the file the component-by-component resolution would reach, without its
/// lstat and canonicalization of every component (the kernel tree's 78k files: ~1.5 CPU-s
/// less to read).
///
/// As the checked way does, it looks before it opens: the path is first taken as an `O_PATH`
/// handle, which opens nothing, and only a regular file is then opened for reading (a FIFO or
/// a device is never opened: opening one can release a waiting writer or start a device). The
/// opened file must be the one looked at (same device and inode), else `None`.
///
/// `None` whenever that does not succeed, whatever the reason (a symlink on the way, a
/// missing or non-regular file, a kernel or sandbox without `openat2`): the caller then takes
/// the checked way, which follows symlinks inside the root and says why a path cannot be read.
#[cfg(target_os = "linux")]
pub(super) fn open_beneath(root: &Path, rel: &str) -> Option<(File, Metadata)> {
    let dir = RootDir::open(root)?;
    let rel = std::ffi::CString::new(rel).ok()?;
    let before = dir.confined(&rel, libc::O_PATH)?.metadata().ok()?;
    if !before.is_file() {
        return None;
    }
    let file = dir.confined(&rel, READ_FLAGS)?;
    let metadata = file.metadata().ok()?;
    (metadata.is_file() && same_file(&before, &metadata)).then_some((file, metadata))
}

/// Elsewhere there is no confined open: always the checked way.
#[cfg(not(target_os = "linux"))]
pub(super) fn open_beneath(_root: &Path, _rel: &str) -> Option<(File, Metadata)> {
    None
}

/// How a regular file is opened for reading by a confined lookup: never blocking (a FIFO put
/// in its place is not waited on) and never becoming the controlling terminal.
#[cfg(target_os = "linux")]
const READ_FLAGS: i32 = libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOCTTY;

/// The root directory held open (`O_PATH`: for lookups only) for confined opens under it.
#[cfg(target_os = "linux")]
pub(super) struct RootDir(std::os::fd::OwnedFd);

#[cfg(target_os = "linux")]
impl RootDir {
    /// The directory `root`, opened for lookups; `None` if it cannot be.
    pub(super) fn open(root: &Path) -> Option<RootDir> {
        use std::os::fd::FromRawFd;
        use std::os::unix::ffi::OsStrExt;
        let root = std::ffi::CString::new(root.as_os_str().as_bytes()).ok()?;
        // SAFETY: `root` is NUL-terminated; the descriptor returned, if any, is owned just
        // below.
        let dir = unsafe {
            libc::open(
                root.as_ptr(),
                libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        if dir < 0 {
            return None;
        }
        // SAFETY: `dir` is a descriptor this function just opened and nothing else owns.
        Some(RootDir(unsafe { std::os::fd::OwnedFd::from_raw_fd(dir) }))
    }

    /// `openat2(dir, rel, flags, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` as a `File`.
    fn confined(&self, rel: &std::ffi::CStr, flags: i32) -> Option<File> {
        use std::os::fd::{AsRawFd, FromRawFd};
        // SAFETY: `open_how` is three integers, for which zero is valid.
        let mut how: libc::open_how = unsafe { std::mem::zeroed() };
        how.flags = (flags | libc::O_NOFOLLOW | libc::O_CLOEXEC) as u64;
        how.resolve =
            libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_NO_MAGICLINKS;
        // SAFETY: the directory is open for the call, `rel` NUL-terminated, `how` a valid
        // `open_how` of the size passed; the descriptor returned, if any, is owned by the
        // `File` below.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                self.0.as_raw_fd(),
                rel.as_ptr(),
                std::ptr::from_ref(&how),
                std::mem::size_of::<libc::open_how>(),
            )
        };
        let fd = i32::try_from(fd).ok().filter(|&fd| fd >= 0)?;
        // SAFETY: `fd` is a descriptor the kernel just returned to this call.
        Some(unsafe { File::from_raw_fd(fd) })
    }

    /// Opens `rel` (a plain relative path, as for [`open_beneath`]) by the same confined
    /// lookup, when a look at it was already taken: `seen` is the device and inode a
    /// `symlink_metadata` of it found to be a regular file (a walk of the tree lists each
    /// file so). The opened file must be a regular file with that device and inode, else
    /// `None` (the file was replaced since it was looked at: the caller takes a way that
    /// looks again). It spares the `O_PATH` look, its `fstat` and its close, and `open` of
    /// the root for every file. The look is the walk's, so a FIFO or device put in the file's
    /// place since may be opened: never waited on (`O_NONBLOCK`), and refused by the `fstat`.
    pub(super) fn open_seen(&self, rel: &str, seen: (u64, u64)) -> Option<(File, Metadata)> {
        use std::os::unix::fs::MetadataExt;
        let rel = std::ffi::CString::new(rel).ok()?;
        let file = self.confined(&rel, READ_FLAGS)?;
        let metadata = file.metadata().ok()?;
        (metadata.is_file() && (metadata.dev(), metadata.ino()) == seen).then_some((file, metadata))
    }
}

/// Clears `O_NONBLOCK` on an opened regular file so reads behave normally on every file
/// system. A no-op elsewhere.
pub(super) fn make_blocking(file: &File) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::io::AsRawFd;
        let fd = file.as_raw_fd();
        // SAFETY: `fd` is a valid open descriptor owned by `file` for the duration of both
        // calls; F_GETFL/F_SETFL only read and set status flags.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        if flags == -1 {
            return Err(io::Error::last_os_error());
        }
        if flags & libc::O_NONBLOCK != 0 {
            // SAFETY: as above.
            let rc = unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) };
            if rc == -1 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    #[cfg(not(unix))]
    let _ = file;
    Ok(())
}

/// True if two metadata values describe the same file (same device and inode). Always true
/// where the platform does not expose them.
pub(super) fn same_file(a: &Metadata, b: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        true
    }
}

/// The outcome of [`read_capped`].
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Capped {
    /// Everything, at most `max` bytes.
    Complete(Vec<u8>),
    /// More than `max` bytes were available; the value is how many were seen (`max + 1`).
    Exceeded(u64),
}

/// Reads at most `max + 1` bytes from `reader`, so a source that is larger than announced
/// (a file growing while being read) can never make the buffer exceed `max`. `size_hint` only
/// pre-sizes the buffer.
pub(super) fn read_capped(reader: impl Read, max: u64, size_hint: u64) -> io::Result<Capped> {
    let capacity = size_hint.min(max).min(64 * 1024 * 1024);
    let mut buf = Vec::with_capacity(usize::try_from(capacity).unwrap_or(0));
    reader.take(max.saturating_add(1)).read_to_end(&mut buf)?;
    let seen = buf.len() as u64;
    if seen > max {
        Ok(Capped::Exceeded(seen))
    } else {
        Ok(Capped::Complete(buf))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that yields more than any metadata would have said.
    struct Endless;

    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            buf.fill(b'x');
            Ok(buf.len())
        }
    }

    #[test]
    fn cap_holds_for_growing_sources() {
        assert_eq!(read_capped(Endless, 10, 3).unwrap(), Capped::Exceeded(11));
        assert_eq!(read_capped(Endless, 0, 0).unwrap(), Capped::Exceeded(1));
        assert_eq!(
            read_capped(&b"abc"[..], 3, 3).unwrap(),
            Capped::Complete(b"abc".to_vec())
        );
        assert_eq!(
            read_capped(&b""[..], 0, 0).unwrap(),
            Capped::Complete(Vec::new())
        );
        assert_eq!(
            read_capped(&b"abcd"[..], 3, 0).unwrap(),
            Capped::Exceeded(4)
        );
    }
}

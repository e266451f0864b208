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

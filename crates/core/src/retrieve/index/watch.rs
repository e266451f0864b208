//! File-system events for an index, so that a warm call does not stat every file.
//!
//! On Linux each directory the walk descends into gets an inotify watch (added when the walk
//! reaches the directory, before its entries are read, so nothing changed after the walk saw
//! it goes unreported). The events are read **synchronously** at the start of every call, from
//! a non-blocking descriptor: the kernel queues an event inside the system call that changes
//! the file, so a change made before a call is always seen by that call. (The `notify` crate
//! delivers events on its own thread, later; expansion's cache can live with that because it
//! re-validates every hit, the index cannot without the stat walk this replaces.)
//!
//! Anything the events cannot describe exactly — the kernel queue overflowing, a directory
//! moved or renamed, the root itself going away — is reported as [`Drained::Rescan`], and the
//! index walks the tree again. Where watching is not available (other platforms, the inotify
//! watch limit reached, a file system without events) [`DirWatch::new`] or [`DirWatch::add`]
//! fails and the index polls: the stat-based update of [`Index`](super::Index).

use std::path::{Path, PathBuf};

/// One change reported for a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Change {
    /// Absolute path of the entry that changed.
    pub path: PathBuf,
    /// A directory was created or deleted at `path` (its whole subtree must be listed).
    pub dir: bool,
}

/// What the pending events say.
#[derive(Debug)]
pub(crate) enum Drained {
    /// These entries changed (possibly none).
    Changes(Vec<Change>),
    /// Events were lost or cannot be mapped to paths: walk everything again.
    Rescan,
}

#[cfg(target_os = "linux")]
mod imp {
    use super::{Change, Drained};
    use rustc_hash::FxHashMap as HashMap;
    use std::ffi::{CString, OsStr};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Path, PathBuf};

    const MASK: u32 = libc::IN_CREATE
        | libc::IN_DELETE
        | libc::IN_MODIFY
        | libc::IN_CLOSE_WRITE
        | libc::IN_MOVED_FROM
        | libc::IN_MOVED_TO
        | libc::IN_ATTRIB
        | libc::IN_DELETE_SELF
        | libc::IN_MOVE_SELF
        | libc::IN_ONLYDIR
        | libc::IN_DONT_FOLLOW
        | libc::IN_EXCL_UNLINK;

    /// The inotify watches of one root.
    #[derive(Debug)]
    pub(crate) struct DirWatch {
        fd: OwnedFd,
        dirs: HashMap<i32, PathBuf>,
        root: PathBuf,
    }

    impl DirWatch {
        pub(crate) fn new(root: &Path) -> std::io::Result<DirWatch> {
            // SAFETY: plain system call; the descriptor is owned below.
            let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
            if fd < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(DirWatch {
                // SAFETY: `fd` is a fresh descriptor nobody else owns.
                fd: unsafe { OwnedFd::from_raw_fd(fd) },
                dirs: HashMap::default(),
                root: root.to_path_buf(),
            })
        }

        pub(crate) fn add(&mut self, dir: &Path) -> std::io::Result<()> {
            let c = CString::new(dir.as_os_str().as_bytes())
                .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
            // SAFETY: valid descriptor and NUL-terminated path.
            let wd = unsafe { libc::inotify_add_watch(self.fd.as_raw_fd(), c.as_ptr(), MASK) };
            if wd < 0 {
                return Err(std::io::Error::last_os_error());
            }
            self.dirs.insert(wd, dir.to_path_buf());
            Ok(())
        }

        pub(crate) fn drain(&mut self) -> Drained {
            let mut out = Vec::new();
            let mut buf = vec![0u8; 64 * 1024];
            let header = std::mem::size_of::<libc::inotify_event>();
            loop {
                // SAFETY: reading into an owned buffer of the given length.
                let n = unsafe {
                    libc::read(
                        self.fd.as_raw_fd(),
                        buf.as_mut_ptr().cast::<libc::c_void>(),
                        buf.len(),
                    )
                };
                if n < 0 {
                    let e = std::io::Error::last_os_error();
                    match e.kind() {
                        std::io::ErrorKind::WouldBlock => break,
                        std::io::ErrorKind::Interrupted => continue,
                        _ => return Drained::Rescan,
                    }
                }
                if n == 0 {
                    break;
                }
                let n = n as usize;
                let mut at = 0usize;
                while at + header <= n {
                    // SAFETY: the kernel wrote a whole event here; read it unaligned.
                    let ev: libc::inotify_event = unsafe {
                        std::ptr::read_unaligned(buf[at..].as_ptr().cast::<libc::inotify_event>())
                    };
                    let name_len = ev.len as usize;
                    let name_bytes = &buf[at + header..(at + header + name_len).min(n)];
                    at += header + name_len;
                    let name = name_bytes.split(|&b| b == 0).next().unwrap_or(&[]);
                    if ev.mask & libc::IN_Q_OVERFLOW != 0 || ev.mask & libc::IN_UNMOUNT != 0 {
                        return Drained::Rescan;
                    }
                    if ev.mask & libc::IN_IGNORED != 0 {
                        self.dirs.remove(&ev.wd);
                        continue;
                    }
                    let Some(dir) = self.dirs.get(&ev.wd) else {
                        continue;
                    };
                    let is_dir = ev.mask & libc::IN_ISDIR != 0;
                    if ev.mask & libc::IN_MOVE_SELF != 0
                        || (is_dir && ev.mask & (libc::IN_MOVED_FROM | libc::IN_MOVED_TO) != 0)
                    {
                        // A moved directory keeps its watches under paths that are now wrong.
                        return Drained::Rescan;
                    }
                    if ev.mask & libc::IN_DELETE_SELF != 0 {
                        if *dir == self.root {
                            return Drained::Rescan;
                        }
                        // Its parent reports the deletion.
                        continue;
                    }
                    if name.is_empty() {
                        continue;
                    }
                    let path = dir.join(OsStr::from_bytes(name));
                    let created_or_deleted = ev.mask & (libc::IN_CREATE | libc::IN_DELETE) != 0;
                    if is_dir && !created_or_deleted {
                        // Attributes of a directory: its listing did not change.
                        continue;
                    }
                    out.push(Change { path, dir: is_dir });
                }
            }
            Drained::Changes(out)
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::Drained;
    use std::path::Path;

    /// No synchronous event source on this platform: indexes poll.
    #[derive(Debug)]
    pub(crate) struct DirWatch;

    impl DirWatch {
        pub(crate) fn new(_root: &Path) -> std::io::Result<DirWatch> {
            Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
        }
        pub(crate) fn add(&mut self, _dir: &Path) -> std::io::Result<()> {
            Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
        }
        pub(crate) fn drain(&mut self) -> Drained {
            Drained::Rescan
        }
    }
}

pub(crate) use imp::DirWatch;

/// Adds a watch for `dir` to `watch`, dropping the watcher (so the index polls) when the OS
/// refuses.
pub(crate) fn add_or_give_up(watch: &mut Option<DirWatch>, dir: &Path) {
    if let Some(w) = watch {
        if w.add(dir).is_err() {
            *watch = None;
        }
    }
}

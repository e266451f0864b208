//! One answer, shared by retrieval's index and expansion's file cache, to the question "may
//! this cached view of a file still be trusted?".
//!
//! A [`Stamp`] is what identifies one version of a file without reading it: size, modification
//! time, and on unix the device, inode and status-change time (a rename over the file or a
//! `touch -r` that restores the old mtime still changes the inode or ctime). Equal stamps mean
//! unchanged, with one exception: a file modified within [`RACY_WINDOW`] of the moment it was
//! read may have been written again in the same clock tick (coarse file-system clocks: FAT and
//! HFS+ keep 1-2 s, network file systems similar), so such a view is "racy" and is not trusted
//! until the window has passed (git's "racy git" rule).

use std::path::Path;
use std::time::{Duration, SystemTime};

/// A change this close to a read may share its timestamp with the read, so a view read then
/// is re-validated by content (re-read) rather than trusted by stamp. Two seconds covers the
/// coarsest common file-system clock (FAT's 2 s).
pub const RACY_WINDOW: Duration = Duration::from_secs(2);

/// What identifies one version of a file on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Stamp {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, if the platform has one.
    pub modified: Option<SystemTime>,
    /// Device and inode (unix) or zeros.
    pub dev: u64,
    /// Inode (unix) or 0.
    pub ino: u64,
    /// Status-change time in nanoseconds since the epoch (unix) or 0.
    pub ctime_ns: i64,
}

impl Stamp {
    /// The stamp of a file's metadata.
    pub fn of(metadata: &std::fs::Metadata) -> Stamp {
        #[cfg(unix)]
        let (dev, ino, ctime_ns) = {
            use std::os::unix::fs::MetadataExt;
            (
                metadata.dev(),
                metadata.ino(),
                metadata
                    .ctime()
                    .saturating_mul(1_000_000_000)
                    .saturating_add(metadata.ctime_nsec()),
            )
        };
        #[cfg(not(unix))]
        let (dev, ino, ctime_ns) = (0, 0, 0);
        Stamp {
            size: metadata.len(),
            modified: metadata.modified().ok(),
            dev,
            ino,
            ctime_ns,
        }
    }

    /// The stamp of `path`, following a final symlink.
    pub fn of_path(path: &Path) -> std::io::Result<Stamp> {
        std::fs::metadata(path).map(|m| Stamp::of(&m))
    }

    /// The stamp of `path` without following a final symlink, if it exists.
    pub fn of_link(path: &Path) -> Option<Stamp> {
        std::fs::symlink_metadata(path).ok().map(|m| Stamp::of(&m))
    }

    /// True if the file was modified so shortly before `read_at` (or has no modification
    /// time) that a later change could carry the same stamp: see [`RACY_WINDOW`].
    pub fn is_racy(&self, read_at: SystemTime) -> bool {
        racy(self.modified, read_at)
    }
}

/// True if a modification at `modified` (unknown counts as racy) is within [`RACY_WINDOW`] of
/// `read_at` or after it.
pub fn racy(modified: Option<SystemTime>, read_at: SystemTime) -> bool {
    match modified {
        Some(m) => m + RACY_WINDOW > read_at,
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_seen_and_recent_views_are_racy() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        std::fs::write(&p, "one").unwrap();
        let a = Stamp::of_path(&p).unwrap();
        assert_eq!(Stamp::of_link(&p), Some(a));
        assert!(a.is_racy(SystemTime::now()), "just written");
        assert!(!a.is_racy(SystemTime::now() + RACY_WINDOW * 2));
        std::fs::write(&p, "three").unwrap();
        assert_ne!(Stamp::of_path(&p).unwrap(), a, "size changed");
        assert!(racy(None, SystemTime::now()));
        assert!(Stamp::of_link(&dir.path().join("missing")).is_none());
    }
}

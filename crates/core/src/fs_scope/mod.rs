//! The one place a path is resolved against a root, checked, opened and read.
//!
//! Threat model: the tree under the root is untrusted (a cloned repository can hold symlinks to
//! `/etc` or `~/.ssh`, FIFOs, huge or binary files), and so are the paths callers pass (an agent
//! may ask for `../../secret` or `/etc/passwd`). A [`Scope`] guarantees that
//!
//! - nothing outside the canonical root is ever read, and resolving a relative path never even
//!   looks beyond it: `..` is refused in caller paths, and symlinks are followed one component
//!   at a time, a target that leaves the root being [`ReadError::Escape`] before anything
//!   there is touched (so the tree cannot probe what exists outside);
//! - an absolute path given to [`Scope::resolve_within`] may be canonicalized (it is the
//!   caller's own path), but any result outside the root is the same [`ReadError::Escape`];
//! - symlink loops end with [`ReadError::SymlinkLoop`] after a bounded number of hops;
//! - only regular files are opened for reading, never blocking (FIFOs, sockets and devices are
//!   refused), and no read exceeds its byte cap, even for a file growing meanwhile;
//! - the opened handle is checked against the canonical path after opening, so a tree changed
//!   between resolution and reading is detected rather than trusted;
//! - error messages name only the caller's relative path, never the root or anything outside;
//! - on Linux, [`Scope::read_text`] takes a plain path (names only) through lookups the kernel
//!   itself confines (`openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`): nothing outside
//!   the root and no symlink can be on their way. It looks first (an `O_PATH` handle, which
//!   opens nothing), opens only a regular file, and checks the opened file is the one looked
//!   at. Any path those lookups decline takes the component walk above.
//! - a [`ListedReader`] reads the files a walk of the tree has just looked at (a regular file,
//!   its device and inode) through the same confined lookups, the walk's look standing for
//!   the one before opening; what is not that regular file any more when opened is looked at
//!   again by [`Scope::read_text`].
//!
//! Deliberately out of scope: an attacker racing to swap directories for symlinks at the very
//! instant of a read can at worst narrow the re-checks, and hard links are not symlinks (a hard
//! link in the tree is content of the tree).

mod error;
mod open;
mod text;

#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::{self, File, Metadata};
use std::io;
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

pub use error::ReadError;
pub use text::{looks_binary, normalize_text_owned, truncate_long_lines, BINARY_SNIFF_BYTES};
// The secrets tests compare against it; the library reads through `normalize_text_owned`.
#[cfg(test)]
pub use text::normalize_text;

use crate::error::reason;
use crate::stamp::Stamp;
use crate::Error;
use open::Capped;

/// How many symbolic links one resolution may follow before it is declared a loop (the Linux
/// kernel's limit).
pub const MAX_SYMLINK_HOPS: usize = 40;

/// How many times a read re-opens a file that changed between the check and the open.
const OPEN_ATTEMPTS: usize = 3;

/// A directory that paths are resolved against and confined to.
#[derive(Debug, Clone)]
pub struct Scope {
    /// The canonical root.
    root: PathBuf,
    /// The root as the caller spelled it, if different from `root` and free of `..`: absolute
    /// paths and symlink targets that start with it are understood too.
    alias: Option<PathBuf>,
}

/// A path resolved inside a [`Scope`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The canonical absolute path (every symlink followed).
    pub abs: PathBuf,
    /// The canonical path relative to the root, `'/'`-separated; empty only for the root
    /// itself.
    pub rel: String,
}

/// Limits applied when reading a file as text.
#[derive(Debug, Clone)]
pub struct ReadLimits {
    /// Largest file read, in bytes; bigger files are [`ReadError::TooLarge`]. Default 8 MiB.
    pub max_bytes: u64,
    /// Longer lines are cut to this many characters plus `"..."`; 0 means no limit.
    /// Default 2000.
    pub max_line_chars: usize,
    /// Read content that [`looks_binary`] instead of failing with [`ReadError::Binary`].
    /// Default false.
    pub allow_binary: bool,
}

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            max_bytes: 8 * 1024 * 1024,
            max_line_chars: 2000,
            allow_binary: false,
        }
    }
}

/// A file read as text by [`Scope::read_text`] or [`Scope::read_resolved`].
#[derive(Debug, Clone)]
pub struct TextFile {
    /// The canonical relative path, `'/'`-separated.
    pub rel: String,
    /// The content as by [`normalize_text`](text::normalize_text): `'\n'` line endings, no
    /// BOM, invalid UTF-8 as U+FFFD, long lines cut.
    pub text: String,
    /// The size of the file in bytes as read from disk.
    pub size: u64,
    /// The modification time, where the platform reports one.
    pub modified: Option<SystemTime>,
    /// True if CRLF or lone CR line endings were converted.
    pub crlf: bool,
    /// True if invalid UTF-8 was replaced.
    pub lossy: bool,
    /// How many lines were cut to [`ReadLimits::max_line_chars`].
    pub long_lines_truncated: usize,
}

/// One step of a resolution: a name to enter or a `..` from a symlink target.
enum Step {
    Parent,
    Name(OsString),
}

impl Scope {
    /// Creates a scope for `root`, which must be an absolute path to an existing directory.
    /// The canonical form (every symlink followed) is stored.
    ///
    /// Errors ([`ErrorKind::InvalidRequest`](crate::ErrorKind::InvalidRequest)): empty, with a
    /// NUL byte, relative, not existing, not a directory, not accessible.
    pub fn new(root: impl AsRef<Path>) -> crate::Result<Scope> {
        let given = root.as_ref();
        if given.as_os_str().is_empty() {
            return Err(Error::invalid_request("rootPath must not be empty")
                .with_reason(reason::INVALID_PATH));
        }
        if given.as_os_str().as_encoded_bytes().contains(&0) {
            return Err(
                Error::invalid_request("rootPath must not contain a NUL byte")
                    .with_reason(reason::INVALID_PATH),
            );
        }
        if !given.is_absolute() {
            return Err(Error::invalid_request("rootPath must be an absolute path")
                .with_reason(reason::INVALID_PATH));
        }
        let canonical = fs::canonicalize(given).map_err(|e| root_error(e, "resolved"))?;
        let metadata = fs::metadata(&canonical).map_err(|e| root_error(e, "inspected"))?;
        if !metadata.is_dir() {
            return Err(Error::invalid_request("rootPath is not a directory")
                .with_reason(reason::NOT_A_DIRECTORY));
        }
        let alias = lexical_absolute(given).filter(|a| *a != canonical);
        Ok(Scope {
            root: canonical,
            alias,
        })
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves a caller's relative path strictly.
    ///
    /// `path` is split on `'/'` (and the OS separators); it must not be empty, contain a NUL
    /// byte, be absolute or have a `..` component ([`ReadError::InvalidPath`]). Empty and `.`
    /// components are ignored, so `"."` is the root itself (with an empty `rel`). Every symlink
    /// on the way is followed as long as it stays inside the root ([`ReadError::Escape`]
    /// otherwise, even if it would come back; an absolute target must start with the root);
    /// more than [`MAX_SYMLINK_HOPS`] symlinks is [`ReadError::SymlinkLoop`]. A missing
    /// component is [`ReadError::NotFound`]. The result may be a file or a directory.
    pub fn resolve(&self, path: &str) -> Result<Resolved, ReadError> {
        let names = split_relative(path)?;
        let steps = names
            .into_iter()
            .map(|n| Step::Name(OsString::from(n)))
            .collect();
        self.walk(path, steps)
    }

    /// Resolves a user-supplied path leniently: a relative path as [`resolve`](Self::resolve),
    /// an absolute path only if it leads inside the root.
    ///
    /// An absolute path that starts with the root (canonical or as given to [`Scope::new`]) is
    /// resolved as the relative remainder, under the same checks. Any other absolute path
    /// (for example through a symlinked parent of the root, or with `..` components) is
    /// canonicalized and accepted if the result lies inside the root. Everything else is
    /// [`ReadError::Escape`], whose message does not repeat the path.
    pub fn resolve_within(&self, path: &str) -> Result<Resolved, ReadError> {
        let p = Path::new(path);
        if path.is_empty() || path.contains('\0') || !is_rooted(p) {
            return self.resolve(path);
        }
        if !p.is_absolute() {
            // Rooted but not absolute (Windows `\dir` or `C:dir`): relative to something else.
            return Err(escape_unshown());
        }
        let has_parent = p.components().any(|c| c == Component::ParentDir);
        if !has_parent {
            if let Some(rest) = self.strip_root(p) {
                let shown = rest
                    .components()
                    .filter_map(|c| match c {
                        Component::Normal(s) => s.to_str(),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join("/");
                let steps = path_steps(rest).collect();
                return self.walk(&shown, steps);
            }
        }
        self.resolve_physical(p)
    }

    /// Resolves `path` ([`resolve`](Self::resolve)) and reads it ([`read_resolved`](Self::read_resolved)).
    ///
    /// A plain path (names only) to a regular file is first looked up and opened through
    /// lookups the kernel confines to the root with no symlink on the way, where the platform
    /// has them (Linux's `openat2`): the same file, `rel` and text, in a few system calls
    /// instead of a few per component. Anything else, or any failure of that, takes the
    /// checked way.
    pub fn read_text(&self, path: &str, limits: &ReadLimits) -> Result<TextFile, ReadError> {
        if let Some((file, metadata)) = self.open_plain(path) {
            let bytes = read_opened(path, &file, &metadata, limits.max_bytes)?;
            return text_file(path, bytes, &metadata, limits);
        }
        let resolved = self.resolve(path)?;
        self.read_resolved(&resolved, limits)
    }

    /// `path` opened by [`open::open_beneath`] if it is a plain relative path (its canonical
    /// `rel` is then `path` itself) and names a regular file.
    fn open_plain(&self, path: &str) -> Option<(File, Metadata)> {
        if !is_plain(path) {
            return None;
        }
        open::open_beneath(&self.root, path)
    }

    /// A reader of many files a walk of the tree has just listed, each with the stamp it
    /// took of it ([`ListedReader::read_text`]).
    pub fn listed_reader(&self) -> ListedReader<'_> {
        ListedReader {
            scope: self,
            #[cfg(target_os = "linux")]
            dir: open::RootDir::open(&self.root),
        }
    }

    /// Reads a resolved regular file as text under `limits`.
    ///
    /// Errors: [`ReadError::NotRegularFile`] (directory, FIFO, socket, device),
    /// [`ReadError::TooLarge`], [`ReadError::Binary`] (unless allowed),
    /// [`ReadError::NotFound`] (vanished since resolution), [`ReadError::PermissionDenied`],
    /// [`ReadError::Escape`] (`resolved` does not lead inside the root, or no longer does).
    pub fn read_resolved(
        &self,
        resolved: &Resolved,
        limits: &ReadLimits,
    ) -> Result<TextFile, ReadError> {
        let (file, metadata) = self.open_checked(resolved)?;
        let bytes = read_opened(&resolved.rel, &file, &metadata, limits.max_bytes)?;
        text_file(&resolved.rel, bytes, &metadata, limits)
    }

    /// Reads a resolved regular file's raw bytes, with the same checks and the size cap of
    /// [`read_resolved`](Self::read_resolved) but no binary check and no text normalization.
    pub fn read_bytes(&self, resolved: &Resolved, max_bytes: u64) -> Result<Vec<u8>, ReadError> {
        let (file, metadata) = self.open_checked(resolved)?;
        read_opened(&resolved.rel, &file, &metadata, max_bytes)
    }

    /// True if the canonical absolute path `abs` is the root or inside it. The comparison is by
    /// components (root `/a/b` does not contain `/a/bc`), and a path with `.` or `..`
    /// components after the root is never contained.
    pub fn contains(&self, abs: &Path) -> bool {
        match abs.strip_prefix(&self.root) {
            Ok(rest) => rest.components().all(|c| matches!(c, Component::Normal(_))),
            Err(_) => false,
        }
    }

    /// `p` without the root prefix (canonical or alias), if it has one.
    fn strip_root<'a>(&self, p: &'a Path) -> Option<&'a Path> {
        if let Ok(rest) = p.strip_prefix(&self.root) {
            return Some(rest);
        }
        self.alias.as_deref().and_then(|a| p.strip_prefix(a).ok())
    }

    /// Follows `steps` from the root, one component at a time, never leaving it. `shown` is
    /// the caller's path for error messages.
    fn walk(&self, shown: &str, steps: VecDeque<Step>) -> Result<Resolved, ReadError> {
        let mut pending = steps;
        let mut names: Vec<OsString> = Vec::new();
        let mut current = self.root.clone();
        let mut hops = 0usize;
        let escape = || ReadError::Escape {
            rel: shown.to_owned(),
        };
        while let Some(step) = pending.pop_front() {
            let name = match step {
                Step::Parent => {
                    if names.pop().is_none() {
                        return Err(escape());
                    }
                    current.pop();
                    continue;
                }
                Step::Name(name) => name,
            };
            let candidate = current.join(&name);
            let metadata =
                fs::symlink_metadata(&candidate).map_err(|e| ReadError::from_io(shown, e))?;
            if !metadata.file_type().is_symlink() {
                names.push(name);
                current = candidate;
                continue;
            }
            hops += 1;
            if hops > MAX_SYMLINK_HOPS {
                return Err(ReadError::SymlinkLoop {
                    rel: shown.to_owned(),
                });
            }
            let target = fs::read_link(&candidate).map_err(|e| ReadError::from_io(shown, e))?;
            let relative: &Path = if is_rooted(&target) {
                let rest = self.strip_root(&target).ok_or_else(escape)?;
                names.clear();
                current.clone_from(&self.root);
                rest
            } else {
                &target
            };
            for step in path_steps(relative).rev() {
                pending.push_front(step);
            }
        }
        debug_assert!(self.contains(&current));
        let mut rel = String::new();
        for name in &names {
            let part = name.to_str().ok_or_else(|| ReadError::InvalidPath {
                reason: "the resolved path is not valid UTF-8".into(),
            })?;
            if !rel.is_empty() {
                rel.push('/');
            }
            rel.push_str(part);
        }
        Ok(Resolved { abs: current, rel })
    }

    /// Resolves an absolute path by canonicalizing it and accepting the result only inside the
    /// root. A missing last component is looked up in its canonical parent.
    fn resolve_physical(&self, p: &Path) -> Result<Resolved, ReadError> {
        let canonical = if let Ok(c) = fs::canonicalize(p) {
            c
        } else {
            let (Some(parent), Some(name)) = (p.parent(), p.file_name()) else {
                return Err(escape_unshown());
            };
            match fs::canonicalize(parent) {
                Ok(c) => c.join(name),
                Err(_) => return Err(escape_unshown()),
            }
        };
        let rest = canonical
            .strip_prefix(&self.root)
            .map_err(|_| escape_unshown())?;
        let mut shown = Vec::new();
        for c in rest.components() {
            match c {
                Component::Normal(s) => shown.push(s.to_str().ok_or_else(escape_unshown)?),
                _ => return Err(escape_unshown()),
            }
        }
        let shown = shown.join("/");
        self.walk(&shown, path_steps(rest).collect())
    }

    /// Opens `resolved` without following a final symlink and without blocking, and makes sure
    /// the handle is a regular file that is the one the canonical path inside the root names,
    /// both before and after opening.
    fn open_checked(&self, resolved: &Resolved) -> Result<(File, Metadata), ReadError> {
        let rel = resolved.rel.as_str();
        let io_err = |e: io::Error| ReadError::from_io(rel, e);
        let escape = || ReadError::Escape {
            rel: rel.to_owned(),
        };
        let not_regular = || ReadError::NotRegularFile {
            rel: rel.to_owned(),
        };
        if !self.contains(&resolved.abs) {
            return Err(escape());
        }
        for _ in 0..OPEN_ATTEMPTS {
            // Before: where the path leads now, and what is there, without opening it.
            let canonical = fs::canonicalize(&resolved.abs).map_err(io_err)?;
            if !self.contains(&canonical) {
                return Err(escape());
            }
            let before = fs::symlink_metadata(&canonical).map_err(io_err)?;
            if !before.is_file() {
                return Err(not_regular());
            }
            let file = open::open_nonblocking(&canonical).map_err(io_err)?;
            let metadata = file.metadata().map_err(io_err)?;
            if !metadata.is_file() {
                return Err(not_regular());
            }
            if !open::same_file(&before, &metadata) {
                continue;
            }
            // After: the path must still lead to the very file we hold.
            let after = fs::canonicalize(&resolved.abs).map_err(io_err)?;
            if after != canonical {
                if !self.contains(&after) {
                    return Err(escape());
                }
                continue;
            }
            return Ok((file, metadata));
        }
        Err(ReadError::Io {
            rel: rel.to_owned(),
            source: io::Error::other("the file kept changing while it was being opened"),
        })
    }
}

/// True for a plain relative path: names only (no empty, `.` or `..` component, no leading
/// `/`), so that its canonical `rel` is itself when no component is a symlink.
fn is_plain(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && path.split('/').all(|c| !matches!(c, "" | "." | ".."))
}

/// Reads files that a walk of the tree has just listed, each with the [`Stamp`] it took of it
/// (`symlink_metadata`: a regular file, its device and inode), as [`Scope::read_text`] does
/// and with the same result, in fewer system calls: the root is opened once for the reader
/// instead of once a file (a root replaced meanwhile is still the one read, by the handle
/// taken when the reader was made), and the walk's stamp is the look before opening, so a
/// file is opened straight away, by the lookup the kernel confines to the root with no
/// symlink on the way, and kept only if it is a regular file with the device and inode the
/// walk saw. Anything else (a path that is not plain, a symlink on the way, a file replaced
/// or gone since the walk, no `openat2`) takes [`Scope::read_text`], which looks again.
///
/// A reader is meant for one batch of files read in a row, not to be kept.
pub struct ListedReader<'s> {
    scope: &'s Scope,
    /// The root, opened for confined lookups; `None` where there are none.
    #[cfg(target_os = "linux")]
    dir: Option<open::RootDir>,
}

impl ListedReader<'_> {
    /// Reads `path`, which the walk stamped `seen`, as [`Scope::read_text`] reads it.
    pub fn read_text(
        &self,
        path: &str,
        seen: &Stamp,
        limits: &ReadLimits,
    ) -> Result<TextFile, ReadError> {
        #[cfg(target_os = "linux")]
        if let Some(dir) = self.dir.as_ref().filter(|_| is_plain(path)) {
            if let Some((file, metadata)) = dir.open_seen(path, (seen.dev, seen.ino)) {
                let bytes = read_opened(path, &file, &metadata, limits.max_bytes)?;
                return text_file(path, bytes, &metadata, limits);
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = seen;
        self.scope.read_text(path, limits)
    }
}

/// Reads at most `max` bytes of `file`, an opened regular file of `metadata`, known as `rel`.
fn read_opened(
    rel: &str,
    file: &File,
    metadata: &Metadata,
    max: u64,
) -> Result<Vec<u8>, ReadError> {
    if metadata.len() > max {
        return Err(ReadError::TooLarge {
            rel: rel.to_owned(),
            size: metadata.len(),
            max,
        });
    }
    open::make_blocking(file).map_err(|e| ReadError::from_io(rel, e))?;
    match open::read_capped(file, max, metadata.len()) {
        Ok(Capped::Complete(bytes)) => Ok(bytes),
        Ok(Capped::Exceeded(seen)) => {
            let now = file.metadata().map_or(0, |m| m.len());
            Err(ReadError::TooLarge {
                rel: rel.to_owned(),
                size: seen.max(now),
                max,
            })
        }
        Err(e) => Err(ReadError::from_io(rel, e)),
    }
}

/// The [`TextFile`] of `bytes` read from the file `rel` of `metadata`, under `limits`.
fn text_file(
    rel: &str,
    bytes: Vec<u8>,
    metadata: &Metadata,
    limits: &ReadLimits,
) -> Result<TextFile, ReadError> {
    if !limits.allow_binary && looks_binary(&bytes) {
        return Err(ReadError::Binary {
            rel: rel.to_owned(),
        });
    }
    let size = bytes.len() as u64;
    let normalized = normalize_text_owned(bytes, limits.max_line_chars);
    Ok(TextFile {
        rel: rel.to_owned(),
        text: normalized.text,
        size,
        modified: metadata.modified().ok(),
        crlf: normalized.crlf,
        lossy: normalized.lossy,
        long_lines_truncated: normalized.long_lines_truncated,
    })
}

/// The user-safe error for a bad root.
fn root_error(e: io::Error, what: &str) -> Error {
    let read = ReadError::from_io("", e);
    let why = read.reason();
    let message = match read {
        ReadError::NotFound { .. } => "rootPath does not exist".to_owned(),
        ReadError::PermissionDenied { .. } => {
            "rootPath is not accessible (permission denied)".to_owned()
        }
        ReadError::SymlinkLoop { .. } => {
            "rootPath has too many levels of symbolic links".to_owned()
        }
        ReadError::InvalidPath { .. } => "rootPath is too long".to_owned(),
        ReadError::Io { source, .. } => {
            return Error::invalid_request(format!("rootPath could not be {what}"))
                .with_source(source)
        }
        _ => format!("rootPath could not be {what}"),
    };
    Error::invalid_request(message).with_reason(why)
}

/// An [`ReadError::Escape`] that does not repeat the caller's (absolute) path.
fn escape_unshown() -> ReadError {
    ReadError::Escape { rel: String::new() }
}

/// True if `p` starts at a root or a drive prefix (absolute on unix; also `\x` and `C:x` on
/// Windows).
fn is_rooted(p: &Path) -> bool {
    matches!(
        p.components().next(),
        Some(Component::RootDir | Component::Prefix(_))
    )
}

/// The components of a relative path as resolution steps (`.` dropped).
fn path_steps(p: &Path) -> impl DoubleEndedIterator<Item = Step> + '_ {
    p.components().filter_map(|c| match c {
        Component::Normal(s) => Some(Step::Name(s.to_owned())),
        Component::ParentDir => Some(Step::Parent),
        Component::CurDir | Component::RootDir | Component::Prefix(_) => None,
    })
}

/// Checks a caller's relative path and splits it into names, by this platform's rules.
fn split_relative(path: &str) -> Result<Vec<&str>, ReadError> {
    let p = Path::new(path);
    if !path.is_empty() && (p.is_absolute() || is_rooted(p)) {
        return Err(ReadError::InvalidPath {
            reason: "path must be relative to the root".to_owned(),
        });
    }
    split_relative_as(path, cfg!(windows))
}

/// [`split_relative`] by the rules of Windows (`windows`) or of Unix, looking only at the
/// string, so that both sets of rules are tested on every host. On Windows `\` separates names
/// as `/` does; a leading separator (`\dir`, `\\?\C:\`, `\\server\share`) or a drive
/// (`C:\`, and the drive-relative `C:dir`) is not relative; a `:` (a drive or an alternate data
/// stream) is refused in any name; and so is a name of only dots and spaces other than `.`,
/// since Windows drops a name's trailing dots and spaces (`.. ` and `...` would reach the
/// parent).
fn split_relative_as(path: &str, windows: bool) -> Result<Vec<&str>, ReadError> {
    let invalid = |reason: &str| ReadError::InvalidPath {
        reason: reason.to_owned(),
    };
    if path.is_empty() {
        return Err(invalid("path must not be empty"));
    }
    if path.contains('\0') {
        return Err(invalid("path must not contain a NUL byte"));
    }
    let separator = |c: char| c == '/' || (windows && c == '\\');
    let drive = |p: &str| {
        let b = p.as_bytes();
        b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
    };
    if path.starts_with(separator) || (windows && drive(path)) {
        return Err(invalid("path must be relative to the root"));
    }
    let mut names = Vec::new();
    for segment in path.split(separator) {
        match segment {
            "" | "." => {}
            ".." => return Err(invalid("path must not contain '..'")),
            name => {
                if windows && name.contains(':') {
                    return Err(invalid("path must not contain ':'"));
                }
                if windows && name.trim_end_matches(['.', ' ']).is_empty() {
                    return Err(invalid(
                        "path must not contain a name of only dots and spaces",
                    ));
                }
                names.push(name);
            }
        }
    }
    Ok(names)
}

/// `p` with `.` components dropped, or `None` if it has `..` components (which cannot be
/// removed without looking at the file system).
fn lexical_absolute(p: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => return None,
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    Some(out)
}

//! [`ReadError`]: why a path could not be resolved or read.
//!
//! Every message is safe to show a user: it names at most the caller's relative path (quoted
//! and escaped, shortened when very long), never the root or anything outside it. The
//! underlying [`std::io::Error`] of [`ReadError::Io`] is kept as the `source`, which never
//! crosses the N-API boundary.

use std::fmt;
use std::io;

use crate::{Error, ErrorKind};

/// Why a path could not be resolved, opened or read inside a [`Scope`](super::Scope).
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Nothing exists at the path (or a component on the way is not a directory).
    #[error("file not found: {}", Shown(rel))]
    NotFound {
        /// The caller's relative path.
        rel: String,
    },
    /// The path, or a symlink on the way, leads outside the root.
    #[error("{}", EscapeMessage(rel))]
    Escape {
        /// The caller's relative path; empty when the caller gave an absolute path, which is
        /// never repeated in a message.
        rel: String,
    },
    /// The path is malformed: empty, absolute, has a `..` component or a NUL byte, and so on.
    #[error("invalid path: {reason}")]
    InvalidPath {
        /// What is wrong, without the path itself.
        reason: String,
    },
    /// Resolving the path followed too many symbolic links (a loop such as `a -> b -> a`).
    #[error("too many levels of symbolic links: {}", Shown(rel))]
    SymlinkLoop {
        /// The caller's relative path.
        rel: String,
    },
    /// The path names a directory, FIFO, socket or device rather than a regular file.
    #[error("not a regular file: {}", Shown(rel))]
    NotRegularFile {
        /// The relative path.
        rel: String,
    },
    /// The file is larger than the caller's byte limit.
    #[error(
        "file {} is too large ({size} bytes; the limit is {max} bytes)",
        Shown(rel)
    )]
    TooLarge {
        /// The relative path.
        rel: String,
        /// Its size in bytes (at least `max + 1` if it grew while being read).
        size: u64,
        /// The limit that was exceeded.
        max: u64,
    },
    /// The content looks binary and the caller did not allow binary files.
    #[error("file {} looks binary", Shown(rel))]
    Binary {
        /// The relative path.
        rel: String,
    },
    /// The operating system refused access (`EACCES`/`EPERM`).
    #[error("permission denied: {}", Shown(rel))]
    PermissionDenied {
        /// The relative path.
        rel: String,
    },
    /// Any other I/O failure; the message names only the error category.
    #[error("could not read {}: {}", Shown(rel), source.kind())]
    Io {
        /// The relative path.
        rel: String,
        /// The cause, kept for debugging.
        source: io::Error,
    },
}

impl ReadError {
    /// The crate-wide category: [`ErrorKind::Internal`] for [`ReadError::Io`], otherwise
    /// [`ErrorKind::InvalidRequest`] (the caller asked for something that cannot be read).
    pub fn kind(&self) -> ErrorKind {
        match self {
            ReadError::Io { .. } => ErrorKind::Internal,
            ReadError::NotFound { .. }
            | ReadError::Escape { .. }
            | ReadError::InvalidPath { .. }
            | ReadError::SymlinkLoop { .. }
            | ReadError::NotRegularFile { .. }
            | ReadError::TooLarge { .. }
            | ReadError::Binary { .. }
            | ReadError::PermissionDenied { .. } => ErrorKind::InvalidRequest,
        }
    }

    /// The [`reason`](crate::error::reason) word of this failure (`err.reason` in JavaScript).
    pub fn reason(&self) -> &'static str {
        use crate::error::reason;
        match self {
            ReadError::NotFound { .. } => reason::NOT_FOUND,
            ReadError::Escape { .. } => reason::OUTSIDE_ROOT,
            ReadError::InvalidPath { .. } => reason::INVALID_PATH,
            ReadError::SymlinkLoop { .. } => reason::SYMLINK_LOOP,
            ReadError::NotRegularFile { .. } => reason::NOT_A_FILE,
            ReadError::TooLarge { .. } => reason::TOO_LARGE,
            ReadError::Binary { .. } => reason::BINARY,
            ReadError::PermissionDenied { .. } => reason::PERMISSION_DENIED,
            ReadError::Io { .. } => "io",
        }
    }

    /// Maps an I/O error met while resolving or opening `rel` to the matching variant:
    /// not found / not a directory -> [`NotFound`](ReadError::NotFound), permission denied ->
    /// [`PermissionDenied`](ReadError::PermissionDenied), `ELOOP` ->
    /// [`SymlinkLoop`](ReadError::SymlinkLoop), `ENAMETOOLONG` ->
    /// [`InvalidPath`](ReadError::InvalidPath), is a directory / `ENXIO` (a socket) ->
    /// [`NotRegularFile`](ReadError::NotRegularFile), anything else -> [`Io`](ReadError::Io).
    pub fn from_io(rel: &str, err: io::Error) -> ReadError {
        let rel = rel.to_owned();
        #[cfg(unix)]
        match err.raw_os_error() {
            Some(libc::ELOOP) => return ReadError::SymlinkLoop { rel },
            Some(libc::ENAMETOOLONG) => {
                return ReadError::InvalidPath {
                    reason: "path is too long".into(),
                }
            }
            Some(libc::ENXIO | libc::ENODEV) => return ReadError::NotRegularFile { rel },
            Some(libc::EACCES | libc::EPERM) => return ReadError::PermissionDenied { rel },
            Some(libc::ENOENT | libc::ENOTDIR) => return ReadError::NotFound { rel },
            _ => {}
        }
        match err.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => ReadError::NotFound { rel },
            io::ErrorKind::PermissionDenied => ReadError::PermissionDenied { rel },
            io::ErrorKind::IsADirectory => ReadError::NotRegularFile { rel },
            _ => ReadError::Io { rel, source: err },
        }
    }
}

impl From<ReadError> for Error {
    /// Keeps the user-safe message and the category; the [`ReadError`] becomes the private
    /// source.
    fn from(e: ReadError) -> Self {
        let reason = e.reason();
        Error::new(e.kind(), e.to_string())
            .with_reason(reason)
            .with_source(e)
    }
}

/// Longest relative path repeated verbatim in a message, in characters.
const MAX_SHOWN_CHARS: usize = 200;

/// Displays a caller's relative path quoted, with control characters escaped, shortened.
struct Shown<'a>(&'a str);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(MAX_SHOWN_CHARS) {
            Some((i, _)) => write!(f, "{:?}...", &self.0[..i]),
            None => write!(f, "{:?}", self.0),
        }
    }
}

/// The [`ReadError::Escape`] message, with or without a path.
struct EscapeMessage<'a>(&'a str);

impl fmt::Display for EscapeMessage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("path is outside the root")
        } else {
            write!(f, "path {} resolves outside the root", Shown(self.0))
        }
    }
}

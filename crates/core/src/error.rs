//! The one error type of the crate.
//!
//! Every failure that reaches a caller is an [`Error`] with an [`ErrorKind`]: the five error
//! categories of the Context Retrieval Contract v1 (`docs/design/context-retrieval-contract-v1.md`,
//! "Error Contract"). The N-API layer turns the kind into `err.code` in JavaScript and the message
//! into `err.message`, so a message must always be safe to show a user: no secrets, no tokens, no
//! paths outside the caller's root. Details that are useful for debugging but not safe to show go
//! into `source`, which never crosses the boundary.
//!
//! Besides its kind, an error may carry a [`reason`](Error::reason): a stable `snake_case`
//! word (see [`reason`]) that says which sub-case of the kind it is (`not_found`,
//! `outside_root`, `too_large`...), so callers branch on it instead of parsing messages. In
//! JavaScript it is `err.reason` (absent when the core set none).

use std::fmt;

/// The reasons the core sets on errors (`err.reason` in JavaScript). A reason refines a kind;
/// new reasons may be added, existing ones keep their meaning.
pub mod reason {
    /// A file, directory or remote object does not exist.
    pub const NOT_FOUND: &str = "not_found";
    /// A path leads outside the root it must stay in (a `..`, an absolute path, a symlink).
    pub const OUTSIDE_ROOT: &str = "outside_root";
    /// A root or workspace lies outside every `allowedRoots` entry of the engine.
    pub const OUTSIDE_ALLOWED_ROOTS: &str = "outside_allowed_roots";
    /// A file or input is larger than the limit.
    pub const TOO_LARGE: &str = "too_large";
    /// A file looks binary.
    pub const BINARY: &str = "binary";
    /// A path that must be a directory is not one.
    pub const NOT_A_DIRECTORY: &str = "not_a_directory";
    /// A directory that must be a git repository is not one.
    pub const NOT_A_REPOSITORY: &str = "not_a_repository";
    /// A path that must be a regular file is a directory, FIFO, socket or device.
    pub const NOT_A_FILE: &str = "not_a_file";
    /// A path is malformed: empty, relative where it must be absolute, with a NUL byte, `..`.
    pub const INVALID_PATH: &str = "invalid_path";
    /// The operating system refused access.
    pub const PERMISSION_DENIED: &str = "permission_denied";
    /// A chain of symbolic links is too long or loops.
    pub const SYMLINK_LOOP: &str = "symlink_loop";
    /// An argument has the wrong type or shape, or a value out of range.
    pub const INVALID_ARGUMENT: &str = "invalid_argument";
    /// The caller cancelled the call (an `AbortSignal`, or [`Cancel::cancel`](crate::cancel::Cancel::cancel)).
    pub const ABORTED: &str = "aborted";
    /// The call ran past its deadline (`timeoutMs`).
    pub const DEADLINE: &str = "deadline";
}

/// The category of a failure, as the contract names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The caller's input is wrong: missing or malformed fields, a path outside the root,
    /// a value out of range. Retrying the same request fails again.
    InvalidRequest,
    /// Credentials are missing or were refused (HTTP 401/403).
    Unauthorized,
    /// A dependency is not there right now (connection refused, 5xx, missing `git`).
    Unavailable,
    /// The work did not finish within its deadline.
    Timeout,
    /// A bug or an unexpected system fault, including a caught panic.
    Internal,
}

impl ErrorKind {
    /// The contract's string for this kind, used as `err.code` in JavaScript.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidRequest => "invalid_request",
            ErrorKind::Unauthorized => "unauthorized",
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Internal => "internal",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failure with a category, a user-safe message and an optional private cause.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    kind: ErrorKind,
    message: String,
    reason: Option<&'static str>,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error; `message` must be safe to show a user.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            reason: None,
            source: None,
        }
    }

    /// Sets the [`reason`](Self::reason) (one of the [`reason`](mod@reason) constants).
    pub fn with_reason(mut self, reason: &'static str) -> Self {
        self.reason = Some(reason);
        self
    }

    /// Which sub-case of the kind this is (`not_found`, `outside_root`...), if the core said.
    pub fn reason(&self) -> Option<&'static str> {
        self.reason
    }

    /// The error of a call cancelled by its caller: [`ErrorKind::Timeout`] with reason
    /// `aborted` (the N-API layer rejects such calls with an `AbortError` before this reaches
    /// JavaScript).
    pub fn aborted() -> Self {
        Error::timeout("the operation was aborted").with_reason(reason::ABORTED)
    }

    /// Shorthand for [`ErrorKind::InvalidRequest`].
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidRequest, message)
    }

    /// Shorthand for [`ErrorKind::Unauthorized`].
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unauthorized, message)
    }

    /// Shorthand for [`ErrorKind::Unavailable`].
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unavailable, message)
    }

    /// Shorthand for [`ErrorKind::Timeout`].
    pub fn timeout(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Timeout, message)
    }

    /// Shorthand for [`ErrorKind::Internal`].
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message)
    }

    /// Attaches a private cause (kept for debugging, never shown to a caller).
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// The category.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The user-safe message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Turns a caught panic payload into an [`ErrorKind::Internal`] error. The payload text is
    /// not shown (it may hold data); the message says only that the engine failed.
    pub fn from_panic(_payload: Box<dyn std::any::Any + Send>) -> Self {
        Error::internal("internal error: the operation failed unexpectedly")
    }
}

/// Runs `f`, turning a panic into an [`ErrorKind::Internal`] error so that it never unwinds
/// into the host process.
pub fn catch_panic<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => Err(Error::from_panic(payload)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_have_contract_strings() {
        let all = [
            (ErrorKind::InvalidRequest, "invalid_request"),
            (ErrorKind::Unauthorized, "unauthorized"),
            (ErrorKind::Unavailable, "unavailable"),
            (ErrorKind::Timeout, "timeout"),
            (ErrorKind::Internal, "internal"),
        ];
        for (kind, s) in all {
            assert_eq!(kind.as_str(), s);
            assert_eq!(Error::new(kind, "m").kind(), kind);
        }
    }

    #[test]
    fn message_is_display_and_source_is_private() {
        let io = std::io::Error::other("/secret/path/outside");
        let e = Error::invalid_request("file not found").with_source(io);
        assert_eq!(e.to_string(), "file not found");
        assert!(std::error::Error::source(&e).is_some());
    }

    #[test]
    fn reason_is_optional_and_kept() {
        let e = Error::invalid_request("m");
        assert_eq!(e.reason(), None);
        let e = e.with_reason(reason::NOT_FOUND);
        assert_eq!(e.reason(), Some("not_found"));
        assert_eq!(e.kind(), ErrorKind::InvalidRequest);
        assert_eq!(Error::aborted().reason(), Some(reason::ABORTED));
    }

    #[test]
    fn panics_become_internal() {
        let r: Result<()> = catch_panic(|| panic!("boom with secret sk-123"));
        let e = r.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Internal);
        assert!(!e.message().contains("sk-123"));
    }
}

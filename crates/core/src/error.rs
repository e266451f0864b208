//! The one error type of the crate.
//!
//! Every failure that reaches a caller is an [`Error`] with an [`ErrorKind`]: the five
//! categories of the Context Retrieval Contract v1 (§3.3). The N-API layer turns the kind into
//! `err.code` in JavaScript and the message into `err.message`, so a message must always be
//! safe to show a user: no secrets, no tokens, no paths outside the caller's root. Details that
//! are useful for debugging but not safe to show go into `source`, which never crosses the
//! boundary.

use std::fmt;

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
            source: None,
        }
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
    fn panics_become_internal() {
        let r: Result<()> = catch_panic(|| panic!("boom with secret sk-123"));
        let e = r.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Internal);
        assert!(!e.message().contains("sk-123"));
    }
}

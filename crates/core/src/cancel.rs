//! Cancellation: a flag shared between a caller and the work it started, plus an optional
//! deadline. Long loops (the retrieval index build) check it and stop; an aborted index build
//! leaves no index behind. The engine gives each operation one with its own deadline
//! ([`Engine::deadline`](crate::engine::Engine::deadline)).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::{reason, Error, Result};

/// A cancellation flag shared between a caller and the work it started, with an optional
/// deadline. Clones share the flag. The default never cancels.
#[derive(Debug, Clone, Default)]
pub struct Cancel {
    inner: Arc<CancelInner>,
    deadline: Option<Instant>,
}

#[derive(Debug, Default)]
struct CancelInner {
    flag: AtomicBool,
    notify: tokio::sync::Notify,
}

impl Cancel {
    /// A flag not set, without a deadline.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// The same flag, with a deadline `timeout` from now (none when `timeout` is `None`; the
    /// earlier one when a deadline is already set).
    pub fn with_timeout(mut self, timeout: Option<Duration>) -> Cancel {
        if let Some(t) = timeout {
            let at = Instant::now().checked_add(t);
            self.deadline = match (self.deadline, at) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        self
    }

    /// The deadline, if any.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Sets the flag: work that checks it stops, [`Cancel::cancelled`] completes.
    pub fn cancel(&self) {
        self.inner.flag.store(true, Ordering::SeqCst);
        self.inner.notify.notify_waiters();
    }

    /// Whether [`Cancel::cancel`] was called.
    pub fn is_aborted(&self) -> bool {
        self.inner.flag.load(Ordering::Relaxed)
    }

    /// Whether the work should stop: aborted, or past the deadline.
    pub fn is_cancelled(&self) -> bool {
        self.is_aborted() || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// `Ok` while the work may go on; [`Error::aborted`] after [`Cancel::cancel`], `timeout`
    /// (reason `deadline`) past the deadline.
    pub fn check(&self) -> Result<()> {
        if self.is_aborted() {
            return Err(Error::aborted());
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(deadline_error());
        }
        Ok(())
    }

    /// Completes once [`Cancel::cancel`] is called (never for the deadline: race the work
    /// with a timer for that).
    pub async fn cancelled(&self) {
        let notified = self.inner.notify.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if self.is_aborted() {
            return;
        }
        notified.await;
    }
}

/// The error of an operation that ran past the engine's `timeout`.
pub fn deadline_error() -> Error {
    Error::timeout("the operation did not finish within the engine's timeoutMs")
        .with_reason(reason::DEADLINE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn cancel_flag_and_deadline() {
        let c = Cancel::new();
        assert!(c.check().is_ok());
        let clone = c.clone();
        clone.cancel();
        assert!(c.is_aborted());
        assert_eq!(c.check().unwrap_err().reason(), Some(reason::ABORTED));
        let d = Cancel::new().with_timeout(Some(Duration::ZERO));
        let e = d.check().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Timeout);
        assert_eq!(e.reason(), Some(reason::DEADLINE));
        let later = Cancel::new().with_timeout(Some(Duration::from_secs(3600)));
        assert!(later.check().is_ok());
        // The earlier deadline wins.
        let both = later.with_timeout(Some(Duration::ZERO));
        assert!(both.check().is_err());
    }

    #[test]
    fn cancelled_completes_after_cancel() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let c = Cancel::new();
        let c2 = c.clone();
        rt.block_on(async move {
            let waiter = tokio::spawn(async move { c2.cancelled().await });
            tokio::task::yield_now().await;
            c.cancel();
            tokio::time::timeout(Duration::from_secs(5), waiter)
                .await
                .expect("cancelled() completes")
                .unwrap();
        });
    }
}

//! Helpers shared by the unit tests.
//!
//! # Permission tests as root
//!
//! A file with mode `000` is unreadable to everyone except a process holding
//! `CAP_DAC_OVERRIDE` / `CAP_DAC_READ_SEARCH`, which root has. CI and many development
//! containers run as root, so a test that merely skipped when the file stayed readable would
//! never assert anything there. [`Unprivileged::enter`] instead drops those two capabilities
//! from the *calling thread's* effective set (Linux keeps capabilities per thread, and every
//! test runs on its own thread; threads it starts meanwhile inherit the reduced set), so the
//! kernel really refuses the read; the guard restores the set when it goes out of scope. Where that is not possible (another OS, a filesystem
//! that ignores modes) [`Unprivileged::can_read`] fails the test loudly, unless
//! `CONTEXT_ENGINE_TEST_ALLOW_PRIVILEGED=1` says the run knowingly cannot make the assertion.

use std::path::Path;

/// The environment variable that lets a privileged run skip the permission assertions.
pub(crate) const ALLOW_PRIVILEGED: &str = "CONTEXT_ENGINE_TEST_ALLOW_PRIVILEGED";

/// While alive, the current thread reads files as an ordinary user would (see the module docs).
pub(crate) struct Unprivileged {
    #[cfg(target_os = "linux")]
    saved: Option<caps::Set>,
}

impl Unprivileged {
    /// Drops the file-permission override capabilities of the calling thread.
    pub(crate) fn enter() -> Unprivileged {
        #[cfg(target_os = "linux")]
        {
            Unprivileged {
                saved: caps::drop_dac_override(),
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            Unprivileged {}
        }
    }

    /// Whether `path` (just made unreadable with `chmod 000`) can still be read by this thread.
    /// `false` means the permission assertions that follow are meaningful. `true` panics with
    /// an explanation unless [`ALLOW_PRIVILEGED`] is set, in which case the caller skips them.
    // A method of the guard, so that the check is only ever made while the privilege is dropped.
    #[allow(clippy::unused_self)]
    pub(crate) fn can_read(&self, path: &Path) -> bool {
        let readable = if path.is_dir() {
            std::fs::read_dir(path).is_ok()
        } else {
            std::fs::read(path).is_ok()
        };
        if readable {
            assert!(
                std::env::var(ALLOW_PRIVILEGED).is_ok_and(|v| v == "1"),
                "{} is mode 000 yet readable: this process bypasses file permissions and could \
                 not drop that privilege, so the permission assertions cannot be made. Run the \
                 tests as an ordinary user, or set {ALLOW_PRIVILEGED}=1 to skip them knowingly.",
                path.display()
            );
            eprintln!("note: {ALLOW_PRIVILEGED}=1: skipping a permission assertion");
        }
        readable
    }
}

#[cfg(target_os = "linux")]
impl Drop for Unprivileged {
    fn drop(&mut self) {
        if let Some(saved) = self.saved.take() {
            caps::restore(&saved);
        }
    }
}

#[cfg(target_os = "linux")]
mod caps {
    //! `capget`/`capset` on the calling thread (the raw system calls: they act on one thread,
    //! unlike the C library's set*id wrappers, which change every thread of the process).

    const VERSION_3: u32 = 0x2008_0522;
    const CAP_DAC_OVERRIDE: u32 = 1;
    const CAP_DAC_READ_SEARCH: u32 = 2;

    #[repr(C)]
    struct Header {
        version: u32,
        pid: libc::c_int,
    }

    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    pub(super) struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }

    pub(super) type Set = [Data; 2];

    fn get() -> Option<Set> {
        let mut header = Header {
            version: VERSION_3,
            pid: 0,
        };
        let mut data = Set::default();
        // SAFETY: `header` and `data` are the layouts capget(2) takes for version 3 (two data
        // structs); pid 0 is the calling thread.
        let rc = unsafe { libc::syscall(libc::SYS_capget, &raw mut header, data.as_mut_ptr()) };
        (rc == 0).then_some(data)
    }

    fn set(data: &Set) -> bool {
        let mut header = Header {
            version: VERSION_3,
            pid: 0,
        };
        // SAFETY: as in `get`; capset(2) only reads `data`.
        let rc = unsafe { libc::syscall(libc::SYS_capset, &raw mut header, data.as_ptr()) };
        rc == 0
    }

    /// Clears the two override capabilities from the effective set (they stay permitted, so
    /// they can be raised again); the previous set, or `None` if nothing was held or changed.
    pub(super) fn drop_dac_override() -> Option<Set> {
        let saved = get()?;
        let mask = (1 << CAP_DAC_OVERRIDE) | (1 << CAP_DAC_READ_SEARCH);
        if saved[0].effective & mask == 0 {
            return None;
        }
        let mut reduced = saved;
        reduced[0].effective &= !mask;
        set(&reduced).then_some(saved)
    }

    pub(super) fn restore(saved: &Set) {
        assert!(
            set(saved),
            "could not restore the test thread's capabilities"
        );
    }
}

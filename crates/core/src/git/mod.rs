//! The `git` command-line runner: every git call of the engine goes through [`Git`].
//!
//! Git is run as a child process with explicit arguments (never through a shell), in a fixed
//! environment that makes its output stable and its behaviour non-interactive:
//!
//! - `--no-pager`, `GIT_PAGER=cat`, `color.ui=false`: plain output, no pager ever started;
//! - `GIT_TERMINAL_PROMPT=0`, stdin closed: git never waits for a password;
//! - `GIT_LITERAL_PATHSPECS=1`: a file named `:(glob)*` is a file, not pathspec magic;
//! - `LC_ALL=C`: messages are English, so failures can be classified;
//! - `core.quotepath=false`: non-ASCII paths come out as UTF-8, not octal escapes;
//! - `diff.noprefix`, `diff.mnemonicPrefix`, `log.showSignature` off, `--no-ext-diff`,
//!   `--no-textconv`: a user's git configuration cannot change the output format the parsers
//!   read, or run external programs;
//! - `GIT_DIR`, `GIT_WORK_TREE`, `GIT_INDEX_FILE` from the caller's environment are removed, so
//!   the repository is always the directory asked for;
//! - a timeout ([`DEFAULT_TIMEOUT`]): on expiry the child is killed and [`GitError::TimedOut`]
//!   returned;
//! - an output cap ([`DEFAULT_MAX_OUTPUT`]): once stdout reaches it, the child is killed and
//!   the output so far is returned with [`Output::truncated`] set, so a 50 MB diff never
//!   occupies more than the cap in memory.
//!
//! Failures are a [`GitError`], which the builders turn into a warning and a default value
//! (the spec's "handle git errors gracefully"); [`GitError::warning`] is the user-safe text.

mod ops;
#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod testutil;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;

pub use ops::{changed_lines, ChangeStatus, Commit, DiffStats};

/// How long one git command may run before it is killed.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The most stdout bytes kept from one git command (16 MiB).
pub const DEFAULT_MAX_OUTPUT: usize = 16 * 1024 * 1024;

/// The most stderr bytes kept (only used to classify failures).
const MAX_STDERR: usize = 64 * 1024;

/// Why a git command gave no usable output.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The `git` program could not be started (not installed or not on `PATH`).
    #[error("git is not installed or not on PATH")]
    NotInstalled,
    /// The directory is not inside a git work tree.
    #[error("the directory is not a git repository")]
    NotARepository,
    /// The repository has no commits yet (an empty repository).
    #[error("the repository has no commits yet")]
    NoCommits,
    /// The repository belongs to another user and git refuses it (`safe.directory`).
    #[error("git refuses the repository because it belongs to another user (safe.directory)")]
    DubiousOwnership,
    /// A revision (branch, commit) does not exist.
    #[error("unknown revision")]
    UnknownRevision,
    /// git ran longer than the timeout and was killed.
    #[error("git did not finish within {0:?} and was stopped")]
    TimedOut(Duration),
    /// git exited with a failure status for another reason.
    #[error("git {command} failed with exit status {status}")]
    Failed {
        /// The git subcommand (`log`, `diff`...).
        command: String,
        /// The exit status, or -1 when killed by a signal.
        status: i32,
        /// The first line of git's stderr, kept for debugging (not shown to users).
        stderr: String,
    },
    /// Starting or talking to the child failed.
    #[error("git could not be run: {0}")]
    Io(#[source] std::io::Error),
}

impl GitError {
    /// A user-safe warning for `what` (e.g. "the branch"): names no absolute path and no
    /// argument the caller passed.
    pub fn warning(&self, what: &str) -> String {
        let reason = match self {
            GitError::Failed {
                command, status, ..
            } => {
                format!("git {command} failed with exit status {status}")
            }
            GitError::Io(e) => format!("git could not be run ({:?})", e.kind()),
            other => other.to_string(),
        };
        format!("{what} is unavailable: {reason}")
    }
}

/// What a successful git command printed.
#[derive(Debug, Clone, Default)]
pub struct Output {
    /// Standard output, at most the runner's cap.
    pub stdout: Vec<u8>,
    /// True when the output reached the cap and the child was stopped early.
    pub truncated: bool,
}

impl Output {
    /// stdout as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

/// Runs git commands in one repository directory.
#[derive(Debug, Clone)]
pub struct Git {
    dir: PathBuf,
    program: OsString,
    timeout: Duration,
    max_output: usize,
    path_env: Option<OsString>,
}

impl Git {
    /// A runner for the repository (or any directory inside it) at `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Git {
        Git {
            dir: dir.into(),
            program: OsString::from("git"),
            timeout: DEFAULT_TIMEOUT,
            max_output: DEFAULT_MAX_OUTPUT,
            path_env: None,
        }
    }

    /// The directory commands run in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Sets the timeout of each command.
    pub fn with_timeout(mut self, timeout: Duration) -> Git {
        self.timeout = timeout;
        self
    }

    /// Sets the stdout cap of each command.
    pub fn with_max_output(mut self, bytes: usize) -> Git {
        self.max_output = bytes;
        self
    }

    /// Runs git with this `PATH` instead of the process's (tests: "git missing from PATH").
    pub fn with_path_env(mut self, path: impl Into<OsString>) -> Git {
        self.path_env = Some(path.into());
        self
    }

    /// Runs `git <args>` and returns its stdout. A non-zero exit is an error, classified from
    /// stderr; reaching the output cap is not (the output is returned with `truncated`).
    pub async fn run(&self, args: &[&str]) -> Result<Output, GitError> {
        let mut cmd = Command::new(&self.program);
        cmd.arg("--no-pager")
            .args(["-c", "core.quotepath=false", "-c", "color.ui=false"])
            .args([
                "-c",
                "core.fsmonitor=false",
                "-c",
                "log.showSignature=false",
            ])
            .args([
                "-c",
                "diff.noprefix=false",
                "-c",
                "diff.mnemonicPrefix=false",
            ])
            .args(args)
            .current_dir(&self.dir)
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("LC_ALL", "C")
            .env("LANG", "C")
            .env("GIT_PAGER", "cat")
            .env("PAGER", "cat")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("GIT_LITERAL_PATHSPECS", "1")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_EXTERNAL_DIFF");
        if let Some(path) = &self.path_env {
            cmd.env("PATH", path);
        }
        let finished = match run_process(cmd, self.timeout, self.max_output).await {
            Ok(finished) => finished,
            Err(ProcessError::NotFound) => return Err(GitError::NotInstalled),
            Err(ProcessError::TimedOut) => return Err(GitError::TimedOut(self.timeout)),
            Err(ProcessError::Io(e)) => return Err(GitError::Io(e)),
        };
        if finished.truncated || finished.success {
            return Ok(Output {
                stdout: finished.stdout,
                truncated: finished.truncated,
            });
        }
        Err(classify(
            args.first().copied().unwrap_or(""),
            finished.status,
            &String::from_utf8_lossy(&finished.stderr),
        ))
    }
}

/// How a child process ended, as [`run_process`] saw it.
#[derive(Debug)]
pub(crate) struct Finished {
    /// Exit status code (-1 when killed by a signal or stopped at the cap).
    pub(crate) status: i32,
    /// True for a zero exit status.
    pub(crate) success: bool,
    /// stdout, at most the cap.
    pub(crate) stdout: Vec<u8>,
    /// True when stdout reached the cap and the child was killed.
    pub(crate) truncated: bool,
    /// stderr, at most 64 KiB.
    pub(crate) stderr: Vec<u8>,
}

/// Why [`run_process`] could not run a child to its end.
#[derive(Debug)]
pub(crate) enum ProcessError {
    /// The program was not found.
    NotFound,
    /// It ran longer than the timeout and was killed.
    TimedOut,
    /// Starting it or reading its pipes failed.
    Io(std::io::Error),
}

/// Runs `cmd` (stdout and stderr are piped, stdin closed, the child killed on drop) with a
/// timeout and a stdout cap: at the cap the child is killed and the output so far returned.
pub(crate) async fn run_process(
    mut cmd: Command,
    timeout: Duration,
    max_output: usize,
) -> Result<Finished, ProcessError> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(ProcessError::NotFound),
        Err(e) => return Err(ProcessError::Io(e)),
    };
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(ProcessError::Io(std::io::Error::other("pipes unavailable")));
    };
    let stderr_task = tokio::spawn(read_capped(stderr, MAX_STDERR));
    let work = async {
        let (out, truncated) = read_capped(stdout, max_output)
            .await
            .map_err(ProcessError::Io)?;
        if truncated {
            // Stop the child rather than let it write the rest of a huge output into a pipe
            // nobody reads.
            let _ = child.start_kill();
        }
        let (err, _) = stderr_task
            .await
            .map_err(|e| ProcessError::Io(std::io::Error::other(e)))?
            .map_err(ProcessError::Io)?;
        let status = child.wait().await.map_err(ProcessError::Io)?;
        Ok::<_, ProcessError>(Finished {
            status: if truncated {
                -1
            } else {
                status.code().unwrap_or(-1)
            },
            success: !truncated && status.success(),
            stdout: out,
            truncated,
            stderr: err,
        })
    };
    if let Ok(result) = tokio::time::timeout(timeout, work).await {
        result
    } else {
        let _ = child.kill().await;
        Err(ProcessError::TimedOut)
    }
}

/// Reads `reader` to its end, keeping at most `max` bytes. Returns the bytes and whether more
/// were available (reading stops at the first byte beyond the cap).
async fn read_capped(
    mut reader: impl AsyncRead + Unpin,
    max: usize,
) -> std::io::Result<(Vec<u8>, bool)> {
    let mut out = Vec::with_capacity(max.min(64 * 1024));
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = reader.read(&mut buf).await?;
        if n == 0 {
            return Ok((out, false));
        }
        let room = max - out.len();
        if n > room {
            out.extend_from_slice(&buf[..room]);
            return Ok((out, true));
        }
        out.extend_from_slice(&buf[..n]);
    }
}

fn classify(command: &str, status: i32, stderr: &str) -> GitError {
    let lower = stderr.to_ascii_lowercase();
    if lower.contains("not a git repository") {
        GitError::NotARepository
    } else if lower.contains("dubious ownership") {
        GitError::DubiousOwnership
    } else if lower.contains("does not have any commits yet")
        || lower.contains("ambiguous argument 'head'")
        || lower.contains("bad default revision 'head'")
        || lower.contains("bad revision 'head'")
    {
        GitError::NoCommits
    } else if lower.contains("unknown revision")
        || lower.contains("bad revision")
        || lower.contains("not a valid object name")
        || lower.contains("needed a single revision")
    {
        GitError::UnknownRevision
    } else {
        GitError::Failed {
            command: command.to_owned(),
            status,
            stderr: stderr
                .lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(200)
                .collect(),
        }
    }
}

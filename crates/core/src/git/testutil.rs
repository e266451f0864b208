//! Real repositories for tests: a temp directory, real `git`, fixed identities and dates so
//! commits are reproducible.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A current-thread tokio runtime for tests that drive async git calls.
pub(crate) fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// A temporary git repository (or plain directory) that is deleted on drop.
pub(crate) struct Repo {
    dir: tempfile::TempDir,
    tick: u32,
}

impl Repo {
    /// `git init` with branch `main`.
    pub(crate) fn init() -> Repo {
        let repo = Repo::plain();
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.name", "Test Author"]);
        repo.git(&["config", "user.email", "test@example.com"]);
        repo.git(&["config", "commit.gpgsign", "false"]);
        repo
    }

    /// A plain directory, not a repository.
    pub(crate) fn plain() -> Repo {
        Repo {
            dir: tempfile::tempdir().expect("tempdir"),
            tick: 0,
        }
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn root(&self) -> PathBuf {
        self.dir.path().canonicalize().expect("canonical root")
    }

    /// Runs git in the repository and returns stdout; panics on failure.
    pub(crate) fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(args)
            .current_dir(self.path())
            .env(
                "GIT_AUTHOR_DATE",
                format!("2026-01-01T00:{:02}:00Z", self.tick % 60),
            )
            .env(
                "GIT_COMMITTER_DATE",
                format!("2026-01-01T00:{:02}:00Z", self.tick % 60),
            )
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Writes a file (creating parent directories).
    pub(crate) fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let path = self.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, content).expect("write");
    }

    /// Stages everything and commits with `message`.
    pub(crate) fn commit(&mut self, message: &str) {
        self.tick += 1;
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
    }
}

use std::time::Duration;

use super::testutil::rt;
use super::testutil::Repo;
use super::*;

#[test]
fn branch_commits_and_detached_head() {
    let mut repo = Repo::init();
    repo.write("a.txt", "one\n");
    repo.commit("first");
    repo.write("a.txt", "two\n");
    repo.commit("second: ünïcode subject");
    let git = Git::new(repo.path());
    let rt = rt();
    assert_eq!(rt.block_on(git.current_branch()).unwrap(), "main");
    let commits = rt.block_on(git.recent_commits(10, &[])).unwrap();
    assert_eq!(commits.len(), 2);
    assert_eq!(commits[0].subject, "second: ünïcode subject");
    assert_eq!(commits[0].author, "Test Author");
    assert_eq!(commits[0].hash.len(), 40);
    assert!(commits[0].date.starts_with("2026-01-01T00:02:00"));
    assert_eq!(rt.block_on(git.recent_commits(1, &[])).unwrap().len(), 1);

    repo.git(&["checkout", "-q", "--detach", "HEAD~1"]);
    let branch = rt.block_on(git.current_branch()).unwrap();
    assert!(branch.starts_with("HEAD detached at "), "{branch}");
}

#[test]
fn empty_repository_and_non_repository_are_classified() {
    let repo = Repo::init();
    let git = Git::new(repo.path());
    let rt = rt();
    assert_eq!(rt.block_on(git.current_branch()).unwrap(), "main");
    assert!(matches!(
        rt.block_on(git.recent_commits(10, &[])),
        Err(GitError::NoCommits)
    ));
    let plain = Repo::plain();
    let git = Git::new(plain.path());
    assert!(matches!(
        rt.block_on(git.current_branch()),
        Err(GitError::NotARepository)
    ));
}

#[test]
fn missing_git_is_not_installed() {
    let repo = Repo::init();
    let empty = tempfile::tempdir().unwrap();
    let git = Git::new(repo.path()).with_path_env(empty.path());
    let err = rt().block_on(git.current_branch()).unwrap_err();
    assert!(matches!(err, GitError::NotInstalled), "{err:?}");
    assert!(err.warning("the branch").contains("not installed"));
}

#[test]
fn output_cap_truncates_and_stops_git() {
    let mut repo = Repo::init();
    repo.commit("base");
    repo.write("big.txt", "x\n".repeat(2_000_000));
    let git = Git::new(repo.path()).with_max_output(10_000);
    let out = rt().block_on(git.diff_args(&[])).unwrap();
    // untracked: nothing; stage it and diff the index
    assert!(out.stdout.is_empty());
    repo.git(&["add", "big.txt"]);
    let out = rt().block_on(git.diff_args(&["--cached"])).unwrap();
    assert!(out.truncated);
    assert_eq!(out.stdout.len(), 10_000);
}

#[test]
#[cfg(unix)]
fn timeout_kills_the_command() {
    use std::os::unix::fs::PermissionsExt;
    let repo = Repo::init();
    // A `git` that never answers (a real one can finish inside a timer tick, however short the
    // timeout), first on the PATH the runner is given.
    let bin = tempfile::tempdir().unwrap();
    let fake = bin.path().join("git");
    std::fs::write(&fake, "#!/bin/sh\nexec sleep 30\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = std::env::join_paths(std::iter::once(bin.path().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let git = Git::new(repo.path())
        .with_path_env(path)
        .with_timeout(Duration::from_millis(200));
    let started = std::time::Instant::now();
    let err = rt().block_on(git.current_branch()).unwrap_err();
    assert!(matches!(err, GitError::TimedOut(_)), "{err:?}");
    // killed at the deadline, not waited for
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn changed_files_renames_binary_spaces_unicode() {
    let mut repo = Repo::init();
    repo.write("old name.txt", "a\nb\nc\nd\ne\nf\n");
    repo.write("keep.rs", "fn a() {}\n");
    repo.write("gone.txt", "bye\n");
    repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.git(&["mv", "old name.txt", "new näme.txt"]);
    repo.write("keep.rs", "fn a() {}\nfn b() {}\n");
    repo.write("logo.png", [0x89u8, b'P', b'N', b'G', 0, 0, 1, 2, 3]);
    std::fs::remove_file(repo.path().join("gone.txt")).unwrap();
    repo.commit("feature work");
    let git = Git::new(repo.path());
    let rt = rt();
    let base = rt.block_on(git.merge_base("main", "HEAD")).unwrap();
    let files = rt.block_on(git.changed_files(&base, None)).unwrap();
    let summary: Vec<_> = files
        .iter()
        .map(|f| {
            (
                f.path.as_str(),
                f.status,
                f.binary,
                f.insertions,
                f.deletions,
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            ("gone.txt", ChangeStatus::Deleted, false, 0, 1),
            ("keep.rs", ChangeStatus::Modified, false, 1, 0),
            ("logo.png", ChangeStatus::Added, true, 0, 0),
            ("new näme.txt", ChangeStatus::Renamed, false, 0, 0),
        ]
    );
    assert_eq!(files[3].old_path.as_deref(), Some("old name.txt"));
    let stats = DiffStats::of(&files);
    assert_eq!(
        (
            stats.files_changed,
            stats.insertions,
            stats.deletions,
            stats.binary_files
        ),
        (4, 1, 1, 1)
    );
    let diff = rt.block_on(git.diff(&base, None)).unwrap().text();
    let lines = ops::changed_lines(&diff);
    assert!(
        lines.contains(&("keep.rs".to_owned(), vec![2])),
        "{lines:?}"
    );
}

#[test]
fn unknown_revision_is_classified() {
    let mut repo = Repo::init();
    repo.commit("base");
    let git = Git::new(repo.path());
    assert!(matches!(
        rt().block_on(git.resolve_commit("no-such-branch")),
        Err(GitError::UnknownRevision)
    ));
}

#[test]
fn changed_lines_handles_tricky_hunks() {
    let diff = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,3 @@\n a\n++++ not a header\n b\n@@ -10,2 +11,0 @@\n-gone\n-gone\ndiff --git a/y z b/y z\n--- a/y z\t\n+++ b/y z\t\n@@ -0,0 +1 @@\n+new\n";
    let lines = ops::changed_lines(diff);
    assert_eq!(
        lines,
        vec![("x".to_owned(), vec![2, 11]), ("y z".to_owned(), vec![1])]
    );
}

#[test]
fn parse_numstat_and_name_status() {
    let rows = ops::parse_numstat_z("1\t2\ta.txt\0-\t-\tb.bin\x000\t0\t\0old\0new\0");
    assert_eq!(rows.len(), 3);
    assert!(rows[1].2);
    assert_eq!(rows[2].3, "new");
    assert_eq!(rows[2].4.as_deref(), Some("old"));
    let st = ops::parse_name_status_z("M\0a.txt\0R087\0old\0new\0");
    assert_eq!(
        st,
        vec![
            (ChangeStatus::Modified, "a.txt".to_owned()),
            (ChangeStatus::Renamed, "new".to_owned())
        ]
    );
}

#[test]
fn user_config_cannot_change_the_diff_format() {
    let mut repo = Repo::init();
    repo.write("a.txt", "a\n");
    repo.commit("base");
    repo.git(&["config", "diff.noprefix", "true"]);
    repo.git(&["config", "diff.mnemonicPrefix", "true"]);
    repo.git(&["config", "color.ui", "always"]);
    repo.write("a.txt", "a\nb\n");
    let git = Git::new(repo.path());
    let diff = rt().block_on(git.diff("HEAD", None)).unwrap().text();
    assert!(diff.contains("+++ b/a.txt\n"), "{diff}");
    assert!(!diff.contains('\x1b'));
    assert_eq!(
        ops::changed_lines(&diff),
        vec![("a.txt".to_owned(), vec![2])]
    );
}

/// The parsers of git's output take whatever git (or a stand-in on PATH) prints: no panic,
/// and nothing invented from nothing (every parser of outside input has property tests).
mod parser_properties {
    use super::*;
    use proptest::prelude::*;

    fn git_ish() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec![
                "\0",
                "\t",
                "\n",
                "-",
                "1",
                "0",
                "M",
                "R087",
                "A",
                "D",
                "a.txt",
                "b c",
                "é",
                "\x1e",
                "\x1f",
                "commit ",
                "diff --git a/x b/x\n",
                "+++ b/x\n",
                "@@ -1,2 +3,4 @@\n",
                "@@ -0,0 +1 @@\n",
                "+x\n",
                "-y\n",
                " z\n",
                "\\ No newline at end of file\n",
            ]),
            0..80,
        )
        .prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn git_output_parsers_never_panic(text in any::<String>(), shaped in git_ish()) {
            for t in [&text, &shaped] {
                let _ = ops::parse_log(t);
                let rows = ops::parse_numstat_z(t);
                prop_assert!(rows.len() <= t.matches('\0').count() + 1);
                let st = ops::parse_name_status_z(t);
                prop_assert!(st.len() <= t.matches('\0').count() + 1);
                let lines = ops::changed_lines(t);
                prop_assert!(lines.len() <= t.lines().count());
            }
        }
    }
}

use std::os::unix::fs::PermissionsExt;

use super::*;
use crate::git::testutil::rt;
use crate::git::testutil::Repo as TestRepo;

/// The repository directory's own name: the first line of a directory outline.
fn root_name(repo: &TestRepo) -> String {
    repo.root()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

#[test]
fn dir_context_lists_tree_with_declarations() {
    let repo = TestRepo::plain();
    repo.write("src/lib.rs", "pub fn parse() {}\npub struct Scope;\n");
    repo.write("src/util/mod.rs", "fn helper() {}\n");
    repo.write(
        "web/app.ts",
        "export class App {}\nexport function main() {}\n",
    );
    repo.write("README.md", "# hi\n");
    repo.write("node_modules/dep/index.js", "function hidden() {}\n");
    repo.write(".git/config", "x\n");
    repo.write("a b ü.py", "def spaced():\n    pass\n");
    std::os::unix::fs::symlink("/etc", repo.path().join("etc-link")).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", repo.path().join("host-link.rs")).unwrap();
    std::os::unix::fs::symlink("src/lib.rs", repo.path().join("inner-link.rs")).unwrap();
    std::os::unix::fs::symlink("loop", repo.path().join("loop")).unwrap();
    let src = dir_context(&repo.root(), &DirOptions::default()).unwrap();
    let name = root_name(&repo);
    assert_eq!(
        src.content,
        format!(
            "{name}/\n  README.md\n  a b ü.py — function spaced:1\n  inner-link.rs — function parse:1, struct Scope:2\n  src/\n    lib.rs — function parse:1, struct Scope:2\n    util/\n      mod.rs — function helper:1\n  web/\n    app.ts — class App:1, function main:2\n"
        )
    );
    assert!(!src.truncated);
    assert_eq!(src.kind, SourceKind::Dir);
}

#[test]
fn dir_context_leaves_out_gitignored_files() {
    let repo = TestRepo::init();
    repo.write(".gitignore", "secret.env\ngen/\n*.log\n");
    repo.write("secret.env", "TOKEN=x\n");
    repo.write("gen/out.rs", "pub fn generated() {}\n");
    repo.write("app.log", "x\n");
    repo.write("src/.gitignore", "local.py\n");
    repo.write("src/local.py", "def mine(): pass\n");
    repo.write("src/main.py", "def main(): pass\n");
    let src = dir_context(&repo.root(), &DirOptions::default()).unwrap();
    let name = root_name(&repo);
    assert_eq!(
        src.content,
        format!("{name}/\n  src/\n    main.py — function main:1\n")
    );
}

#[test]
fn dir_context_outlines_every_registry_language() {
    let repo = TestRepo::plain();
    repo.write(
        "Cart.java",
        "class Cart {\n  int total() { return 0; }\n}\n",
    );
    repo.write(
        "cart.rb",
        "module Shop\n  class Cart\n    def total; end\n  end\nend\n",
    );
    repo.write("cart.ex", "defmodule Cart do\n  def total(c), do: 0\nend\n");
    let src = dir_context(&repo.root(), &DirOptions::default()).unwrap();
    let lines: Vec<&str> = src.content.lines().skip(1).collect();
    assert_eq!(
        lines,
        vec![
            "  Cart.java — class Cart:1",
            "  cart.ex — module Cart:1, function total:2",
            "  cart.rb — module Shop:1, class Cart:2",
        ]
    );
}

#[test]
fn dir_context_caps_large_trees() {
    let repo = TestRepo::plain();
    for i in 0..400 {
        repo.write(
            &format!("pkg/file_{i:04}.rs"),
            format!("pub fn f{i}() {{}}\n"),
        );
    }
    let src = dir_context(&repo.root(), &DirOptions::default()).unwrap();
    assert!(src.truncated);
    assert!(utf16_len(&src.content) <= DEFAULT_MAX_CHARS);
    assert!(
        src.content.ends_with(&format!("{TRUNCATION_MARKER}\n"))
            || src.content.ends_with(TRUNCATION_MARKER)
    );
    let small = dir_context(
        &repo.root(),
        &DirOptions {
            max_files: 3,
            max_chars: 100_000,
            redact: true,
        },
    )
    .unwrap();
    assert_eq!(
        small
            .content
            .lines()
            .filter(|l| l.contains("file_"))
            .count(),
        3
    );
    assert!(small.content.contains("more files not listed"));
}

#[test]
fn file_context_keeps_150_lines() {
    let repo = TestRepo::plain();
    let text: String = (1..=400).map(|i| format!("l{i}\n")).collect();
    repo.write("big.txt", &text);
    repo.write("small.txt", "one\ntwo");
    let abs = repo.root().join("big.txt");
    let src = file_context(abs.to_str().unwrap(), None, &FileOptions::default()).unwrap();
    assert!(src.truncated);
    assert_eq!(src.label, "big.txt");
    let lines: Vec<&str> = src.content.lines().collect();
    assert_eq!(lines.len(), 151);
    assert_eq!(lines[149], "l150");
    assert_eq!(lines[150], "[... truncated: 250 more lines of 400 ...]");
    let small = file_context("small.txt", Some(&repo.root()), &FileOptions::default()).unwrap();
    assert_eq!(
        (small.content.as_str(), small.truncated),
        ("one\ntwo", false)
    );
    let err = file_context("../x", Some(&repo.root()), &FileOptions::default()).unwrap_err();
    assert_eq!(err.kind(), crate::ErrorKind::InvalidRequest);
    let err = file_context("missing.txt", Some(&repo.root()), &FileOptions::default()).unwrap_err();
    assert_eq!(err.kind(), crate::ErrorKind::InvalidRequest);
    let err = file_context("rel.txt", None, &FileOptions::default()).unwrap_err();
    assert_eq!(err.kind(), crate::ErrorKind::InvalidRequest);
}

#[test]
fn diff_context_staged_and_unstaged() {
    let mut repo = TestRepo::init();
    repo.write("a.txt", "a\n");
    repo.write("b.txt", "b\n");
    repo.commit("base");
    let rt = rt();
    let clean = rt
        .block_on(diff_context(&repo.root(), DEFAULT_MAX_CHARS, None, true))
        .unwrap();
    assert_eq!(clean.content, "No staged or unstaged changes.\n");
    repo.write("a.txt", "a2\n");
    repo.git(&["add", "a.txt"]);
    repo.write("b.txt", "b2\n");
    let src = rt
        .block_on(diff_context(&repo.root(), DEFAULT_MAX_CHARS, None, true))
        .unwrap();
    let staged_at = src.content.find("Staged changes:\n").unwrap();
    let unstaged_at = src.content.find("Unstaged changes:\n").unwrap();
    assert!(staged_at < unstaged_at);
    assert!(src.content[staged_at..unstaged_at].contains("+a2"));
    assert!(src.content[unstaged_at..].contains("+b2"));
    assert!(!src.truncated);

    repo.write("b.txt", "x\n".repeat(100_000));
    let big = rt
        .block_on(diff_context(&repo.root(), 1000, None, true))
        .unwrap();
    assert!(big.truncated && utf16_len(&big.content) <= 1000);

    let plain = TestRepo::plain();
    let err = rt
        .block_on(diff_context(&plain.root(), 5000, None, true))
        .unwrap_err();
    assert_eq!(err.kind(), crate::ErrorKind::InvalidRequest);
    let empty = tempfile::tempdir().unwrap();
    let git = crate::git::Git::new(repo.root()).with_path_env(empty.path());
    let err = rt
        .block_on(diff_context(&repo.root(), 5000, Some(git), true))
        .unwrap_err();
    assert_eq!(err.kind(), crate::ErrorKind::Unavailable);
}

/// Writes a `gh` stand-in that records its arguments and prints what real `gh` prints.
fn fake_gh(dir: &std::path::Path, script: &str) {
    let path = dir.join("gh");
    std::fs::write(
        &path,
        format!("#!/bin/sh\necho \"$@\" >> \"$(dirname \"$0\")/calls.log\"\n{script}\n"),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

const VIEW_JSON: &str = r#"{"additions":12,"author":{"id":"MDQ6VXNlcjE=","is_bot":false,"login":"octocat","name":"The Octocat"},"baseRefName":"main","body":"Fixes the parser.\r\n\r\nSee #41.","changedFiles":2,"deletions":3,"headRefName":"fix-parser","isDraft":false,"labels":[{"id":"LA_1","name":"bug","description":"","color":"d73a4a"}],"number":42,"state":"OPEN","title":"Fix the parser","url":"https://github.com/octo/repo/pull/42"}"#;

#[test]
fn pr_context_through_gh() {
    let repo = TestRepo::init();
    let bin = tempfile::tempdir().unwrap();
    fake_gh(
        bin.path(),
        &format!(
            "case \"$2\" in\n view) cat <<'EOF'\n{VIEW_JSON}\nEOF\n;;\n diff) printf 'diff --git a/p.rs b/p.rs\\n--- a/p.rs\\n+++ b/p.rs\\n@@ -1 +1 @@\\n-old\\n+new\\n';;\nesac"
        ),
    );
    let gh = Gh::default().with_path_env(format!("{}:/usr/bin:/bin", bin.path().display()));
    let src = rt()
        .block_on(pr_context(
            &repo.root(),
            &PrRef::Number(42),
            DEFAULT_MAX_CHARS,
            Some(gh),
            true,
        ))
        .unwrap();
    assert_eq!(src.label, "PR #42");
    assert_eq!(
        src.content,
        "PR #42: Fix the parser\nState: OPEN; main <- fix-parser\nAuthor: octocat\nLabels: bug\nURL: https://github.com/octo/repo/pull/42\nChanges: +12 -3 in 2 files\n\nFixes the parser.\n\nSee #41.\n\nDiff:\ndiff --git a/p.rs b/p.rs\n--- a/p.rs\n+++ b/p.rs\n@@ -1 +1 @@\n-old\n+new\n"
    );
    let calls = std::fs::read_to_string(bin.path().join("calls.log")).unwrap();
    assert_eq!(
        calls,
        format!("pr view 42 --json {PR_FIELDS}\npr diff 42 --color never\n")
    );
}

#[test]
fn pr_context_errors() {
    let repo = TestRepo::init();
    let rt = rt();
    let run = |script: &str| {
        let bin = tempfile::tempdir().unwrap();
        fake_gh(bin.path(), script);
        let gh = Gh::default()
            .with_path_env(format!("{}:/usr/bin:/bin", bin.path().display()))
            .with_timeout(std::time::Duration::from_millis(500));
        rt.block_on(pr_context(
            &repo.root(),
            &PrRef::Number(7),
            5000,
            Some(gh),
            true,
        ))
        .unwrap_err()
    };
    let e = run("echo 'To get started with GitHub CLI, please run:  gh auth login' >&2; exit 4");
    assert_eq!(e.kind(), crate::ErrorKind::Unauthorized);
    let e = run("echo 'no pull requests found for branch \"x\"' >&2; exit 1");
    assert_eq!(e.kind(), crate::ErrorKind::InvalidRequest);
    let e = run("echo 'error connecting to api.github.com' >&2; exit 1");
    assert_eq!(e.kind(), crate::ErrorKind::Unavailable);
    assert_eq!(e.message(), "gh pr view failed with exit status 1");
    let e = run("echo 'not json'");
    assert_eq!(e.kind(), crate::ErrorKind::Unavailable);
    let e = run("sleep 5");
    assert_eq!(e.kind(), crate::ErrorKind::Timeout);
    let empty = tempfile::tempdir().unwrap();
    let gh = Gh::default().with_path_env(empty.path());
    let e = rt
        .block_on(pr_context(
            &repo.root(),
            &PrRef::Number(7),
            5000,
            Some(gh),
            true,
        ))
        .unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::Unavailable);
    assert!(e.message().contains("not installed"));
}

#[test]
fn pr_ref_validation() {
    assert_eq!(PrRef::parse("12").unwrap(), PrRef::Number(12));
    assert_eq!(PrRef::parse("#12").unwrap(), PrRef::Number(12));
    assert_eq!(
        PrRef::parse("https://github.com/o/r/pull/3").unwrap(),
        PrRef::Name("https://github.com/o/r/pull/3".into())
    );
    for bad in ["", "-R", "a b", "x\ny"] {
        assert!(PrRef::parse(bad).is_err(), "{bad:?}");
    }
}

fn source(kind: SourceKind, label: &str, content: &str) -> ContextSource {
    ContextSource {
        kind,
        label: label.into(),
        content: content.into(),
        truncated: false,
        redactions: Vec::new(),
    }
}

#[test]
fn compose_orders_and_caps() {
    let sources = vec![
        source(SourceKind::Diff, "working tree", "DIFF\n"),
        source(SourceKind::File, "b.rs", "B\n"),
        source(SourceKind::Pr, "PR #1", "PR\n"),
        source(SourceKind::Dir, "src/", "TREE\n"),
        source(SourceKind::File, "a.rs", "A\n"),
    ];
    let c = compose_context(&sources, DEFAULT_MAX_CHARS, true);
    assert_eq!(
        c.text,
        "## dir: src/\nTREE\n\n## file: b.rs\nB\n\n## file: a.rs\nA\n\n## pr: PR #1\nPR\n\n## diff: working tree\nDIFF\n"
    );
    assert!(!c.truncated && c.omitted.is_empty());

    let big = vec![
        source(SourceKind::File, "one", &"x".repeat(4000)),
        source(SourceKind::File, "two", &"y".repeat(4000)),
        source(SourceKind::Diff, "three", "z\n"),
    ];
    let c = compose_context(&big, 5000, true);
    assert!(utf16_len(&c.text) <= 5000, "{}", utf16_len(&c.text));
    assert!(c.truncated);
    assert!(
        c.text
            .ends_with("[... context truncated at 5000 characters; 1 more source(s) omitted ...]"),
        "{}",
        &c.text[c.text.len() - 100..]
    );
    assert_eq!(c.omitted, vec!["three"]);
    assert!(c.text.contains("## file: two\n"));

    // emoji count as two UTF-16 units, as in JavaScript
    let emoji = vec![source(SourceKind::File, "e", &"😀".repeat(3000))];
    let c = compose_context(&emoji, 5000, true);
    assert!(utf16_len(&c.text) <= 5000);
    assert!(c.truncated && c.omitted.is_empty());
    // a cap smaller than the marker still holds
    let c = compose_context(&big, 10, true);
    assert!(utf16_len(&c.text) <= 10);
    assert_eq!(compose_context(&[], 5000, true).text, "");
}

// ---- redaction ----------------------------------------------------------------------------

use crate::secrets::fakes;
use crate::secrets::{Redaction, SecretKind};

fn fake_github() -> String {
    fakes::samples(SecretKind::GithubToken, 41)[0].clone()
}

#[test]
fn file_context_redacts_and_reports() {
    let repo = TestRepo::plain();
    let gh = fake_github();
    let npm = fakes::samples(SecretKind::NpmToken, 42)[0].clone();
    let key = fakes::samples(SecretKind::PrivateKey, 43)[0].clone();
    repo.write(
        "cfg.env",
        format!("# config\n{gh}\n{npm}\n{key}\nPORT=80\n"),
    );
    let src = file_context("cfg.env", Some(&repo.root()), &FileOptions::default()).unwrap();
    for secret in [&gh, &npm] {
        let value = secret.split_once('=').unwrap().1;
        assert!(!src.content.contains(value), "{}", src.content);
    }
    assert!(!src.content.contains(key.lines().nth(1).unwrap()));
    assert!(src.content.ends_with("PORT=80\n"), "{}", src.content);
    assert_eq!(
        src.redactions,
        vec![
            Redaction {
                kind: SecretKind::GithubToken,
                line: 2
            },
            Redaction {
                kind: SecretKind::NpmToken,
                line: 3
            },
            Redaction {
                kind: SecretKind::PrivateKey,
                line: 4
            },
        ]
    );
    // The line cut comes after redaction: a key block cut by maxLines is still redacted, and
    // only the redactions still shown are reported.
    let cut = file_context(
        "cfg.env",
        Some(&repo.root()),
        &FileOptions {
            max_lines: 5,
            ..FileOptions::default()
        },
    )
    .unwrap();
    assert!(
        !cut.content.contains(key.lines().nth(1).unwrap()),
        "{}",
        cut.content
    );
    assert_eq!(cut.redactions.len(), 3);
    // Opt-out.
    let raw = file_context(
        "cfg.env",
        Some(&repo.root()),
        &FileOptions {
            redact: false,
            ..FileOptions::default()
        },
    )
    .unwrap();
    assert!(raw.content.contains(&gh));
    assert!(raw.redactions.is_empty());
}

#[test]
fn diff_context_redacts_and_reports() {
    let mut repo = TestRepo::init();
    repo.write("a.txt", "a\n");
    repo.commit("base");
    let gh = fake_github();
    repo.write("a.txt", format!("a\n{gh}\n"));
    let rt = rt();
    let src = rt
        .block_on(diff_context(&repo.root(), DEFAULT_MAX_CHARS, None, true))
        .unwrap();
    let value = gh.split_once('=').unwrap().1;
    assert!(!src.content.contains(value), "{}", src.content);
    assert!(src.content.contains("+GH_TOKEN=[REDACTED:github_token]"));
    assert_eq!(src.redactions.len(), 1);
    assert_eq!(src.redactions[0].kind, SecretKind::GithubToken);
    let line = src
        .content
        .lines()
        .position(|l| l.contains("[REDACTED:"))
        .unwrap()
        + 1;
    assert_eq!(src.redactions[0].line, line);
    let raw = rt
        .block_on(diff_context(&repo.root(), DEFAULT_MAX_CHARS, None, false))
        .unwrap();
    assert!(raw.content.contains(value));
}

#[test]
fn compose_context_redacts_caller_text_before_cutting() {
    let gh = fake_github();
    let value = gh.split_once('=').unwrap().1.to_owned();
    let sources = [source(SourceKind::File, "a", &format!("one\n{gh}\n"))];
    let c = compose_context(&sources, DEFAULT_MAX_CHARS, true);
    assert!(!c.text.contains(&value));
    assert_eq!(
        c.redactions,
        vec![Redaction {
            kind: SecretKind::GithubToken,
            line: 3
        }]
    );
    // A cap that falls inside the token: no prefix of it survives.
    let at = utf16_len("## file: a\none\nGH_TOKEN=") + 30;
    for max in [at - 12, at - 20, at] {
        let c = compose_context(&sources, max, true);
        assert!(!c.text.contains(&value[..6]), "{max}: {}", c.text);
    }
    let raw = compose_context(&sources, DEFAULT_MAX_CHARS, false);
    assert!(raw.text.contains(&value));
}

#[test]
fn compose_context_reads_only_what_it_can_show_of_a_huge_source() {
    // 4 MB of code after a private key that starts just before the cut and whose body runs
    // far past it: the composed text is what a source holding only its first part gives,
    // and no line of the key survives.
    let key = fakes::samples(SecretKind::PrivateKey, 7)[0].clone();
    let body_line = key.lines().nth(1).unwrap().to_owned();
    let long_key = key.replacen(
        &format!("{body_line}\n"),
        &format!("{body_line}\n").repeat(2000),
        1,
    );
    let head = "let x = 1;\n".repeat(400);
    let tail = "fn f() {}\n".repeat(400_000);
    let content = format!("{head}{long_key}\n{tail}");
    let short = &content[..200_000];
    let sources = [
        source(SourceKind::File, "big", &content),
        source(SourceKind::Diff, "d", "+x\n"),
    ];
    let short_sources = [
        source(SourceKind::File, "big", short),
        source(SourceKind::Diff, "d", "+x\n"),
    ];
    let c = compose_context(&sources, DEFAULT_MAX_CHARS, true);
    assert_eq!(c, compose_context(&short_sources, DEFAULT_MAX_CHARS, true));
    assert!(c.truncated);
    assert_eq!(c.omitted, vec!["d".to_owned()]);
    assert!(!c.text.contains(&body_line[..20]), "{}", c.text);
    assert_eq!(c.redactions.len(), 1);
    assert_eq!(c.redactions[0].kind, SecretKind::PrivateKey);
    assert_eq!(c.redactions[0].line, 402);
    // Without redaction the shown text is the plain prefix.
    let raw = compose_context(&sources, DEFAULT_MAX_CHARS, false);
    assert!(raw.text.contains(&body_line));
}

#[test]
fn dir_context_reports_no_redactions_on_plain_trees() {
    let repo = TestRepo::plain();
    repo.write("src/lib.rs", "pub fn parse() {}\n");
    let src = dir_context(&repo.root(), &DirOptions::default()).unwrap();
    assert!(src.redactions.is_empty());
}

#[test]
fn pr_context_redacts_the_diff_and_reports() {
    let repo = TestRepo::init();
    let bin = tempfile::tempdir().unwrap();
    let gh = fake_github();
    fake_gh(
        bin.path(),
        &format!(
            "case \"$2\" in\n view) cat <<'EOF'\n{VIEW_JSON}\nEOF\n;;\n diff) printf 'diff --git a/p.rs b/p.rs\\n+{gh}\\n';;\nesac"
        ),
    );
    let run = |redact| {
        let gh = Gh::default().with_path_env(format!("{}:/usr/bin:/bin", bin.path().display()));
        rt().block_on(pr_context(
            &repo.root(),
            &PrRef::Number(42),
            DEFAULT_MAX_CHARS,
            Some(gh),
            redact,
        ))
        .unwrap()
    };
    let src = run(true);
    let value = gh.split_once('=').unwrap().1;
    assert!(!src.content.contains(value), "{}", src.content);
    let line = src
        .content
        .lines()
        .position(|l| l.contains("[REDACTED:github_token]"));
    assert_eq!(
        src.redactions,
        vec![Redaction {
            kind: SecretKind::GithubToken,
            line: line.unwrap() + 1
        }]
    );
    assert!(run(false).content.contains(value));
}

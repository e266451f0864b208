use std::path::Path;

use super::*;
use crate::git::testutil::rt;
use crate::git::testutil::Repo as TestRepo;
use crate::git::Git;

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

// The builders with the default options, run to completion.

fn run_implementation(task_file: &str, repo: &Path) -> crate::Result<ImplementationContext> {
    rt().block_on(build_implementation_context(
        task_file,
        repo,
        &BuildOptions::default(),
    ))
}

fn run_review(repo: &Path, base_branch: &str) -> crate::Result<ReviewContext> {
    rt().block_on(build_review_context(
        repo,
        base_branch,
        &BuildOptions::default(),
    ))
}

fn run_fix(source: FixSource, files: &[String], repo: &Path) -> crate::Result<FixContext> {
    rt().block_on(build_fix_context(
        source,
        files,
        repo,
        &BuildOptions::default(),
    ))
}

fn run_issue(issue: &GitHubIssue, repo: &Path) -> crate::Result<IssueContext> {
    rt().block_on(build_issue_context(issue, repo, &BuildOptions::default()))
}

#[test]
fn implementation_context_has_the_spec_keys() {
    let mut repo = TestRepo::init();
    repo.write("CLAUDE.md", "# Conventions\nUse tabs.\n");
    repo.write("AGENTS.md", "Run tests.\n");
    repo.write("specs/tasks.md", "- [ ] T001 do the thing\n");
    for i in 0..12 {
        repo.write("f.txt", format!("{i}\n"));
        repo.commit(&format!("commit {i}"));
    }
    let ctx = run_implementation("specs/tasks.md", &repo.root()).unwrap();
    assert_eq!(ctx.tasks, "- [ ] T001 do the thing\n");
    assert_eq!(
        ctx.conventions,
        "<!-- CLAUDE.md -->\n# Conventions\nUse tabs.\n\n<!-- AGENTS.md -->\nRun tests.\n"
    );
    assert_eq!(ctx.branch, "main");
    assert_eq!(ctx.recent_commits.len(), 10);
    assert_eq!(ctx.recent_commits[0].subject, "commit 11");
    assert_eq!(ctx.metadata, None);
    // absolute task path inside the root works too
    let abs = repo.root().join("specs/tasks.md");
    let ctx2 = run_implementation(abs.to_str().unwrap(), &repo.root()).unwrap();
    assert_eq!(ctx2, ctx);
}

#[test]
fn implementation_context_missing_task_and_huge_conventions() {
    let mut repo = TestRepo::init();
    repo.write("CLAUDE.md", numbered(2000));
    repo.commit("init");
    let ctx = run_implementation("nope.md", &repo.root()).unwrap();
    assert_eq!(ctx.tasks, "");
    let meta = ctx.metadata.expect("metadata");
    assert_eq!(meta.missing_files, vec!["nope.md"]);
    assert!(meta.truncated);
    assert_eq!(meta.sections_affected, vec!["conventions"]);
    assert_eq!(
        (meta.original_lines, meta.kept_lines),
        (2000, MAX_CONVENTIONS_LINES)
    );
    assert!(ctx.conventions.ends_with("line 500\n...\n"));
}

#[test]
fn implementation_context_degrades_without_git_or_repo() {
    let plain = TestRepo::plain();
    std::fs::write(plain.path().join("t.md"), "task\n").unwrap();
    let ctx = run_implementation("t.md", &plain.root()).unwrap();
    assert_eq!((ctx.tasks.as_str(), ctx.branch.as_str()), ("task\n", ""));
    assert!(ctx.recent_commits.is_empty());
    let meta = ctx.metadata.unwrap();
    assert_eq!(
        meta.warnings,
        vec!["the branch is unavailable: the directory is not a git repository"]
    );

    let repo = TestRepo::init();
    let empty = tempfile::tempdir().unwrap();
    let git = Git::new(repo.root()).with_path_env(empty.path());
    let ctx = rt()
        .block_on(build_implementation_context(
            "t.md",
            &repo.root(),
            &BuildOptions {
                git: Some(git),
                ..BuildOptions::default()
            },
        ))
        .unwrap();
    let meta = ctx.metadata.unwrap();
    assert!(
        meta.warnings
            .iter()
            .any(|w| w.contains("git is not installed")),
        "{meta:?}"
    );
    // the empty repository: branch known, no commits, no warning about history
    let ctx = rt()
        .block_on(build_implementation_context(
            "t.md",
            &repo.root(),
            &BuildOptions::default(),
        ))
        .unwrap();
    assert_eq!(ctx.branch, "main");
    assert!(ctx.recent_commits.is_empty());
    assert_eq!(ctx.metadata.unwrap().warnings, vec!["file not found: t.md"]);
}

#[test]
fn implementation_context_escaping_task_path_is_ignored() {
    let repo = TestRepo::init();
    let ctx = run_implementation("../../etc/passwd", &repo.root()).unwrap();
    assert_eq!(ctx.tasks, "");
    let meta = ctx.metadata.unwrap();
    assert!(meta.warnings[0].starts_with("ignored a path outside the repository"));
    let ctx = run_implementation("/etc/passwd", &repo.root()).unwrap();
    assert_eq!(ctx.tasks, "");
    assert!(!format!("{:?}", ctx.metadata).contains("/etc/passwd"));
}

#[test]
fn relative_repo_path_is_invalid_request() {
    let err = run_implementation("t.md", Path::new("relative/dir")).unwrap_err();
    assert_eq!(err.kind(), crate::ErrorKind::InvalidRequest);
    assert_eq!(err.message(), "repoPath must be an absolute path");
}

fn feature_repo() -> TestRepo {
    let mut repo = TestRepo::init();
    repo.write("CLAUDE.md", "conventions\n");
    repo.write("small.rs", "fn a() {}\n");
    repo.write("big.rs", numbered(1200));
    repo.write("old name.txt", "1\n2\n3\n4\n5\n6\n7\n");
    repo.write("doomed.txt", "x\n");
    repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("small.rs", "fn a() {}\nfn b() {}\n");
    let mut big = numbered(1200);
    big = big.replace("line 700\n", "line 700 changed\n");
    repo.write("big.rs", big);
    std::fs::create_dir_all(repo.path().join("dir")).unwrap();
    repo.git(&["mv", "old name.txt", "dir/ünï cödé.txt"]);
    repo.write("image.bin", [0u8, 159, 146, 150, 0, 1, 2]);
    std::fs::remove_file(repo.path().join("doomed.txt")).unwrap();
    repo.commit("feature");
    // main moves on too: a merge base is needed
    repo.git(&["checkout", "-q", "main"]);
    repo.write("other.txt", "main only\n");
    repo.commit("main work");
    repo.git(&["checkout", "-q", "feature"]);
    repo
}

#[test]
fn review_context_full_small_files_truncated_large_binary_skipped() {
    let repo = feature_repo();
    let ctx = run_review(&repo.root(), "main").unwrap();
    assert_eq!(ctx.conventions, "conventions\n");
    assert_eq!(
        ctx.changed_files.keys().collect::<Vec<_>>(),
        vec!["big.rs", "dir/ünï cödé.txt", "small.rs"]
    );
    assert_eq!(ctx.changed_files["small.rs"], "fn a() {}\nfn b() {}\n");
    let big = &ctx.changed_files["big.rs"];
    assert!(
        big.contains("line 690\n")
            && big.contains("line 700 changed\n")
            && big.contains("line 710\n")
    );
    assert!(!big.contains("line 1100\n"));
    assert!(
        !ctx.diff.contains("other.txt"),
        "main's own work is not in the review"
    );
    assert!(ctx.diff.contains("+fn b() {}"));
    assert!(ctx.diff.contains("rename to dir/ünï cödé.txt"));
    assert_eq!(ctx.stats.files_changed, 5);
    assert_eq!(ctx.stats.binary_files, 1);
    assert_eq!((ctx.stats.insertions, ctx.stats.deletions), (2, 2));
    let meta = ctx.metadata.unwrap();
    assert_eq!(meta.skipped_files, vec!["image.bin"]);
    assert_eq!(meta.truncated_files, vec!["big.rs"]);
    assert_eq!(meta.sections_affected, vec!["changed_files"]);
    assert_eq!(meta.original_lines, 1200);
    assert_eq!(meta.kept_lines, 21, "only the window around the change");
    assert!(meta
        .warnings
        .contains(&"skipped binary file image.bin".to_owned()));
    // deterministic
    let again = run_review(&repo.root(), "main").unwrap();
    assert_eq!(again.diff, ctx.diff);
}

#[test]
fn review_context_no_changes_and_bad_base() {
    let mut repo = TestRepo::init();
    repo.write("a.txt", "a\n");
    repo.commit("base");
    let ctx = run_review(&repo.root(), "main").unwrap();
    assert_eq!(ctx.diff, "");
    assert!(ctx.changed_files.is_empty());
    assert_eq!(ctx.stats, crate::git::DiffStats::default());
    assert_eq!(ctx.metadata, None);

    let ctx = run_review(&repo.root(), "no-such-branch").unwrap();
    assert_eq!(
        ctx.metadata.unwrap().warnings,
        vec!["the base branch was not found; the diff is empty"]
    );

    for bad in ["", "-x", "a..b", "a b", "x\0y"] {
        let err = run_review(&repo.root(), bad).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::InvalidRequest);
    }
}

#[test]
fn review_context_detached_head_uncommitted_and_empty_repo() {
    let mut repo = feature_repo();
    repo.git(&["checkout", "-q", "--detach", "feature"]);
    repo.write("small.rs", "fn a() {}\nfn b() {}\nfn c() {}\n");
    let ctx = run_review(&repo.root(), "main").unwrap();
    assert_eq!(
        ctx.changed_files["small.rs"],
        "fn a() {}\nfn b() {}\nfn c() {}\n"
    );
    assert!(ctx.diff.contains("+fn c() {}"));
    repo.commit("x");

    let empty = TestRepo::init();
    let ctx = run_review(&empty.root(), "main").unwrap();
    assert_eq!(ctx.diff, "");
    assert_eq!(
        ctx.metadata.unwrap().warnings,
        vec!["the base branch was not found; the diff is empty"]
    );
    let plain = TestRepo::plain();
    let ctx = run_review(&plain.root(), "main").unwrap();
    assert_eq!(
        ctx.metadata.unwrap().warnings,
        vec!["the diff is unavailable: the directory is not a git repository"]
    );
}

#[test]
fn review_context_secret_is_redacted_and_reported() {
    let mut repo = TestRepo::init();
    repo.write("a.txt", "a\n");
    repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "f"]);
    let token = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
    repo.write(
        "config.ts",
        format!("// config\nexport const token = '{token}'\n"),
    );
    repo.commit("add config");
    let ctx = run_review(&repo.root(), "main").unwrap();
    assert_eq!(
        ctx.changed_files["config.ts"],
        "// config\nexport const token = '[REDACTED:github_token]'\n"
    );
    assert!(!ctx.diff.contains(&token));
    assert!(ctx.diff.contains("[REDACTED:github_token]"));
    let meta = ctx.metadata.unwrap();
    assert!(meta
        .warnings
        .contains(&"redacted a suspected secret (github_token) in config.ts at line 2".to_owned()));
    assert!(meta.redactions.contains(&crate::builders::FileRedaction {
        file: "config.ts".into(),
        kind: crate::secrets::SecretKind::GithubToken,
        line: 2,
    }));
    assert!(!format!("{meta:?}").contains(&token));
    // Opted out: the files and the diff as they are, nothing reported.
    let raw = BuildOptions {
        redact: false,
        ..BuildOptions::default()
    };
    let ctx = rt()
        .block_on(build_review_context(&repo.root(), "main", &raw))
        .unwrap();
    assert!(ctx.changed_files["config.ts"].contains(&token));
    assert!(ctx.diff.contains(&token));
    assert!(ctx.metadata.is_none_or(|m| m.redactions.is_empty()));
}

#[test]
fn fix_context_windows_around_errors() {
    let repo = TestRepo::init();
    repo.write("src/app.ts", numbered(800));
    repo.write("src/util.ts", "export const x = 1\n");
    let output = "src/app.ts(100,5): error TS2322: Type 'number' is not assignable to type 'string'.\nsrc/app.ts(105,1): error TS2304: Cannot find name 'foo'.\nsrc/app.ts(600,3): error TS7006: Parameter 'x' implicitly has an 'any' type.\n";
    let ctx = run_fix(
        FixSource::Raw(output.to_owned()),
        &["src/util.ts".to_owned()],
        &repo.root(),
    )
    .unwrap();
    assert_eq!(ctx.source_files["src/util.ts"], "export const x = 1\n");
    let app = &ctx.source_files["src/app.ts"];
    for l in [90, 100, 110, 115, 590, 610] {
        assert!(app.contains(&format!("line {l}\n")), "line {l} kept");
    }
    assert!(
        !app.contains("line 89\n") && !app.contains("line 116\n") && !app.contains("line 611\n")
    );
    assert!(app.starts_with("...\n"));
    assert_eq!(ctx.error_summary, "3 errors in 1 file.");
    assert!(ctx
        .errors
        .starts_with("src/app.ts:100:5: error[TS2322]: Type 'number'"));
    let meta = ctx.metadata.unwrap();
    assert_eq!(meta.truncated_files, vec!["src/app.ts"]);
    assert_eq!(meta.kept_lines, 26 + 21);
}

#[test]
fn fix_context_structured_stages_and_no_errors() {
    let repo = TestRepo::init();
    repo.write("a.py", "import os\n");
    let v = ValidationOutput {
        stages: vec![
            ValidationStage {
                name: "lint".into(),
                passed: Some(false),
                errors: vec![],
                output: Some(
                    "a.py:1:8: F401 [*] `os` imported but unused\nFound 1 error.\n".into(),
                ),
            },
            ValidationStage {
                name: "typecheck".into(),
                passed: Some(false),
                errors: vec![ParsedError {
                    file: Some("missing.py".into()),
                    line: Some(3),
                    column: None,
                    message: "boom".into(),
                    severity: Severity::Warning,
                    tool: Some("mypy".into()),
                    code: None,
                }],
                output: None,
            },
        ],
    };
    let ctx = run_fix(FixSource::Structured(v), &[], &repo.root()).unwrap();
    assert_eq!(
        ctx.error_summary,
        "1 error, 1 warning in 2 files (lint: 1, typecheck: 1)."
    );
    assert_eq!(ctx.source_files.keys().collect::<Vec<_>>(), vec!["a.py"]);
    assert_eq!(ctx.metadata.unwrap().missing_files, vec!["missing.py"]);

    let ctx = run_fix(
        FixSource::Structured(ValidationOutput::default()),
        &[],
        &repo.root(),
    )
    .unwrap();
    assert_eq!(
        (ctx.errors.as_str(), ctx.error_summary.as_str()),
        ("", "No errors.")
    );
    assert!(ctx.source_files.is_empty() && ctx.metadata.is_none());
}

#[test]
fn issue_context_related_files_and_recent_changes() {
    let mut repo = TestRepo::init();
    repo.write("src/parser.rs", numbered(900));
    repo.write("docs/guide.md", "guide\n");
    repo.commit("add parser");
    repo.write("unrelated.txt", "x\n");
    repo.commit("unrelated");
    let issue = GitHubIssue {
        number: 42,
        title: "Parser crashes".into(),
        body: "See `src/parser.rs:450` and ./docs/guide.md, e.g. v1.2; not ../../outside/secret.env or /etc/shadow.txt. Also missing.rs".into(),
        labels: vec!["bug".into()],
        state: "open".into(),
        assignees: vec!["octocat".into()],
        url: "https://github.com/o/r/issues/42".into(),
    };
    let ctx = run_issue(&issue, &repo.root()).unwrap();
    assert!(ctx.issue.starts_with("#42: Parser crashes\nState: open\nLabels: bug\nAssignees: octocat\nURL: https://github.com/o/r/issues/42\n\nSee "));
    assert_eq!(
        ctx.related_files.keys().collect::<Vec<_>>(),
        vec!["docs/guide.md", "src/parser.rs"]
    );
    assert!(ctx.related_files["src/parser.rs"].contains("line 450\n"));
    assert!(!ctx.related_files["src/parser.rs"].contains("line 1\n"));
    let lines: Vec<&str> = ctx.recent_changes.lines().collect();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].ends_with("2026-01-01 Test Author: add parser"));
    let meta = ctx.metadata.unwrap();
    assert_eq!(
        meta.warnings
            .iter()
            .filter(|w| w.starts_with("ignored a path outside"))
            .count(),
        2,
        "{meta:?}"
    );
    assert!(!format!("{meta:?}").contains("/etc/shadow"));

    let none = GitHubIssue {
        number: 1,
        title: "Vague".into(),
        ..Default::default()
    };
    let ctx = run_issue(&none, &repo.root()).unwrap();
    assert!(ctx.related_files.is_empty());
    assert_eq!(ctx.recent_changes.lines().count(), 2);
    assert_eq!(ctx.metadata, None);
}

#[test]
fn mentioned_paths_finds_paths_and_lines() {
    let found = issue::mentioned_paths(
        "Crash in src/a.rs:10 and `lib/b.ts` (see src/a.rs:20). Visit https://x.io/y.html",
    );
    assert_eq!(
        found,
        vec![
            ("src/a.rs".to_owned(), vec![10, 20]),
            ("lib/b.ts".to_owned(), vec![])
        ]
    );
}

fn brief(errors: &[ParsedError]) -> Vec<String> {
    errors
        .iter()
        .map(|e| {
            format!(
                "{}|{}|{}|{}|{}|{}|{}",
                e.tool.as_deref().unwrap_or("-"),
                e.file.as_deref().unwrap_or("-"),
                e.line.map_or("-".into(), |l| l.to_string()),
                e.column.map_or("-".into(), |c| c.to_string()),
                e.severity.as_str(),
                e.code.as_deref().unwrap_or("-"),
                e.message
            )
        })
        .collect()
}

/// Asserts what `parse_validation_output` finds in `input`, in `brief`'s form.
#[track_caller]
fn parses(input: &str, expected: &[&str]) {
    assert_eq!(brief(&parse_validation_output(input)), expected);
}

#[test]
fn parses_tsc_both_formats() {
    let plain = "src/index.ts(3,7): error TS2322: Type 'number' is not assignable to type 'string'.\nsrc/lib/util.ts(10,15): error TS2339: Property 'foo' does not exist on type '{}'.\n";
    parses(
        plain,
        &[
            "tsc|src/index.ts|3|7|error|TS2322|Type 'number' is not assignable to type 'string'.",
            "tsc|src/lib/util.ts|10|15|error|TS2339|Property 'foo' does not exist on type '{}'.",
        ],
    );
    let pretty = "\x1b[96msrc/index.ts\x1b[0m:\x1b[93m3\x1b[0m:\x1b[93m7\x1b[0m - \x1b[91merror\x1b[0m\x1b[90m TS2322: \x1b[0mType 'number' is not assignable to type 'string'.\n\n\x1b[7m3\x1b[0m const x: string = 5;\n\x1b[7m \x1b[0m \x1b[91m      ~\x1b[0m\n\n\nFound 1 error in src/index.ts\x1b[90m:3\x1b[0m\n\n";
    parses(
        pretty,
        &["tsc|src/index.ts|3|7|error|TS2322|Type 'number' is not assignable to type 'string'."],
    );
}

#[test]
fn parses_eslint_stylish_and_unix() {
    let stylish = "\n/home/dev/project/src/app.js\n   1:10  error    'foo' is defined but never used  no-unused-vars\n   3:1   warning  Unexpected console statement     no-console\n\n/home/dev/project/src/b.ts\n  7:3  error  Parsing error: Unexpected token\n\n✖ 3 problems (2 errors, 1 warning)\n  0 errors and 1 warning potentially fixable with the `--fix` option.\n";
    parses(stylish, &[
            "eslint|/home/dev/project/src/app.js|1|10|error|no-unused-vars|'foo' is defined but never used",
            "eslint|/home/dev/project/src/app.js|3|1|warning|no-console|Unexpected console statement",
            "eslint|/home/dev/project/src/b.ts|7|3|error|-|Parsing error: Unexpected token",
        ]);
    let unix = "src/app.js:1:10: 'foo' is defined but never used [Error/no-unused-vars]\nsrc/app.js:3:1: Unexpected console statement. [Warning/no-console]\n\n2 problems\n";
    parses(
        unix,
        &[
            "eslint|src/app.js|1|10|error|no-unused-vars|'foo' is defined but never used",
            "eslint|src/app.js|3|1|warning|no-console|Unexpected console statement.",
        ],
    );
}

#[test]
fn parses_cargo_and_clippy() {
    let cargo = r#"   Compiling demo v0.1.0 (/home/dev/demo)
warning: unused variable: `y`
 --> src/lib.rs:2:9
  |
2 |     let y = 3;
  |         ^ help: if this is intentional, prefix it with an underscore: `_y`
  |
  = note: `#[warn(unused_variables)]` on by default

error[E0308]: mismatched types
 --> src/main.rs:4:18
  |
4 |     let x: i32 = "a";
  |            ---   ^^^ expected `i32`, found `&str`
  |            |
  |            expected due to this

error: linker `cc` not found

For more information about this error, try `rustc --explain E0308`.
warning: `demo` (bin "demo") generated 1 warning
error: could not compile `demo` (bin "demo") due to 1 previous error; 1 warning emitted
"#;
    parses(
        cargo,
        &[
            "rustc|src/lib.rs|2|9|warning|-|unused variable: `y`",
            "rustc|src/main.rs|4|18|error|E0308|mismatched types",
            "rustc|-|-|-|error|-|linker `cc` not found",
        ],
    );
    let clippy = "warning: this `if` has identical blocks\n  --> src/engine.rs:41:25\n   |\n41 |         if a { 1 } else { 1 }\n   |                ^^^^^\n   = help: for further information visit https://rust-lang.github.io/rust-clippy/master/index.html#if_same_then_else\n   = note: `#[warn(clippy::if_same_then_else)]` on by default\n";
    parses(
        clippy,
        &["rustc|src/engine.rs|41|25|warning|-|this `if` has identical blocks"],
    );
}

#[test]
fn parses_pytest_tracebacks_and_summary() {
    let out = r#"============================= test session starts ==============================
platform linux -- Python 3.12.3, pytest-8.3.4, pluggy-1.5.0
rootdir: /home/dev/proj
collected 3 items

tests/test_math.py .F                                                    [ 66%]
tests/test_io.py F                                                       [100%]

=================================== FAILURES ===================================
___________________________________ test_add ___________________________________

    def test_add():
>       assert add(1, 2) == 4
E       assert 3 == 4
E        +  where 3 = add(1, 2)

tests/test_math.py:5: AssertionError
__________________________________ test_read ___________________________________

    def test_read():
>       open("nope.txt")
E       FileNotFoundError: [Errno 2] No such file or directory: 'nope.txt'

tests/test_io.py:3: FileNotFoundError
=========================== short test summary info ============================
FAILED tests/test_math.py::test_add - assert 3 == 4
FAILED tests/test_io.py::test_read - FileNotFoundError: [Errno 2] No such file or directory: 'nope.txt'
ERROR tests/test_db.py - ModuleNotFoundError: No module named 'psycopg'
========================= 2 failed, 1 passed, 1 error in 0.12s =========================
"#;
    parses(out, &[
            "pytest|tests/test_math.py|5|-|error|AssertionError|assert 3 == 4 +  where 3 = add(1, 2)",
            "pytest|tests/test_io.py|3|-|error|FileNotFoundError|FileNotFoundError: [Errno 2] No such file or directory: 'nope.txt'",
            "pytest|tests/test_db.py|-|-|error|ERROR|ModuleNotFoundError: No module named 'psycopg'",
        ]);
}

#[test]
fn parses_mypy_and_ruff() {
    let mypy = "src/app.py:12: error: Incompatible types in assignment (expression has type \"int\", variable has type \"str\")  [assignment]\nsrc/app.py:20:5: note: Revealed type is \"builtins.int\"\nFound 1 error in 1 file (checked 3 source files)\n";
    parses(mypy, &[
            "mypy|src/app.py|12|-|error|assignment|Incompatible types in assignment (expression has type \"int\", variable has type \"str\")",
            "mypy|src/app.py|20|5|note|-|Revealed type is \"builtins.int\"",
        ]);
    let concise = "app.py:1:8: F401 [*] `os` imported but unused\napp.py:3:89: E501 Line too long (95 > 88)\nFound 2 errors.\n[*] 1 fixable with the `--fix` option.\n";
    parses(
        concise,
        &[
            "ruff|app.py|1|8|error|F401|`os` imported but unused",
            "ruff|app.py|3|89|error|E501|Line too long (95 > 88)",
        ],
    );
    let full = "F401 [*] `os` imported but unused\n --> app.py:1:8\n  |\n1 | import os\n  |        ^^\n  |\nhelp: Remove unused import: `os`\n\nFound 1 error.\n";
    parses(
        full,
        &["ruff|app.py|1|8|error|F401|`os` imported but unused"],
    );
}

#[test]
fn the_language_registry_says_which_colon_lines_are_mypy() {
    // Stubs and Windows scripts (any case) are Python by the registry; a C file printed in
    // the same format by a gcc-style tool is not mypy's.
    let out = "pkg/types.pyi:4: error: Missing return statement  [return]\nTOOLS/RUN.PYW:2: error: Name \"x\" is not defined  [name-defined]\nsrc/main.c:3: error: unknown type name 'foo'\n";
    parses(
        out,
        &[
            "mypy|pkg/types.pyi|4|-|error|return|Missing return statement",
            "mypy|TOOLS/RUN.PYW|2|-|error|name-defined|Name \"x\" is not defined",
            "-|src/main.c|3|-|error|-|unknown type name 'foo'",
        ],
    );
}

#[test]
fn parser_ignores_unrelated_text() {
    assert!(parse_validation_output("").is_empty());
    assert!(parse_validation_output("All checks passed!\nDone in 2.3s\n").is_empty());
}

#[test]
fn review_context_symlink_escape_fifo_crlf_and_invalid_utf8() {
    let mut repo = TestRepo::init();
    repo.write("a.txt", "a\n");
    repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "f"]);
    std::os::unix::fs::symlink("/etc/hostname", repo.path().join("escape.txt")).unwrap();
    repo.write("dos.txt", "one\r\ntwo\r\n");
    repo.write("latin1.txt", b"caf\xe9\n".as_slice());
    repo.commit("oddities");
    // a FIFO where a changed file should be (created after the commit: git cannot store one)
    repo.write("pipe.txt", "x\n");
    repo.commit("pipe as file");
    std::fs::remove_file(repo.path().join("pipe.txt")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(repo.path().join("pipe.txt"))
        .status()
        .unwrap();
    assert!(status.success());
    let ctx = run_review(&repo.root(), "main").unwrap();
    assert_eq!(
        ctx.changed_files.keys().collect::<Vec<_>>(),
        vec!["dos.txt", "latin1.txt"]
    );
    assert_eq!(ctx.changed_files["dos.txt"], "one\ntwo\n");
    assert_eq!(ctx.changed_files["latin1.txt"], "caf\u{fffd}\n");
    let meta = ctx.metadata.unwrap();
    assert!(
        meta.warnings
            .contains(&"ignored a path outside the repository: escape.txt".to_owned()),
        "{meta:?}"
    );
    assert_eq!(meta.skipped_files, vec!["pipe.txt"]);
    assert!(meta.warnings.contains(
        &"git could not read the work tree; only committed changes are reviewed".to_owned()
    ));
    let hostname = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
    if !hostname.trim().is_empty() {
        assert!(!ctx
            .changed_files
            .values()
            .any(|v| v.contains(hostname.trim())));
    }
}

#[test]
fn conventions_symlinked_outside_are_ignored_with_a_warning() {
    let repo = TestRepo::init();
    std::os::unix::fs::symlink("/etc/hostname", repo.path().join("CLAUDE.md")).unwrap();
    repo.write("AGENTS.md", "agents\n");
    repo.write(":(glob)odd.md", "odd\n");
    let ctx = run_implementation(":(glob)odd.md", &repo.root()).unwrap();
    assert_eq!(ctx.tasks, "odd\n");
    assert_eq!(ctx.conventions, "agents\n");
    assert_eq!(
        ctx.metadata.unwrap().warnings,
        vec!["ignored a path outside the repository: CLAUDE.md"]
    );
}

#[test]
fn fix_context_bounds_huge_file_lists() {
    let repo = TestRepo::plain();
    for i in 0..60 {
        repo.write(&format!("src/f{i:02}.rs"), "fn x() {}\n");
    }
    let mut files: Vec<String> = (0..60).map(|i| format!("src/f{i:02}.rs")).collect();
    files.extend((0..100_000).map(|i| format!("gone/{i}.rs")));
    let started = std::time::Instant::now();
    let ctx = run_fix(FixSource::Raw(String::new()), &files, &repo.root()).unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(ctx.source_files.len(), MAX_SOURCE_FILES);
    let meta = ctx.metadata.unwrap();
    assert!(
        meta.warnings[0]
            .starts_with("only the first 1000 distinct paths were looked at; 99060 more"),
        "{}",
        meta.warnings[0]
    );
    assert_eq!(meta.skipped_files.len(), 10);
    assert_eq!(meta.missing_files.len(), 940);
    // the summary first, then the capped warnings and the note that more were left out
    assert_eq!(meta.warnings.len(), MAX_WARNINGS + 2);
}

/// Many pytest `FAILED` lines used to be compared with every earlier error
/// (8 MiB took 37 s). Each summary line below matches its traceback; all are covered. The
/// time is measured in BENCHMARKS.md (a debug build spends it in the regexes, so no timing is
/// asserted here).
#[test]
fn pytest_summary_lines_are_matched_to_their_tracebacks() {
    let n = 5_000;
    let mut out = String::new();
    for i in 0..n {
        out.push_str(&format!(
            "E       assert {i} == {}\ntests/test_big.py:{}: AssertionError\n",
            i + 1,
            i + 10
        ));
    }
    for i in 0..n {
        out.push_str(&format!(
            "FAILED tests/test_big.py::test_{i} - assert {i} == {}\n",
            i + 1
        ));
    }
    let started = std::time::Instant::now();
    let errors = parse_validation_output(&out);
    let took = started.elapsed();
    assert_eq!(
        errors.len(),
        n,
        "every FAILED line is covered by its traceback"
    );
    assert_eq!(errors[7].line, Some(17));
    // Quadratic matching needs 8e8 comparisons here (minutes in a debug build).
    assert!(took < std::time::Duration::from_secs(20), "{took:?}");
}

mod parser_properties {
    use super::*;
    use proptest::prelude::*;

    fn fragment() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            "FAILED a.py::t - assert 1 == 2\n",
            "E   assert 1 == 2\n",
            "a.py:3: AssertionError\n",
            "error[E0308]: mismatched types\n",
            "  --> src/lib.rs:4:5\n",
            "src/a.ts(1,2): error TS2322: x\n",
            "src/a.ts\n",
            "  1:2  error  msg  rule\n",
            "F401 [*] unused\n",
            "a.py:1:1: F401 x\n",
            "x.py:1: error: bad  [code]\n",
            "\x1b[31m",
            "===\n",
            "\n",
            ":::\n",
        ])
        .prop_map(str::to_owned)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn validation_output_never_panics(text in any::<String>()) {
            let errors = parse_validation_output(&text);
            prop_assert!(errors.len() <= text.lines().count());
        }

        #[test]
        fn tool_shaped_output_never_panics(parts in prop::collection::vec(fragment(), 0..60)) {
            let text = parts.concat();
            let errors = parse_validation_output(&text);
            prop_assert!(errors.len() <= text.lines().count() + 1);
            prop_assert_eq!(errors, parse_validation_output(&text));
        }
    }
}

/// Paths from user content (an issue, validation output) are echoed in warnings only when
/// relative: absolute ones of either platform are not shown, on every host.
#[test]
fn absolute_paths_of_either_platform_are_not_shown() {
    for path in [
        "/home/dev/secret.txt",
        r"C:\Users\dev\secret.txt",
        "c:/Users/dev/secret.txt",
        r"C:secret.txt",
        r"\\?\C:\Users\dev",
        r"\\server\share\secret.txt",
        r"\Users\dev",
    ] {
        assert_eq!(super::shown(path), "(an absolute path)", "{path:?}");
    }
    assert_eq!(super::shown(r"src\main.rs"), r"src\main.rs");
    assert_eq!(super::shown(r"..\x.rs"), r"..\x.rs");
    assert_eq!(super::shown("src/a\u{7}.rs"), "src/a.rs");
    assert_eq!(super::shown(&"a".repeat(300)).len(), 203);
}

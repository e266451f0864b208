//! Prompt-builder exports (see docs/design/context-builder-spec.md, section User Scenarios):
//! `buildImplementationContext`, `buildReviewContext`, `buildFixContext`, `buildIssueContext`
//! and `parseValidationOutput`.

use std::collections::BTreeMap;

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use super::args;
use super::bridge;
use context_engine_core::builders::{self, BuildOptions, FixSource, Metadata};
use context_engine_core::error::{Error as CoreError, Result as CoreResult};

/// What a builder reports in `_metadata` when anything was truncated, missing, skipped or
/// suspicious. The first four keys are the spec's, in its `snake_case` spelling.
#[napi(object, object_from_js = false)]
pub struct BuilderMetadata {
    /// Whether any section was shortened.
    pub truncated: bool,
    /// Lines of the shortened content before shortening.
    #[napi(js_name = "original_lines")]
    pub original_lines: u32,
    /// Lines of it kept (`...` markers not counted).
    #[napi(js_name = "kept_lines")]
    pub kept_lines: u32,
    /// Sections that were shortened (`conventions`, `diff`, `changed_files`...).
    #[napi(js_name = "sections_affected")]
    pub sections_affected: Vec<String>,
    /// Files shortened within a files section, repository-relative.
    #[napi(js_name = "truncated_files")]
    pub truncated_files: Vec<String>,
    /// Files named by the input that do not exist.
    #[napi(js_name = "missing_files")]
    pub missing_files: Vec<String>,
    /// Files left out on purpose (binary, too large, over a count limit).
    #[napi(js_name = "skipped_files")]
    pub skipped_files: Vec<String>,
    /// Git failures, skipped files, suspected secrets (file, line, kind; never the value),
    /// ignored paths.
    pub warnings: Vec<String>,
    /// Secrets replaced by `[REDACTED:<kind>]`: file (or section), kind and line, never the
    /// value.
    pub redactions: Vec<BuilderRedaction>,
}

/// One secret a builder replaced by a `[REDACTED:<kind>]` marker.
#[napi(object, object_from_js = false)]
pub struct BuilderRedaction {
    /// The repository-relative file, or a section (`the diff`, `the issue`).
    pub file: String,
    /// The kind of secret (`github_token`, `private_key`, ...).
    pub kind: String,
    /// 1-based line in that file or section (before any shortening).
    pub line: u32,
}

impl From<Metadata> for BuilderMetadata {
    fn from(m: Metadata) -> Self {
        BuilderMetadata {
            truncated: m.truncated,
            original_lines: args::clamp_u32(m.original_lines),
            kept_lines: args::clamp_u32(m.kept_lines),
            sections_affected: m.sections_affected,
            truncated_files: m.truncated_files,
            missing_files: m.missing_files,
            skipped_files: m.skipped_files,
            warnings: m.warnings,
            redactions: m
                .redactions
                .into_iter()
                .map(|r| BuilderRedaction {
                    file: r.file,
                    kind: r.kind.as_str().to_owned(),
                    line: args::clamp_u32(r.line),
                })
                .collect(),
        }
    }
}

/// One commit of `recent_commits`.
#[napi(object, object_from_js = false)]
pub struct CommitInfo {
    /// The full object name.
    pub hash: String,
    /// The author's name.
    pub author: String,
    /// The author date, ISO 8601.
    pub date: String,
    /// The first line of the message.
    pub subject: String,
}

/// What `buildImplementationContext` returns.
#[napi(object, object_from_js = false)]
pub struct ImplementationContext {
    /// The task file's content; empty when it is missing.
    pub tasks: String,
    /// `CLAUDE.md`, then `AGENTS.md`; empty when neither exists.
    pub conventions: String,
    /// The current branch, `HEAD detached at <hash>`, or empty when git is unavailable.
    pub branch: String,
    /// The last 10 commits, newest first.
    #[napi(js_name = "recent_commits")]
    pub recent_commits: Vec<CommitInfo>,
    /// Present when anything was truncated, missing, skipped or suspicious.
    #[napi(js_name = "_metadata")]
    pub metadata: Option<BuilderMetadata>,
}

/// Totals of the reviewed diff.
#[napi(object, object_from_js = false)]
pub struct ReviewStats {
    /// Files changed.
    pub files_changed: u32,
    /// Lines added.
    pub insertions: u32,
    /// Lines removed.
    pub deletions: u32,
    /// Binary files among them.
    pub binary_files: u32,
}

/// What `buildReviewContext` returns.
#[napi(object, object_from_js = false)]
pub struct ReviewContext {
    /// The unified diff from the merge base with the base branch to the work tree.
    pub diff: String,
    /// Content of each changed text file by repository-relative path (sorted): whole under
    /// 500 lines, otherwise the lines around its changes with `...` markers.
    #[napi(js_name = "changed_files", ts_type = "Record<string, string>")]
    pub changed_files: BTreeMap<String, String>,
    /// `CLAUDE.md`, then `AGENTS.md`.
    pub conventions: String,
    /// Totals of the diff.
    pub stats: ReviewStats,
    /// Present when anything was truncated, missing, skipped or suspicious.
    #[napi(js_name = "_metadata")]
    pub metadata: Option<BuilderMetadata>,
}

/// How serious a validation problem is.
#[napi(string_enum)]
pub enum ErrorSeverity {
    /// Fails the check.
    #[napi(value = "error")]
    Error,
    /// Reported but does not fail.
    #[napi(value = "warning")]
    Warning,
    /// Extra information.
    #[napi(value = "note")]
    Note,
}

/// One problem reported by a validation tool.
#[napi(object)]
pub struct ParsedError {
    /// The file as the tool printed it (relative to where it ran, or absolute).
    pub file: Option<String>,
    /// 1-based line.
    pub line: Option<u32>,
    /// 1-based column.
    pub column: Option<u32>,
    /// The message.
    pub message: String,
    /// How serious it is.
    pub severity: ErrorSeverity,
    /// The tool: `tsc`, `eslint`, `rustc`, `pytest`, `mypy`, `ruff`, or another name.
    pub tool: Option<String>,
    /// The rule or error code (`TS2322`, `E0308`, `no-unused-vars`, `F401`).
    pub code: Option<String>,
}

/// One stage of a validation run.
#[napi(object, object_to_js = false)]
pub struct ValidationStage {
    /// The stage's name (`lint`, `typecheck`, `test`).
    pub name: Option<String>,
    /// Whether it passed, when known.
    pub passed: Option<bool>,
    /// Its problems. When empty, `output` is parsed instead.
    pub errors: Option<Vec<ParsedError>>,
    /// Its raw output.
    pub output: Option<String>,
}

/// The result of a validation run, stage by stage.
#[napi(object, object_to_js = false)]
pub struct ValidationOutput {
    /// The stages, in the order they ran.
    pub stages: Vec<ValidationStage>,
}

/// What `buildFixContext` returns.
#[napi(object, object_from_js = false)]
pub struct FixContext {
    /// One line per problem: `[stage] file:line:col: severity[code]: message (tool)`.
    pub errors: String,
    /// Source of each file by repository-relative path (sorted): whole under 500 lines,
    /// otherwise at least 10 lines around each error line.
    #[napi(js_name = "source_files", ts_type = "Record<string, string>")]
    pub source_files: BTreeMap<String, String>,
    /// One sentence: errors and warnings in how many files, per stage; `No errors.`
    #[napi(js_name = "error_summary")]
    pub error_summary: String,
    /// Present when anything was truncated, missing, skipped or suspicious.
    #[napi(js_name = "_metadata")]
    pub metadata: Option<BuilderMetadata>,
}

/// A GitHub issue (the fields `gh issue view --json` gives; labels may be names or
/// `{ name }` objects, assignees logins or `{ login }` objects: the package entry passes the
/// names on).
#[napi(object, object_to_js = false)]
pub struct GitHubIssue {
    /// The issue number.
    pub number: f64,
    /// The title.
    pub title: String,
    /// The body (Markdown).
    #[napi(ts_type = "string | null")]
    pub body: Option<String>,
    /// Labels.
    #[napi(ts_type = "Array<string | { name: string }>")]
    pub labels: Option<Vec<String>>,
    /// `open` / `closed` (or GitHub's `OPEN` / `CLOSED`).
    pub state: Option<String>,
    /// Assignees.
    #[napi(ts_type = "Array<string | { login: string }>")]
    pub assignees: Option<Vec<String>>,
    /// The issue's web address.
    pub url: Option<String>,
}

/// What `buildIssueContext` returns.
#[napi(object, object_from_js = false)]
pub struct IssueContext {
    /// The issue as text: number, title, state, labels, assignees, address, body.
    pub issue: String,
    /// Files the issue mentions that exist under the root, by relative path (sorted).
    #[napi(js_name = "related_files", ts_type = "Record<string, string>")]
    pub related_files: BTreeMap<String, String>,
    /// The last 10 commits touching the related files (or the repository), one per line.
    #[napi(js_name = "recent_changes")]
    pub recent_changes: String,
    /// Present when anything was truncated, missing, skipped or suspicious.
    #[napi(js_name = "_metadata")]
    pub metadata: Option<BuilderMetadata>,
}

// ---------------------------------------------------------------------------------------------
// argument parsing

fn parsed_error(e: ParsedError) -> builders::ParsedError {
    builders::ParsedError {
        file: e.file,
        line: e.line.map(|n| n as usize),
        column: e.column.map(|n| n as usize),
        message: e.message,
        severity: match e.severity {
            ErrorSeverity::Error => builders::Severity::Error,
            ErrorSeverity::Warning => builders::Severity::Warning,
            ErrorSeverity::Note => builders::Severity::Note,
        },
        tool: e.tool,
        code: e.code,
    }
}

fn validation_arg(value: Either<args::Text, ValidationOutput>) -> FixSource {
    match value {
        Either::A(text) => FixSource::Raw(text.into_string()),
        Either::B(output) => FixSource::Structured(builders::ValidationOutput {
            stages: output
                .stages
                .into_iter()
                .map(|s| builders::ValidationStage {
                    name: s.name.unwrap_or_default(),
                    passed: s.passed,
                    errors: s
                        .errors
                        .unwrap_or_default()
                        .into_iter()
                        .map(parsed_error)
                        .collect(),
                    output: s.output,
                })
                .collect(),
        }),
    }
}

fn issue_arg(issue: GitHubIssue) -> CoreResult<builders::GitHubIssue> {
    Ok(builders::GitHubIssue {
        number: args::whole_number(issue.number, "issue.number", 0, (1u64 << 53) - 1)?,
        title: issue.title,
        body: issue.body.unwrap_or_default(),
        labels: issue.labels.unwrap_or_default(),
        state: issue.state.unwrap_or_default(),
        assignees: issue.assignees.unwrap_or_default(),
        url: issue.url.unwrap_or_default(),
    })
}

// ---------------------------------------------------------------------------------------------
// conversions

fn meta(m: Option<Metadata>) -> Option<BuilderMetadata> {
    m.map(BuilderMetadata::from)
}

fn severity_js(s: builders::Severity) -> ErrorSeverity {
    match s {
        builders::Severity::Error => ErrorSeverity::Error,
        builders::Severity::Warning => ErrorSeverity::Warning,
        builders::Severity::Note => ErrorSeverity::Note,
    }
}

fn parsed_error_js(e: builders::ParsedError) -> ParsedError {
    ParsedError {
        file: e.file,
        line: e.line.map(args::clamp_u32),
        column: e.column.map(args::clamp_u32),
        message: e.message,
        severity: severity_js(e.severity),
        tool: e.tool,
        code: e.code,
    }
}

// ---------------------------------------------------------------------------------------------
// exports

/// Options of the four builders. All optional; `null` means the same as absent.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct BuilderOptions {
    /// Replace suspected secrets in every section by `[REDACTED:<kind>]` and report them in
    /// `_metadata.redactions`. Default true; `false` keeps file text as it is.
    pub redact: Option<bool>,
}

/// The builder options and the per-call controls of a builder's last argument.
fn builder_options(
    options: Option<bridge::CallOptions<BuilderOptions>>,
) -> (BuildOptions, bridge::Call) {
    let (o, call) = bridge::CallOptions::split(options);
    let defaults = BuildOptions::default();
    (
        BuildOptions {
            redact: o.redact.unwrap_or(defaults.redact),
            ..defaults
        },
        call,
    )
}

/// The context of an implementation agent: `tasks` (the task file, relative to
/// `repoPath` or absolute inside it), `conventions` (`CLAUDE.md` + `AGENTS.md`), `branch` and
/// `recent_commits` (last 10). A missing task file, a missing `git`, a non-repository or an
/// empty repository give empty values and a warning in `_metadata`; only a `repoPath` that is
/// not an absolute directory rejects (`invalid_request`).
#[napi(ts_return_type = "Promise<ImplementationContext>")]
pub fn build_implementation_context(
    env: &Env,
    task_file: String,
    repo_path: String,
    #[napi(ts_arg_type = "BuilderOptions & CallOptions")] options: Option<
        bridge::CallOptions<BuilderOptions>,
    >,
) -> napi::Result<PromiseRaw<'_, ImplementationContext>> {
    let (opts, call) = builder_options(options);
    let parsed = (|| {
        if task_file.is_empty() {
            return Err(args::bad("taskFile", "must not be empty"));
        }
        Ok((task_file, args::path(repo_path, "repoPath")?))
    })();
    bridge::or_reject(env, parsed, |(task, repo)| {
        bridge::spawn_async_call(
            env,
            call,
            move |_| async move { builders::build_implementation_context(&task, &repo, &opts).await },
            |_, c| {
                Ok(ImplementationContext {
                    tasks: c.tasks,
                    conventions: c.conventions,
                    branch: c.branch,
                    recent_commits: c
                        .recent_commits
                        .into_iter()
                        .map(|c| CommitInfo {
                            hash: c.hash,
                            author: c.author,
                            date: c.date,
                            subject: c.subject,
                        })
                        .collect(),
                    metadata: meta(c.metadata),
                })
            },
        )
    })
}

/// The context of a review agent: the `diff` from the merge base of `baseBranch` and
/// HEAD to the work tree, `changed_files` (whole under 500 lines, otherwise around the changed
/// hunks; binary files skipped and named in `_metadata.skipped_files`), `conventions` and
/// `stats`. No changes give an empty diff and zero stats; an unknown base branch, a missing
/// `git` or a non-repository give empty values and a warning. A malformed `baseBranch` (empty,
/// starting with `-`, with spaces or `..`) rejects with `invalid_request`.
#[napi(ts_return_type = "Promise<ReviewContext>")]
pub fn build_review_context(
    env: &Env,
    repo_path: String,
    base_branch: String,
    #[napi(ts_arg_type = "BuilderOptions & CallOptions")] options: Option<
        bridge::CallOptions<BuilderOptions>,
    >,
) -> napi::Result<PromiseRaw<'_, ReviewContext>> {
    let (opts, call) = builder_options(options);
    let parsed = (|| {
        let repo = args::path(repo_path, "repoPath")?;
        builders::validate_branch_name(&base_branch, "baseBranch")?;
        Ok((repo, base_branch))
    })();
    bridge::or_reject(env, parsed, |(repo, base)| {
        bridge::spawn_async_call(
            env,
            call,
            move |_| async move { builders::build_review_context(&repo, &base, &opts).await },
            |_, c| {
                Ok(ReviewContext {
                    diff: c.diff,
                    changed_files: c.changed_files,
                    conventions: c.conventions,
                    stats: ReviewStats {
                        files_changed: args::clamp_u32(c.stats.files_changed),
                        insertions: args::clamp_u32(c.stats.insertions),
                        deletions: args::clamp_u32(c.stats.deletions),
                        binary_files: args::clamp_u32(c.stats.binary_files),
                    },
                    metadata: meta(c.metadata),
                })
            },
        )
    })
}

/// The context of a fix agent: `errors` (one line per problem), `source_files` (the
/// `files` given, then the files the errors name; each whole under 500 lines, otherwise at
/// least 10 lines around every error line, overlapping windows merged) and `error_summary`.
/// `validationOutput` is structured stages or the raw output of the tools (parsed as
/// `parseValidationOutput` does). Paths resolve inside `repoPath` (default: the current
/// directory); paths outside it are ignored with a warning.
#[napi(ts_return_type = "Promise<FixContext>")]
pub fn build_fix_context(
    env: &Env,
    #[napi(ts_arg_type = "ValidationOutput | string")] validation_output: Either<
        args::Text,
        ValidationOutput,
    >,
    files: Vec<String>,
    #[napi(ts_arg_type = "string | null")] repo_path: Option<String>,
    #[napi(ts_arg_type = "BuilderOptions & CallOptions")] options: Option<
        bridge::CallOptions<BuilderOptions>,
    >,
) -> napi::Result<PromiseRaw<'_, FixContext>> {
    let (opts, call) = builder_options(options);
    let repo = match repo_path {
        Some(path) => args::path(path, "repoPath"),
        None => std::env::current_dir().map_err(|e| {
            CoreError::invalid_request("the current directory is not accessible; pass repoPath")
                .with_source(e)
        }),
    };
    bridge::or_reject(env, repo, |repo| {
        bridge::spawn_async_call(
            env,
            call,
            move |_| async move {
                let source = validation_arg(validation_output);
                builders::build_fix_context(source, &files, &repo, &opts).await
            },
            |_, c| {
                Ok(FixContext {
                    errors: c.errors,
                    source_files: c.source_files,
                    error_summary: c.error_summary,
                    metadata: meta(c.metadata),
                })
            },
        )
    })
}

fn parse_validation(text: &str) -> Vec<ParsedError> {
    builders::parse_validation_output(text)
        .into_iter()
        .map(parsed_error_js)
        .collect()
}

/// The problems in a validation tool's output, in order: `tsc` (both formats), `eslint`
/// (stylish, unix), `rustc`/`cargo`/`clippy`, `pytest`, `mypy` and `ruff` (concise, full).
/// Unrecognised lines are ignored. ANSI colours are stripped. Parses off the JS thread (up to
/// 8 Mi characters of text).
#[napi(ts_return_type = "Promise<ParsedError[]>")]
pub fn parse_validation_output(
    env: &Env,
    #[napi(ts_arg_type = "string")] text: args::Text,
) -> napi::Result<PromiseRaw<'_, Vec<ParsedError>>> {
    bridge::spawn(
        env,
        move || Ok(parse_validation(&text.into_string())),
        |_, v| Ok(v),
    )
}

/// Synchronous twin of `parseValidationOutput` for small outputs: at most 64 KiB of text
/// (`invalid_request`, reason `too_large`, beyond), so it never blocks the JS thread for long.
#[napi(catch_unwind)]
pub fn parse_validation_output_sync(text: String) -> Vec<ParsedError> {
    parse_validation(&text)
}

/// The context of an agent working on a GitHub issue: `issue` as text,
/// `related_files` (paths the title or body mention that exist under `repoPath`, resolved
/// safely; `path:line` mentions keep the lines around that line in large files) and
/// `recent_changes` (the last 10 commits touching them, or the repository).
#[napi(ts_return_type = "Promise<IssueContext>")]
pub fn build_issue_context(
    env: &Env,
    issue: GitHubIssue,
    repo_path: String,
    #[napi(ts_arg_type = "BuilderOptions & CallOptions")] options: Option<
        bridge::CallOptions<BuilderOptions>,
    >,
) -> napi::Result<PromiseRaw<'_, IssueContext>> {
    let (opts, call) = builder_options(options);
    let parsed = (|| Ok((issue_arg(issue)?, args::path(repo_path, "repoPath")?)))();
    bridge::or_reject(env, parsed, |(issue, repo)| {
        bridge::spawn_async_call(
            env,
            call,
            move |_| async move { builders::build_issue_context(&issue, &repo, &opts).await },
            |_, c| {
                Ok(IssueContext {
                    issue: c.issue,
                    related_files: c.related_files,
                    recent_changes: c.recent_changes,
                    metadata: meta(c.metadata),
                })
            },
        )
    })
}

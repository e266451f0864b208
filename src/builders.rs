//! Prompt-builder exports (see docs/design/context-builder-spec.md, section User Scenarios):
//! `buildImplementationContext`, `buildReviewContext`, `buildFixContext`, `buildIssueContext`
//! and `parseValidationOutput`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use napi::bindgen_prelude::*;
use napi::{Env, ValueType};
use napi_derive::napi;

use super::args::{self, Fields};
use super::bridge;
use super::engine::exports;
use context_engine_core::builders::{self, BuildOptions, FixSource, Metadata};
use context_engine_core::error::{Error as CoreError, Result as CoreResult};

/// Most entries accepted in a list argument (files, labels, stages, errors).
const MAX_LIST: u32 = 100_000;

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
#[napi(object, object_from_js = false)]
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
// Declares the TypeScript type; the argument is validated by hand (`validation_arg`,
// `issue_arg`), so a wrong shape is `invalid_request`.
#[allow(dead_code)]
#[napi(object, object_from_js = false)]
pub struct ValidationStage {
    /// The stage's name (`lint`, `typecheck`, `test`).
    pub name: String,
    /// Whether it passed, when known.
    pub passed: Option<bool>,
    /// Its problems. When empty, `output` is parsed instead.
    pub errors: Option<Vec<ParsedError>>,
    /// Its raw output.
    pub output: Option<String>,
}

/// The result of a validation run, stage by stage.
// Declares the TypeScript type; the argument is validated by hand (`validation_arg`,
// `issue_arg`), so a wrong shape is `invalid_request`.
#[allow(dead_code)]
#[napi(object, object_from_js = false)]
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
/// `{ name }` objects, assignees logins or `{ login }` objects).
// Declares the TypeScript type; the argument is validated by hand (`validation_arg`,
// `issue_arg`), so a wrong shape is `invalid_request`.
#[allow(dead_code)]
#[napi(object, object_from_js = false)]
pub struct GitHubIssue {
    /// The issue number.
    pub number: u32,
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

/// A non-empty path string of at most 4096 bytes.
pub(crate) fn path_arg(value: Unknown<'_>, name: &str) -> CoreResult<PathBuf> {
    let s = args::string_max(value, name, 4096)?;
    if s.is_empty() {
        return Err(args::bad(name, "must not be empty"));
    }
    Ok(PathBuf::from(s))
}

/// An array of strings or of objects whose `key` is a string (GitHub's label/assignee shapes).
fn names_list(value: Option<Unknown<'_>>, name: &str, key: &str) -> CoreResult<Vec<String>> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let what = format!("an array of strings or of objects with a string {key}");
    args::array(value, name, &what, MAX_LIST)?
        .into_iter()
        .map(|v| match args::type_of(&v) {
            ValueType::String => args::string(v, name),
            ValueType::Object => {
                let f = Fields::of(v, name).map_err(|_| args::expected(name, &what))?;
                args::string(
                    f.get(key)?.ok_or_else(|| args::expected(name, &what))?,
                    name,
                )
                .map_err(|_| args::expected(name, &what))
            }
            _ => Err(args::expected(name, &what)),
        })
        .collect()
}

fn opt_count(f: &Fields<'_>, key: &str, name: &str) -> CoreResult<Option<usize>> {
    f.get(key)?
        .map(|v| args::whole(v, name, 0, u64::from(u32::MAX)).map(|n| n as usize))
        .transpose()
}

fn parsed_error(value: Unknown<'_>) -> CoreResult<builders::ParsedError> {
    let f = Fields::of(value, "each error")?;
    let message = args::string(f.required("message")?, "error.message")?;
    let severity = match f.string("severity")? {
        None => builders::Severity::Error,
        Some(s) => builders::Severity::parse(&s)
            .ok_or_else(|| args::expected("error.severity", "'error', 'warning' or 'note'"))?,
    };
    Ok(builders::ParsedError {
        file: f.string("file")?,
        line: opt_count(&f, "line", "error.line")?,
        column: opt_count(&f, "column", "error.column")?,
        message,
        severity,
        tool: f.string("tool")?,
        code: f.string("code")?,
    })
}

/// `validationOutput` as read on the JS thread: raw output is decoded on the worker.
enum ValidationArg {
    Raw(args::Text),
    Source(FixSource),
}

impl ValidationArg {
    fn into_source(self) -> FixSource {
        match self {
            ValidationArg::Raw(text) => FixSource::Raw(text.into_string()),
            ValidationArg::Source(source) => source,
        }
    }
}

fn validation_arg(value: Unknown<'_>) -> CoreResult<ValidationArg> {
    if args::type_of(&value) == ValueType::String {
        return Ok(ValidationArg::Raw(args::text(value, "validationOutput")?));
    }
    let what = "a string or an object with a stages array";
    let f = Fields::of(value, "validationOutput")
        .map_err(|_| args::expected("validationOutput", what))?;
    let stages = f
        .get("stages")?
        .ok_or_else(|| args::expected("validationOutput", what))?;
    let mut out = builders::ValidationOutput::default();
    for stage in args::array(stages, "validationOutput.stages", "an array", MAX_LIST)? {
        let s = Fields::of(stage, "each stage")?;
        let errors = match s.get("errors")? {
            Some(v) => args::array(v, "stage.errors", "an array", MAX_LIST)?
                .into_iter()
                .map(parsed_error)
                .collect::<CoreResult<Vec<_>>>()?,
            None => Vec::new(),
        };
        out.stages.push(builders::ValidationStage {
            name: s.string("name")?.unwrap_or_default(),
            passed: s.boolean("passed")?,
            errors,
            output: s.string("output")?,
        });
    }
    Ok(ValidationArg::Source(FixSource::Structured(out)))
}

fn issue_arg(value: Unknown<'_>) -> CoreResult<builders::GitHubIssue> {
    let f = Fields::of(value, "issue")?;
    let number = args::whole(f.required("number")?, "issue.number", 0, (1u64 << 53) - 1)?;
    let title = args::string(f.required("title")?, "issue.title")?;
    Ok(builders::GitHubIssue {
        number,
        title,
        body: f.string("body")?.unwrap_or_default(),
        labels: names_list(f.get("labels")?, "issue.labels", "name")?,
        state: f.string("state")?.unwrap_or_default(),
        assignees: names_list(f.get("assignees")?, "issue.assignees", "login")?,
        url: f.string("url")?.unwrap_or_default(),
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

args::from_fields!(BuilderOptions {
    redact: boolean("redact"),
});

/// The builder options and the per-call controls of a builder's last argument.
fn builder_options(value: Option<Unknown<'_>>) -> CoreResult<(BuildOptions, bridge::Call)> {
    let (o, call) = bridge::options_call::<BuilderOptions>(value, "options")?;
    let defaults = BuildOptions::default();
    Ok((
        BuildOptions {
            redact: o.redact.unwrap_or(defaults.redact),
            ..defaults
        },
        call,
    ))
}

exports! {
    #[doc = " The context of an implementation agent: `tasks` (the task file, relative to"]
    #[doc = " `repoPath` or absolute inside it), `conventions` (`CLAUDE.md` + `AGENTS.md`), `branch` and"]
    #[doc = " `recent_commits` (last 10). A missing task file, a missing `git`, a non-repository or an"]
    #[doc = " empty repository give empty values and a warning in `_metadata`; only a `repoPath` that is"]
    #[doc = " not an absolute directory rejects (`invalid_request`)."]
    #[napi(
        ts_args_type = "taskFile: string, repoPath: string, options?: BuilderOptions & CallOptions",
        ts_return_type = "Promise<ImplementationContext>"
    )]
    async fn build_implementation_context(env, task_file, repo_path; options) -> ImplementationContext {
        let parsed = (|| {
            let task = args::string_max(task_file, "taskFile", 4096)?;
            if task.is_empty() {
                return Err(args::bad("taskFile", "must not be empty"));
            }
            let repo = path_arg(repo_path, "repoPath")?;
            Ok((task, repo, builder_options(options)?))
        })();
        bridge::or_reject(env, parsed, |(task, repo, (opts, call))| {
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
}

exports! {
    #[doc = " The context of a review agent: the `diff` from the merge base of `baseBranch` and"]
    #[doc = " HEAD to the work tree, `changed_files` (whole under 500 lines, otherwise around the changed"]
    #[doc = " hunks; binary files skipped and named in `_metadata.skipped_files`), `conventions` and"]
    #[doc = " `stats`. No changes give an empty diff and zero stats; an unknown base branch, a missing"]
    #[doc = " `git` or a non-repository give empty values and a warning. A malformed `baseBranch` (empty,"]
    #[doc = " starting with `-`, with spaces or `..`) rejects with `invalid_request`."]
    #[napi(
        ts_args_type = "repoPath: string, baseBranch: string, options?: BuilderOptions & CallOptions",
        ts_return_type = "Promise<ReviewContext>"
    )]
    async fn build_review_context(env, repo_path, base_branch; options) -> ReviewContext {
        let parsed = (|| {
            let repo = path_arg(repo_path, "repoPath")?;
            let base = args::string_max(base_branch, "baseBranch", 4096)?;
            builders::validate_branch_name(&base, "baseBranch")?;
            Ok((repo, base, builder_options(options)?))
        })();
        bridge::or_reject(env, parsed, |(repo, base, (opts, call))| {
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
}

exports! {
    #[doc = " The context of a fix agent: `errors` (one line per problem), `source_files` (the"]
    #[doc = " `files` given, then the files the errors name; each whole under 500 lines, otherwise at"]
    #[doc = " least 10 lines around every error line, overlapping windows merged) and `error_summary`."]
    #[doc = " `validationOutput` is structured stages or the raw output of the tools (parsed as"]
    #[doc = " `parseValidationOutput` does). Paths resolve inside `repoPath` (default: the current"]
    #[doc = " directory); paths outside it are ignored with a warning."]
    #[napi(
        ts_args_type = "validationOutput: ValidationOutput | string, files: string[], repoPath?: string | null, options?: BuilderOptions & CallOptions",
        ts_return_type = "Promise<FixContext>"
    )]
    async fn build_fix_context(env, validation_output, files; repo_path, options) -> FixContext {
        let parsed = (|| {
            let source = validation_arg(validation_output)?;
            let files = args::string_list(files, "files", MAX_LIST)?;
            let repo = match args::present(repo_path) {
                Some(v) => path_arg(v, "repoPath")?,
                None => std::env::current_dir().map_err(|e| {
                    CoreError::invalid_request("the current directory is not accessible; pass repoPath")
                        .with_source(e)
                })?,
            };
            Ok((source, files, repo, builder_options(options)?))
        })();
        bridge::or_reject(env, parsed, |(source, files, repo, (opts, call))| {
            bridge::spawn_async_call(
                env,
                call,
                move |_| async move {
                    builders::build_fix_context(source.into_source(), &files, &repo, &opts).await
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
}

/// Largest input of `parseValidationOutputSync`: 64 KiB, which it parses in well under a
/// millisecond, so the JS thread is never blocked for long; use `parseValidationOutput` (off
/// the JS thread) for anything larger.
const MAX_SYNC_VALIDATION_BYTES: usize = 64 * 1024;

fn parse_validation(text: &str) -> Vec<ParsedError> {
    builders::parse_validation_output(text)
        .into_iter()
        .map(parsed_error_js)
        .collect()
}

exports! {
    #[doc = " The problems in a validation tool's output, in order: `tsc` (both formats), `eslint`"]
    #[doc = " (stylish, unix), `rustc`/`cargo`/`clippy`, `pytest`, `mypy` and `ruff` (concise, full)."]
    #[doc = " Unrecognised lines are ignored. ANSI colours are stripped. Parses off the JS thread (up to"]
    #[doc = " 8 Mi characters of text)."]
    #[napi(
        ts_args_type = "text: string",
        ts_return_type = "Promise<ParsedError[]>"
    )]
    async fn parse_validation_output(env, text) -> Vec<ParsedError> {
        let parsed = args::text(text, "text");
        bridge::spawn_parsed(
            env,
            parsed,
            |t| Ok(parse_validation(&t.into_string())),
            |_, v| Ok(v),
        )
    }
}

exports! {
    #[doc = " Synchronous twin of `parseValidationOutput` for small outputs: at most 64 KiB of text"]
    #[doc = " (`invalid_request`, reason `too_large`, beyond), so it never blocks the JS thread for long."]
    #[napi(catch_unwind, ts_args_type = "text: string")]
    fn parse_validation_output_sync(env, text) -> Vec<ParsedError> {
        let text = args::string_max(text, "text", MAX_SYNC_VALIDATION_BYTES);
        bridge::run_sync(env, || Ok(parse_validation(&text?)))
    }
}

exports! {
    #[doc = " The context of an agent working on a GitHub issue: `issue` as text,"]
    #[doc = " `related_files` (paths the title or body mention that exist under `repoPath`, resolved"]
    #[doc = " safely; `path:line` mentions keep the lines around that line in large files) and"]
    #[doc = " `recent_changes` (the last 10 commits touching them, or the repository)."]
    #[napi(
        ts_args_type = "issue: GitHubIssue, repoPath: string, options?: BuilderOptions & CallOptions",
        ts_return_type = "Promise<IssueContext>"
    )]
    async fn build_issue_context(env, issue, repo_path; options) -> IssueContext {
        let parsed = (|| {
            let issue = issue_arg(issue)?;
            let repo = path_arg(repo_path, "repoPath")?;
            Ok((issue, repo, builder_options(options)?))
        })();
        bridge::or_reject(env, parsed, |(issue, repo, (opts, call))| {
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
}

//! Context-source exports: `dirContext`, `fileContext`, `diffContext`, `prContext` and
//! `composeContext` (see docs/design/adr-005-context-injection.md, section Decision).

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use super::args;
use super::bridge;
use super::secrets::{redactions_js, Redaction};
use context_engine_core::error::Result as CoreResult;
use context_engine_core::inject::{self, DirOptions, FileOptions, PrRef, SourceKind};

/// Largest accepted `maxChars`.
const MAX_CHARS: u64 = 64 * 1024 * 1024;
/// Largest accepted `maxFiles` / `maxLines`.
const MAX_COUNT: u64 = 10_000_000;

/// What a context source is. Composition orders sources by kind: `dir`, `file`, `pr`, `diff`.
#[napi(string_enum)]
pub enum ContextSourceKind {
    /// A directory overview.
    #[napi(value = "dir")]
    Dir,
    /// One file.
    #[napi(value = "file")]
    File,
    /// A pull request.
    #[napi(value = "pr")]
    Pr,
    /// Staged and unstaged changes.
    #[napi(value = "diff")]
    Diff,
}

/// One rendered context source.
#[napi(object, object_from_js = false)]
pub struct ContextSource {
    /// What it is.
    pub kind: ContextSourceKind,
    /// A short, safe name: a relative path, `PR #12`, `working tree`.
    pub label: String,
    /// The rendered text.
    pub content: String,
    /// Whether `content` was cut.
    pub truncated: bool,
    /// The secrets replaced by `[REDACTED:<kind>]` in `content`: kind and 1-based line of
    /// `content`, never the value. Empty when read with `redact: false`.
    pub redactions: Vec<Redaction>,
}

/// What `composeContext` returns.
#[napi(object, object_from_js = false)]
pub struct ComposedContext {
    /// The sources under `## <kind>: <label>` headings, at most `maxChars` long
    /// (`text.length`), ending with `[... context truncated at N characters ...]` when cut.
    pub text: String,
    /// Whether anything was cut or left out (including sources that were already cut).
    pub truncated: bool,
    /// Labels of the sources that did not fit at all.
    pub omitted: Vec<String>,
    /// The secrets replaced by `[REDACTED:<kind>]` in `text` (kind and 1-based line of
    /// `text`), never the value.
    pub redactions: Vec<Redaction>,
}

/// Options of `dirContext`. All optional; `null` means the same as absent.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct DirContextOptions {
    /// Files listed at most. Default 200.
    pub max_files: Option<f64>,
    /// Characters (`length`) of the content at most. Default 5000, the design's cap.
    pub max_chars: Option<f64>,
    /// Replace suspected secrets by `[REDACTED:<kind>]` and report them. Default true.
    pub redact: Option<bool>,
}

/// Options of `fileContext`. All optional; `null` means the same as absent.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct FileContextOptions {
    /// The directory reads are confined to; `path` may then be relative to it. Default: the
    /// file's own directory.
    pub root: Option<String>,
    /// Lines kept at most. Default 150, the design's cap.
    pub max_lines: Option<f64>,
    /// Characters (`length`) of the content at most. Default 5000.
    pub max_chars: Option<f64>,
    /// Replace suspected secrets by `[REDACTED:<kind>]` and report them. Default true.
    pub redact: Option<bool>,
}

/// Options of `diffContext`, `prContext` and `composeContext`. All optional; `null` means the
/// same as absent.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct MaxCharsOptions {
    /// Characters (`length`) of the result at most. Default 5000, the design's cap.
    pub max_chars: Option<f64>,
    /// Replace suspected secrets by `[REDACTED:<kind>]` and report them. Default true.
    pub redact: Option<bool>,
}

fn max_chars(value: Option<f64>) -> CoreResult<usize> {
    args::opt_whole_number(
        value,
        "options.maxChars",
        inject::DEFAULT_MAX_CHARS as u64,
        0,
        MAX_CHARS,
    )
    .map(|n| n as usize)
}

fn kind_js(kind: SourceKind) -> ContextSourceKind {
    match kind {
        SourceKind::Dir => ContextSourceKind::Dir,
        SourceKind::File => ContextSourceKind::File,
        SourceKind::Pr => ContextSourceKind::Pr,
        SourceKind::Diff => ContextSourceKind::Diff,
    }
}

fn source_js(s: inject::ContextSource) -> ContextSource {
    ContextSource {
        kind: kind_js(s.kind),
        label: s.label,
        content: s.content,
        truncated: s.truncated,
        redactions: redactions_js(&s.redactions),
    }
}

/// A directory overview (the design's `generate_dir_context`): the file tree under `path` (hidden
/// entries, `node_modules`, `target`, `dist`... left out; symlinks followed only inside) with
/// each source file's key declarations (`kind name:line`), cut at `maxChars` with a marker.
/// Rejects with `invalid_request` when `path` is not an absolute, existing directory.
#[napi(ts_return_type = "Promise<ContextSource>")]
pub fn dir_context(
    env: &Env,
    path: String,
    #[napi(ts_arg_type = "DirContextOptions & CallOptions")] options: Option<
        bridge::CallOptions<DirContextOptions>,
    >,
) -> napi::Result<PromiseRaw<'_, ContextSource>> {
    let (o, call) = bridge::CallOptions::split(options);
    let parsed = (|| {
        let path = args::path(path, "path")?;
        let opts = DirOptions {
            max_files: args::opt_whole_number(
                o.max_files,
                "options.maxFiles",
                inject::DIR_MAX_FILES as u64,
                0,
                MAX_COUNT,
            )? as usize,
            max_chars: max_chars(o.max_chars)?,
            redact: o.redact.unwrap_or(true),
        };
        Ok((path, opts))
    })();
    bridge::or_reject(env, parsed, |(path, opts)| {
        bridge::spawn_call(
            env,
            call,
            move |cancel| {
                cancel.check()?;
                inject::dir_context(&path, &opts)
            },
            |_, s| Ok(source_js(s)),
        )
    })
}

/// One file (the design's `generate_file_context`): its first 150 lines (`maxLines`) followed by
/// `[... truncated: N more lines of M ...]`, read inside `options.root` (default: the file's
/// directory). Rejects with `invalid_request` for a missing, binary, oversized file or one
/// outside the root.
#[napi(ts_return_type = "Promise<ContextSource>")]
pub fn file_context(
    env: &Env,
    path: String,
    #[napi(ts_arg_type = "FileContextOptions & CallOptions")] options: Option<
        bridge::CallOptions<FileContextOptions>,
    >,
) -> napi::Result<PromiseRaw<'_, ContextSource>> {
    let (o, call) = bridge::CallOptions::split(options);
    let parsed = (|| {
        if path.is_empty() {
            return Err(args::bad("path", "must not be empty"));
        }
        let root = o.root.map(|r| args::path(r, "options.root")).transpose()?;
        let opts = FileOptions {
            max_lines: args::opt_whole_number(
                o.max_lines,
                "options.maxLines",
                inject::FILE_MAX_LINES as u64,
                1,
                MAX_COUNT,
            )? as usize,
            max_chars: max_chars(o.max_chars)?,
            redact: o.redact.unwrap_or(true),
        };
        Ok((path, root, opts))
    })();
    bridge::or_reject(env, parsed, |(path, root, opts)| {
        bridge::spawn_call(
            env,
            call,
            move |_| inject::file_context(&path, root.as_deref(), &opts),
            |_, s| Ok(source_js(s)),
        )
    })
}

/// The working tree's staged and unstaged changes (the design's `generate_diff_context`), cut at
/// `maxChars`. Rejects with `invalid_request` (not a repository), `unavailable` (no `git`),
/// `timeout`.
#[napi(ts_return_type = "Promise<ContextSource>")]
pub fn diff_context(
    env: &Env,
    repo_path: String,
    #[napi(ts_arg_type = "MaxCharsOptions & CallOptions")] options: Option<
        bridge::CallOptions<MaxCharsOptions>,
    >,
) -> napi::Result<PromiseRaw<'_, ContextSource>> {
    let (o, call) = bridge::CallOptions::split(options);
    let parsed = (|| Ok((args::path(repo_path, "repoPath")?, max_chars(o.max_chars)?)))();
    let redact = o.redact.unwrap_or(true);
    bridge::or_reject(env, parsed, |(repo, chars)| {
        bridge::spawn_async_call(
            env,
            call,
            move |_| async move { inject::diff_context(&repo, chars, None, redact).await },
            |_, s| Ok(source_js(s)),
        )
    })
}

fn pr_arg(pr: Either<f64, String>) -> CoreResult<PrRef> {
    match pr {
        Either::A(n) => Ok(PrRef::Number(args::whole_number(
            n,
            "pr",
            1,
            (1u64 << 53) - 1,
        )?)),
        Either::B(s) => PrRef::parse(&s),
    }
}

/// A pull request's metadata and diff (the design's `generate_pr_context`) through the GitHub CLI:
/// `gh pr view <pr> --json ...` and `gh pr diff <pr>`, run in `repoPath`, cut at `maxChars`.
/// Rejects with `unavailable` when `gh` is missing or fails, `unauthorized` when it is not
/// logged in, `invalid_request` for an unknown pull request, `timeout` after 30 s.
#[napi(ts_return_type = "Promise<ContextSource>")]
pub fn pr_context(
    env: &Env,
    repo_path: String,
    #[napi(ts_arg_type = "number | string")] pr: Either<f64, String>,
    #[napi(ts_arg_type = "MaxCharsOptions & CallOptions")] options: Option<
        bridge::CallOptions<MaxCharsOptions>,
    >,
) -> napi::Result<PromiseRaw<'_, ContextSource>> {
    let (o, call) = bridge::CallOptions::split(options);
    let parsed = (|| {
        Ok((
            args::path(repo_path, "repoPath")?,
            pr_arg(pr)?,
            max_chars(o.max_chars)?,
        ))
    })();
    let redact = o.redact.unwrap_or(true);
    bridge::or_reject(env, parsed, |(repo, pr, chars)| {
        bridge::spawn_async_call(
            env,
            call,
            move |_| async move { inject::pr_context(&repo, &pr, chars, None, redact).await },
            |_, s| Ok(source_js(s)),
        )
    })
}

/// A source handed to `composeContext` (a `ContextSource`; its `redactions`, if any, are not
/// read).
#[napi(object, object_to_js = false)]
pub struct ComposeSource {
    /// What it is.
    pub kind: ContextSourceKind,
    /// A short name for its heading (at most 4096 bytes).
    pub label: String,
    /// Its text.
    #[napi(ts_type = "string")]
    pub content: args::Text,
    /// Whether `content` was already cut. Default false.
    pub truncated: Option<bool>,
}

fn kind_core(kind: ContextSourceKind) -> SourceKind {
    match kind {
        ContextSourceKind::Dir => SourceKind::Dir,
        ContextSourceKind::File => SourceKind::File,
        ContextSourceKind::Pr => SourceKind::Pr,
        ContextSourceKind::Diff => SourceKind::Diff,
    }
}

fn compose_args(
    sources: Vec<ComposeSource>,
    options: Option<MaxCharsOptions>,
) -> CoreResult<(Vec<ComposeSource>, usize, bool)> {
    let o = options.unwrap_or_default();
    Ok((sources, max_chars(o.max_chars)?, o.redact.unwrap_or(true)))
}

fn compose((sources, max_chars, redact): (Vec<ComposeSource>, usize, bool)) -> ComposedContext {
    let sources: Vec<inject::ContextSource> = sources
        .into_iter()
        .map(|s| inject::ContextSource {
            kind: kind_core(s.kind),
            label: s.label,
            content: s.content.into_string(),
            truncated: s.truncated.unwrap_or(false),
            redactions: Vec::new(),
        })
        .collect();
    let c = inject::compose_context(&sources, max_chars, redact);
    ComposedContext {
        text: c.text,
        truncated: c.truncated,
        omitted: c.omitted,
        redactions: redactions_js(&c.redactions),
    }
}

/// Composes context sources into one block of at most `maxChars` characters (default 5000,
/// the design's cap; `text.length` is the measure): ordered by kind (`dir`, `file`, `pr`,
/// `diff`; the given order within a kind), each under a `## <kind>: <label>` heading, then a
/// visible `[... context truncated at N characters ...]` marker when cut. Secrets are
/// redacted before the cut unless `redact: false`. Runs off the JS thread; sources may hold
/// 8 Mi characters in all.
#[napi(ts_return_type = "Promise<ComposedContext>")]
pub fn compose_context(
    env: &Env,
    #[napi(
        ts_arg_type = "Array<Omit<ContextSource, 'redactions'> & { redactions?: Array<Redaction> }>"
    )]
    sources: Vec<ComposeSource>,
    options: Option<MaxCharsOptions>,
) -> napi::Result<PromiseRaw<'_, ComposedContext>> {
    let parsed = compose_args(sources, options);
    bridge::spawn_parsed(env, parsed, |a| Ok(compose(a)), |_, c| Ok(c))
}

/// Synchronous twin of `composeContext` for small inputs: at most 256 Ki characters of
/// sources in all (`invalid_request`, reason `too_large`, beyond; use `composeContext`).
#[napi(catch_unwind)]
pub fn compose_context_sync(
    env: &Env,
    #[napi(
        ts_arg_type = "Array<Omit<ContextSource, 'redactions'> & { redactions?: Array<Redaction> }>"
    )]
    sources: Vec<ComposeSource>,
    options: Option<MaxCharsOptions>,
) -> napi::Result<ComposedContext> {
    let parsed = compose_args(sources, options);
    bridge::run_sync(env, || parsed.map(compose))
}

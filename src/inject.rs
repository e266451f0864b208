//! Context-source exports: `dirContext`, `fileContext`, `diffContext`, `prContext` and
//! `composeContext` (see docs/design/adr-005-context-injection.md, section Decision).

use napi::bindgen_prelude::*;
use napi::{Env, ValueType};
use napi_derive::napi;

use super::args::{self, Fields};
use super::bridge;
use super::builders::path_arg;
use super::engine::exports;
use super::secrets::{redactions_js, Redaction};
use context_engine_core::error::Result as CoreResult;
use context_engine_core::inject::{self, DirOptions, FileOptions, PrRef, SourceKind};

/// Largest accepted `maxChars`.
const MAX_CHARS: u64 = 64 * 1024 * 1024;
/// Largest accepted `maxFiles` / `maxLines`.
const MAX_COUNT: u64 = 10_000_000;
/// Most sources `composeContext` accepts.
const MAX_SOURCES: u32 = 10_000;

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

args::from_fields!(DirContextOptions {
    max_files: number("maxFiles"),
    max_chars: number("maxChars"),
    redact: boolean("redact"),
});

args::from_fields!(FileContextOptions {
    root: string("root"),
    max_lines: number("maxLines"),
    max_chars: number("maxChars"),
    redact: boolean("redact"),
});

args::from_fields!(MaxCharsOptions {
    max_chars: number("maxChars"),
    redact: boolean("redact"),
});

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

exports! {
    #[doc = " A directory overview (the design's `generate_dir_context`): the file tree under `path` (hidden"]
    #[doc = " entries, `node_modules`, `target`, `dist`... left out; symlinks followed only inside) with"]
    #[doc = " each source file's key declarations (`kind name:line`), cut at `maxChars` with a marker."]
    #[doc = " Rejects with `invalid_request` when `path` is not an absolute, existing directory."]
    #[napi(
        ts_args_type = "path: string, options?: DirContextOptions & CallOptions",
        ts_return_type = "Promise<ContextSource>"
    )]
    async fn dir_context(env, path; options) -> ContextSource {
        let parsed = (|| {
            let path = path_arg(path, "path")?;
            let (o, call) = bridge::options_call::<DirContextOptions>(options, "options")?;
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
            Ok((path, opts, call))
        })();
        bridge::or_reject(env, parsed, |(path, opts, call)| {
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
}

exports! {
    #[doc = " One file (the design's `generate_file_context`): its first 150 lines (`maxLines`) followed by"]
    #[doc = " `[... truncated: N more lines of M ...]`, read inside `options.root` (default: the file's"]
    #[doc = " directory). Rejects with `invalid_request` for a missing, binary, oversized file or one"]
    #[doc = " outside the root."]
    #[napi(
        ts_args_type = "path: string, options?: FileContextOptions & CallOptions",
        ts_return_type = "Promise<ContextSource>"
    )]
    async fn file_context(env, path; options) -> ContextSource {
        let parsed = (|| {
            let path = args::string_max(path, "path", 64 * 1024)?;
            if path.is_empty() {
                return Err(args::bad("path", "must not be empty"));
            }
            let (o, call) = bridge::options_call::<FileContextOptions>(options, "options")?;
            if o.root.as_deref() == Some("") {
                return Err(args::bad("options.root", "must not be empty"));
            }
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
            Ok((path, o.root, opts, call))
        })();
        bridge::or_reject(env, parsed, |(path, root, opts, call)| {
            bridge::spawn_call(
                env,
                call,
                move |_| inject::file_context(&path, root.as_deref().map(std::path::Path::new), &opts),
                |_, s| Ok(source_js(s)),
            )
        })
    }
}

exports! {
    #[doc = " The working tree's staged and unstaged changes (the design's `generate_diff_context`), cut at"]
    #[doc = " `maxChars`. Rejects with `invalid_request` (not a repository), `unavailable` (no `git`),"]
    #[doc = " `timeout`."]
    #[napi(
        ts_args_type = "repoPath: string, options?: MaxCharsOptions & CallOptions",
        ts_return_type = "Promise<ContextSource>"
    )]
    async fn diff_context(env, repo_path; options) -> ContextSource {
        let parsed = (|| {
            let repo = path_arg(repo_path, "repoPath")?;
            let (o, call) = bridge::options_call::<MaxCharsOptions>(options, "options")?;
            Ok((
                repo,
                (max_chars(o.max_chars)?, o.redact.unwrap_or(true)),
                call,
            ))
        })();
        bridge::or_reject(env, parsed, |(repo, chars, call)| {
            bridge::spawn_async_call(
                env,
                call,
                move |_| async move { inject::diff_context(&repo, chars.0, None, chars.1).await },
                |_, s| Ok(source_js(s)),
            )
        })
    }
}

fn pr_arg(value: Unknown<'_>) -> CoreResult<PrRef> {
    match value.get_type().unwrap_or(ValueType::Unknown) {
        ValueType::Number => {
            let n = args::whole(value, "pr", 1, (1u64 << 53) - 1)?;
            Ok(PrRef::Number(n))
        }
        ValueType::String => PrRef::parse(&args::string(value, "pr")?),
        _ => Err(args::expected(
            "pr",
            "a pull request number, URL or branch name",
        )),
    }
}

exports! {
    #[doc = " A pull request's metadata and diff (the design's `generate_pr_context`) through the GitHub CLI:"]
    #[doc = " `gh pr view <pr> --json ...` and `gh pr diff <pr>`, run in `repoPath`, cut at `maxChars`."]
    #[doc = " Rejects with `unavailable` when `gh` is missing or fails, `unauthorized` when it is not"]
    #[doc = " logged in, `invalid_request` for an unknown pull request, `timeout` after 30 s."]
    #[napi(
        ts_args_type = "repoPath: string, pr: number | string, options?: MaxCharsOptions & CallOptions",
        ts_return_type = "Promise<ContextSource>"
    )]
    async fn pr_context(env, repo_path, pr; options) -> ContextSource {
        let parsed = (|| {
            let repo = path_arg(repo_path, "repoPath")?;
            let pr = pr_arg(pr)?;
            let (o, call) = bridge::options_call::<MaxCharsOptions>(options, "options")?;
            Ok((
                repo,
                pr,
                (max_chars(o.max_chars)?, o.redact.unwrap_or(true)),
                call,
            ))
        })();
        bridge::or_reject(env, parsed, |(repo, pr, chars, call)| {
            bridge::spawn_async_call(
                env,
                call,
                move |_| async move { inject::pr_context(&repo, &pr, chars.0, None, chars.1).await },
                |_, s| Ok(source_js(s)),
            )
        })
    }
}

/// Longest `source.label` of `composeContext` (a path or a name; it goes into a heading).
const MAX_LABEL_BYTES: usize = 4096;
/// Largest input of `composeContextSync`: 256 Ki characters of sources in all.
const MAX_SYNC_COMPOSE_UNITS: usize = 256 * 1024;

/// A source as read on the JS thread; its content is decoded on the worker.
struct SourceArg {
    kind: SourceKind,
    label: String,
    content: args::Text,
    truncated: bool,
}

fn sources_arg(value: Unknown<'_>, max_units: usize) -> CoreResult<Vec<SourceArg>> {
    let items = args::array(value, "sources", "an array of context sources", MAX_SOURCES)?;
    let mut total = 0usize;
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let f = Fields::of(item, "each source")?;
        let kind = args::string_max(f.required("kind")?, "source.kind", 16)?;
        let kind = SourceKind::parse(&kind)
            .ok_or_else(|| args::expected("source.kind", "'dir', 'file', 'pr' or 'diff'"))?;
        let label = args::string_max(f.required("label")?, "source.label", MAX_LABEL_BYTES)?;
        let content = args::text_max(f.required("content")?, "source.content", max_units)?;
        let truncated = f.boolean("truncated")?.unwrap_or(false);
        total += content.len() + label.len();
        if total > max_units {
            return Err(args::too_long("sources", max_units));
        }
        out.push(SourceArg {
            kind,
            label,
            content,
            truncated,
        });
    }
    Ok(out)
}

fn compose_args(
    sources: Unknown<'_>,
    options: Option<Unknown<'_>>,
    max_units: usize,
) -> CoreResult<(Vec<SourceArg>, usize, bool)> {
    let sources = sources_arg(sources, max_units)?;
    let o: MaxCharsOptions = args::options(options, "options")?;
    Ok((sources, max_chars(o.max_chars)?, o.redact.unwrap_or(true)))
}

fn compose((sources, max_chars, redact): (Vec<SourceArg>, usize, bool)) -> ComposedContext {
    let sources: Vec<inject::ContextSource> = sources
        .into_iter()
        .map(|s| inject::ContextSource {
            kind: s.kind,
            label: s.label,
            content: s.content.into_string(),
            truncated: s.truncated,
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

exports! {
    #[doc = " Composes context sources into one block of at most `maxChars` characters (default 5000,"]
    #[doc = " the design's cap; `text.length` is the measure): ordered by kind (`dir`, `file`, `pr`,"]
    #[doc = " `diff`; the given order within a kind), each under a `## <kind>: <label>` heading, then a"]
    #[doc = " visible `[... context truncated at N characters ...]` marker when cut. Secrets are"]
    #[doc = " redacted before the cut unless `redact: false`. Runs off the JS thread; sources may hold"]
    #[doc = " 8 Mi characters in all."]
    #[napi(
        ts_args_type = "sources: Array<Omit<ContextSource, 'redactions'> & { redactions?: Array<Redaction> }>, options?: MaxCharsOptions",
        ts_return_type = "Promise<ComposedContext>"
    )]
    async fn compose_context(env, sources; options) -> ComposedContext {
        let parsed = compose_args(sources, options, args::MAX_TEXT_UNITS);
        bridge::spawn_parsed(env, parsed, |a| Ok(compose(a)), |_, c| Ok(c))
    }
}

exports! {
    #[doc = " Synchronous twin of `composeContext` for small inputs: at most 256 Ki characters of"]
    #[doc = " sources in all (`invalid_request`, reason `too_large`, beyond; use `composeContext`)."]
    #[napi(
        catch_unwind,
        ts_args_type = "sources: Array<Omit<ContextSource, 'redactions'> & { redactions?: Array<Redaction> }>, options?: MaxCharsOptions"
    )]
    fn compose_context_sync(env, sources; options) -> ComposedContext {
        let parsed = compose_args(sources, options, MAX_SYNC_COMPOSE_UNITS);
        bridge::run_sync(env, || parsed.map(compose))
    }
}

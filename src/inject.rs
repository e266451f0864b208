//! ADR-005 context-source exports: `dirContext`, `fileContext`, `diffContext`, `prContext` and
//! `composeContext`.

use napi::bindgen_prelude::*;
use napi::{Env, JsValue, ValueType};
use napi_derive::napi;

use super::builders::path_arg;
use super::{args, bridge};
use context_engine_core::error::{Error as CoreError, Result as CoreResult};
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

/// One rendered context source (ADR-005).
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

/// One secret replaced by a `[REDACTED:<kind>]` marker: what it was and where the marker is.
#[napi(object, object_from_js = false)]
pub struct Redaction {
    /// The kind of secret, as in the marker (`github_token`, `private_key`, `generic_secret`, ...).
    pub kind: String,
    /// The 1-based line of the returned text on which the marker starts.
    pub line: u32,
}

/// The JS form of a core redaction report.
pub fn redactions_js(report: &[context_engine_core::secrets::Redaction]) -> Vec<Redaction> {
    report
        .iter()
        .map(|r| Redaction {
            kind: r.kind.as_str().to_owned(),
            line: args::clamp_u32(r.line),
        })
        .collect()
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

/// Options of `dirContext`. All optional.
#[napi(object, object_to_js = false)]
pub struct DirContextOptions {
    /// Files listed at most. Default 200.
    pub max_files: Option<f64>,
    /// Characters (`length`) of the content at most. Default 5000 (ADR-005's cap).
    pub max_chars: Option<f64>,
    /// Replace suspected secrets by `[REDACTED:<kind>]` and report them. Default true.
    pub redact: Option<bool>,
}

/// Options of `fileContext`. All optional.
#[napi(object, object_to_js = false)]
pub struct FileContextOptions {
    /// The directory reads are confined to; `path` may then be relative to it. Default: the
    /// file's own directory.
    pub root: Option<String>,
    /// Lines kept at most. Default 150 (ADR-005's cap).
    pub max_lines: Option<f64>,
    /// Characters (`length`) of the content at most. Default 5000.
    pub max_chars: Option<f64>,
    /// Replace suspected secrets by `[REDACTED:<kind>]` and report them. Default true.
    pub redact: Option<bool>,
}

/// Options of `diffContext`, `prContext` and `composeContext`. All optional.
#[napi(object, object_to_js = false)]
pub struct MaxCharsOptions {
    /// Characters (`length`) of the result at most. Default 5000 (ADR-005's cap).
    pub max_chars: Option<f64>,
    /// Replace suspected secrets by `[REDACTED:<kind>]` and report them. Default true.
    pub redact: Option<bool>,
}

fn max_chars(value: Option<f64>) -> CoreResult<usize> {
    args::opt_whole_number(
        value,
        "maxChars",
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

/// A directory overview (ADR-005 `generate_dir_context`): the file tree under `path` (hidden
/// entries, `node_modules`, `target`, `dist`... left out; symlinks followed only inside) with
/// each source file's key declarations (`kind name:line`), cut at `maxChars` with a marker.
/// Rejects with `invalid_request` when `path` is not an absolute, existing directory.
#[napi(
    ts_args_type = "path: string, options?: DirContextOptions",
    ts_return_type = "Promise<ContextSource>"
)]
pub fn dir_context<'env>(
    env: &'env Env,
    path: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> napi::Result<PromiseRaw<'env, ContextSource>> {
    let parsed = (|| {
        let path = path_arg(path, "path")?;
        let o: Option<DirContextOptions> = args::options_object(options, "options")?;
        let (files, chars, redact) =
            o.map_or((None, None, None), |o| (o.max_files, o.max_chars, o.redact));
        let opts = DirOptions {
            max_files: args::opt_whole_number(
                files,
                "maxFiles",
                inject::DIR_MAX_FILES as u64,
                0,
                MAX_COUNT,
            )? as usize,
            max_chars: max_chars(chars)?,
            redact: redact.unwrap_or(true),
        };
        Ok((path, opts))
    })();
    match parsed {
        Ok((path, opts)) => bridge::spawn(
            env,
            move || inject::dir_context(&path, &opts),
            |_, s| Ok(source_js(s)),
        ),
        Err(e) => bridge::reject(env, e),
    }
}

/// One file (ADR-005 `generate_file_context`): its first 150 lines (`maxLines`) followed by
/// `[... truncated: N more lines of M ...]`, read inside `options.root` (default: the file's
/// directory). Rejects with `invalid_request` for a missing, binary, oversized file or one
/// outside the root.
#[napi(
    ts_args_type = "path: string, options?: FileContextOptions",
    ts_return_type = "Promise<ContextSource>"
)]
pub fn file_context<'env>(
    env: &'env Env,
    path: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> napi::Result<PromiseRaw<'env, ContextSource>> {
    let parsed = (|| {
        let path = args::string(path, "path")?;
        if path.is_empty() {
            return Err(CoreError::invalid_request("path must not be empty"));
        }
        let o: Option<FileContextOptions> = args::options_object(options, "options")?;
        let (root, lines, chars, redact) = o.map_or((None, None, None, None), |o| {
            (o.root, o.max_lines, o.max_chars, o.redact)
        });
        if root.as_deref() == Some("") {
            return Err(CoreError::invalid_request("root must not be empty"));
        }
        let opts = FileOptions {
            max_lines: args::opt_whole_number(
                lines,
                "maxLines",
                inject::FILE_MAX_LINES as u64,
                1,
                MAX_COUNT,
            )? as usize,
            max_chars: max_chars(chars)?,
            redact: redact.unwrap_or(true),
        };
        Ok((path, root, opts))
    })();
    match parsed {
        Ok((path, root, opts)) => bridge::spawn(
            env,
            move || inject::file_context(&path, root.as_deref().map(std::path::Path::new), &opts),
            |_, s| Ok(source_js(s)),
        ),
        Err(e) => bridge::reject(env, e),
    }
}

/// The working tree's staged and unstaged changes (ADR-005 `generate_diff_context`), cut at
/// `maxChars`. Rejects with `invalid_request` (not a repository), `unavailable` (no `git`),
/// `timeout`.
#[napi(
    ts_args_type = "repoPath: string, options?: MaxCharsOptions",
    ts_return_type = "Promise<ContextSource>"
)]
pub fn diff_context<'env>(
    env: &'env Env,
    repo_path: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> napi::Result<PromiseRaw<'env, ContextSource>> {
    let parsed = (|| {
        let repo = path_arg(repo_path, "repoPath")?;
        let o: Option<MaxCharsOptions> = args::options_object(options, "options")?;
        let redact = o.as_ref().and_then(|o| o.redact).unwrap_or(true);
        Ok((repo, (max_chars(o.and_then(|o| o.max_chars))?, redact)))
    })();
    match parsed {
        Ok((repo, chars)) => bridge::spawn_async(
            env,
            async move { inject::diff_context(&repo, chars.0, None, chars.1).await },
            |_, s| Ok(source_js(s)),
        ),
        Err(e) => bridge::reject(env, e),
    }
}

fn pr_arg(value: Unknown<'_>) -> CoreResult<PrRef> {
    match value.get_type().unwrap_or(ValueType::Unknown) {
        ValueType::Number => {
            let n = args::whole(value, "pr", 1, (1u64 << 53) - 1)?;
            Ok(PrRef::Number(n))
        }
        ValueType::String => PrRef::parse(&args::string(value, "pr")?),
        _ => Err(CoreError::invalid_request(
            "pr must be a pull request number, URL or branch name",
        )),
    }
}

/// A pull request's metadata and diff (ADR-005 `generate_pr_context`) through the GitHub CLI:
/// `gh pr view <pr> --json ...` and `gh pr diff <pr>`, run in `repoPath`, cut at `maxChars`.
/// Rejects with `unavailable` when `gh` is missing or fails, `unauthorized` when it is not
/// logged in, `invalid_request` for an unknown pull request, `timeout` after 30 s.
#[napi(
    ts_args_type = "repoPath: string, pr: number | string, options?: MaxCharsOptions",
    ts_return_type = "Promise<ContextSource>"
)]
pub fn pr_context<'env>(
    env: &'env Env,
    repo_path: Unknown<'_>,
    pr: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> napi::Result<PromiseRaw<'env, ContextSource>> {
    let parsed = (|| {
        let repo = path_arg(repo_path, "repoPath")?;
        let pr = pr_arg(pr)?;
        let o: Option<MaxCharsOptions> = args::options_object(options, "options")?;
        let redact = o.as_ref().and_then(|o| o.redact).unwrap_or(true);
        Ok((repo, pr, (max_chars(o.and_then(|o| o.max_chars))?, redact)))
    })();
    match parsed {
        Ok((repo, pr, chars)) => bridge::spawn_async(
            env,
            async move { inject::pr_context(&repo, &pr, chars.0, None, chars.1).await },
            |_, s| Ok(source_js(s)),
        ),
        Err(e) => bridge::reject(env, e),
    }
}

fn sources_arg(value: Unknown<'_>) -> CoreResult<Vec<inject::ContextSource>> {
    let not_array = || CoreError::invalid_request("sources must be an array of context sources");
    if value.get_type().unwrap_or(ValueType::Unknown) != ValueType::Object
        || !value.is_array().unwrap_or(false)
    {
        return Err(not_array());
    }
    let array: Array<'_> = unsafe { value.cast() }.map_err(|_| not_array())?;
    if array.len() > MAX_SOURCES {
        return Err(CoreError::invalid_request(format!(
            "sources has too many entries (at most {MAX_SOURCES})"
        )));
    }
    let mut total = 0usize;
    let mut out = Vec::with_capacity(array.len() as usize);
    for i in 0..array.len() {
        let item = array
            .get::<Unknown<'_>>(i)
            .ok()
            .flatten()
            .ok_or_else(not_array)?;
        let o = args::object(item, "each source")?;
        let kind = args::field(&o, "kind")?.ok_or_else(not_array)?;
        let kind = SourceKind::parse(&args::string(kind, "source.kind")?).ok_or_else(|| {
            CoreError::invalid_request("source.kind must be 'dir', 'file', 'pr' or 'diff'")
        })?;
        let label = args::string(
            args::field(&o, "label")?.ok_or_else(not_array)?,
            "source.label",
        )?;
        let content = args::string(
            args::field(&o, "content")?.ok_or_else(not_array)?,
            "source.content",
        )?;
        let truncated = match args::field(&o, "truncated")? {
            Some(v) if v.get_type().unwrap_or(ValueType::Unknown) == ValueType::Boolean => {
                unsafe { v.cast::<bool>() }.unwrap_or(false)
            }
            Some(v) if !args::is_missing(&v) => {
                return Err(CoreError::invalid_request(
                    "source.truncated must be a boolean",
                ))
            }
            _ => false,
        };
        total += content.len() + label.len();
        if total > args::MAX_TEXT_BYTES {
            return Err(CoreError::invalid_request(
                "sources are too large (at most 64 MiB in all)",
            ));
        }
        out.push(inject::ContextSource {
            kind,
            label,
            content,
            truncated,
            redactions: Vec::new(),
        });
    }
    Ok(out)
}

/// Composes context sources into one block of at most `maxChars` characters (default 5000,
/// ADR-005's cap; `text.length` is the measure): ordered by kind (`dir`, `file`, `pr`,
/// `diff`; the given order within a kind), each under a `## <kind>: <label>` heading, then a
/// visible `[... context truncated at N characters ...]` marker when cut.
#[napi(
    catch_unwind,
    ts_args_type = "sources: Array<Omit<ContextSource, 'redactions'> & { redactions?: Array<Redaction> }>, options?: MaxCharsOptions"
)]
pub fn compose_context(
    env: &Env,
    sources: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> napi::Result<ComposedContext> {
    let parsed = (|| -> CoreResult<_> {
        let sources = sources_arg(sources)?;
        let o: Option<MaxCharsOptions> = args::options_object(options, "options")?;
        let redact = o.as_ref().and_then(|o| o.redact).unwrap_or(true);
        Ok((sources, (max_chars(o.and_then(|o| o.max_chars))?, redact)))
    })();
    bridge::run_sync(env, || {
        let (sources, chars) = parsed?;
        let c = inject::compose_context(&sources, chars.0, chars.1);
        Ok(ComposedContext {
            text: c.text,
            truncated: c.truncated,
            omitted: c.omitted,
            redactions: redactions_js(&c.redactions),
        })
    })
}

//! Expansion exports (context-expansion-spec v0.7.4g): `expandChunk`, `expandChunkDetailed`,
//! the file-cache controls and file watching, as module-level functions (on the default
//! engine) and as `ContextEngine` methods.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use super::args::{self, Fields};
use super::bridge::{self, Call};
use super::engine::{exports, ContextEngine};
use super::secrets::{redactions_js, Redaction};
use context_engine_core::engine::Engine;
use context_engine_core::error::{Error as CoreError, Result as CoreResult};
use context_engine_core::expand::{CacheConfig, ExpandOptions, Expansion, Mode, TextChunk};

/// Largest accepted line number.
const MAX_LINE: u64 = 1_000_000_000;
/// Largest accepted `maxLines` of structure mode.
const MAX_STRUCTURE_LINES: u64 = 1_000_000;
/// Largest accepted |contextLines|; larger values would mean "the whole file" anyway.
const MAX_CONTEXT: f64 = 1e12;
/// Longest accepted path argument, in bytes.
const MAX_PATH_BYTES: usize = 64 * 1024;

/// Options of `expandChunk`. All optional; `null` means the same as absent.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct ExpandChunkOptions {
    /// `'lines'` (default): `contextLines` lines on each side, the spec's behaviour.
    /// `'structure'`: the smallest enclosing function, method, class or module (every
    /// language of the registry: bash, C, C++, C#, Elixir, Go, Haskell, Java, JavaScript,
    /// Kotlin, Lua, PHP, Python, Ruby, Rust, Scala, Swift, TypeScript, TSX, Zig), at most
    /// `maxLines` lines; other files, and chunks that
    /// no block encloses, fall back to `'lines'`.
    #[napi(ts_type = "'lines' | 'structure'")]
    pub mode: Option<String>,
    /// Most lines a structure-mode expansion returns; a longer block is cut around the chunk.
    /// Default 200.
    pub max_lines: Option<f64>,
    /// Replace secrets (API keys, tokens, private keys...) in the expanded text by
    /// `[REDACTED:<kind>]`, as retrieval does; a key block cut by the range is still redacted.
    /// Default `true`. The chunk's own `content` is never changed.
    pub redact: Option<bool>,
}

/// Limits of an engine's file cache (`new ContextEngine({ fileCache })`). All optional; `null`
/// means the same as absent.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct FileCacheOptions {
    /// Most files kept (least recently used dropped first); 0 disables caching. Default 100.
    pub max_files: Option<f64>,
    /// Files with more lines are read every time, never cached. Default 10,000.
    pub max_file_lines: Option<f64>,
    /// Most bytes of text kept in all. Default 64 MiB.
    pub max_bytes: Option<f64>,
    /// How long a file is served from the cache after it was read, in milliseconds (every hit
    /// is also checked against the file's size and modification time). Default 300000 (5 min).
    pub ttl_ms: Option<f64>,
}

args::from_fields!(ExpandChunkOptions {
    mode: string("mode"),
    max_lines: number("maxLines"),
    redact: boolean("redact"),
});

args::from_fields!(FileCacheOptions {
    max_files: number("maxFiles"),
    max_file_lines: number("maxFileLines"),
    max_bytes: number("maxBytes"),
    ttl_ms: number("ttlMs"),
});

/// What `expandChunkDetailed` returns.
#[napi(object, object_from_js = false)]
pub struct ExpandedChunk {
    /// Exactly what `expandChunk` returns: the expanded text, or the chunk's own content.
    pub content: String,
    /// First line of `content` in the file, 1-based (the chunk's own when not expanded).
    pub start_line: u32,
    /// Last line of `content`, inclusive (the chunk's own when not expanded).
    pub end_line: u32,
    /// True when `content` was read from the file.
    pub expanded: bool,
    /// Why the chunk was not expanded.
    #[napi(
        ts_type = "'no_context' | 'invalid_workspace' | 'invalid_path' | 'outside_workspace' | 'not_found' | 'not_a_file' | 'too_large' | 'binary' | 'unreadable' | 'empty_file' | 'out_of_range' | 'invalid_range'"
    )]
    pub reason: Option<String>,
    /// The mode that produced `content` (`'lines'` after a structure-mode fallback).
    #[napi(ts_type = "'lines' | 'structure'")]
    pub mode: String,
    /// In structure mode, what the enclosing block is.
    #[napi(
        ts_type = "'function' | 'method' | 'class' | 'struct' | 'interface' | 'type' | 'enum' | 'trait' | 'impl' | 'const' | 'module' | 'macro'"
    )]
    pub block_kind: Option<String>,
    /// Why structure mode fell back to line mode.
    #[napi(ts_type = "'unsupported_language' | 'no_enclosing_block'")]
    pub fallback: Option<String>,
    /// True when the enclosing block was longer than `maxLines` and was cut around the chunk.
    pub clipped: bool,
    /// The secrets replaced by `[REDACTED:<kind>]` in `content`: kind and 1-based file line
    /// (the first line shown for a key block that starts above it), never the value.
    pub redactions: Vec<Redaction>,
}

/// Counters and limits of a file cache.
#[napi(object, object_from_js = false)]
pub struct FileCacheStats {
    /// Files cached now.
    pub entries: u32,
    /// Bytes cached now (text and line offsets).
    pub bytes: f64,
    /// Reads served from the cache (after checking the file is unchanged).
    pub hits: f64,
    /// Reads that went to the file system.
    pub misses: f64,
    /// Entries dropped to stay within `maxFiles` / `maxBytes`.
    pub evictions: f64,
    /// Entries dropped because they were older than the TTL.
    pub expirations: f64,
    /// Entries dropped because the file had changed on disk.
    pub stale: f64,
    /// Reads of files that could not be cached (too many lines, changed during the read or
    /// modified within the last 50 ms).
    pub uncacheable: f64,
    /// Entries dropped by `clearFileCache`, `invalidateFile`, `invalidateDirectory` or the
    /// file watcher.
    pub invalidations: f64,
    /// Workspaces watched now.
    pub watched: u32,
    /// The `maxFiles` limit.
    pub max_files: f64,
    /// The `maxFileLines` limit.
    pub max_file_lines: f64,
    /// The `maxBytes` limit.
    pub max_bytes: f64,
    /// The TTL in milliseconds.
    pub ttl_ms: f64,
}

/// The core cache limits from the JS options, over the defaults.
pub(crate) fn cache_config(o: FileCacheOptions) -> CoreResult<CacheConfig> {
    let d = CacheConfig::default();
    let max_files = args::opt_whole_number(
        o.max_files,
        "options.fileCache.maxFiles",
        d.max_files as u64,
        0,
        1_000_000,
    )?;
    let max_file_lines = args::opt_whole_number(
        o.max_file_lines,
        "options.fileCache.maxFileLines",
        d.max_file_lines as u64,
        0,
        100_000_000,
    )?;
    let max_bytes = args::opt_whole_number(
        o.max_bytes,
        "options.fileCache.maxBytes",
        d.max_bytes as u64,
        0,
        16 * 1024 * 1024 * 1024,
    )?;
    let ttl = args::opt_whole_number(
        o.ttl_ms,
        "options.fileCache.ttlMs",
        d.ttl.as_millis() as u64,
        0,
        365 * 24 * 3600 * 1000,
    )?;
    Ok(CacheConfig {
        max_files: max_files as usize,
        max_file_lines: max_file_lines as usize,
        max_bytes: usize::try_from(max_bytes).unwrap_or(usize::MAX),
        ttl: Duration::from_millis(ttl),
    })
}

struct ExpandArgs {
    workspace: String,
    /// The chunk, its content still to be decoded from `content` (on the worker).
    chunk: TextChunk,
    content: args::Text,
    context_lines: i64,
    options: ExpandOptions,
}

fn chunk_arg(value: Unknown<'_>) -> CoreResult<(TextChunk, args::Text)> {
    let f = Fields::of(value, "chunk")?;
    let content = args::text(f.required("content")?, "chunk.content")?;
    let file_path = args::string_max(f.required("filePath")?, "chunk.filePath", MAX_PATH_BYTES)?;
    let start_line = args::whole(f.required("startLine")?, "chunk.startLine", 1, MAX_LINE)?;
    let end_line = args::whole(f.required("endLine")?, "chunk.endLine", 1, MAX_LINE)?;
    let chunk = TextChunk {
        content: String::new(),
        file_path,
        start_line: start_line as usize,
        end_line: end_line as usize,
        language: f.string("language")?,
    };
    Ok((chunk, content))
}

fn context_arg(value: Unknown<'_>) -> CoreResult<i64> {
    let bad = || args::expected("contextLines", "a whole number (0 or less: no expansion)");
    let n = args::number(value, "contextLines").map_err(|_| bad())?;
    if !n.is_finite() || n.fract() != 0.0 {
        return Err(bad());
    }
    Ok(n.clamp(-MAX_CONTEXT, MAX_CONTEXT) as i64)
}

/// The core expansion options from the JavaScript ones, over the core's defaults.
fn expand_options(parsed: ExpandChunkOptions) -> CoreResult<ExpandOptions> {
    let mut options = ExpandOptions::default();
    options.mode = match parsed.mode.as_deref() {
        None | Some("lines") => Mode::Lines,
        Some("structure") => Mode::Structure,
        Some(_) => return Err(args::expected("options.mode", "'lines' or 'structure'")),
    };
    options.max_lines = args::opt_whole_number(
        parsed.max_lines,
        "options.maxLines",
        options.max_lines as u64,
        1,
        MAX_STRUCTURE_LINES,
    )? as usize;
    options.redact = parsed.redact.unwrap_or(true);
    Ok(options)
}

fn expand_args(
    workspace: Unknown<'_>,
    chunk: Unknown<'_>,
    context_lines: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> CoreResult<(ExpandArgs, Call)> {
    let workspace = args::string_max(workspace, "workspacePath", MAX_PATH_BYTES)?;
    let (chunk, content) = chunk_arg(chunk)?;
    let context_lines = context_arg(context_lines)?;
    let (options, call) = bridge::options_call::<ExpandChunkOptions>(options, "options")?;
    Ok((
        ExpandArgs {
            workspace,
            chunk,
            content,
            context_lines,
            options: expand_options(options)?,
        },
        call,
    ))
}

fn run_expand(engine: &Engine, mut a: ExpandArgs) -> CoreResult<Expansion> {
    a.chunk.content = a.content.into_string();
    engine.expand(&a.workspace, &a.chunk, a.context_lines, &a.options)
}

impl From<Expansion> for ExpandedChunk {
    fn from(e: Expansion) -> Self {
        ExpandedChunk {
            content: e.content,
            start_line: args::clamp_u32(e.start_line),
            end_line: args::clamp_u32(e.end_line),
            expanded: e.expanded,
            reason: e.reason.map(|r| r.as_str().to_owned()),
            mode: e.mode.as_str().to_owned(),
            block_kind: e.block_kind.map(|k| k.as_str().to_owned()),
            fallback: e.fallback.map(|f| f.as_str().to_owned()),
            clipped: e.clipped,
            redactions: redactions_js(&e.redactions),
        }
    }
}

/// `expandChunk` / `expandChunkDetailed` on `engine`: one definition for the module function
/// (default engine) and the method; `detailed` picks the result shape.
fn expand_on<'env, V: ToNapiValue + Send + 'static>(
    env: &'env Env,
    engine: Arc<Engine>,
    workspace: Unknown<'_>,
    chunk: Unknown<'_>,
    context_lines: Unknown<'_>,
    options: Option<Unknown<'env>>,
    shape: fn(Expansion) -> V,
) -> napi::Result<PromiseRaw<'env, V>> {
    let parsed = expand_args(workspace, chunk, context_lines, options);
    bridge::or_reject(env, parsed, |(a, call)| {
        let call = call.with_timeout(engine.options().timeout);
        bridge::spawn_call(
            env,
            call,
            move |cancel| {
                cancel.check()?;
                run_expand(&engine, a).map(shape)
            },
            |_, v| Ok(v),
        )
    })
}

fn content_of(e: Expansion) -> String {
    e.content
}

/// An absolute path argument (for invalidation), `.`/`..` allowed.
fn abs_path_arg(value: Unknown<'_>, name: &str) -> CoreResult<PathBuf> {
    let path = args::string(value, name)?;
    if path.is_empty() || path.len() > MAX_PATH_BYTES || path.contains('\0') {
        return Err(CoreError::invalid_request(format!(
            "{name} must be a non-empty path without NUL bytes"
        )));
    }
    let path = PathBuf::from(path);
    if !path.is_absolute() {
        return Err(CoreError::invalid_request(format!(
            "{name} must be an absolute path"
        )));
    }
    Ok(path)
}

fn stats_of(engine: &Engine) -> FileCacheStats {
    let s = engine.files.stats();
    FileCacheStats {
        entries: args::clamp_u32(s.entries),
        bytes: s.bytes as f64,
        hits: s.hits as f64,
        misses: s.misses as f64,
        evictions: s.evictions as f64,
        expirations: s.expirations as f64,
        stale: s.stale as f64,
        uncacheable: s.uncacheable as f64,
        invalidations: s.invalidations as f64,
        watched: args::clamp_u32(engine.files.watches().roots().len()),
        max_files: s.config.max_files as f64,
        max_file_lines: s.config.max_file_lines as f64,
        max_bytes: s.config.max_bytes as f64,
        ttl_ms: s.config.ttl.as_millis() as f64,
    }
}

fn watch_on<'env>(
    env: &'env Env,
    engine: Arc<Engine>,
    path: Unknown<'_>,
) -> napi::Result<PromiseRaw<'env, bool>> {
    let parsed = args::string_max(path, "workspacePath", MAX_PATH_BYTES);
    bridge::or_reject(env, parsed, |path| {
        let call = Call::none().with_timeout(engine.options().timeout);
        bridge::spawn_call(
            env,
            call,
            move |_| engine.watch_workspace(&path),
            |_, b| Ok(b),
        )
    })
}

fn unwatch_on(env: &Env, engine: &Engine, path: Unknown<'_>) -> napi::Result<bool> {
    let path = args::string_max(path, "workspacePath", MAX_PATH_BYTES);
    bridge::run_sync(env, || engine.unwatch_workspace(&path?))
}

fn invalidate_file_on(env: &Env, engine: &Engine, path: Unknown<'_>) -> napi::Result<u32> {
    let path = abs_path_arg(path, "path");
    bridge::run_sync(env, || {
        Ok(args::clamp_u32(engine.files.invalidate_file(&path?)))
    })
}

fn invalidate_directory_on(env: &Env, engine: &Engine, path: Unknown<'_>) -> napi::Result<u32> {
    let path = abs_path_arg(path, "path");
    bridge::run_sync(env, || {
        Ok(args::clamp_u32(engine.files.invalidate_directory(&path?)))
    })
}

fn clear_on(env: &Env, engine: &Engine) -> napi::Result<u32> {
    bridge::run_sync(env, || Ok(args::clamp_u32(engine.files.clear())))
}

fn stats_on(env: &Env, engine: &Engine) -> napi::Result<FileCacheStats> {
    bridge::run_sync(env, || Ok(stats_of(engine)))
}

// ---------------------------------------------------------------------------------------------
// Exports: module-level functions (the default engine) and `ContextEngine` methods

exports! {
    #[doc = " Expands `chunk` (a `TextChunk` or `KnowledgeChunk` whose `filePath` is relative to"]
    #[doc = " `workspacePath`) by `contextLines` lines on each side (lines 25-30 with 5 give lines 20-35,"]
    #[doc = " clamped to the file), or to its enclosing function, method or class with"]
    #[doc = " `{ mode: 'structure' }`. Resolves to the chunk's own `content` when `contextLines <= 0` and"]
    #[doc = " whenever the file cannot be used (missing, unreadable, binary, outside the workspace, range"]
    #[doc = " outside the file): `expandChunkDetailed` says why. Rejects (`invalid_request`) only for"]
    #[doc = " arguments of the wrong type or shape."]
    #[method = "`expandChunk` on this engine's file cache."]
    #[napi(
        ts_args_type = "workspacePath: string, chunk: TextChunk | KnowledgeChunk, contextLines: number, options?: ExpandChunkOptions & CallOptions",
        ts_return_type = "Promise<string>"
    )]
    async fn expand_chunk(workspace_path, chunk, context_lines; options) -> String
        = expand_on, content_of;

    #[doc = " Like `expandChunk`, with the lines returned, whether the file was used, and if not why."]
    #[method = "`expandChunkDetailed` on this engine's file cache."]
    #[napi(
        ts_args_type = "workspacePath: string, chunk: TextChunk | KnowledgeChunk, contextLines: number, options?: ExpandChunkOptions & CallOptions",
        ts_return_type = "Promise<ExpandedChunk>"
    )]
    async fn expand_chunk_detailed(workspace_path, chunk, context_lines; options) -> ExpandedChunk
        = expand_on, ExpandedChunk::from;

    #[doc = " Empties the default engine's file cache; returns how many files were dropped."]
    #[method = "`clearFileCache` on this engine."]
    #[napi(catch_unwind)]
    fn clear_file_cache() -> u32 = clear_on;

    #[doc = " Drops one file (absolute path) from the default engine's cache; returns how many entries"]
    #[doc = " were dropped (0 when it was not cached)."]
    #[method = "`invalidateFile` on this engine."]
    #[napi(catch_unwind, ts_args_type = "path: string")]
    fn invalidate_file(path) -> u32 = invalidate_file_on;

    #[doc = " Drops every cached file under a directory (absolute path, compared by whole components:"]
    #[doc = " `/a/b` does not cover `/a/bc`); returns how many were dropped."]
    #[method = "`invalidateDirectory` on this engine."]
    #[napi(catch_unwind, ts_args_type = "path: string")]
    fn invalidate_directory(path) -> u32 = invalidate_directory_on;

    #[doc = " Counters and limits of the default engine's file cache."]
    #[method = "`fileCacheStats` of this engine."]
    #[napi(catch_unwind)]
    fn file_cache_stats() -> FileCacheStats = stats_on;

    #[doc = " Watches a workspace (recursively) and drops cached files of the default engine as soon as"]
    #[doc = " they change; resolves to false if it was watched already. At most 16 workspaces"]
    #[doc = " (`invalid_request` beyond); `unavailable` when the system refuses (watch limit)."]
    #[method = "`watchWorkspace` for this engine's cache."]
    #[napi(ts_args_type = "workspacePath: string", ts_return_type = "Promise<boolean>")]
    async fn watch_workspace(workspace_path) -> bool = watch_on;

    #[doc = " Stops watching a workspace; false if it was not watched."]
    #[method = "`unwatchWorkspace` for this engine's cache."]
    #[napi(catch_unwind, ts_args_type = "workspacePath: string")]
    fn unwatch_workspace(workspace_path) -> bool = unwatch_on;
}

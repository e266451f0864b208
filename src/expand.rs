//! Expansion exports (context-expansion-spec v0.7.4g): `expandChunk`, `expandChunkDetailed`,
//! the file-cache controls and file watching, as module-level functions (on the default
//! engine) and as `ContextEngine` methods.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use super::args;
use super::bridge::{self, Call};
use super::engine::ContextEngine;
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

fn chunk_arg(chunk: ChunkInput) -> CoreResult<(TextChunk, args::Text)> {
    let line = |n, name| args::whole_number(n, name, 1, MAX_LINE).map(|n| n as usize);
    let chunk_core = TextChunk {
        content: String::new(),
        file_path: chunk.file_path,
        start_line: line(chunk.start_line, "chunk.startLine")?,
        end_line: line(chunk.end_line, "chunk.endLine")?,
        language: chunk.language,
    };
    Ok((chunk_core, chunk.content))
}

fn context_arg(n: f64) -> CoreResult<i64> {
    if !n.is_finite() || n.fract() != 0.0 {
        return Err(args::expected(
            "contextLines",
            "a whole number (0 or less: no expansion)",
        ));
    }
    Ok(n.clamp(-MAX_CONTEXT, MAX_CONTEXT) as i64)
}

/// The chunk argument of `expandChunk`: a `TextChunk` or a `KnowledgeChunk` (whose other
/// fields are not read).
#[napi(object, object_to_js = false)]
pub struct ChunkInput {
    /// The chunk's text.
    #[napi(ts_type = "string")]
    pub content: args::Text,
    /// Its file, relative to the workspace.
    pub file_path: String,
    /// First line, 1-based.
    pub start_line: f64,
    /// Last line, 1-based, inclusive.
    pub end_line: f64,
    /// Its language, if known.
    pub language: Option<String>,
}

fn expand_options(parsed: ExpandChunkOptions) -> CoreResult<ExpandOptions> {
    let mut options = ExpandOptions::default();
    options.mode = match parsed.mode.as_deref() {
        None | Some("lines") => Mode::Lines,
        Some(_) => Mode::Structure,
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
    workspace: String,
    chunk: ChunkInput,
    context_lines: f64,
    options: ExpandChunkOptions,
) -> CoreResult<ExpandArgs> {
    let (chunk, content) = chunk_arg(chunk)?;
    Ok(ExpandArgs {
        workspace,
        chunk,
        content,
        context_lines: context_arg(context_lines)?,
        options: expand_options(options)?,
    })
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
fn expand_on<V: ToNapiValue + Send + 'static>(
    env: &Env,
    engine: Arc<Engine>,
    (workspace, chunk, context_lines, options): (
        String,
        ChunkInput,
        f64,
        Option<bridge::CallOptions<ExpandChunkOptions>>,
    ),
    shape: fn(Expansion) -> V,
) -> napi::Result<PromiseRaw<'_, V>> {
    let (options, call) = bridge::CallOptions::split(options);
    let parsed = expand_args(workspace, chunk, context_lines, options);
    bridge::or_reject(env, parsed, |a| {
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
fn abs_path_arg(path: String, name: &str) -> CoreResult<PathBuf> {
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

fn watch_on(env: &Env, engine: Arc<Engine>, path: String) -> napi::Result<PromiseRaw<'_, bool>> {
    let call = Call::none().with_timeout(engine.options().timeout);
    bridge::spawn_call(
        env,
        call,
        move |_| engine.watch_workspace(&path),
        |_, b| Ok(b),
    )
}

fn unwatch_on(env: &Env, engine: &Engine, path: String) -> napi::Result<bool> {
    bridge::run_sync(env, || engine.unwatch_workspace(&path))
}

fn invalidate_file_on(env: &Env, engine: &Engine, path: String) -> napi::Result<u32> {
    bridge::run_sync(env, || {
        let path = abs_path_arg(path, "path")?;
        Ok(args::clamp_u32(engine.files.invalidate_file(&path)))
    })
}

fn invalidate_directory_on(env: &Env, engine: &Engine, path: String) -> napi::Result<u32> {
    bridge::run_sync(env, || {
        let path = abs_path_arg(path, "path")?;
        Ok(args::clamp_u32(engine.files.invalidate_directory(&path)))
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

/// Expands `chunk` (a `TextChunk` or `KnowledgeChunk` whose `filePath` is relative to
/// `workspacePath`) by `contextLines` lines on each side (lines 25-30 with 5 give lines 20-35,
/// clamped to the file), or to its enclosing function, method or class with
/// `{ mode: 'structure' }`. Resolves to the chunk's own `content` when `contextLines <= 0` and
/// whenever the file cannot be used (missing, unreadable, binary, outside the workspace, range
/// outside the file): `expandChunkDetailed` says why. Rejects (`invalid_request`) only for
/// arguments of the wrong type or shape.
#[napi(ts_return_type = "Promise<string>")]
pub fn expand_chunk(
    env: &Env,
    workspace_path: String,
    #[napi(ts_arg_type = "TextChunk | KnowledgeChunk")] chunk: ChunkInput,
    context_lines: f64,
    #[napi(ts_arg_type = "ExpandChunkOptions & CallOptions")] options: Option<
        bridge::CallOptions<ExpandChunkOptions>,
    >,
) -> napi::Result<PromiseRaw<'_, String>> {
    let a = (workspace_path, chunk, context_lines, options);
    expand_on(env, Engine::global(), a, content_of)
}

/// Like `expandChunk`, with the lines returned, whether the file was used, and if not why.
#[napi(ts_return_type = "Promise<ExpandedChunk>")]
pub fn expand_chunk_detailed(
    env: &Env,
    workspace_path: String,
    #[napi(ts_arg_type = "TextChunk | KnowledgeChunk")] chunk: ChunkInput,
    context_lines: f64,
    #[napi(ts_arg_type = "ExpandChunkOptions & CallOptions")] options: Option<
        bridge::CallOptions<ExpandChunkOptions>,
    >,
) -> napi::Result<PromiseRaw<'_, ExpandedChunk>> {
    let a = (workspace_path, chunk, context_lines, options);
    expand_on(env, Engine::global(), a, ExpandedChunk::from)
}

/// Empties the default engine's file cache; returns how many files were dropped.
#[napi(catch_unwind)]
pub fn clear_file_cache(env: &Env) -> napi::Result<u32> {
    clear_on(env, &Engine::global())
}

/// Drops one file (absolute path) from the default engine's cache; returns how many entries
/// were dropped (0 when it was not cached).
#[napi(catch_unwind)]
pub fn invalidate_file(env: &Env, path: String) -> napi::Result<u32> {
    invalidate_file_on(env, &Engine::global(), path)
}

/// Drops every cached file under a directory (absolute path, compared by whole components:
/// `/a/b` does not cover `/a/bc`); returns how many were dropped.
#[napi(catch_unwind)]
pub fn invalidate_directory(env: &Env, path: String) -> napi::Result<u32> {
    invalidate_directory_on(env, &Engine::global(), path)
}

/// Counters and limits of the default engine's file cache.
#[napi(catch_unwind)]
pub fn file_cache_stats(env: &Env) -> napi::Result<FileCacheStats> {
    stats_on(env, &Engine::global())
}

/// Watches a workspace (recursively) and drops cached files of the default engine as soon as
/// they change; resolves to false if it was watched already. At most 16 workspaces
/// (`invalid_request` beyond); `unavailable` when the system refuses (watch limit).
#[napi(ts_return_type = "Promise<boolean>")]
pub fn watch_workspace(env: &Env, workspace_path: String) -> napi::Result<PromiseRaw<'_, bool>> {
    watch_on(env, Engine::global(), workspace_path)
}

/// Stops watching a workspace; false if it was not watched.
#[napi(catch_unwind)]
pub fn unwatch_workspace(env: &Env, workspace_path: String) -> napi::Result<bool> {
    unwatch_on(env, &Engine::global(), workspace_path)
}

#[napi]
impl ContextEngine {
    /// `expandChunk` on this engine's file cache.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn expand_chunk<'env>(
        &self,
        env: &'env Env,
        workspace_path: String,
        #[napi(ts_arg_type = "TextChunk | KnowledgeChunk")] chunk: ChunkInput,
        context_lines: f64,
        #[napi(ts_arg_type = "ExpandChunkOptions & CallOptions")] options: Option<
            bridge::CallOptions<ExpandChunkOptions>,
        >,
    ) -> napi::Result<PromiseRaw<'env, String>> {
        let a = (workspace_path, chunk, context_lines, options);
        expand_on(env, self.inner.clone(), a, content_of)
    }

    /// `expandChunkDetailed` on this engine's file cache.
    #[napi(ts_return_type = "Promise<ExpandedChunk>")]
    pub fn expand_chunk_detailed<'env>(
        &self,
        env: &'env Env,
        workspace_path: String,
        #[napi(ts_arg_type = "TextChunk | KnowledgeChunk")] chunk: ChunkInput,
        context_lines: f64,
        #[napi(ts_arg_type = "ExpandChunkOptions & CallOptions")] options: Option<
            bridge::CallOptions<ExpandChunkOptions>,
        >,
    ) -> napi::Result<PromiseRaw<'env, ExpandedChunk>> {
        let a = (workspace_path, chunk, context_lines, options);
        expand_on(env, self.inner.clone(), a, ExpandedChunk::from)
    }

    /// `clearFileCache` on this engine.
    #[napi(catch_unwind)]
    pub fn clear_file_cache(&self, env: &Env) -> napi::Result<u32> {
        clear_on(env, &self.inner)
    }

    /// `invalidateFile` on this engine.
    #[napi(catch_unwind)]
    pub fn invalidate_file(&self, env: &Env, path: String) -> napi::Result<u32> {
        invalidate_file_on(env, &self.inner, path)
    }

    /// `invalidateDirectory` on this engine.
    #[napi(catch_unwind)]
    pub fn invalidate_directory(&self, env: &Env, path: String) -> napi::Result<u32> {
        invalidate_directory_on(env, &self.inner, path)
    }

    /// `fileCacheStats` of this engine.
    #[napi(catch_unwind)]
    pub fn file_cache_stats(&self, env: &Env) -> napi::Result<FileCacheStats> {
        stats_on(env, &self.inner)
    }

    /// `watchWorkspace` for this engine's cache.
    #[napi(ts_return_type = "Promise<boolean>")]
    pub fn watch_workspace<'env>(
        &self,
        env: &'env Env,
        workspace_path: String,
    ) -> napi::Result<PromiseRaw<'env, bool>> {
        watch_on(env, self.inner.clone(), workspace_path)
    }

    /// `unwatchWorkspace` for this engine's cache.
    #[napi(catch_unwind)]
    pub fn unwatch_workspace(&self, env: &Env, workspace_path: String) -> napi::Result<bool> {
        unwatch_on(env, &self.inner, workspace_path)
    }
}

//! Retrieval exports (Context Retrieval Contract v1): `retrieve`, `indexStatus`,
//! `prepareIndex`, and the same as `ContextEngine` methods.

use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use super::args;
use super::bridge;
use super::engine::ContextEngine;
use super::secrets::{redactions_js, Redaction};
use context_engine_core::engine::Engine;
use context_engine_core::error::Result as CoreResult;
use context_engine_core::retrieve::{
    self, FileRankOptions, FileRanks as CoreFileRanks, IndexStatus as CoreStatus, Request, Snippet,
    SnippetOptions,
};

/// Which retrieval backend a request selects; the engine serves both.
#[napi(string_enum)]
pub enum ContextProviderId {
    /// The local file system provider.
    #[napi(value = "filesystem")]
    Filesystem,
    /// The engine-backed provider.
    #[napi(value = "mcp")]
    Mcp,
}

/// A retrieval request (see docs/design/context-retrieval-contract-v1.md, section 3.1).
#[napi(object, object_to_js = false)]
pub struct ContextRetrievalRequest {
    /// What the agent is asked to do; terms, identifiers, paths and stack frames in it are
    /// used. An empty prompt gives `[]`. At most 256 KiB.
    pub prompt: String,
    /// The caller's space (echoed nowhere, required by the contract). At most 1 KiB.
    pub space_id: String,
    /// The caller's session (required by the contract). At most 1 KiB.
    pub session_id: String,
    /// Absolute path of the repository root; nothing outside it is read.
    pub root_path: String,
    /// Not with `rootPath`: a request over several roots is a `MultiRootRetrievalRequest`.
    #[napi(ts_type = "never")]
    pub root_paths: Option<Vec<String>>,
    /// The provider; echoed in each snippet's `provider`.
    pub provider_id: ContextProviderId,
    /// Snippets wanted: default 20, capped to 100.
    pub limit: Option<f64>,
    /// When true, each snippet carries the `signals` that scored it. Default false.
    pub explain: Option<bool>,
    /// Replace suspected secrets by `[REDACTED:<kind>]` and report them in each snippet's
    /// `redactions`. Default true; `false` returns the file text as it is.
    pub redact: Option<bool>,
}

/// A retrieval request over several roots at once (the folders of a multi-root workspace, the
/// roots an MCP client lists, the packages of a monorepo): the same fields as
/// `ContextRetrievalRequest` with `rootPaths` in place of `rootPath`. The roots are ranked as
/// one collection (a term weighs the same in every root, so scores compare across them); each
/// snippet says its `root`, and its `path` is relative to it.
#[napi(object, object_to_js = false)]
pub struct MultiRootRetrievalRequest {
    /// What the agent is asked to do (as `ContextRetrievalRequest.prompt`).
    pub prompt: String,
    /// The caller's space (required by the contract). At most 1 KiB.
    pub space_id: String,
    /// The caller's session (required by the contract). At most 1 KiB.
    pub session_id: String,
    /// Absolute paths of the roots, 1 to 64; each is a directory, confined as `rootPath` is.
    /// A root listed twice (also through a symlink) counts once; a root inside another root
    /// of the list is dropped (its files are the outer root's and are ranked once, under it).
    /// More distinct roots than the engine's `maxRoots` reject with `invalid_request`.
    pub root_paths: Vec<String>,
    /// Not with `rootPaths`.
    #[napi(ts_type = "never")]
    pub root_path: Option<String>,
    /// The provider; echoed in each snippet's `provider`.
    pub provider_id: ContextProviderId,
    /// Snippets wanted over all the roots: default 20, capped to 100.
    pub limit: Option<f64>,
    /// When true, each snippet carries the `signals` that scored it. Default false.
    pub explain: Option<bool>,
    /// Replace suspected secrets (as `ContextRetrievalRequest.redact`). Default true.
    pub redact: Option<bool>,
}

/// The parts of a snippet's score (its file's), returned when the request sets `explain`.
#[napi(object, object_from_js = false)]
#[allow(clippy::struct_excessive_bools)] // one flag per reading rule that `explain` reports
pub struct SnippetSignals {
    /// BM25 of the whole file's text.
    pub bm25: f64,
    /// The best chunk's BM25F (text and defined names), weighted.
    pub chunk: f64,
    /// Directory and file names matching prompt terms.
    pub path: f64,
    /// Definitions of prompt terms in the file; more for the exact definition of a short
    /// prompt's symbol, or of a capitalized word of a longer prompt that only this file defines.
    pub symbol: f64,
    /// The prompt names the file (path, file name, module path or stem).
    pub mention: f64,
    /// What the file is for, from its path (`declarations`: a TypeScript module that only
    /// declares types, from its text).
    #[napi(
        ts_type = "'source' | 'test' | 'fixture' | 'docs' | 'example' | 'config' | 'generated' | 'vendored' | 'legacy' | 'template' | 'declarations'"
    )]
    pub role: String,
    /// The factor the role applies: 1 for source and for roles the prompt asks for, less for
    /// the others, 1.3 for `declarations` when the prompt asks for types (they are then the
    /// answer); times 0.8 for a file named after the side of a mechanism the prompt does not
    /// ask about (`client_*` for "server-side ..."), and up to 1.1 for a central file on a
    /// one-line prompt.
    pub role_factor: f64,
    /// The file's score: the sum of the parts times the role factor (and the reference factor).
    pub total: f64,
    /// Why a file of a demoted role kept the factor of source code: `newest-version` (its
    /// `vN/` folder is the newest of several side by side), `defines-name` (a module of type
    /// declarations that defines the name a short prompt asks for). Absent otherwise.
    #[napi(ts_type = "'newest-version' | 'defines-name'")]
    pub role_kept: Option<String>,
    /// A line of the file (a string constant, mostly) holds an error message or quoted
    /// sentence of the prompt (a pasted error): the lift it gave, already counted in `total`; 0 otherwise.
    pub message: f64,
    /// How many of the top files import this one (a prompt of more than one line: the module
    /// the best-ranked files are built on is lifted); 0 otherwise.
    pub referenced_by: u32,
    /// The factor those references applied, already counted in `total`; 1 otherwise.
    pub reference_factor: f64,
    /// The prompt's words for the file's role (`test`, `docs`...) are the project's own
    /// vocabulary (a source file is named after them, or most source files use them: a test
    /// framework's reports speak of tests), so they did not lift the role's demotion.
    pub role_unasked: bool,
    /// The file is named after a word of a one-line question other than its subject, and the
    /// subject names a file too ("task state and task result tracking": `state.ts` beside
    /// `tasks.ts`): that name was not counted as a mention.
    pub modifier_stem: bool,
    /// The file is named after a word after the first preposition of a one-line question
    /// ("number parsing with defaults and range checks": `Range.java`): that name counted three
    /// quarters of a mention.
    pub complement_stem: bool,
    /// The file is named after the project (its root folder's name), which the prompt names
    /// ("how zls traverses the AST": `zls.zig`): that word names the project, not the file,
    /// and was not counted as a mention.
    pub project_stem: bool,
    /// The file is named after what the project does in a one-line question whose agent is
    /// the project ("how curl resolves and connects": `connect.c`, "how bats formats":
    /// `formatter.bash`): that name counted as a mention by the question's subject.
    pub action_stem: bool,
    /// The part of `bm25` and `path` that general synonyms of the prompt's words gave (a
    /// one-line prompt's "delete" also looks for `remove`, at a fraction of its weight),
    /// already counted in them; 0 otherwise.
    pub synonym: f64,
    /// In a one-line question: the most of the question's words (their idf share, 0 to 1)
    /// that one definition line of the file holds, when two or more; the file's score was
    /// multiplied by a factor of at most 1.03 for it. 0 otherwise, and for a file not within
    /// 3% of a neighbour's score (its lines are not read: it could not move).
    pub definition_words: f64,
}

/// A ranked snippet (see docs/design/context-retrieval-contract-v1.md, section 3.2), with
/// optional additions.
#[napi(object, object_from_js = false)]
pub struct ContextSnippet {
    /// Stable id: a hash of path, line range and content.
    pub id: String,
    /// The request's `providerId`.
    pub provider: ContextProviderId,
    /// The root the snippet belongs to, as the request gave it: its `rootPath`, or one of its
    /// `rootPaths`.
    pub root: String,
    /// Path relative to `root`, `/`-separated.
    pub path: String,
    /// `path:startLine-endLine`.
    pub source: String,
    /// The snippet's lines (at most 60 lines and 4000 characters), secrets redacted.
    pub content: String,
    /// Relevance, finite and positive; the array is sorted by it, descending.
    pub score: f64,
    /// First line, 1-based.
    pub start_line: Option<u32>,
    /// Last line, 1-based, inclusive.
    pub end_line: Option<u32>,
    /// Language from the file name (`typescript`, `rust`, `python`...), if known.
    pub language: Option<String>,
    /// How the score was made; only when the request sets `explain`.
    pub signals: Option<SnippetSignals>,
    /// The secrets replaced by `[REDACTED:<kind>]` in `content`: kind and 1-based line of
    /// the file (within `startLine..endLine`), never the value. Empty when none were, or
    /// when the request sets `redact: false`.
    pub redactions: Vec<Redaction>,
}

/// The state of a root's retrieval index.
#[napi(object, object_from_js = false)]
pub struct IndexStatus {
    /// `'absent'` (never indexed or evicted), `'building'` or `'ready'`.
    #[napi(ts_type = "'absent' | 'building' | 'ready'")]
    pub state: String,
    /// Files read by the current (or last) build or update.
    pub files_read: u32,
    /// Files in the index.
    pub files: u32,
    /// Chunks (snippet candidates) in the index.
    pub chunks: u32,
    /// Distinct terms.
    pub terms: u32,
    /// Approximate heap memory held by the index, in bytes.
    pub bytes: f64,
    /// Bytes of the index read from its memory-mapped cache file instead of the heap (with
    /// `indexCacheDir`, on Unix, once the index is saved or loaded): the system maps in only
    /// the pages queries read, and can drop them again under memory pressure.
    pub mapped_bytes: f64,
    /// Files the current (or last) build or update is to read (`filesRead` of `filesTotal` is
    /// its progress).
    pub files_total: u32,
    /// How the index learns about changes: `'watching'` (file-system events) or `'polling'`
    /// (a stat of every known file per call); absent when there is no index.
    #[napi(ts_type = "'watching' | 'polling'")]
    pub freshness: Option<String>,
    /// Entries hidden by ignore rules (`.gitignore`, `.ignore`; an ignored directory counts
    /// once).
    pub ignored_files: u32,
    /// Files found but not indexed, by reason.
    pub skipped: SkippedFiles,
    /// What the caller should know, such as ignore rules hiding (nearly) the whole root.
    pub warnings: Vec<String>,
}

/// Files found but not indexed, by reason.
#[napi(object, object_from_js = false)]
pub struct SkippedFiles {
    /// Content that looks binary.
    pub binary: u32,
    /// Over the size cap (1 MiB).
    pub too_large: u32,
    /// Could not be read.
    pub unreadable: u32,
    /// Generated code (`@generated`, `DO NOT EDIT`).
    pub generated: u32,
    /// Beyond `maxFilesPerRoot` (the last ones in path order).
    pub over_limit: u32,
}

fn u32_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl From<CoreStatus> for IndexStatus {
    fn from(s: CoreStatus) -> Self {
        IndexStatus {
            state: s.state.as_str().to_owned(),
            files_read: u32_of(s.files_read),
            files: u32_of(s.stats.files),
            chunks: u32_of(s.stats.chunks),
            terms: u32_of(s.stats.terms),
            bytes: s.stats.bytes as f64,
            mapped_bytes: s.stats.mapped_bytes as f64,
            files_total: u32_of(s.files_total),
            freshness: s.freshness.map(|f| f.as_str().to_owned()),
            ignored_files: u32_of(s.coverage.ignored),
            skipped: SkippedFiles {
                binary: u32_of(s.coverage.skipped.binary),
                too_large: u32_of(s.coverage.skipped.too_large),
                unreadable: u32_of(s.coverage.skipped.unreadable),
                generated: u32_of(s.coverage.skipped.generated),
                over_limit: u32_of(s.coverage.skipped.over_limit),
            },
            warnings: s.coverage.warnings,
        }
    }
}

#[derive(Clone, Copy)]
enum Provider {
    Filesystem,
    Mcp,
}

fn id_string(id: &str, name: &str) -> CoreResult<()> {
    if id.trim().is_empty() {
        return Err(args::bad(name, "must not be empty"));
    }
    Ok(())
}

/// The roots a request names: its `rootPath`, or its `rootPaths` (exactly one of them).
enum Roots {
    One(String),
    Many(Vec<String>),
}

/// A single-root or a multi-root request (napi converts into the first whose fields fit).
type AnyRequest = Either<ContextRetrievalRequest, MultiRootRetrievalRequest>;

/// The fields both kinds of request share, and their roots.
struct RequestFields {
    prompt: String,
    space_id: String,
    session_id: String,
    roots: CoreResult<Roots>,
    provider_id: ContextProviderId,
    limit: Option<f64>,
    explain: Option<bool>,
    redact: Option<bool>,
}

fn both_roots() -> context_engine_core::error::Error {
    args::bad(
        "request",
        "must have exactly one of rootPath (a root) and rootPaths (an array of roots)",
    )
}

impl From<AnyRequest> for RequestFields {
    fn from(request: AnyRequest) -> Self {
        match request {
            Either::A(r) => RequestFields {
                roots: match r.root_paths {
                    Some(_) => Err(both_roots()),
                    None => root_arg(r.root_path).map(Roots::One),
                },
                prompt: r.prompt,
                space_id: r.space_id,
                session_id: r.session_id,
                provider_id: r.provider_id,
                limit: r.limit,
                explain: r.explain,
                redact: r.redact,
            },
            Either::B(r) => RequestFields {
                roots: match r.root_path {
                    Some(_) => Err(both_roots()),
                    None => roots_arg(r.root_paths).map(Roots::Many),
                },
                prompt: r.prompt,
                space_id: r.space_id,
                session_id: r.session_id,
                provider_id: r.provider_id,
                limit: r.limit,
                explain: r.explain,
                redact: r.redact,
            },
        }
    }
}

fn request_args(r: AnyRequest) -> CoreResult<(Request, Roots, Provider, SnippetOptions)> {
    let r = RequestFields::from(r);
    id_string(&r.space_id, "request.spaceId")?;
    id_string(&r.session_id, "request.sessionId")?;
    let roots = r.roots?;
    let root = match &roots {
        Roots::One(root) => root.clone(),
        Roots::Many(_) => String::new(),
    };
    let provider = match r.provider_id {
        ContextProviderId::Mcp => Provider::Mcp,
        ContextProviderId::Filesystem => Provider::Filesystem,
    };
    let limit = match r.limit {
        Some(n) => (args::whole_number(n, "request.limit", 1, u64::from(u32::MAX))? as usize)
            .min(retrieve::MAX_LIMIT),
        None => retrieve::DEFAULT_LIMIT,
    };
    let defaults = SnippetOptions::default();
    let shape = SnippetOptions {
        explain: r.explain.unwrap_or(defaults.explain),
        redact: r.redact.unwrap_or(defaults.redact),
    };
    Ok((
        Request {
            prompt: r.prompt,
            root,
            limit,
        },
        roots,
        provider,
        shape,
    ))
}

/// `rootPaths`: at least one non-empty path (the package entry bounds their number and size).
fn roots_arg(roots: Vec<String>) -> CoreResult<Vec<String>> {
    if roots.is_empty() {
        return Err(args::bad(
            "request.rootPaths",
            "must list at least one root",
        ));
    }
    for (i, r) in roots.iter().enumerate() {
        if r.trim().is_empty() {
            return Err(args::bad(
                &format!("request.rootPaths[{i}]"),
                "must not be empty",
            ));
        }
    }
    Ok(roots)
}

fn to_js(s: Snippet, root: String, provider: Provider) -> ContextSnippet {
    ContextSnippet {
        id: s.id,
        root,
        provider: match provider {
            Provider::Filesystem => ContextProviderId::Filesystem,
            Provider::Mcp => ContextProviderId::Mcp,
        },
        path: s.path,
        source: s.source,
        content: s.content,
        score: s.score,
        start_line: Some(s.start_line),
        end_line: Some(s.end_line),
        language: s.language.map(str::to_owned),
        signals: s.signals.map(|g| SnippetSignals {
            bm25: f64::from(g.bm25),
            chunk: f64::from(g.chunk),
            path: f64::from(g.path),
            symbol: f64::from(g.symbol),
            mention: f64::from(g.mention),
            role: g.role.as_str().to_owned(),
            role_factor: f64::from(g.role_factor),
            total: f64::from(g.total),
            role_kept: g.role_kept.map(|k| k.as_str().to_owned()),
            message: f64::from(g.message),
            referenced_by: g.referenced_by,
            reference_factor: f64::from(g.reference_factor),
            role_unasked: g.role_unasked,
            modifier_stem: g.modifier_stem,
            complement_stem: g.complement_stem,
            project_stem: g.project_stem,
            action_stem: g.action_stem,
            synonym: f64::from(g.synonym),
            definition_words: f64::from(g.definition_words),
        }),
        redactions: redactions_js(&s.redactions),
    }
}

/// `retrieve` on `engine`: the one definition behind the module function and the method.
fn retrieve_on(
    env: &Env,
    engine: Arc<Engine>,
    request: AnyRequest,
    options: Option<bridge::CallOptions<bridge::NoOptions>>,
) -> napi::Result<PromiseRaw<'_, Vec<ContextSnippet>>> {
    let (_, call) = bridge::CallOptions::split(options);
    bridge::or_reject(
        env,
        request_args(request),
        |(request, roots, provider, shape)| {
            bridge::spawn_call(
                env,
                call.with_timeout(engine.options().timeout),
                move |cancel| match roots {
                    Roots::One(root) => Ok(engine
                        .retrieve_with(&request, &shape, cancel)?
                        .into_iter()
                        .map(|s| (root.clone(), s))
                        .collect::<Vec<_>>()),
                    Roots::Many(roots) => {
                        let request = retrieve::RootsRequest {
                            prompt: request.prompt,
                            roots,
                            limit: request.limit,
                        };
                        Ok(engine
                            .retrieve_roots(&request, &shape, cancel)?
                            .into_iter()
                            .map(|s| (s.root, s.snippet))
                            .collect())
                    }
                },
                move |_, snippets| {
                    Ok(snippets
                        .into_iter()
                        .map(|(root, s)| to_js(s, root, provider))
                        .collect())
                },
            )
        },
    )
}

fn root_arg(root: String) -> CoreResult<String> {
    if root.trim().is_empty() {
        return Err(args::bad("rootPath", "must not be empty"));
    }
    Ok(root)
}

fn status_on(env: &Env, engine: &Engine, root: String) -> napi::Result<IndexStatus> {
    bridge::run_sync(env, || Ok(engine.index_status(&root_arg(root)?)?.into()))
}

fn evict_on(env: &Env, engine: &Engine, root: String) -> napi::Result<bool> {
    bridge::run_sync(env, || engine.evict(&root_arg(root)?))
}

/// `prepareIndex` on `engine`.
fn prepare_on(
    env: &Env,
    engine: Arc<Engine>,
    root: String,
    options: Option<bridge::CallOptions<bridge::NoOptions>>,
) -> napi::Result<PromiseRaw<'_, IndexStatus>> {
    let (_, call) = bridge::CallOptions::split(options);
    bridge::or_reject(env, root_arg(root), |root| {
        bridge::spawn_call(
            env,
            call.with_timeout(engine.options().timeout),
            move |cancel| engine.prepare_index(&root, cancel),
            |_, s| Ok(s.into()),
        )
    })
}

/// Options of `fileRanks`. All optional; `null` means the same as absent.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct FileRanksOptions {
    /// Files returned at most (1-5000). Default 100.
    pub limit: Option<f64>,
    /// Only the files under this folder, relative to the root (`/`-separated, no `.` or `..`
    /// parts). Default: the whole root.
    pub path: Option<String>,
}

/// One file of a root, as its index knows it.
#[napi(object, object_from_js = false)]
pub struct RankedFile {
    /// Path relative to the root, `/`-separated.
    pub path: String,
    /// What the file is for, from its path (`declarations`: from its text).
    #[napi(
        ts_type = "'source' | 'test' | 'fixture' | 'docs' | 'example' | 'config' | 'generated' | 'vendored' | 'legacy' | 'template' | 'declarations'"
    )]
    pub role: String,
    /// How much the rest of the tree uses the names only this file defines, 0 to 1: 0 when
    /// no other file uses them.
    pub centrality: f64,
    /// Language from the file name (`typescript`, `rust`...), if known.
    pub language: Option<String>,
}

/// A folder of a root: its indexed files and the role most of them have.
#[napi(object, object_from_js = false)]
pub struct RankedFolder {
    /// Path relative to the root, `/`-separated.
    pub path: String,
    /// Indexed files under it, at any depth.
    pub files: u32,
    /// The most common role of those files.
    #[napi(
        ts_type = "'source' | 'test' | 'fixture' | 'docs' | 'example' | 'config' | 'generated' | 'vendored' | 'legacy' | 'template' | 'declarations'"
    )]
    pub role: String,
}

/// A root's files, most central first, and its folders with their roles.
#[napi(object, object_from_js = false)]
pub struct FileRanks {
    /// The most central files (at most `limit`): centrality descending, ties by path.
    pub files: Vec<RankedFile>,
    /// Indexed files under the folder asked about; `files` holds the first `limit` of them.
    pub total: u32,
    /// The folders one and two levels below the folder asked about, most files first (ties by
    /// path), at most 1000.
    pub folders: Vec<RankedFolder>,
}

fn ranks_js(r: CoreFileRanks) -> FileRanks {
    FileRanks {
        files: r
            .files
            .into_iter()
            .map(|f| RankedFile {
                path: f.path,
                role: f.role.as_str().to_owned(),
                centrality: f64::from(f.centrality),
                language: f.language.map(str::to_owned),
            })
            .collect(),
        total: u32_of(r.total),
        folders: r
            .folders
            .into_iter()
            .map(|f| RankedFolder {
                path: f.path,
                files: u32_of(f.files),
                role: f.role.as_str().to_owned(),
            })
            .collect(),
    }
}

/// `fileRanks` on `engine`.
fn file_ranks_on(
    env: &Env,
    engine: Arc<Engine>,
    root: String,
    options: Option<bridge::CallOptions<FileRanksOptions>>,
) -> napi::Result<PromiseRaw<'_, FileRanks>> {
    let (o, call) = bridge::CallOptions::split(options);
    let parsed = (|| {
        let limit = args::opt_whole_number(
            o.limit,
            "options.limit",
            retrieve::DEFAULT_RANKED_FILES as u64,
            1,
            retrieve::MAX_RANKED_FILES as u64,
        )? as usize;
        Ok((
            root_arg(root)?,
            FileRankOptions {
                limit,
                path: o.path,
            },
        ))
    })();
    bridge::or_reject(env, parsed, |(root, options)| {
        bridge::spawn_call(
            env,
            call.with_timeout(engine.options().timeout),
            move |cancel| engine.file_ranks(&root, &options, cancel),
            |_, r| Ok(ranks_js(r)),
        )
    })
}

/// Ranked snippets of `request.rootPath` for `request.prompt` (Context Retrieval Contract
/// v1). The first call for a root indexes it (concurrent first calls share one build); later
/// calls see changed, added and deleted files. `[]` when nothing matches. With `rootPaths`
/// instead (a `MultiRootRetrievalRequest`), the roots are ranked as one collection and each
/// snippet says its `root`; each root keeps its own index. Rejects with `invalid_request`
/// for a malformed request (neither or both of `rootPath` and `rootPaths`) or a root that is
/// not an absolute path to a directory. `options.signal` aborts the call (an
/// `AbortError`); an aborted first build leaves no index.
#[napi(ts_return_type = "Promise<ContextSnippet[]>")]
pub fn retrieve(
    env: &Env,
    #[napi(ts_arg_type = "ContextRetrievalRequest | MultiRootRetrievalRequest")]
    request: AnyRequest,
    #[napi(ts_arg_type = "CallOptions")] options: Option<bridge::CallOptions<bridge::NoOptions>>,
) -> napi::Result<PromiseRaw<'_, Vec<ContextSnippet>>> {
    retrieve_on(env, Engine::global(), request, options)
}

/// The state of `rootPath`'s index in the default engine, without waiting for a build:
/// poll it while a first `retrieve` or `prepareIndex` runs to show progress.
#[napi(catch_unwind)]
pub fn index_status(env: &Env, root_path: String) -> napi::Result<IndexStatus> {
    status_on(env, &Engine::global(), root_path)
}

/// Indexes `rootPath` in the default engine ahead of the first `retrieve` (or brings its
/// index up to date), resolving to the index status. `options.signal` aborts it (an aborted
/// first build leaves the root `absent`).
#[napi(ts_return_type = "Promise<IndexStatus>")]
pub fn prepare_index(
    env: &Env,
    root_path: String,
    #[napi(ts_arg_type = "CallOptions")] options: Option<bridge::CallOptions<bridge::NoOptions>>,
) -> napi::Result<PromiseRaw<'_, IndexStatus>> {
    prepare_on(env, Engine::global(), root_path, options)
}

/// The files of `rootPath` (or of its folder `options.path`) most central first (the ones
/// whose names the rest of the tree uses most), with their roles and languages, and its
/// folders with the role most of their files have: a repository map from the index, which
/// is built or brought up to date first. Rejects with `invalid_request` for a root that is
/// not an absolute path to a directory (or outside `allowedRoots`), a bad `limit` or
/// `path`; `options.signal` aborts it.
#[napi(ts_return_type = "Promise<FileRanks>")]
pub fn file_ranks(
    env: &Env,
    root_path: String,
    #[napi(ts_arg_type = "FileRanksOptions & CallOptions")] options: Option<
        bridge::CallOptions<FileRanksOptions>,
    >,
) -> napi::Result<PromiseRaw<'_, FileRanks>> {
    file_ranks_on(env, Engine::global(), root_path, options)
}

#[napi]
impl ContextEngine {
    /// `retrieve` on this engine's own indexes.
    #[napi(ts_return_type = "Promise<ContextSnippet[]>")]
    pub fn retrieve<'env>(
        &self,
        env: &'env Env,
        #[napi(ts_arg_type = "ContextRetrievalRequest | MultiRootRetrievalRequest")]
        request: AnyRequest,
        #[napi(ts_arg_type = "CallOptions")] options: Option<
            bridge::CallOptions<bridge::NoOptions>,
        >,
    ) -> napi::Result<PromiseRaw<'env, Vec<ContextSnippet>>> {
        retrieve_on(env, self.inner.clone(), request, options)
    }

    /// `indexStatus` on this engine.
    #[napi(catch_unwind)]
    pub fn index_status(&self, env: &Env, root_path: String) -> napi::Result<IndexStatus> {
        status_on(env, &self.inner, root_path)
    }

    /// `prepareIndex` on this engine.
    #[napi(ts_return_type = "Promise<IndexStatus>")]
    pub fn prepare_index<'env>(
        &self,
        env: &'env Env,
        root_path: String,
        #[napi(ts_arg_type = "CallOptions")] options: Option<
            bridge::CallOptions<bridge::NoOptions>,
        >,
    ) -> napi::Result<PromiseRaw<'env, IndexStatus>> {
        prepare_on(env, self.inner.clone(), root_path, options)
    }

    /// `fileRanks` on this engine's own indexes.
    #[napi(ts_return_type = "Promise<FileRanks>")]
    pub fn file_ranks<'env>(
        &self,
        env: &'env Env,
        root_path: String,
        #[napi(ts_arg_type = "FileRanksOptions & CallOptions")] options: Option<
            bridge::CallOptions<FileRanksOptions>,
        >,
    ) -> napi::Result<PromiseRaw<'env, FileRanks>> {
        file_ranks_on(env, self.inner.clone(), root_path, options)
    }

    /// Drops this engine's index of `rootPath`; returns whether one was kept.
    #[napi(catch_unwind)]
    pub fn evict(&self, env: &Env, root_path: String) -> napi::Result<bool> {
        evict_on(env, &self.inner, root_path)
    }
}

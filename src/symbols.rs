//! Symbol search exports: the `SymbolIndex` class (hound-mcp's `hound_search_symbol` shape)
//! over the core's [`context_engine_core::symbols`].

use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use super::{args, bridge};
use context_engine_core::cancel::Cancel;
use context_engine_core::error::{Error as CoreError, Result as CoreResult};
use context_engine_core::symbols::{
    self, Pattern, Query, SearchResult, SourceFile, Symbol, SymbolIndexOptions as CoreOptions,
    SymbolKind,
};
use context_engine_core::syntax::Lang;

/// A file handed to `SymbolIndex.indexFiles` or `repoStats`.
#[napi(object, object_to_js = false)]
pub struct SourceFileInput {
    /// The file's path within its repository (its name picks the language).
    pub path: String,
    /// Its text.
    #[napi(ts_type = "string")]
    pub content: args::Text,
}

/// Options of `new SymbolIndex()`.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct SymbolIndexOptions {
    /// A link pattern for results' `url`, with `{repo}`, `{file}`, `{line}` and `{endLine}`
    /// replaced (for example `https://git.example.com/{repo}/src/branch/main/{file}#L{line}`).
    /// Default: no `url`.
    pub url_template: Option<String>,
    /// A directory (absolute path) where what was indexed is kept across restarts: a new
    /// index on it answers searches without parsing, and files indexed again with the same
    /// content are not parsed again. Created when first written. Default: nothing kept.
    pub cache_dir: Option<String>,
    /// Threads an indexing call parses on, 1 to 256. Default: one per core.
    pub threads: Option<f64>,
}

/// What an indexing call did.
#[napi(object, object_from_js = false)]
pub struct IndexedCount {
    /// Files of a registry language in the call (parsed now, or kept as they were).
    pub files: u32,
    /// Symbols in them.
    pub symbols: u32,
    /// Files parsed by this call: those new to the repository or whose content changed (the
    /// others' symbols were kept).
    pub parsed: u32,
}

/// A symbol search.
#[napi(object, object_to_js = false)]
pub struct SymbolSearchQuery {
    /// Name pattern: `*` any run of characters, `?` one character; case-insensitive, whole
    /// name. At most 512 characters.
    pub name: String,
    /// Only symbols of this kind.
    #[napi(
        ts_type = "'function' | 'class' | 'method' | 'interface' | 'type' | 'variable' | 'constant' | 'module'"
    )]
    pub kind: Option<String>,
    /// Only symbols of this language (`typescript`, `python`, `cpp`, `csharp`...; aliases
    /// such as `ts`, `golang`, `c++` accepted).
    pub language: Option<String>,
    /// Only repositories whose name contains one of these (case-insensitive): an array or a
    /// comma-separated string.
    #[napi(ts_type = "string | string[]")]
    pub repos: Option<Either<String, Vec<String>>>,
    /// Results at most: default 20, from 1 to 1000.
    pub limit: Option<f64>,
    /// Matches skipped before the first returned (a page's start, `nextOffset` of the previous
    /// page): default 0, at most 10,000,000.
    pub offset: Option<f64>,
}

/// One symbol found.
#[napi(object, object_from_js = false)]
pub struct SymbolMatch {
    /// The repository it was indexed under.
    pub repo: String,
    /// Its file's path (as given, or relative to the indexed root).
    pub file: String,
    /// The line of its name, 1-based.
    pub line: u32,
    /// The last line of the definition, 1-based, inclusive.
    pub end_line: u32,
    /// The column of its name, 0-based, in characters.
    pub column: u32,
    /// What it is.
    #[napi(
        ts_type = "'function' | 'class' | 'method' | 'interface' | 'type' | 'variable' | 'constant' | 'module'"
    )]
    pub kind: String,
    /// Its name.
    pub name: String,
    /// Its declaration line (trimmed, at most 200 characters, secrets redacted).
    pub signature: Option<String>,
    /// The enclosing definition (the class of a method).
    pub scope: Option<String>,
    /// The file's language (registry name).
    pub language: String,
    /// A link, when the index has a `urlTemplate`.
    pub url: Option<String>,
}

/// The answer to `SymbolIndex.search`.
#[napi(object, object_from_js = false)]
pub struct SymbolSearchResult {
    /// Matches `offset` to `offset + limit` of one order: exact (case-insensitive) names
    /// first, then by name, repository, file, line and column.
    pub results: Vec<SymbolMatch>,
    /// All matches.
    pub total_matches: u32,
    /// Repositories searched (those the `repos` filter let through).
    pub repos_searched: u32,
    /// True if matches follow this page.
    pub has_more: bool,
    /// The `offset` of the next page, when there is one.
    pub next_offset: Option<u32>,
}

/// An indexed repository.
#[napi(object, object_from_js = false)]
pub struct IndexedRepo {
    /// Its name.
    pub repo: String,
    /// Its symbols.
    pub symbols: u32,
}

/// Symbols (functions, classes, methods, interfaces, types, constants, modules) of many
/// repositories, from the language registry's tree-sitter grammars, searchable by wildcard
/// name, kind, language and repository.
#[napi]
pub struct SymbolIndex {
    inner: Arc<symbols::SymbolIndex>,
    url_template: Option<Arc<str>>,
}

/// The files of a call, their contents as UTF-8 (decoded on the worker).
pub(crate) fn decode(files: Vec<SourceFileInput>) -> Vec<SourceFile> {
    files
        .into_iter()
        .map(|f| SourceFile {
            path: f.path,
            content: f.content.into_string(),
        })
        .collect()
}

fn repo_arg(repo: String) -> CoreResult<String> {
    symbols::check_repo(&repo)?;
    Ok(repo)
}

fn repos_arg(repos: Option<Either<String, Vec<String>>>) -> CoreResult<Option<Vec<String>>> {
    let list: Vec<String> = match repos {
        None => return Ok(None),
        Some(Either::A(list)) => list.split(',').map(str::to_owned).collect(),
        Some(Either::B(list)) => list,
    };
    let list: Vec<String> = list
        .into_iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect();
    if list.iter().any(|s| s.len() > symbols::MAX_NAME_BYTES) {
        return Err(CoreError::invalid_request(
            "each of repos must be at most 4096 bytes",
        ));
    }
    Ok(Some(list))
}

fn query_arg(query: SymbolSearchQuery) -> CoreResult<Query> {
    let name = Pattern::new(&query.name)?;
    let kind = match query.kind {
        None => None,
        Some(k) => Some(SymbolKind::parse(&k).ok_or_else(|| {
            CoreError::invalid_request(
                "kind must be one of function, class, method, interface, type, variable, constant, module",
            )
        })?),
    };
    let language = match query.language {
        None => None,
        Some(l) => Some(Lang::from_name(&l).ok_or_else(|| {
            CoreError::invalid_request("language is not a language of the registry")
        })?),
    };
    let repos = repos_arg(query.repos)?;
    let limit = args::opt_whole_number(
        query.limit,
        "query.limit",
        symbols::DEFAULT_LIMIT as u64,
        1,
        symbols::MAX_LIMIT as u64,
    )? as usize;
    let offset = args::opt_whole_number(
        query.offset,
        "query.offset",
        0,
        0,
        symbols::MAX_OFFSET as u64,
    )? as usize;
    Ok(Query {
        name,
        kind,
        language,
        repos,
        limit,
        offset,
    })
}

fn url_of(template: Option<&str>, s: &Symbol) -> Option<String> {
    let t = template?;
    Some(
        t.replace("{repo}", &s.repo)
            .replace("{file}", &s.file)
            .replace("{endLine}", &s.end_line.to_string())
            .replace("{line}", &s.line.to_string()),
    )
}

fn result_js(r: SearchResult, template: Option<&str>) -> SymbolSearchResult {
    SymbolSearchResult {
        results: r
            .results
            .into_iter()
            .map(|s| SymbolMatch {
                url: url_of(template, &s),
                repo: s.repo.to_string(),
                file: s.file.to_string(),
                line: args::clamp_u32(s.line),
                end_line: args::clamp_u32(s.end_line),
                column: args::clamp_u32(s.column),
                kind: s.kind.as_str().to_owned(),
                name: s.name,
                signature: s.signature,
                scope: s.scope,
                language: s.language.as_str().to_owned(),
            })
            .collect(),
        total_matches: args::clamp_u32(r.total_matches),
        repos_searched: args::clamp_u32(r.repos_searched),
        has_more: r.has_more,
        next_offset: r.next_offset.map(args::clamp_u32),
    }
}

fn count_js(s: symbols::IndexSummary) -> IndexedCount {
    IndexedCount {
        files: args::clamp_u32(s.files),
        symbols: args::clamp_u32(s.symbols),
        parsed: args::clamp_u32(s.parsed),
    }
}

/// The core's options from `new SymbolIndex(options)`'s.
fn core_options(o: &SymbolIndexOptions) -> CoreResult<CoreOptions> {
    let cache_dir = match &o.cache_dir {
        None => None,
        Some(dir) => {
            let path = std::path::Path::new(dir);
            if dir.is_empty() || dir.len() > 4096 || dir.contains('\0') || !path.is_absolute() {
                return Err(args::expected(
                    "options.cacheDir",
                    "an absolute directory path",
                ));
            }
            Some(path.to_path_buf())
        }
    };
    let threads = match o.threads {
        None => None,
        Some(_) => Some(args::opt_whole_number(
            o.threads,
            "options.threads",
            1,
            1,
            symbols::MAX_THREADS as u64,
        )? as usize),
    };
    Ok(CoreOptions { cache_dir, threads })
}

impl SymbolIndex {
    /// `indexFiles` / `updateFiles`: `op` on the pool under the call's `{ signal }`.
    fn files_call<'env>(
        &self,
        env: &'env Env,
        repo: String,
        files: Vec<SourceFileInput>,
        options: Option<bridge::CallOptions<bridge::NoOptions>>,
        op: fn(
            &symbols::SymbolIndex,
            &str,
            &[SourceFile],
            &Cancel,
        ) -> CoreResult<symbols::IndexSummary>,
    ) -> napi::Result<PromiseRaw<'env, IndexedCount>> {
        let (_, call) = bridge::CallOptions::split(options);
        let inner = self.inner.clone();
        bridge::or_reject(env, repo_arg(repo), |repo| {
            bridge::spawn_call(
                env,
                call,
                move |cancel| op(&inner, &repo, &decode(files), cancel),
                |_, s| Ok(count_js(s)),
            )
        })
    }
}

#[napi]
impl SymbolIndex {
    /// An empty index, or with `cacheDir` the one kept there (loaded by the first call, not
    /// here). Throws `invalid_request` for bad options.
    #[napi(constructor)]
    pub fn new(env: Env, options: Option<SymbolIndexOptions>) -> napi::Result<Self> {
        bridge::run_sync(&env, || {
            let o = options.unwrap_or_default();
            if o.url_template.as_ref().is_some_and(|t| t.len() > 4096) {
                return Err(CoreError::invalid_request(
                    "urlTemplate must be at most 4096 bytes",
                ));
            }
            let core = core_options(&o)?;
            Ok(SymbolIndex {
                inner: Arc::new(symbols::SymbolIndex::with_options(core)?),
                url_template: o.url_template.map(Arc::from),
            })
        })
    }

    /// Replaces the symbols of `repo` with those of `files` (files of other languages are
    /// skipped). Only files new to `repo` or whose content changed are parsed. Resolves to
    /// the files indexed, their symbols and how many files were parsed; rejects with
    /// `invalid_request` for a bad repo name or file list, and as Node's APIs do when
    /// `options.signal` aborts (the index then unchanged).
    #[napi(ts_return_type = "Promise<IndexedCount>")]
    pub fn index_files<'env>(
        &self,
        env: &'env Env,
        repo: String,
        files: Vec<SourceFileInput>,
        #[napi(ts_arg_type = "CallOptions")] options: Option<
            bridge::CallOptions<bridge::NoOptions>,
        >,
    ) -> napi::Result<PromiseRaw<'env, IndexedCount>> {
        self.files_call(
            env,
            repo,
            files,
            options,
            symbols::SymbolIndex::index_files_with,
        )
    }

    /// Updates `repo` with `files`: each file named has its symbols replaced by those of its
    /// content now, the repository's other files keep theirs (a repository not indexed yet
    /// starts with `files`). For a repository larger than one call may carry (8 Mi characters
    /// of content), sent in batches (the first with `indexFiles`: files it dropped that a
    /// later batch brings back unchanged are not parsed again), and for changed files from
    /// webhooks. Resolves to the files and symbols of this call, and the files it parsed.
    #[napi(ts_return_type = "Promise<IndexedCount>")]
    pub fn update_files<'env>(
        &self,
        env: &'env Env,
        repo: String,
        files: Vec<SourceFileInput>,
        #[napi(ts_arg_type = "CallOptions")] options: Option<
            bridge::CallOptions<bridge::NoOptions>,
        >,
    ) -> napi::Result<PromiseRaw<'env, IndexedCount>> {
        self.files_call(
            env,
            repo,
            files,
            options,
            symbols::SymbolIndex::update_files_with,
        )
    }

    /// Replaces the symbols of `repo` with those of the files under `rootPath` (absolute),
    /// listed like retrieval lists them (`.gitignore` honoured, vendored and generated files
    /// left out) and read inside the root only. Every file is read; only those whose
    /// content changed are parsed.
    #[napi(ts_return_type = "Promise<IndexedCount>")]
    pub fn index_root<'env>(
        &self,
        env: &'env Env,
        repo: String,
        root_path: String,
        #[napi(ts_arg_type = "CallOptions")] options: Option<
            bridge::CallOptions<bridge::NoOptions>,
        >,
    ) -> napi::Result<PromiseRaw<'env, IndexedCount>> {
        let (_, call) = bridge::CallOptions::split(options);
        let inner = self.inner.clone();
        bridge::or_reject(env, repo_arg(repo), |repo| {
            bridge::spawn_call(
                env,
                call,
                move |cancel| {
                    inner.index_root_with(&repo, std::path::Path::new(&root_path), cancel)
                },
                |_, s| Ok(count_js(s)),
            )
        })
    }

    /// Symbols matching `query`, in a deterministic order, a page at a time (`offset`,
    /// `limit`; `hasMore` and `nextOffset` say where the next page starts). Rejects with
    /// `invalid_request` for a bad query.
    #[napi(ts_return_type = "Promise<SymbolSearchResult>")]
    pub fn search<'env>(
        &self,
        env: &'env Env,
        query: SymbolSearchQuery,
    ) -> napi::Result<PromiseRaw<'env, SymbolSearchResult>> {
        let inner = self.inner.clone();
        let template = self.url_template.clone();
        bridge::or_reject(env, query_arg(query), |query| {
            bridge::spawn(
                env,
                move || Ok(inner.search(&query)),
                move |_, r| Ok(result_js(r, template.as_deref())),
            )
        })
    }

    /// Writes what changed to `cacheDir` now (otherwise written in the background about a
    /// second after a repository's last change) and resolves when it is written. Call it
    /// before the process exits. Resolves at once without a `cacheDir`.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn flush<'env>(&self, env: &'env Env) -> napi::Result<PromiseRaw<'env, ()>> {
        let inner = self.inner.clone();
        bridge::spawn(
            env,
            move || {
                inner.flush();
                Ok(())
            },
            |_, ()| Ok(()),
        )
    }

    /// Forgets `repo` (and its saved copy); true if it was indexed.
    #[napi]
    pub fn remove_repo(&self, env: Env, repo: String) -> napi::Result<bool> {
        bridge::run_sync(&env, || {
            let repo = repo_arg(repo)?;
            Ok(self.inner.remove_repo(&repo))
        })
    }

    /// The indexed repositories and their symbol counts, by name.
    #[napi]
    pub fn repos(&self) -> Vec<IndexedRepo> {
        self.inner
            .repos()
            .into_iter()
            .map(|(repo, n)| IndexedRepo {
                repo,
                symbols: args::clamp_u32(n),
            })
            .collect()
    }
}

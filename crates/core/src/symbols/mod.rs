//! Symbol search over many repositories: every definition the language registry
//! ([`crate::syntax`]) finds, searchable by wildcard name, kind, language and repository, in
//! pages.
//!
//! A [`SymbolIndex`] holds the symbols of any number of repositories, each indexed from files
//! handed in ([`SymbolIndex::index_files`], for callers that receive files from a code host or
//! webhooks) or read from a directory ([`SymbolIndex::index_root`], gitignore-aware, through
//! [`fs_scope`](crate::fs_scope)). Indexing a repository replaces what was held for it.
//! [`SymbolIndex::search`] answers in a deterministic order: names equal to the pattern
//! (case-insensitively) first, then by name, repository, file, line and column; `offset` and
//! `limit` cut a page of that order.
//!
//! Parsing less: every file is held with a hash of its content, so an indexing call parses
//! only the files whose path is new or whose content changed and keeps the others' symbols
//! ([`IndexSummary::parsed`] says how many it parsed). Parsing on every core: the files of a
//! call are parsed on up to [`SymbolIndexOptions::threads`] threads, the largest first.
//!
//! Persistence: with [`SymbolIndexOptions::cache_dir`], each repository is kept in one file of
//! that directory (`store.rs`: compact, written atomically, refused when foreign or damaged,
//! through the crate's shared cache-file handling), written in the background shortly after
//! the calls that changed it (`cache.rs`; [`SymbolIndex::flush`] writes at once). A new index
//! on the same directory loads them on its first call, so it answers searches at once, and a
//! repository indexed again with the same files parses none and writes nothing.
//!
//! Signatures are the definition's declaration line, secrets redacted
//! ([`crate::secrets::redact`]).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use crate::cancel::Cancel;
use crate::error::{Error, Result};
use crate::fs_scope::{ReadLimits, Scope};
use crate::syntax::{self, DefKind, Definition, Lang};

mod cache;
mod parallel;
mod pattern;
mod store;
#[cfg(test)]
mod tests;

pub use parallel::default_threads;
pub(crate) use parallel::parallel_map;
pub use pattern::Pattern;
pub use store::FORMAT_VERSION as CACHE_FORMAT_VERSION;

/// Most files one call indexes.
pub const MAX_FILES: usize = 200_000;
/// Largest file indexed, in bytes ([`syntax::MAX_PARSE_BYTES`]); larger files are skipped.
pub const MAX_FILE_BYTES: usize = syntax::MAX_PARSE_BYTES;
/// Longest repository name or file path accepted, in bytes.
pub const MAX_NAME_BYTES: usize = 4096;
/// Longest name pattern accepted, in characters.
pub const MAX_PATTERN_CHARS: usize = 512;
/// Results returned when the query names no limit.
pub const DEFAULT_LIMIT: usize = 20;
/// Most results one search returns.
pub const MAX_LIMIT: usize = 1000;
/// Largest `offset` a search accepts.
pub const MAX_OFFSET: usize = 10_000_000;
/// Longest signature kept, in characters.
pub const MAX_SIGNATURE_CHARS: usize = 200;
/// Most threads an index parses on.
pub const MAX_THREADS: usize = 256;

/// What a symbol is (hound-mcp's kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SymbolKind {
    /// A free function (or a macro).
    Function,
    /// A class or struct.
    Class,
    /// A function of a class, struct, trait, interface or impl.
    Method,
    /// An interface, trait, protocol or type class.
    Interface,
    /// A type alias or enum.
    Type,
    /// A variable.
    Variable,
    /// A constant.
    Constant,
    /// A module, namespace or (Scala) object.
    Module,
}

impl SymbolKind {
    /// Every kind.
    pub const ALL: [SymbolKind; 8] = [
        SymbolKind::Function,
        SymbolKind::Class,
        SymbolKind::Method,
        SymbolKind::Interface,
        SymbolKind::Type,
        SymbolKind::Variable,
        SymbolKind::Constant,
        SymbolKind::Module,
    ];

    /// The lower-case name (`"function"`, `"class"`...).
    pub const fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Function => "function",
            SymbolKind::Class => "class",
            SymbolKind::Method => "method",
            SymbolKind::Interface => "interface",
            SymbolKind::Type => "type",
            SymbolKind::Variable => "variable",
            SymbolKind::Constant => "constant",
            SymbolKind::Module => "module",
        }
    }

    /// The kind named `name` (exactly as [`SymbolKind::as_str`] spells it).
    pub fn parse(name: &str) -> Option<SymbolKind> {
        SymbolKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// The symbol kind of a definition; impls (Rust `impl`, Swift `extension`, Haskell
    /// `instance`) name no new symbol and have none.
    pub const fn of(kind: DefKind) -> Option<SymbolKind> {
        Some(match kind {
            DefKind::Function | DefKind::Macro => SymbolKind::Function,
            DefKind::Method => SymbolKind::Method,
            DefKind::Class | DefKind::Struct => SymbolKind::Class,
            DefKind::Interface | DefKind::Trait => SymbolKind::Interface,
            DefKind::Type | DefKind::Enum => SymbolKind::Type,
            DefKind::Const => SymbolKind::Constant,
            DefKind::Module => SymbolKind::Module,
            DefKind::Impl => return None,
        })
    }
}

/// One symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// The repository it was indexed under.
    pub repo: Arc<str>,
    /// The file's path as given (or relative to the indexed root, `'/'`-separated).
    pub file: Arc<str>,
    /// The line of its name, 1-based.
    pub line: usize,
    /// The last line of the definition, 1-based, inclusive.
    pub end_line: usize,
    /// The column of its name, 0-based, in characters.
    pub column: usize,
    /// What it is.
    pub kind: SymbolKind,
    /// Its name.
    pub name: String,
    /// The declaration line, trimmed and cut to [`MAX_SIGNATURE_CHARS`], secrets redacted.
    pub signature: Option<String>,
    /// The enclosing definition (the class of a method), if any.
    pub scope: Option<String>,
    /// The file's language.
    pub language: Lang,
    lower: String,
}

/// A file handed to [`SymbolIndex::index_files`].
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The file's path within its repository.
    pub path: String,
    /// Its text.
    pub content: String,
}

/// What an indexing call did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IndexSummary {
    /// Files of a registry language in the call (parsed now or kept as they were).
    pub files: usize,
    /// Symbols in them.
    pub symbols: usize,
    /// Files parsed in this call: those whose path was not held or whose content changed.
    pub parsed: usize,
}

/// How a [`SymbolIndex`] works.
#[derive(Debug, Clone, Default)]
pub struct SymbolIndexOptions {
    /// Where to keep what was indexed across restarts (an absolute directory, created when
    /// first written). `None`: nothing is kept.
    pub cache_dir: Option<PathBuf>,
    /// Threads a call parses on, 1 to [`MAX_THREADS`]. `None`: [`default_threads`].
    pub threads: Option<usize>,
}

/// A search.
#[derive(Debug, Clone)]
pub struct Query {
    /// The name pattern: `*` any run of characters, `?` one character, case-insensitive,
    /// matching the whole name.
    pub name: Pattern,
    /// Only symbols of this kind.
    pub kind: Option<SymbolKind>,
    /// Only symbols of this language.
    pub language: Option<Lang>,
    /// Only repositories whose name contains one of these (case-insensitive); `None` for all.
    pub repos: Option<Vec<String>>,
    /// Results returned at most.
    pub limit: usize,
    /// Matches skipped before the first returned (a page's start).
    pub offset: usize,
}

/// The answer to a [`Query`].
#[derive(Debug, Clone, Default)]
pub struct SearchResult {
    /// Matches `offset .. offset + limit` of the order, in order.
    pub results: Vec<Symbol>,
    /// All matches.
    pub total_matches: usize,
    /// Repositories searched (those the `repos` filter let through).
    pub repos_searched: usize,
    /// True if matches follow this page.
    pub has_more: bool,
    /// The `offset` of the next page, when there is one.
    pub next_offset: Option<usize>,
}

/// One file as held: the hash of the content its symbols were parsed from, and whether the
/// parse finished (a file cancelled at [`syntax::PARSE_TIME_LIMIT`] is parsed again next
/// time instead of being kept without symbols).
#[derive(Debug)]
struct FileEntry {
    hash: u128,
    lang: Lang,
    complete: bool,
    symbols: Vec<Symbol>,
}

/// One repository as held: its files by path, and their symbol count.
#[derive(Debug, Clone, Default)]
struct Repo {
    files: BTreeMap<Arc<str>, Arc<FileEntry>>,
    symbols: usize,
}

impl Repo {
    fn insert(&mut self, path: Arc<str>, entry: Arc<FileEntry>) {
        self.symbols += entry.symbols.len();
        if let Some(old) = self.files.insert(path, entry) {
            self.symbols -= old.symbols.len();
        }
    }

    fn remove(&mut self, path: &str) {
        if let Some(old) = self.files.remove(path) {
            self.symbols -= old.symbols.len();
        }
    }

    /// True if `self` holds exactly `other`'s entries (nothing to save).
    fn same_as(&self, other: &Repo) -> bool {
        self.files.len() == other.files.len()
            && self
                .files
                .iter()
                .zip(&other.files)
                .all(|((p, a), (q, b))| p == q && Arc::ptr_eq(a, b))
    }
}

/// The symbols of many repositories. Shared freely: reads run in parallel, an indexing call
/// replaces one repository at once.
#[derive(Debug)]
pub struct SymbolIndex {
    inner: Arc<Inner>,
}

/// The index's state, shared with its background saver.
#[derive(Debug)]
struct Inner {
    repos: RwLock<BTreeMap<Arc<str>, Arc<Repo>>>,
    /// Each repository as it was before it was last replaced: files a later `update_files`
    /// hands in with the same content are kept from here (a repository sent in batches, the
    /// first replacing it). Dropped once the repository is saved, or at its next replacement.
    bases: Mutex<HashMap<Arc<str>, Arc<Repo>>>,
    threads: usize,
    cache: Option<cache::Cache>,
}

impl Default for SymbolIndex {
    fn default() -> SymbolIndex {
        SymbolIndex::with(default_threads(), None)
    }
}

/// Checks a repository name: non-empty, at most [`MAX_NAME_BYTES`], no control characters.
pub fn check_repo(repo: &str) -> Result<()> {
    if repo.trim().is_empty() {
        return Err(Error::invalid_request("repo must not be empty"));
    }
    if repo.len() > MAX_NAME_BYTES || repo.chars().any(char::is_control) {
        return Err(Error::invalid_request(
            "repo must be at most 4096 bytes without control characters",
        ));
    }
    Ok(())
}

/// The symbols of one file (`path` picks the language; none for other files).
pub fn file_symbols(repo: &Arc<str>, path: &str, text: &str) -> Option<Vec<Symbol>> {
    let lang = Lang::from_path(path)?;
    if text.len() > MAX_FILE_BYTES {
        return None;
    }
    let file: Arc<str> = Arc::from(path);
    Some(symbols_of(
        repo,
        &file,
        lang,
        text,
        syntax::definitions(text, lang),
    ))
}

fn symbols_of(
    repo: &Arc<str>,
    file: &Arc<str>,
    lang: Lang,
    text: &str,
    defs: Vec<Definition>,
) -> Vec<Symbol> {
    if defs.is_empty() {
        return Vec::new();
    }
    let lines: Vec<&str> = text.split('\n').collect();
    defs.into_iter()
        .filter_map(|d| symbol_of(repo, file, lang, &lines, d))
        .collect()
}

fn symbol_of(
    repo: &Arc<str>,
    file: &Arc<str>,
    lang: Lang,
    lines: &[&str],
    d: Definition,
) -> Option<Symbol> {
    let kind = SymbolKind::of(d.kind)?;
    let signature = lines.get(d.line - 1).and_then(|l| signature(l));
    Some(Symbol {
        repo: repo.clone(),
        file: file.clone(),
        line: d.line,
        end_line: d.end_line,
        column: d.column,
        kind,
        lower: d.name.to_lowercase(),
        name: d.name,
        signature,
        scope: d.container,
        language: lang,
    })
}

fn signature(line: &str) -> Option<String> {
    let mut s = line.trim();
    s = s.strip_suffix('{').unwrap_or(s).trim_end();
    if s.is_empty() {
        return None;
    }
    let cut: String = s.chars().take(MAX_SIGNATURE_CHARS).collect();
    Some(crate::secrets::redact(&cut).text.into_owned())
}

fn check_path(path: &str) -> Result<()> {
    if path.is_empty() || path.len() > MAX_NAME_BYTES || path.contains('\0') {
        return Err(Error::invalid_request(
            "each file path must be 1 to 4096 bytes without NUL",
        ));
    }
    Ok(())
}

fn check_files(repo: &str, files: &[SourceFile]) -> Result<()> {
    check_repo(repo)?;
    if files.len() > MAX_FILES {
        return Err(Error::invalid_request(format!(
            "files must hold at most {MAX_FILES} entries"
        )));
    }
    files.iter().try_for_each(|f| check_path(&f.path))
}

/// Where a file's text comes from: handed in, or read from a root.
trait Source: Sync {
    fn path(&self) -> &str;
    /// The text's size, to parse the largest files first.
    fn size(&self) -> usize;
    /// The text, or `None` when it cannot be read.
    fn text(&self) -> Option<Cow<'_, str>>;
}

impl Source for SourceFile {
    fn path(&self) -> &str {
        &self.path
    }
    fn size(&self) -> usize {
        self.content.len()
    }
    fn text(&self) -> Option<Cow<'_, str>> {
        Some(Cow::Borrowed(&self.content))
    }
}

/// A file listed under an indexed root.
struct RootFile<'a> {
    rel: &'a str,
    size: u64,
    scope: &'a Scope,
    limits: &'a ReadLimits,
}

impl Source for RootFile<'_> {
    fn path(&self) -> &str {
        self.rel
    }
    fn size(&self) -> usize {
        usize::try_from(self.size).unwrap_or(usize::MAX)
    }
    fn text(&self) -> Option<Cow<'_, str>> {
        let file = self.scope.read_text(self.rel, self.limits).ok()?;
        Some(Cow::Owned(file.text))
    }
}

/// What became of one file of a call.
enum Outcome {
    /// Not indexed: no grammar for it, too large, unreadable, or the call was cancelled.
    Skipped,
    /// Held already with the same content: its symbols kept.
    Kept(Arc<FileEntry>),
    /// Parsed now.
    Parsed(Arc<FileEntry>),
}

/// Whether a call replaces the repository or updates the files it names.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Replace,
    Update,
}

impl SymbolIndex {
    /// An empty index that keeps nothing across restarts, parsing on [`default_threads`].
    pub fn new() -> SymbolIndex {
        SymbolIndex::default()
    }

    fn with(threads: usize, cache: Option<cache::Cache>) -> SymbolIndex {
        SymbolIndex {
            inner: Arc::new(Inner {
                repos: RwLock::default(),
                bases: Mutex::default(),
                threads,
                cache,
            }),
        }
    }

    /// An index with `options`. Nothing is read here: a cache directory's saved repositories
    /// are loaded by the first call on the index.
    ///
    /// Errors (`invalid_request`): `threads` outside 1 to [`MAX_THREADS`], a cache directory
    /// that is not an absolute path.
    pub fn with_options(options: SymbolIndexOptions) -> Result<SymbolIndex> {
        let threads = match options.threads {
            None => default_threads(),
            Some(t) if (1..=MAX_THREADS).contains(&t) => t,
            Some(_) => {
                return Err(Error::invalid_request(format!(
                    "threads must be a whole number from 1 to {MAX_THREADS}"
                )))
            }
        };
        let cache = match options.cache_dir {
            None => None,
            Some(dir) if dir.is_absolute() => Some(cache::Cache::new(dir)),
            Some(_) => {
                return Err(Error::invalid_request(
                    "cacheDir must be an absolute directory path",
                ))
            }
        };
        Ok(SymbolIndex::with(threads, cache))
    }

    /// The threads a call parses on.
    pub fn threads(&self) -> usize {
        self.inner.threads
    }

    /// Writes every repository changed since it was last saved to the cache directory now,
    /// and waits for writes under way (the background saver writes them about
    /// [`SAVE_DELAY`](cache::SAVE_DELAY) after their last change otherwise). Call it before
    /// the process exits. Nothing to do without a cache directory. Best effort, as every save.
    pub fn flush(&self) {
        cache::flush(&self.inner);
    }

    /// Replaces the symbols of `repo` with those of `files` (files of languages without a
    /// grammar, and files over [`MAX_FILE_BYTES`], are skipped; of two files with one path,
    /// the later counts). Only files whose path is new to `repo` or whose content changed
    /// are parsed, on up to [`SymbolIndex::threads`] threads.
    ///
    /// Errors (`invalid_request`): a bad repository name, more than [`MAX_FILES`] files, an
    /// empty or over-long path.
    pub fn index_files(&self, repo: &str, files: &[SourceFile]) -> Result<IndexSummary> {
        self.index_files_with(repo, files, &Cancel::new())
    }

    /// [`index_files`](Self::index_files) under `cancel`: once it is set (or its deadline
    /// passed) no more files are parsed and the call fails with its error, the index and its
    /// saved copy as they were.
    pub fn index_files_with(
        &self,
        repo: &str,
        files: &[SourceFile],
        cancel: &Cancel,
    ) -> Result<IndexSummary> {
        check_files(repo, files)?;
        self.index(repo, files, Mode::Replace, cancel)
    }

    /// Updates `repo` with `files`: the symbols of every file named in `files` are replaced by
    /// those of its content now (a file whose language has no grammar, or over
    /// [`MAX_FILE_BYTES`], ends with none); the repository's other files keep theirs. A
    /// repository not indexed yet starts with `files`. For callers that receive a repository
    /// in batches (the first with [`index_files`](Self::index_files)) or changed files from
    /// webhooks. A file kept from before the repository's last replacement with the same
    /// content is not parsed again. The summary counts the files of this call.
    ///
    /// Errors as [`index_files`](Self::index_files).
    pub fn update_files(&self, repo: &str, files: &[SourceFile]) -> Result<IndexSummary> {
        self.update_files_with(repo, files, &Cancel::new())
    }

    /// [`update_files`](Self::update_files) under `cancel`, as
    /// [`index_files_with`](Self::index_files_with).
    pub fn update_files_with(
        &self,
        repo: &str,
        files: &[SourceFile],
        cancel: &Cancel,
    ) -> Result<IndexSummary> {
        check_files(repo, files)?;
        self.index(repo, files, Mode::Update, cancel)
    }

    /// Replaces the symbols of `repo` with those of the files under `root` (an absolute
    /// directory): the same gitignore-aware listing as retrieval
    /// ([`crate::retrieve::index::walk::list`]), each file read through [`Scope`]. Every file is
    /// read; only those whose content changed since `repo` was indexed are parsed.
    ///
    /// Errors (`invalid_request`): a bad repository name; `root` not an absolute, existing
    /// directory.
    pub fn index_root(&self, repo: &str, root: &Path) -> Result<IndexSummary> {
        self.index_root_with(repo, root, &Cancel::new())
    }

    /// [`index_root`](Self::index_root) under `cancel`, as
    /// [`index_files_with`](Self::index_files_with).
    pub fn index_root_with(
        &self,
        repo: &str,
        root: &Path,
        cancel: &Cancel,
    ) -> Result<IndexSummary> {
        check_repo(repo)?;
        let scope = Scope::new(root)?;
        let listing = crate::retrieve::index::walk::list(scope.root(), MAX_FILES, &mut None);
        let limits = ReadLimits {
            max_bytes: MAX_FILE_BYTES as u64,
            max_line_chars: 0,
            allow_binary: false,
        };
        let files: Vec<RootFile<'_>> = listing
            .files
            .iter()
            .filter(|f| Lang::from_path(&f.rel).is_some())
            .map(|f| RootFile {
                rel: &f.rel,
                size: f.stamp.size,
                scope: &scope,
                limits: &limits,
            })
            .collect();
        self.index(repo, &files, Mode::Replace, cancel)
    }

    /// Indexes `files` into `repo`: each file kept when held (or held before the repository's
    /// last replacement) with the same content, parsed otherwise, then merged as `mode` says;
    /// the repository is saved later if it changed.
    fn index<S: Source>(
        &self,
        repo: &str,
        files: &[S],
        mode: Mode,
        cancel: &Cancel,
    ) -> Result<IndexSummary> {
        let inner = &*self.inner;
        cache::ensure_loaded(inner);
        cancel.check()?;
        // The held name is shared by the symbols kept and those parsed now.
        let (repo_name, held) = match inner.read().get_key_value(repo) {
            Some((name, held)) => (name.clone(), Some(held.clone())),
            None => (Arc::<str>::from(repo), None),
        };
        let base = lock(&inner.bases).get(repo).cloned();
        let outcomes = parallel::parallel_map_on(inner.threads, files, Source::size, |f| {
            if cancel.is_cancelled() {
                return (None, Outcome::Skipped);
            }
            outcome(&repo_name, [held.as_deref(), base.as_deref()], f)
        });
        cancel.check()?;
        let mut summary = IndexSummary::default();
        let mut repos = inner.write();
        let before = repos.get(repo).cloned();
        let mut next = match (mode, &before) {
            (Mode::Update, Some(r)) => Repo::clone(r),
            _ => Repo::default(),
        };
        for (f, (path, outcome)) in files.iter().zip(outcomes) {
            let path = path.unwrap_or_else(|| Arc::from(f.path()));
            let entry = match outcome {
                Outcome::Skipped => {
                    next.remove(&path);
                    continue;
                }
                Outcome::Kept(e) => e,
                Outcome::Parsed(e) => {
                    summary.parsed += 1;
                    e
                }
            };
            summary.files += 1;
            summary.symbols += entry.symbols.len();
            next.insert(path, entry);
        }
        let changed = !before.as_ref().is_some_and(|r| r.same_as(&next));
        if changed {
            if mode == Mode::Replace {
                let mut bases = lock(&inner.bases);
                match &before {
                    Some(b) => bases.insert(repo_name.clone(), b.clone()),
                    None => bases.remove(repo),
                };
            }
            repos.insert(repo_name.clone(), Arc::new(next));
        }
        drop(repos);
        if changed {
            cache::changed(&self.inner, &repo_name);
        }
        Ok(summary)
    }

    /// Forgets `repo` (and its saved copy); true if it was indexed.
    pub fn remove_repo(&self, repo: &str) -> bool {
        let inner = &*self.inner;
        cache::ensure_loaded(inner);
        let removed = inner.write().remove_entry(repo);
        lock(&inner.bases).remove(repo);
        match removed {
            Some((name, _)) => {
                cache::changed(&self.inner, &name);
                true
            }
            None => false,
        }
    }

    /// The indexed repositories and their symbol counts, by name.
    pub fn repos(&self) -> Vec<(String, usize)> {
        cache::ensure_loaded(&self.inner);
        self.inner
            .read()
            .iter()
            .map(|(k, v)| (k.to_string(), v.symbols))
            .collect()
    }

    /// The symbols matching `query`, in a deterministic order: exact (case-insensitive) name
    /// matches first, then by lower-cased name, repository, file, line, column; the page
    /// `offset .. offset + limit` of it.
    pub fn search(&self, query: &Query) -> SearchResult {
        cache::ensure_loaded(&self.inner);
        let snapshot: Vec<(Arc<str>, Arc<Repo>)> = self
            .inner
            .read()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let filters: Option<Vec<String>> = query
            .repos
            .as_ref()
            .map(|r| r.iter().map(|s| s.to_lowercase()).collect());
        let mut searched = 0usize;
        let mut matches: Vec<&Symbol> = Vec::new();
        for (name, repo) in &snapshot {
            if let Some(filters) = &filters {
                let lower = name.to_lowercase();
                if !filters.iter().any(|f| lower.contains(f.as_str())) {
                    continue;
                }
            }
            searched += 1;
            for file in repo.files.values() {
                if query.language.is_some_and(|l| file.lang != l) {
                    continue;
                }
                matches.extend(file.symbols.iter().filter(|s| {
                    query.kind.is_none_or(|k| s.kind == k) && query.name.matches_lower(&s.lower)
                }));
            }
        }
        let exact = query.name.literal_lower();
        let key = |s: &Symbol| exact.as_deref() != Some(s.lower.as_str());
        let order = |a: &&Symbol, b: &&Symbol| {
            key(a)
                .cmp(&key(b))
                .then_with(|| a.lower.cmp(&b.lower))
                .then_with(|| a.repo.cmp(&b.repo))
                .then_with(|| a.file.cmp(&b.file))
                .then_with(|| a.line.cmp(&b.line))
                .then_with(|| a.column.cmp(&b.column))
                .then_with(|| a.name.cmp(&b.name))
                .then_with(|| a.kind.cmp(&b.kind))
                .then_with(|| a.end_line.cmp(&b.end_line))
                .then_with(|| a.scope.cmp(&b.scope))
                .then_with(|| a.signature.cmp(&b.signature))
        };
        let total = matches.len();
        let end = query.offset.saturating_add(query.limit).min(total);
        // Only the first `end` in order matter: select them, then sort those.
        if end < total {
            if end == 0 {
                matches.clear();
            } else {
                matches.select_nth_unstable_by(end - 1, order);
                matches.truncate(end);
            }
        }
        matches.sort_unstable_by(order);
        let start = query.offset.min(matches.len());
        let has_more = end < total;
        SearchResult {
            results: matches[start..].iter().map(|s| (*s).clone()).collect(),
            total_matches: total,
            repos_searched: searched,
            has_more,
            next_offset: has_more.then_some(end),
        }
    }
}

impl Inner {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<Arc<str>, Arc<Repo>>> {
        self.repos
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, BTreeMap<Arc<str>, Arc<Repo>>> {
        self.repos
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Locks `m`, whatever a panicking holder left (every state kept under these locks is
/// consistent between statements).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What becomes of `f` in a call on `repo` (held as `held`): kept, parsed or skipped, and
/// its path (the held key when kept, so that kept files share it). `held` is the repository
/// now and before its last replacement.
fn outcome<S: Source>(
    repo: &Arc<str>,
    held: [Option<&Repo>; 2],
    f: &S,
) -> (Option<Arc<str>>, Outcome) {
    let path = f.path();
    let Some(lang) = Lang::from_path(path) else {
        return (None, Outcome::Skipped);
    };
    let Some(text) = f.text() else {
        return (None, Outcome::Skipped);
    };
    if text.len() > MAX_FILE_BYTES {
        return (None, Outcome::Skipped);
    }
    let hash = xxhash_rust::xxh3::xxh3_128(text.as_bytes());
    for (key, entry) in held
        .into_iter()
        .flatten()
        .filter_map(|r| r.files.get_key_value(path))
    {
        if entry.hash == hash && entry.lang == lang && entry.complete {
            return (Some(key.clone()), Outcome::Kept(entry.clone()));
        }
    }
    let file: Arc<str> = Arc::from(path);
    let defs = syntax::parsed_definitions(&text, lang);
    let complete = defs.is_some();
    let symbols = symbols_of(repo, &file, lang, &text, defs.unwrap_or_default());
    let entry = FileEntry {
        hash,
        lang,
        complete,
        symbols,
    };
    (Some(file), Outcome::Parsed(Arc::new(entry)))
}

//! Symbol search over many repositories: every definition the language registry
//! ([`crate::syntax`]) finds, searchable by wildcard name, kind, language and repository.
//!
//! A [`SymbolIndex`] holds the symbols of any number of repositories, each indexed from files
//! handed in ([`SymbolIndex::index_files`], for callers that receive files from webhooks) or
//! read from a directory ([`SymbolIndex::index_root`], gitignore-aware, through
//! [`fs_scope`](crate::fs_scope)). Indexing a repository replaces what was held for it.
//! [`SymbolIndex::search`] answers in a deterministic order: names equal to the pattern
//! (case-insensitively) first, then by name, repository, file, line and column.
//!
//! Signatures are the definition's declaration line, secrets redacted
//! ([`crate::secrets::redact`]).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, RwLock};

use crate::error::{Error, Result};
use crate::fs_scope::{ReadLimits, Scope};
use crate::syntax::{self, DefKind, Definition, Lang};

mod pattern;
#[cfg(test)]
mod tests;

pub use pattern::Pattern;

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
/// Longest signature kept, in characters.
pub const MAX_SIGNATURE_CHARS: usize = 200;

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
    /// Files of a registry language that were parsed.
    pub files: usize,
    /// Symbols found in them.
    pub symbols: usize,
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
}

/// The answer to a [`Query`].
#[derive(Debug, Clone, Default)]
pub struct SearchResult {
    /// The first `limit` matches, in order.
    pub results: Vec<Symbol>,
    /// All matches.
    pub total_matches: usize,
    /// Repositories searched (those the `repos` filter let through).
    pub repos_searched: usize,
}

/// The symbols of many repositories. Shared freely: reads run in parallel, an indexing call
/// replaces one repository at once.
#[derive(Debug, Default)]
pub struct SymbolIndex {
    repos: RwLock<BTreeMap<Arc<str>, Arc<Vec<Symbol>>>>,
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
    let lines: Vec<&str> = text.split('\n').collect();
    let defs = syntax::definitions(text, lang);
    Some(
        defs.into_iter()
            .filter_map(|d| symbol_of(repo, &file, lang, &lines, d))
            .collect(),
    )
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

/// Each file's symbols (`None` for a file left out), in the order of the files.
type PerFile = Vec<Option<Vec<Symbol>>>;

/// Checks `repo` and `files` and parses the files (on up to `available_parallelism` threads):
/// each file's symbols, or `None` for a file without a grammar or over [`MAX_FILE_BYTES`].
fn parse_files(repo: &str, files: &[SourceFile]) -> Result<(Arc<str>, PerFile)> {
    check_repo(repo)?;
    if files.len() > MAX_FILES {
        return Err(Error::invalid_request(format!(
            "files must hold at most {MAX_FILES} entries"
        )));
    }
    for f in files {
        check_path(&f.path)?;
    }
    let repo_name: Arc<str> = Arc::from(repo);
    let per_file = parallel_map(files, |f| file_symbols(&repo_name, &f.path, &f.content));
    Ok((repo_name, per_file))
}

impl SymbolIndex {
    /// An empty index.
    pub fn new() -> SymbolIndex {
        SymbolIndex::default()
    }

    /// Replaces the symbols of `repo` with those of `files` (files of languages without a
    /// grammar, and files over [`MAX_FILE_BYTES`], are skipped). Files are parsed on up to
    /// `available_parallelism` threads.
    ///
    /// Errors (`invalid_request`): a bad repository name, more than [`MAX_FILES`] files, an
    /// empty or over-long path.
    pub fn index_files(&self, repo: &str, files: &[SourceFile]) -> Result<IndexSummary> {
        let (repo_name, per_file) = parse_files(repo, files)?;
        Ok(self.replace(repo_name, per_file))
    }

    /// Updates `repo` with `files`: the symbols of every file named in `files` are replaced by
    /// those parsed now (a file whose language has no grammar, or over [`MAX_FILE_BYTES`],
    /// ends with none); the repository's other files keep theirs. A repository not indexed yet
    /// starts with `files`. For callers that receive a repository in batches or changed files
    /// from webhooks. The summary counts the files and symbols parsed in this call.
    ///
    /// Errors as [`index_files`](Self::index_files).
    pub fn update_files(&self, repo: &str, files: &[SourceFile]) -> Result<IndexSummary> {
        let (repo_name, per_file) = parse_files(repo, files)?;
        let named: std::collections::HashSet<&str> =
            files.iter().map(|f| f.path.as_str()).collect();
        let mut summary = IndexSummary::default();
        let mut repos = self
            .repos
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut all: Vec<Symbol> = repos
            .get(repo)
            .map(|held| {
                held.iter()
                    .filter(|s| !named.contains(s.file.as_ref()))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        for symbols in per_file.into_iter().flatten() {
            summary.files += 1;
            summary.symbols += symbols.len();
            all.extend(symbols);
        }
        repos.insert(repo_name, Arc::new(all));
        Ok(summary)
    }

    /// Replaces the symbols of `repo` with those of the files under `root` (an absolute
    /// directory): the same gitignore-aware listing as retrieval
    /// ([`crate::retrieve::index::walk::list`]), each file read through [`Scope`].
    ///
    /// Errors (`invalid_request`): a bad repository name; `root` not an absolute, existing
    /// directory.
    pub fn index_root(&self, repo: &str, root: &Path) -> Result<IndexSummary> {
        check_repo(repo)?;
        let scope = Scope::new(root)?;
        let listing = crate::retrieve::index::walk::list(scope.root(), MAX_FILES, &mut None);
        let rels: Vec<&str> = listing
            .files
            .iter()
            .map(|f| f.rel.as_str())
            .filter(|rel| Lang::from_path(rel).is_some())
            .collect();
        let repo_name: Arc<str> = Arc::from(repo);
        let limits = ReadLimits {
            max_bytes: MAX_FILE_BYTES as u64,
            max_line_chars: 0,
            allow_binary: false,
        };
        let per_file = parallel_map(&rels, |rel| {
            let file = scope.read_text(rel, &limits).ok()?;
            file_symbols(&repo_name, rel, &file.text)
        });
        Ok(self.replace(repo_name, per_file))
    }

    fn replace(&self, repo: Arc<str>, per_file: PerFile) -> IndexSummary {
        let mut summary = IndexSummary::default();
        let mut all = Vec::new();
        for symbols in per_file.into_iter().flatten() {
            summary.files += 1;
            summary.symbols += symbols.len();
            all.extend(symbols);
        }
        let mut repos = self
            .repos
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        repos.insert(repo, Arc::new(all));
        summary
    }

    /// Forgets `repo`; true if it was indexed.
    pub fn remove_repo(&self, repo: &str) -> bool {
        let mut repos = self
            .repos
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        repos.remove(repo).is_some()
    }

    /// The indexed repositories and their symbol counts, by name.
    pub fn repos(&self) -> Vec<(String, usize)> {
        let repos = self
            .repos
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        repos
            .iter()
            .map(|(k, v)| (k.to_string(), v.len()))
            .collect()
    }

    /// The symbols matching `query`, in a deterministic order: exact (case-insensitive) name
    /// matches first, then by lower-cased name, repository, file, line, column.
    pub fn search(&self, query: &Query) -> SearchResult {
        let snapshot: Vec<(Arc<str>, Arc<Vec<Symbol>>)> = {
            let repos = self
                .repos
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            repos.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
        };
        let filters: Option<Vec<String>> = query
            .repos
            .as_ref()
            .map(|r| r.iter().map(|s| s.to_lowercase()).collect());
        let mut searched = 0usize;
        let mut matches: Vec<&Symbol> = Vec::new();
        for (name, symbols) in &snapshot {
            if let Some(filters) = &filters {
                let lower = name.to_lowercase();
                if !filters.iter().any(|f| lower.contains(f.as_str())) {
                    continue;
                }
            }
            searched += 1;
            matches.extend(symbols.iter().filter(|s| {
                query.kind.is_none_or(|k| s.kind == k)
                    && query.language.is_none_or(|l| s.language == l)
                    && query.name.matches_lower(&s.lower)
            }));
        }
        let exact = query.name.literal_lower();
        let key = |s: &Symbol| exact.as_deref() != Some(s.lower.as_str());
        matches.sort_by(|a, b| {
            key(a)
                .cmp(&key(b))
                .then_with(|| a.lower.cmp(&b.lower))
                .then_with(|| a.repo.cmp(&b.repo))
                .then_with(|| a.file.cmp(&b.file))
                .then_with(|| a.line.cmp(&b.line))
                .then_with(|| a.column.cmp(&b.column))
                .then_with(|| a.name.cmp(&b.name))
                .then_with(|| a.kind.cmp(&b.kind))
        });
        SearchResult {
            total_matches: matches.len(),
            results: matches.into_iter().take(query.limit).cloned().collect(),
            repos_searched: searched,
        }
    }
}

fn check_path(path: &str) -> Result<()> {
    if path.is_empty() || path.len() > MAX_NAME_BYTES || path.contains('\0') {
        return Err(Error::invalid_request(
            "each file path must be 1 to 4096 bytes without NUL",
        ));
    }
    Ok(())
}

/// `f` over `items` on up to `available_parallelism` threads, results in input order.
pub(crate) fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(8);
    if threads <= 1 || items.len() < 8 {
        return items.iter().map(&f).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut parts: Vec<Vec<(usize, R)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        out.push((i, f(item)));
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut all: Vec<(usize, R)> = parts.drain(..).flatten().collect();
    all.sort_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, r)| r).collect()
}

//! Listing the files of a root worth indexing.
//!
//! The walk uses the `ignore` crate, so `.gitignore`, `.ignore` and `.git/info/exclude` are
//! honoured (also outside a git repository) and hidden files are skipped. It never follows a
//! symbolic link: a link to a file or directory inside the root is content already listed at
//! its real place, and a link leading outside the root must not be read at all. Files are
//! only listed here; reading them goes through [`fs_scope`](crate::fs_scope).
//!
//! Skipped without reading: vendored and build directories, lock files, minified and
//! generated files, files over the size cap, and binary formats by extension.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::gitignore::GitignoreBuilder;
use ignore::WalkBuilder;

use super::watch::{add_or_give_up, DirWatch};

/// Largest file indexed, in bytes. Larger files are data or generated code.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Directories never indexed, wherever they are.
const SKIPPED_DIRS: &[&str] = &[
    "node_modules",
    "bower_components",
    "vendor",
    "third_party",
    "dist",
    "build",
    "out",
    "target",
    "coverage",
    "__pycache__",
    "site-packages",
    "venv",
    "Pods",
    "DerivedData",
];

/// File names never indexed.
const SKIPPED_NAMES: &[&str] = &[
    "package-lock.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lockb",
    "Cargo.lock",
    "poetry.lock",
    "Pipfile.lock",
    "uv.lock",
    "Gemfile.lock",
    "composer.lock",
    "go.sum",
    "flake.lock",
    "deno.lock",
];

/// Extensions of binary or bulky formats, never indexed.
const SKIPPED_EXTENSIONS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "bmp", "ico", "webp", "svg", "pdf", "zip", "gz", "tgz", "bz2",
    "xz", "7z", "rar", "jar", "war", "class", "so", "dylib", "dll", "exe", "o", "a", "lib", "wasm",
    "node", "pyc", "pyo", "woff", "woff2", "ttf", "otf", "eot", "mp3", "mp4", "mov", "avi", "webm",
    "wav", "ogg", "flac", "psd", "sqlite", "db", "bin", "dat", "map", "snap", "lock", "min.js",
    "min.css", "pb", "parquet", "npy", "pkl", "onnx", "pt",
];

/// One listed file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Path relative to the root, `'/'`-separated.
    pub rel: String,
    /// What identifies this version of the file without reading it.
    pub stamp: Stamp,
}

pub use crate::stamp::Stamp;

/// True if a file with this relative path is skipped by name alone.
pub fn skipped_by_name(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if SKIPPED_NAMES.contains(&name) {
        return true;
    }
    let lower = name.to_ascii_lowercase();
    if SKIPPED_EXTENSIONS.iter().any(|ext| {
        lower.len() > ext.len() + 1
            && lower.ends_with(ext)
            && lower.as_bytes()[lower.len() - ext.len() - 1] == b'.'
    }) {
        return true;
    }
    // Generated code by naming convention.
    lower.ends_with(".min.js")
        || lower.ends_with("_pb2.py")
        || lower.ends_with(".pb.go")
        || lower.ends_with(".generated.ts")
        || lower.ends_with(".g.dart")
        || lower.ends_with(".d.ts.map")
}

/// A directory seen by the walk and the ignore files in it, with their stamps: while none of
/// them changes, no file was added, deleted or renamed in the directory and the ignore rules
/// are the same, so an update only needs to stat the files already known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchedDir {
    /// Absolute path.
    pub path: PathBuf,
    /// The directory's stamp.
    pub stamp: Stamp,
    /// `.gitignore` / `.ignore` files in it and their stamps.
    pub ignore_files: Vec<(PathBuf, Stamp)>,
}

/// What a walk found.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    /// Indexable files, sorted by path, at most the cap.
    pub files: Vec<Listed>,
    /// Files over [`MAX_FILE_BYTES`], listed but not to be read.
    pub too_large: Vec<Listed>,
    /// Files beyond the cap (the last ones in path order).
    pub over_limit: usize,
    /// Entries (files or directories, a directory counted once) hidden by ignore rules.
    pub ignored: usize,
    /// What the caller should be told (for example that ignore rules hide the whole root).
    pub warnings: Vec<String>,
    /// Every directory descended into.
    pub dirs: Vec<WatchedDir>,
}

/// The stamp of `path` without following a final symlink, if it exists.
pub fn stamp_of(path: &Path) -> Option<Stamp> {
    Stamp::of_link(path)
}

fn watched(path: &Path, metadata: &std::fs::Metadata) -> WatchedDir {
    let ignore_files = [".gitignore", ".ignore"]
        .iter()
        .filter_map(|n| {
            let p = path.join(n);
            stamp_of(&p).map(|s| (p, s))
        })
        .collect();
    WatchedDir {
        path: path.to_path_buf(),
        stamp: Stamp::of(metadata),
        ignore_files,
    }
}

/// True for the files whose change alters the ignore rules (a full walk follows).
pub fn is_ignore_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name == ".gitignore" || name == ".ignore" || rel == ".git/info/exclude"
}

/// True if no component of `rel` is hidden or a directory that is never indexed, i.e. the
/// walk could list it (ignore rules aside).
pub fn may_list(rel: &str) -> bool {
    let mut parts = rel.split('/').peekable();
    while let Some(p) = parts.next() {
        if p.starts_with('.') {
            return false;
        }
        if parts.peek().is_some() && SKIPPED_DIRS.contains(&p) {
            return false;
        }
    }
    true
}

/// Which directories a partial walk lists: the files directly in `shallow` ones and
/// everything under `deep` ones (relative, `'/'`-separated; `""` is the root).
#[derive(Debug, Clone, Default)]
pub struct Targets {
    /// Directories whose own entries changed.
    pub shallow: BTreeSet<String>,
    /// Directories created or deleted: their whole subtree.
    pub deep: BTreeSet<String>,
}

impl Targets {
    /// True if the file `rel` is in the part of the tree these targets list.
    pub fn covers_file(&self, rel: &str) -> bool {
        let parent = rel.rsplit_once('/').map_or("", |(p, _)| p);
        self.shallow.contains(parent) || self.deep.iter().any(|d| is_under(rel, d))
    }

    /// True if the walk must descend into the directory `rel`.
    fn descends(&self, rel: &str) -> bool {
        let all = self.shallow.iter().chain(self.deep.iter());
        self.deep.iter().any(|d| is_under(rel, d) || rel == d)
            || self.shallow.contains(rel)
            || all.into_iter().any(|t| is_under(t, rel))
    }
}

/// True if `rel` is strictly below the directory `dir`.
pub fn is_under(rel: &str, dir: &str) -> bool {
    dir.is_empty() && !rel.is_empty()
        || rel.len() > dir.len() && rel.starts_with(dir) && rel.as_bytes()[dir.len()] == b'/'
}

/// Lists the indexable files under `root` (canonical), sorted by path, at most `max_files`,
/// and the directories walked; each directory reached is added to `watch` before its entries
/// are read. Unreadable directories and entries are skipped.
pub(crate) fn list(root: &Path, max_files: usize, watch: &mut Option<DirWatch>) -> Listing {
    walk(root, max_files, None, watch)
}

/// Lists only the part of the tree `targets` names (same rules, same order, no cap).
pub(crate) fn list_targets(
    root: &Path,
    targets: &Targets,
    watch: &mut Option<DirWatch>,
) -> Listing {
    walk(root, usize::MAX, Some(Arc::new(targets.clone())), watch)
}

/// Lists the whole tree like [`list`], in the same order, on the calling thread, and hands each
/// indexable file (at most `max_files`; the rest are counted as over the cap) to `found` as soon
/// as the walk reaches it, so that reading can start before the walk ends. The walk is
/// sequential with each directory's entries in [`path_order`], so files arrive in the order
/// [`list`] sorts them into: a build fed this way numbers its files as one fed by [`list`].
/// `found` returns false to stop the walk (cancelled); the listing then is partial. The
/// returned listing's `files` is empty.
pub(crate) fn list_streaming(
    root: &Path,
    max_files: usize,
    watch: &mut Option<DirWatch>,
    mut found: impl FnMut(Listed) -> bool,
) -> Listing {
    let mut builder = ignore_aware(root);
    builder
        .filter_entry(|e| keep_dir(e, None, None))
        .sort_by_file_path(path_order);
    let shared = Mutex::new(watch.take());
    let mut part = Partial::default();
    let (mut kept, mut over_limit) = (0usize, 0usize);
    let mut open = true;
    for entry in builder.build().flatten() {
        visit(&entry, root, None, &mut part, &shared);
        if let Some(l) = part.files.pop() {
            if kept < max_files {
                kept += 1;
                if !found(l) {
                    open = false;
                    break;
                }
            } else {
                over_limit += 1;
            }
        }
    }
    *watch = shared
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut out = Listing {
        too_large: part.too_large,
        dirs: part.dirs,
        over_limit,
        ..Listing::default()
    };
    out.too_large.sort_by(|a, b| a.rel.cmp(&b.rel));
    out.dirs.sort_by(|a, b| a.path.cmp(&b.path));
    if open {
        count_ignored(root, &part.yielded, kept, &mut out);
    }
    out
}

/// The order of two entries of one directory that makes a walk visiting each directory's
/// entries in it (and descending into a directory where it meets it) reach files in the order
/// of their `'/'`-separated relative paths: by name, a directory's name taken as ending with
/// `'/'`. That differs from plain name order only where one name begins with the other and goes
/// on with a byte below `'/'` (`foo` and `foo.c`): the shorter one's type is then looked up.
fn path_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (Some(x), Some(y)) = (
        a.file_name().and_then(|n| n.to_str()),
        b.file_name().and_then(|n| n.to_str()),
    ) else {
        return a.cmp(b);
    };
    let (x, y) = (x.as_bytes(), y.as_bytes());
    let n = x.len().min(y.len());
    match x[..n].cmp(&y[..n]) {
        Ordering::Equal if x.len() == y.len() => Ordering::Equal,
        Ordering::Equal => {
            let (short, long_byte) = if x.len() < y.len() {
                (a, y[n])
            } else {
                (b, x[n])
            };
            // The shorter comes first unless it is a directory and the longer goes on with a
            // byte that sorts before its `'/'`.
            let short_first = long_byte > b'/'
                || !std::fs::symlink_metadata(short).is_ok_and(|m| m.file_type().is_dir());
            if short_first == (x.len() < y.len()) {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
        o => o,
    }
}

/// Whether the walk descends into the entry `e` (anything but a directory: yes): not into a
/// directory never indexed, and for a partial walk only toward its targets.
fn keep_dir(e: &ignore::DirEntry, root: Option<&Path>, targets: Option<&Targets>) -> bool {
    let is_dir = e.file_type().is_some_and(|t| t.is_dir());
    if !is_dir || e.depth() == 0 {
        return true;
    }
    if e.file_name()
        .to_str()
        .is_some_and(|n| SKIPPED_DIRS.contains(&n))
    {
        return false;
    }
    match (root, targets) {
        (Some(root), Some(t)) => e
            .path()
            .strip_prefix(root)
            .ok()
            .and_then(rel_string)
            .is_some_and(|rel| t.descends(&rel)),
        _ => true,
    }
}

/// What one walker thread collected.
#[derive(Default)]
struct Partial {
    files: Vec<Listed>,
    too_large: Vec<Listed>,
    dirs: Vec<WatchedDir>,
    /// Entries the walk yielded per directory, to count what ignore rules hid.
    yielded: rustc_hash::FxHashMap<PathBuf, usize>,
}

/// Looks at one entry of the walk.
fn visit(
    entry: &ignore::DirEntry,
    root: &Path,
    targets: Option<&Targets>,
    part: &mut Partial,
    watch: &Mutex<Option<DirWatch>>,
) {
    if targets.is_none() && entry.depth() > 0 {
        if let Some(parent) = entry.path().parent() {
            // Most entries' directory is counted already: no key to allocate.
            match part.yielded.get_mut(parent) {
                Some(n) => *n += 1,
                None => {
                    part.yielded.insert(parent.to_path_buf(), 1);
                }
            }
        }
    }
    if entry.file_type().is_some_and(|t| t.is_dir()) {
        add_or_give_up(
            &mut watch
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
            entry.path(),
        );
        if let Ok(metadata) = entry.metadata() {
            part.dirs.push(watched(entry.path(), &metadata));
        }
        return;
    }
    if !entry.file_type().is_some_and(|t| t.is_file()) {
        return;
    }
    let Some(rel) = entry.path().strip_prefix(root).ok().and_then(rel_string) else {
        return;
    };
    if skipped_by_name(&rel) || targets.is_some_and(|t| !t.covers_file(&rel)) {
        return;
    }
    let Ok(metadata) = entry.metadata() else {
        return;
    };
    let listed = Listed {
        rel,
        stamp: Stamp::of(&metadata),
    };
    match verdict(metadata.len()) {
        Verdict::Index => part.files.push(listed),
        Verdict::TooLarge => part.too_large.push(listed),
        Verdict::Empty => {}
    }
}

/// The parallel walk's per-thread visitor: hands its [`Partial`] over when the walk ends.
struct Visitor<'s> {
    root: &'s Path,
    part: Partial,
    watch: &'s Mutex<Option<DirWatch>>,
    done: &'s Mutex<Vec<Partial>>,
}

impl ignore::ParallelVisitor for Visitor<'_> {
    fn visit(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) -> ignore::WalkState {
        if let Ok(entry) = entry {
            visit(&entry, self.root, None, &mut self.part, self.watch);
        }
        ignore::WalkState::Continue
    }
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        let part = std::mem::take(&mut self.part);
        self.done
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(part);
    }
}

struct Visitors<'s> {
    root: &'s Path,
    watch: &'s Mutex<Option<DirWatch>>,
    done: &'s Mutex<Vec<Partial>>,
}

impl<'s> ignore::ParallelVisitorBuilder<'s> for Visitors<'s> {
    fn build(&mut self) -> Box<dyn ignore::ParallelVisitor + 's> {
        Box::new(Visitor {
            root: self.root,
            part: Partial::default(),
            watch: self.watch,
            done: self.done,
        })
    }
}

/// A walk of `root` by the engine's one set of rules: `.gitignore`, `.ignore` and
/// `.git/info/exclude` honoured (also outside a git repository, never the user's global
/// excludes or files above `root`), hidden entries left out, symbolic links not followed.
/// Retrieval and `dirContext` both walk this way.
pub(crate) fn ignore_aware(root: &Path) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .follow_links(false)
        .hidden(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .ignore(true)
        .parents(false)
        .require_git(false);
    builder
}

#[allow(clippy::needless_pass_by_value, clippy::single_match_else)]
fn walk(
    root: &Path,
    max_files: usize,
    targets: Option<Arc<Targets>>,
    watch: &mut Option<DirWatch>,
) -> Listing {
    let filter_root = root.to_path_buf();
    let filter_targets = targets.clone();
    let mut builder = ignore_aware(root);
    builder.filter_entry(move |e| keep_dir(e, Some(&filter_root), filter_targets.as_deref()));
    let shared = Mutex::new(watch.take());
    let mut parts: Vec<Partial> = Vec::new();
    match &targets {
        // A partial walk is a few directories: one thread.
        Some(t) => {
            let mut part = Partial::default();
            for entry in builder.build().flatten() {
                visit(&entry, root, Some(t), &mut part, &shared);
            }
            parts.push(part);
        }
        // The whole tree: one walker thread per core.
        None => {
            let threads = std::thread::available_parallelism()
                .map_or(2, std::num::NonZero::get)
                .clamp(1, 8);
            let done = Mutex::new(Vec::new());
            builder
                .threads(threads)
                .build_parallel()
                .visit(&mut Visitors {
                    root,
                    watch: &shared,
                    done: &done,
                });
            parts = done
                .into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }
    *watch = shared
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut out = Listing::default();
    let mut yielded: rustc_hash::FxHashMap<PathBuf, usize> = rustc_hash::FxHashMap::default();
    for p in parts {
        out.files.extend(p.files);
        out.too_large.extend(p.too_large);
        out.dirs.extend(p.dirs);
        for (k, v) in p.yielded {
            *yielded.entry(k).or_default() += v;
        }
    }
    out.files.sort_by(|a, b| a.rel.cmp(&b.rel));
    out.too_large.sort_by(|a, b| a.rel.cmp(&b.rel));
    out.dirs.sort_by(|a, b| a.path.cmp(&b.path));
    if out.files.len() > max_files {
        out.over_limit = out.files.len() - max_files;
        out.files.truncate(max_files);
    }
    if targets.is_none() {
        count_ignored(root, &yielded, out.files.len(), &mut out);
    }
    out
}

/// What a file's size says about indexing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Worth reading.
    Index,
    /// Over [`MAX_FILE_BYTES`].
    TooLarge,
    /// Empty: nothing to index.
    Empty,
}

/// The verdict for a file of `size` bytes.
pub fn verdict(size: u64) -> Verdict {
    if size == 0 {
        Verdict::Empty
    } else if size > MAX_FILE_BYTES {
        Verdict::TooLarge
    } else {
        Verdict::Index
    }
}

/// Counts the entries ignore rules hid (each walked directory's visible entries the walk did
/// not yield), and warns when they are all or nearly all of the root's.
fn count_ignored(
    root: &Path,
    yielded: &rustc_hash::FxHashMap<PathBuf, usize>,
    listed: usize,
    out: &mut Listing,
) {
    let mut root_hidden: Vec<(PathBuf, bool)> = Vec::new();
    let mut root_visible = 0usize;
    for d in &out.dirs {
        let at_root = d.path == root;
        let Ok(entries) = std::fs::read_dir(&d.path) else {
            continue;
        };
        let mut visible = 0usize;
        let mut names: Vec<(PathBuf, bool)> = Vec::new();
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(name) = name.to_str() else { continue };
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            if name.starts_with('.') || is_dir && SKIPPED_DIRS.contains(&name) {
                continue;
            }
            visible += 1;
            if at_root {
                names.push((e.path(), is_dir));
            }
        }
        let seen = yielded.get(&d.path).copied().unwrap_or(0);
        out.ignored += visible.saturating_sub(seen);
        if at_root {
            root_visible = visible;
            root_hidden = names;
        }
    }
    let root_seen = yielded.get(root).copied().unwrap_or(0);
    let hidden = root_visible.saturating_sub(root_seen);
    if hidden == 0 || hidden * 10 < root_visible * 9 {
        return;
    }
    let mut rule = String::new();
    if let Some(found) = hiding_rule(root, &root_hidden) {
        rule = format!(" (rule `{}` at {})", found.0, found.1);
    }
    out.warnings.push(format!(
        "ignore rules hide {hidden} of the {root_visible} entries at the top of the root{rule}; \
         the index holds {listed} files"
    ));
}

/// The rule (pattern and `file:line`, relative to the root) that ignores most of `entries`.
fn hiding_rule(root: &Path, entries: &[(PathBuf, bool)]) -> Option<(String, String)> {
    let mut builder = GitignoreBuilder::new(root);
    for f in [".gitignore", ".ignore", ".git/info/exclude"] {
        let p = root.join(f);
        if p.is_file() {
            builder.add(&p);
        }
    }
    let matcher = builder.build().ok()?;
    let mut counts: Vec<((String, PathBuf), usize)> = Vec::new();
    for (p, is_dir) in entries {
        if let ignore::Match::Ignore(glob) = matcher.matched(p, *is_dir) {
            let key = (
                glob.original().to_owned(),
                glob.from().map(Path::to_path_buf).unwrap_or_default(),
            );
            match counts.iter_mut().find(|(k, _)| *k == key) {
                Some((_, n)) => *n += 1,
                None => counts.push((key, 1)),
            }
        }
    }
    let ((pattern, file), _) = counts.into_iter().max_by_key(|(_, n)| *n)?;
    let rel = file
        .strip_prefix(root)
        .ok()
        .and_then(rel_string)
        .unwrap_or_else(|| ".gitignore".into());
    let line = std::fs::read_to_string(&file)
        .ok()
        .and_then(|text| text.lines().position(|l| l.trim() == pattern))
        .map_or(String::new(), |i| format!(":{}", i + 1));
    Some((pattern, format!("{rel}{line}")))
}

/// The `'/'`-separated relative path of `rest`, `None` if it is empty or not plain UTF-8.
pub fn rel_string(rest: &Path) -> Option<String> {
    let mut rel = String::new();
    for c in rest.components() {
        let std::path::Component::Normal(s) = c else {
            return None;
        };
        if !rel.is_empty() {
            rel.push('/');
        }
        rel.push_str(s.to_str()?);
    }
    (!rel.is_empty()).then_some(rel)
}

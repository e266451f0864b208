//! Long-lived state of the engine, shared by the capabilities that keep any, and the limits a
//! host sets on it.
//!
//! An [`Engine`] holds what is expensive to rebuild: retrieval indexes, the file cache, HTTP
//! clients. JavaScript callers get one through the `ContextEngine` class, or use the
//! module-level functions, which delegate to one process-wide default engine
//! ([`Engine::global`]). Tests build their own engines so that state never leaks between them.
//!
//! Each capability that keeps state adds one field here, with its own interior locking, so an
//! `Engine` is always shared as `Arc<Engine>` across threads.
//!
//! # Limits
//! A host that runs the engine on input it does not control (an Electron app's main process,
//! an MCP server) sets [`EngineOptions::allowed_roots`] (every root or workspace an operation
//! of the engine touches must lie inside one of them, else `invalid_request` with reason
//! `outside_allowed_roots`) and [`EngineOptions::timeout`] (every operation ends within it,
//! with `timeout`). The operations below ([`Engine::retrieve`], [`Engine::prepare_index`],
//! [`Engine::expand`]...) apply both; the N-API layer calls them, never the capabilities'
//! fields directly.
//!
//! # Cancellation
//! Each operation takes a [`Cancel`] (see [`crate::cancel`]); [`Engine::deadline`] adds the
//! engine's timeout to it.

use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::cancel::Cancel;
use crate::error::{reason, Error, Result};
use crate::expand::{ExpandOptions, Expansion, TextChunk};
use crate::retrieve::{IndexStatus, Request, Snippet, SnippetOptions};

/// Options of a new engine; each capability adds its settings here, with defaults.
#[derive(Debug, Clone, Default)]
pub struct EngineOptions {
    /// Settings of retrieval (roots kept, files per root).
    pub retrieval: crate::retrieve::RetrievalOptions,
    /// Limits of the expansion file cache ([`crate::expand::CacheConfig`]).
    pub file_cache: crate::expand::CacheConfig,
    /// Watch every workspace expanded in for changes (see [`crate::expand::Watches`]).
    /// Default false.
    pub watch_workspaces: bool,
    /// Directories every root and workspace of an operation must lie in (after following
    /// symlinks). Empty (the default): no restriction. Set with
    /// [`EngineOptions::set_allowed_roots`], which checks and canonicalizes them.
    pub allowed_roots: Vec<PathBuf>,
    /// Deadline of each operation, from its start. Default: none.
    pub timeout: Option<Duration>,
}

/// Most `allowedRoots` entries.
pub const MAX_ALLOWED_ROOTS: usize = 1024;

impl EngineOptions {
    /// Sets [`allowed_roots`](Self::allowed_roots): each must be an absolute path of an
    /// existing directory; it is stored canonical (symlinks followed), so a root reached
    /// through a symlink is compared by where it really is. `invalid_request` otherwise (the
    /// message names the entry's index, never the path).
    pub fn set_allowed_roots<P: AsRef<Path>>(&mut self, roots: &[P]) -> Result<()> {
        if roots.len() > MAX_ALLOWED_ROOTS {
            return Err(Error::invalid_request(format!(
                "allowedRoots has too many entries (at most {MAX_ALLOWED_ROOTS})"
            ))
            .with_reason(reason::INVALID_ARGUMENT));
        }
        let mut out = Vec::with_capacity(roots.len());
        for (i, root) in roots.iter().enumerate() {
            let root = root.as_ref();
            let bad = |what: &str| {
                Error::invalid_request(format!("allowedRoots[{i}] {what}"))
                    .with_reason(reason::INVALID_PATH)
            };
            if root.as_os_str().is_empty() || !root.is_absolute() {
                return Err(bad("must be an absolute path"));
            }
            let canonical = std::fs::canonicalize(root)
                .map_err(|e| bad("does not exist or is not accessible").with_source(e))?;
            if !canonical.is_dir() {
                return Err(bad("is not a directory").with_reason(reason::NOT_A_DIRECTORY));
            }
            out.push(canonical);
        }
        self.allowed_roots = out;
        Ok(())
    }
}

/// The engine's long-lived state.
#[derive(Debug, Default)]
pub struct Engine {
    options: EngineOptions,
    /// Retrieval indexes, one per root, least recently used evicted.
    pub retrieval: crate::retrieve::Retrieval,
    /// The file cache of expansion.
    pub files: crate::expand::FileCache,
}

impl Engine {
    /// A new engine with the given options.
    pub fn new(options: EngineOptions) -> Self {
        Engine {
            retrieval: crate::retrieve::Retrieval::new(options.retrieval.clone()),
            files: crate::expand::FileCache::new(options.file_cache.clone()),
            options,
        }
    }

    /// The options this engine was built with.
    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// The process-wide default engine behind the module-level functions.
    pub fn global() -> Arc<Engine> {
        static GLOBAL: OnceLock<Arc<Engine>> = OnceLock::new();
        GLOBAL
            .get_or_init(|| {
                let mut options = EngineOptions::default();
                // The default engine saves retrieval indexes only when asked to by the
                // environment; a relative or empty value is ignored.
                options.retrieval.cache_dir = std::env::var_os("CONTEXT_ENGINE_INDEX_CACHE_DIR")
                    .map(std::path::PathBuf::from)
                    .filter(|p| p.is_absolute());
                Arc::new(Engine::new(options))
            })
            .clone()
    }

    /// A [`Cancel`] for one operation: `cancel`'s flag with this engine's deadline.
    pub fn deadline(&self, cancel: &Cancel) -> Cancel {
        cancel.clone().with_timeout(self.options.timeout)
    }

    /// Checks that `path` (a root or workspace argument, named `name` in the message) lies
    /// inside one of the engine's `allowed_roots` (always true when there are none). The path
    /// is compared after following symlinks when it exists, lexically otherwise. The message
    /// never repeats the path.
    pub fn check_root(&self, path: &Path, name: &str) -> Result<()> {
        if self.options.allowed_roots.is_empty() {
            return Ok(());
        }
        let outside = || {
            Error::invalid_request(format!("{name} is outside the engine's allowedRoots"))
                .with_reason(reason::OUTSIDE_ALLOWED_ROOTS)
        };
        if !path.is_absolute() {
            return Err(outside());
        }
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| lexical(path));
        if self
            .options
            .allowed_roots
            .iter()
            .any(|allowed| real.starts_with(allowed))
        {
            Ok(())
        } else {
            Err(outside())
        }
    }

    /// Retrieval ([`crate::retrieve::Retrieval::retrieve`]) within the engine's limits.
    pub fn retrieve(&self, request: &Request, cancel: &Cancel) -> Result<Vec<Snippet>> {
        self.retrieve_with(request, &SnippetOptions::default(), cancel)
    }

    /// [`Engine::retrieve`] with the snippets shaped by `options` (explained, or not
    /// redacted).
    pub fn retrieve_with(
        &self,
        request: &Request,
        options: &SnippetOptions,
        cancel: &Cancel,
    ) -> Result<Vec<Snippet>> {
        self.check_root(Path::new(&request.root), "rootPath")?;
        let cancel = self.deadline(cancel);
        cancel.check()?;
        self.retrieval
            .retrieve_cancellable(request, options, &cancel)
    }

    /// Retrieval over several roots ranked as one
    /// ([`crate::retrieve::Retrieval::retrieve_roots`]) within the engine's limits: every root
    /// must lie in the engine's `allowed_roots`.
    pub fn retrieve_roots(
        &self,
        request: &crate::retrieve::RootsRequest,
        options: &SnippetOptions,
        cancel: &Cancel,
    ) -> Result<Vec<crate::retrieve::RootSnippet>> {
        // The list's own checks (count, each a directory) first, then each against
        // `allowed_roots`.
        crate::retrieve::check_roots(&request.roots)?;
        for (i, root) in request.roots.iter().enumerate() {
            self.check_root(Path::new(root), &format!("rootPaths[{i}]"))?;
        }
        let cancel = self.deadline(cancel);
        cancel.check()?;
        self.retrieval.retrieve_roots(request, options, &cancel)
    }

    /// Indexes `root` (or brings its index up to date) within the engine's limits, returning
    /// the index status. An aborted first build leaves the root `absent`.
    pub fn prepare_index(&self, root: &str, cancel: &Cancel) -> Result<IndexStatus> {
        self.check_root(Path::new(root), "rootPath")?;
        let cancel = self.deadline(cancel);
        cancel.check()?;
        self.retrieval.prepare_cancellable(root, &cancel)?;
        self.retrieval.status(root)
    }

    /// The files of `root` most central first, with roles, and its folders
    /// ([`crate::retrieve::Retrieval::file_ranks`]), within the engine's limits.
    pub fn file_ranks(
        &self,
        root: &str,
        options: &crate::retrieve::FileRankOptions,
        cancel: &Cancel,
    ) -> Result<crate::retrieve::FileRanks> {
        self.check_root(Path::new(root), "rootPath")?;
        let cancel = self.deadline(cancel);
        cancel.check()?;
        self.retrieval.file_ranks(root, options, &cancel)
    }

    /// The status of `root`'s index (see [`crate::retrieve::Retrieval::status`]).
    pub fn index_status(&self, root: &str) -> Result<IndexStatus> {
        self.check_root(Path::new(root), "rootPath")?;
        self.retrieval.status(root)
    }

    /// Drops `root`'s index; whether one was kept.
    pub fn evict(&self, root: &str) -> Result<bool> {
        self.check_root(Path::new(root), "rootPath")?;
        self.retrieval.evict(root)
    }

    /// Expansion ([`crate::expand::expand`]) on this engine's file cache, within its limits;
    /// watches the workspace first when the engine was built with `watch_workspaces` (best
    /// effort: a workspace that cannot be watched is still served, and revalidated).
    pub fn expand(
        &self,
        workspace: &str,
        chunk: &TextChunk,
        context_lines: i64,
        options: &ExpandOptions,
    ) -> Result<Expansion> {
        self.check_root(Path::new(workspace), "workspacePath")?;
        if self.options.watch_workspaces && context_lines > 0 {
            if let Ok(scope) = crate::fs_scope::Scope::new(workspace) {
                let _ = self.files.watches().watch(scope.root());
            }
        }
        Ok(crate::expand::expand(
            &self.files,
            workspace,
            chunk,
            context_lines,
            options,
        ))
    }

    /// Watches `workspace` for changes that drop cached files; false if already watched.
    pub fn watch_workspace(&self, workspace: &str) -> Result<bool> {
        self.check_root(Path::new(workspace), "workspacePath")?;
        let scope = crate::fs_scope::Scope::new(workspace)?;
        self.files.watches().watch(scope.root())
    }

    /// Stops watching `workspace` (given as watched, or by any path to the same directory).
    pub fn unwatch_workspace(&self, workspace: &str) -> Result<bool> {
        self.check_root(Path::new(workspace), "workspacePath")?;
        let watches = self.files.watches();
        if watches.unwatch(Path::new(workspace)) {
            return Ok(true);
        }
        Ok(std::fs::canonicalize(workspace).is_ok_and(|c| watches.unwatch(&c)))
    }
}

/// `path` with `.` and `..` components resolved without touching the file system.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;
    use std::time::Instant;

    #[test]
    fn lexical_removes_dot_and_dot_dot_without_leaving_the_root_component() {
        assert_eq!(lexical(Path::new("/a/./b/../c")), Path::new("/a/c"));
        assert_eq!(lexical(Path::new("/a/../../..")), Path::new("/"));
        // On Unix a backslash is part of a name, so `..\` is no parent component.
        if cfg!(unix) {
            assert_eq!(lexical(Path::new(r"/a/..\b")), Path::new(r"/a/..\b"));
        }
    }

    /// `allowedRoots` on Windows: the drive stays, `..` never climbs above it, and `\`
    /// separates as `/` does.
    #[cfg(windows)]
    #[test]
    fn lexical_keeps_windows_prefixes() {
        assert_eq!(lexical(Path::new(r"C:\a\..\..\b")), Path::new(r"C:\b"));
        assert_eq!(lexical(Path::new(r"C:/a/./b\..\c")), Path::new(r"C:\a\c"));
        assert_eq!(
            lexical(Path::new(r"\\server\share\a\..\..\x")),
            Path::new(r"\\server\share\x")
        );
    }

    #[test]
    fn global_engine_is_one_instance() {
        assert!(Arc::ptr_eq(&Engine::global(), &Engine::global()));
    }

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "ce-engine-{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn limited(allowed: &Path) -> Engine {
        let mut options = EngineOptions::default();
        options.set_allowed_roots(&[allowed]).unwrap();
        Engine::new(options)
    }

    fn request(root: &Path) -> Request {
        Request {
            prompt: "hello".into(),
            root: root.to_string_lossy().into_owned(),
            limit: 5,
        }
    }

    #[test]
    fn allowed_roots_admit_inside_and_refuse_outside() {
        let base = temp("allowed");
        let inside = base.join("repo");
        let outside = base.join("other");
        std::fs::create_dir_all(inside.join("src")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(inside.join("src/a.rs"), "fn hello() {}\n").unwrap();
        std::fs::write(outside.join("b.rs"), "fn hello() {}\n").unwrap();
        let engine = limited(&inside);
        let never = Cancel::new();
        assert!(!engine
            .retrieve(&request(&inside), &never)
            .unwrap()
            .is_empty());
        assert!(engine
            .retrieve(&request(&inside.join("src")), &never)
            .is_ok());
        for root in [
            outside.clone(),
            base.clone(),
            PathBuf::from("/"),
            inside.join(".."),
            inside.join("../other"),
        ] {
            let e = engine.retrieve(&request(&root), &never).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidRequest, "{root:?}");
            assert_eq!(e.reason(), Some(reason::OUTSIDE_ALLOWED_ROOTS), "{root:?}");
            assert!(!e.message().contains(&*base.to_string_lossy()));
            let e = engine.prepare_index(&root.to_string_lossy(), &never);
            assert_eq!(e.unwrap_err().reason(), Some(reason::OUTSIDE_ALLOWED_ROOTS));
            let e = engine.index_status(&root.to_string_lossy()).unwrap_err();
            assert_eq!(e.reason(), Some(reason::OUTSIDE_ALLOWED_ROOTS));
            let e = engine.watch_workspace(&root.to_string_lossy()).unwrap_err();
            assert_eq!(e.reason(), Some(reason::OUTSIDE_ALLOWED_ROOTS));
        }
        let chunk = TextChunk {
            content: "b".into(),
            file_path: "b.rs".into(),
            start_line: 1,
            end_line: 1,
            language: None,
        };
        let e = engine
            .expand(
                &outside.to_string_lossy(),
                &chunk,
                3,
                &ExpandOptions::default(),
            )
            .unwrap_err();
        assert_eq!(e.reason(), Some(reason::OUTSIDE_ALLOWED_ROOTS));
        // A prefix that is not a whole component does not count: /x/repo2 is not in /x/repo.
        let sibling = base.join("repo2");
        std::fs::create_dir_all(&sibling).unwrap();
        assert!(engine.check_root(&sibling, "rootPath").is_err());
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_inside_pointing_outside_is_refused() {
        let base = temp("symlink");
        let inside = base.join("repo");
        let outside = base.join("secret");
        std::fs::create_dir_all(&inside).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, inside.join("link")).unwrap();
        let engine = limited(&inside);
        let e = engine
            .check_root(&inside.join("link"), "rootPath")
            .unwrap_err();
        assert_eq!(e.reason(), Some(reason::OUTSIDE_ALLOWED_ROOTS));
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn bad_allowed_roots_are_invalid_requests() {
        let mut options = EngineOptions::default();
        let e = options.set_allowed_roots(&["relative/dir"]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidRequest);
        assert!(!e.message().contains("relative/dir"));
        let e = options
            .set_allowed_roots(&["/definitely/not/here/ce-engine"])
            .unwrap_err();
        assert_eq!(e.reason(), Some(reason::INVALID_PATH));
        assert!(options.allowed_roots.is_empty());
    }

    #[test]
    fn no_allowed_roots_means_no_restriction() {
        let engine = Engine::new(EngineOptions::default());
        assert!(engine.check_root(Path::new("/"), "rootPath").is_ok());
    }

    #[test]
    fn timeout_ends_an_index_build_with_timeout_and_leaves_no_index() {
        let base = temp("deadline");
        for i in 0..3000 {
            let dir = base.join(format!("d{}", i % 30));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(
                dir.join(format!("f{i}.rs")),
                format!("fn item_{i}() {{}}\n"),
            )
            .unwrap();
        }
        let engine = Engine::new(EngineOptions {
            timeout: Some(Duration::from_millis(1)),
            ..EngineOptions::default()
        });
        let root = base.to_string_lossy().into_owned();
        let e = engine.prepare_index(&root, &Cancel::new()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Timeout);
        assert_eq!(
            engine.index_status(&root).unwrap().state,
            crate::retrieve::IndexState::Absent
        );
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn an_aborted_build_leaves_no_index_and_the_next_call_works() {
        let base = temp("abort");
        for i in 0..4000 {
            let dir = base.join(format!("d{}", i % 40));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(
                dir.join(format!("f{i}.rs")),
                format!("fn item_{i}() {{}}\n"),
            )
            .unwrap();
        }
        let engine = Arc::new(Engine::new(EngineOptions::default()));
        let root = base.to_string_lossy().into_owned();
        let cancel = Cancel::new();
        let (e2, r2, c2) = (engine.clone(), root.clone(), cancel.clone());
        let build = std::thread::spawn(move || e2.prepare_index(&r2, &c2));
        // Abort once the build has read some files (or at once if it is very fast).
        let started = Instant::now();
        while engine.index_status(&root).unwrap().files_read == 0
            && started.elapsed() < Duration::from_secs(10)
        {
            std::thread::yield_now();
        }
        cancel.cancel();
        let result = build.join().unwrap();
        if let Err(e) = result {
            assert_eq!(e.reason(), Some(reason::ABORTED));
            assert_eq!(
                engine.index_status(&root).unwrap().state,
                crate::retrieve::IndexState::Absent
            );
        }
        // Already aborted: nothing starts.
        let e = engine.prepare_index(&root, &cancel).unwrap_err();
        assert_eq!(e.reason(), Some(reason::ABORTED));
        let status = engine.prepare_index(&root, &Cancel::new()).unwrap();
        assert_eq!(status.state, crate::retrieve::IndexState::Ready);
        assert_eq!(status.stats.files, 4000);
        std::fs::remove_dir_all(&base).unwrap();
    }
}

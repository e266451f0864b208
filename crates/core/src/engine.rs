//! Long-lived state of the engine, shared by the capabilities that keep any.
//!
//! An [`Engine`] holds what is expensive to rebuild: retrieval indexes, the file cache, HTTP
//! clients. JavaScript callers get one through the `ContextEngine` class, or use the
//! module-level functions, which delegate to one process-wide default engine
//! ([`Engine::global`]). Tests build their own engines so that state never leaks between them.
//!
//! Each capability that keeps state adds one field here, with its own interior locking, so an
//! `Engine` is always shared as `Arc<Engine>` across threads.

use std::sync::{Arc, OnceLock};

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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn global_engine_is_one_instance() {
        assert!(Arc::ptr_eq(&Engine::global(), &Engine::global()));
    }
}

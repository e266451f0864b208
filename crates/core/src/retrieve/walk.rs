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

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use ignore::WalkBuilder;

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

/// Size, modification time and inode: when all are equal the file is taken as unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, if the platform has one.
    pub modified: Option<SystemTime>,
    /// Inode (unix) or 0.
    pub ino: u64,
}

impl Stamp {
    /// The stamp of a file's metadata.
    pub fn of(metadata: &std::fs::Metadata) -> Stamp {
        #[cfg(unix)]
        let ino = std::os::unix::fs::MetadataExt::ino(metadata);
        #[cfg(not(unix))]
        let ino = 0;
        Stamp {
            size: metadata.len(),
            modified: metadata.modified().ok(),
            ino,
        }
    }
}

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
    /// Indexable files, sorted by path.
    pub files: Vec<Listed>,
    /// Every directory descended into.
    pub dirs: Vec<WatchedDir>,
}

/// The stamp of `path` without following a final symlink, if it exists.
pub fn stamp_of(path: &Path) -> Option<Stamp> {
    std::fs::symlink_metadata(path).ok().map(|m| Stamp::of(&m))
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

/// Lists the indexable files under `root` (canonical), sorted by path, at most `max_files`,
/// and the directories walked. Unreadable directories and entries are skipped.
pub fn list(root: &Path, max_files: usize) -> Listing {
    let mut out = Vec::new();
    let mut dirs = Vec::new();
    let walker = WalkBuilder::new(root)
        .follow_links(false)
        .hidden(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .ignore(true)
        .parents(false)
        .require_git(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|e| {
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            !(is_dir
                && e.depth() > 0
                && e.file_name()
                    .to_str()
                    .is_some_and(|n| SKIPPED_DIRS.contains(&n)))
        })
        .build();
    for entry in walker {
        let Ok(entry) = entry else { continue };
        if entry.file_type().is_some_and(|t| t.is_dir()) {
            if let Ok(metadata) = entry.metadata() {
                dirs.push(watched(entry.path(), &metadata));
            }
            continue;
        }
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(rest) = entry.path().strip_prefix(root) else {
            continue;
        };
        let Some(rel) = rel_string(rest) else {
            continue;
        };
        if skipped_by_name(&rel) {
            continue;
        }
        let Ok(metadata) = entry.metadata() else {
            continue;
        };
        if metadata.len() > MAX_FILE_BYTES || metadata.len() == 0 {
            continue;
        }
        out.push(Listed {
            rel,
            stamp: Stamp::of(&metadata),
        });
        if out.len() >= max_files {
            break;
        }
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    Listing { files: out, dirs }
}

fn rel_string(rest: &Path) -> Option<String> {
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

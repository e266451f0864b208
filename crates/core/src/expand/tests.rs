use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::*;

/// Numbered lines `line 1` ... `line n`, each ending in a newline.
fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

/// The text of lines `a..=b` of [`numbered`], joined with `'\n'`.
fn lines_of(a: usize, b: usize) -> String {
    (a..=b)
        .map(|i| format!("line {i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Writes `content` and dates the file 10 s back, so that it is outside the racy window and
/// may be cached.
fn write_settled(path: &Path, content: &str) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(path, content).unwrap();
    settle(path);
}

fn settle(path: &Path) {
    let file = fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(10))
        .unwrap();
}

struct Fixture {
    dir: tempfile::TempDir,
    cache: FileCache,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture::with(CacheConfig::default())
    }

    fn with(config: CacheConfig) -> Fixture {
        Fixture {
            dir: tempfile::tempdir().unwrap(),
            cache: FileCache::new(config),
        }
    }

    fn root(&self) -> &str {
        self.dir.path().to_str().unwrap()
    }

    fn canonical(&self, rel: &str) -> PathBuf {
        fs::canonicalize(self.dir.path()).unwrap().join(rel)
    }

    fn write(&self, rel: &str, content: &str) -> PathBuf {
        let p = self.dir.path().join(rel);
        write_settled(&p, content);
        p
    }

    fn expand(&self, chunk: &TextChunk, context: i64) -> Expansion {
        expand(
            &self.cache,
            self.root(),
            chunk,
            context,
            &ExpandOptions::default(),
        )
    }

    fn expand_mode(&self, chunk: &TextChunk, context: i64, mode: Mode, max: usize) -> Expansion {
        let options = ExpandOptions {
            mode,
            max_lines: max,
            ..ExpandOptions::default()
        };
        expand(&self.cache, self.root(), chunk, context, &options)
    }
}

fn chunk(path: &str, start: usize, end: usize) -> TextChunk {
    TextChunk {
        content: format!("ORIGINAL {start}-{end}"),
        file_path: path.to_owned(),
        start_line: start,
        end_line: end,
        language: None,
    }
}

fn assert_unchanged(e: &Expansion, c: &TextChunk, reason: Reason) {
    assert_eq!(e.content, c.content);
    assert!(!e.expanded);
    assert_eq!(e.reason, Some(reason));
    assert_eq!((e.start_line, e.end_line), (c.start_line, c.end_line));
}

// ---------------------------------------------------------------------------------------------
// ExpandAsync tests (the spec's list)

#[test]
fn zero_context_lines_returns_original() {
    let f = Fixture::new();
    f.write("a.txt", &numbered(50));
    let c = chunk("a.txt", 25, 30);
    assert_unchanged(&f.expand(&c, 0), &c, Reason::NoContext);
    // nothing was read
    assert_eq!(f.cache.stats().misses, 0);
}

#[test]
fn negative_context_lines_returns_original() {
    let f = Fixture::new();
    f.write("a.txt", &numbered(50));
    let c = chunk("a.txt", 25, 30);
    assert_unchanged(&f.expand(&c, -5), &c, Reason::NoContext);
    assert_unchanged(&f.expand(&c, i64::MIN), &c, Reason::NoContext);
}

#[test]
fn valid_chunk_expands_correctly() {
    // The spec's example: lines 25-30 with 5 context lines give lines 20-35.
    let f = Fixture::new();
    f.write("src/a.ts", &numbered(50));
    let e = f.expand(&chunk("src/a.ts", 25, 30), 5);
    assert!(e.expanded);
    assert_eq!(e.reason, None);
    assert_eq!((e.start_line, e.end_line), (20, 35));
    assert_eq!(e.content, lines_of(20, 35));
    assert_eq!(e.content.lines().count(), 16);
    assert_eq!(e.mode, Mode::Lines);
}

#[test]
fn start_of_file_clamps_to_zero() {
    let f = Fixture::new();
    f.write("a.txt", &numbered(50));
    let e = f.expand(&chunk("a.txt", 2, 4), 10);
    assert_eq!((e.start_line, e.end_line), (1, 14));
    assert_eq!(e.content, lines_of(1, 14));
}

#[test]
fn end_of_file_clamps_to_length() {
    let f = Fixture::new();
    f.write("a.txt", &numbered(50));
    let e = f.expand(&chunk("a.txt", 45, 48), 10);
    assert_eq!((e.start_line, e.end_line), (35, 50));
    assert_eq!(e.content, lines_of(35, 50));
    // an end line past the file is clamped too
    let e = f.expand(&chunk("a.txt", 49, 70), 1);
    assert_eq!((e.start_line, e.end_line), (48, 50));
}

#[test]
fn file_not_found_returns_original() {
    let f = Fixture::new();
    let c = chunk("missing.ts", 1, 2);
    assert_unchanged(&f.expand(&c, 3), &c, Reason::NotFound);
    let c = chunk("no/such/dir/x.ts", 1, 2);
    assert_unchanged(&f.expand(&c, 3), &c, Reason::NotFound);
}

#[test]
fn empty_file_returns_original() {
    let f = Fixture::new();
    f.write("empty.ts", "");
    let c = chunk("empty.ts", 1, 1);
    assert_unchanged(&f.expand(&c, 3), &c, Reason::EmptyFile);
}

#[test]
fn single_line_file_is_handled() {
    let f = Fixture::new();
    f.write("one.ts", "only line");
    let e = f.expand(&chunk("one.ts", 1, 1), 5);
    assert_eq!(e.content, "only line");
    assert_eq!((e.start_line, e.end_line), (1, 1));
    f.write("one-nl.ts", "only line\n");
    assert_eq!(f.expand(&chunk("one-nl.ts", 1, 1), 5).content, "only line");
}

#[test]
fn large_context_lines_include_the_whole_file() {
    let f = Fixture::new();
    f.write("a.txt", &numbered(30));
    let e = f.expand(&chunk("a.txt", 10, 12), i64::MAX);
    assert_eq!(e.content, lines_of(1, 30));
    assert_eq!((e.start_line, e.end_line), (1, 30));
}

#[test]
fn knowledge_chunk_converts_and_expands() {
    let f = Fixture::new();
    f.write("k.py", &numbered(40));
    let k = KnowledgeChunk {
        id: Some("k1".into()),
        content: "x".into(),
        file_path: "k.py".into(),
        start_line: 25,
        end_line: 30,
        language: Some("python".into()),
        score: Some(0.7),
    };
    let t = TextChunk::from(&k);
    assert_eq!(t.content, "x");
    assert_eq!(t.file_path, "k.py");
    assert_eq!((t.start_line, t.end_line), (25, 30));
    assert_eq!(t.language.as_deref(), Some("python"));
    let e = f.expand(&t, 5);
    assert_eq!(e.content, lines_of(20, 35));
}

#[test]
fn read_errors_return_original() {
    let f = Fixture::new();
    fs::create_dir(f.dir.path().join("adir")).unwrap();
    let c = chunk("adir", 1, 1);
    assert_unchanged(&f.expand(&c, 2), &c, Reason::NotAFile);

    fs::write(f.dir.path().join("bin.dat"), [0u8, 1, 2, 0, 255, 0]).unwrap();
    let c = chunk("bin.dat", 1, 1);
    assert_unchanged(&f.expand(&c, 2), &c, Reason::Binary);

    let big = ExpandOptions {
        limits: crate::fs_scope::ReadLimits {
            max_bytes: 10,
            ..Default::default()
        },
        ..ExpandOptions::default()
    };
    f.write("big.txt", &numbered(100));
    let c = chunk("big.txt", 1, 1);
    let e = expand(&f.cache, f.root(), &c, 2, &big);
    assert_unchanged(&e, &c, Reason::TooLarge);

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let p = f.write("secret.txt", &numbered(5));
        fs::set_permissions(&p, fs::Permissions::from_mode(0o000)).unwrap();
        let user = crate::test_support::Unprivileged::enter();
        if !user.can_read(&p) {
            let c = chunk("secret.txt", 1, 1);
            assert_unchanged(&f.expand(&c, 2), &c, Reason::Unreadable);
        }
        drop(user);
        fs::set_permissions(&p, fs::Permissions::from_mode(0o644)).unwrap();

        std::os::unix::fs::symlink("loop2", f.dir.path().join("loop1")).unwrap();
        std::os::unix::fs::symlink("loop1", f.dir.path().join("loop2")).unwrap();
        let c = chunk("loop1", 1, 1);
        assert_unchanged(&f.expand(&c, 2), &c, Reason::Unreadable);

        let fifo = f.dir.path().join("fifo");
        let cpath = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        if unsafe { libc::mkfifo(cpath.as_ptr(), 0o644) } == 0 {
            let c = chunk("fifo", 1, 1);
            assert_unchanged(&f.expand(&c, 2), &c, Reason::NotAFile);
        }
    }
}

#[test]
fn range_outside_the_file_returns_original() {
    let f = Fixture::new();
    f.write("a.txt", &numbered(10));
    let c = chunk("a.txt", 20, 25);
    assert_unchanged(&f.expand(&c, 3), &c, Reason::OutOfRange);
    let c = chunk("a.txt", 9, 3);
    assert_unchanged(&f.expand(&c, 3), &c, Reason::InvalidRange);
    // partly outside: clamped
    let e = f.expand(&chunk("a.txt", 12, 14), 3);
    assert_eq!((e.start_line, e.end_line), (9, 10));
}

#[test]
fn paths_escaping_the_workspace_return_original_and_read_nothing() {
    let outer = tempfile::tempdir().unwrap();
    let secret = outer.path().join("secret.txt");
    write_settled(&secret, "TOP SECRET\n");
    let ws = outer.path().join("ws");
    fs::create_dir(&ws).unwrap();
    write_settled(&ws.join("a.txt"), &numbered(5));
    let cache = FileCache::default();
    let root = ws.to_str().unwrap();
    let opts = ExpandOptions::default();
    let run = |p: &str| expand(&cache, root, &chunk(p, 1, 1), 5, &opts);

    for p in [
        "../secret.txt",
        "a/../../secret.txt",
        secret.to_str().unwrap(),
        "/etc/passwd",
    ] {
        let e = run(p);
        assert!(!e.expanded, "{p}");
        assert!(!e.content.contains("SECRET"));
        assert_eq!(e.reason, Some(Reason::OutsideWorkspace), "{p}");
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&secret, ws.join("link.txt")).unwrap();
        let e = run("link.txt");
        assert_eq!(e.reason, Some(Reason::OutsideWorkspace));
        assert!(!e.content.contains("SECRET"));
    }
    // an absolute path inside the workspace is fine
    let inside = ws.join("a.txt");
    assert!(run(inside.to_str().unwrap()).expanded);
    assert_eq!(cache.stats().entries, 1);
    // the empty path and a NUL byte
    assert_eq!(run("").reason, Some(Reason::InvalidPath));
    assert_eq!(run("a\0b").reason, Some(Reason::InvalidPath));
}

#[test]
fn a_bad_workspace_returns_original() {
    let cache = FileCache::default();
    let c = chunk("a.txt", 1, 1);
    for ws in ["", "relative/dir", "/no/such/workspace/anywhere"] {
        let e = expand(&cache, ws, &c, 3, &ExpandOptions::default());
        assert_unchanged(&e, &c, Reason::InvalidWorkspace);
    }
}

#[test]
fn crlf_and_invalid_utf8_are_normalized() {
    let f = Fixture::new();
    f.write("crlf.txt", "a\r\nb\r\nc\r\nd\r\n");
    let e = f.expand(&chunk("crlf.txt", 2, 2), 1);
    assert_eq!(e.content, "a\nb\nc");
    let p = f.dir.path().join("latin1.txt");
    fs::write(&p, b"one\ncaf\xe9\nthree\n").unwrap();
    settle(&p);
    let e = f.expand(&chunk("latin1.txt", 2, 2), 1);
    assert_eq!(e.content, "one\ncaf\u{FFFD}\nthree");
}

#[test]
fn output_is_deterministic() {
    let f = Fixture::new();
    f.write("a.ts", &numbered(100));
    let first = f.expand(&chunk("a.ts", 40, 45), 7);
    for _ in 0..5 {
        assert_eq!(f.expand(&chunk("a.ts", 40, 45), 7), first);
        f.cache.clear();
    }
}

// ---------------------------------------------------------------------------------------------
// Line calculation tests

#[test]
fn range_for_the_middle_of_a_file() {
    assert_eq!(line_range(25, 30, 5, 100), Some((19, 35)));
}

#[test]
fn range_at_the_start_of_a_file() {
    assert_eq!(line_range(1, 3, 5, 100), Some((0, 8)));
    assert_eq!(line_range(6, 6, 5, 100), Some((0, 11)));
    assert_eq!(line_range(0, 0, 5, 100), Some((0, 5)));
}

#[test]
fn range_at_the_end_of_a_file() {
    assert_eq!(line_range(98, 100, 5, 100), Some((92, 100)));
    assert_eq!(line_range(101, 105, 5, 100), Some((95, 100)));
    assert_eq!(line_range(106, 110, 5, 100), None);
}

#[test]
fn range_for_a_small_file() {
    assert_eq!(line_range(1, 1, 10, 1), Some((0, 1)));
    assert_eq!(line_range(2, 2, 10, 3), Some((0, 3)));
    assert_eq!(line_range(1, 1, 10, 0), None);
    assert_eq!(line_range(1, 1, usize::MAX, 3), Some((0, 3)));
}

// ---------------------------------------------------------------------------------------------
// Cache tests

#[test]
fn caches_small_files_and_serves_hits() {
    let f = Fixture::new();
    f.write("a.ts", &numbered(50));
    let first = f.expand(&chunk("a.ts", 10, 12), 2);
    let s = f.cache.stats();
    assert_eq!((s.entries, s.hits, s.misses), (1, 0, 1));
    assert!(f.cache.contains(&f.canonical("a.ts")));
    let second = f.expand(&chunk("a.ts", 10, 12), 2);
    assert_eq!(first, second);
    let s = f.cache.stats();
    assert_eq!((s.entries, s.hits, s.misses), (1, 1, 1));
    // another chunk of the same file is a hit too
    f.expand(&chunk("a.ts", 40, 41), 2);
    assert_eq!(f.cache.stats().hits, 2);
    assert!(s.bytes >= numbered(50).len());
}

#[test]
fn does_not_cache_large_files() {
    let f = Fixture::with(CacheConfig {
        max_file_lines: 100,
        ..CacheConfig::default()
    });
    f.write("big.ts", &numbered(101));
    f.write("ok.ts", &numbered(100));
    assert!(f.expand(&chunk("big.ts", 50, 50), 1).expanded);
    assert!(f.expand(&chunk("big.ts", 50, 50), 1).expanded);
    assert!(f.expand(&chunk("ok.ts", 50, 50), 1).expanded);
    let s = f.cache.stats();
    assert_eq!((s.entries, s.hits, s.misses, s.uncacheable), (1, 0, 3, 2));
    // the spec's default limit: 10,000 lines
    let d = Fixture::new();
    d.write("10k.ts", &numbered(10_000));
    d.write("10k1.ts", &numbered(10_001));
    d.expand(&chunk("10k.ts", 1, 1), 1);
    d.expand(&chunk("10k1.ts", 1, 1), 1);
    assert!(d.cache.contains(&d.canonical("10k.ts")));
    assert!(!d.cache.contains(&d.canonical("10k1.ts")));
}

#[test]
fn evicts_the_least_recently_used_beyond_max_files() {
    let f = Fixture::with(CacheConfig {
        max_files: 3,
        ..CacheConfig::default()
    });
    for name in ["a", "b", "c"] {
        f.write(name, &numbered(5));
        f.expand(&chunk(name, 1, 1), 1);
    }
    f.expand(&chunk("a", 1, 1), 1); // a is now the most recent
    f.write("d", &numbered(5));
    f.expand(&chunk("d", 1, 1), 1);
    let s = f.cache.stats();
    assert_eq!((s.entries, s.evictions), (3, 1));
    assert!(!f.cache.contains(&f.canonical("b")));
    for kept in ["a", "c", "d"] {
        assert!(f.cache.contains(&f.canonical(kept)), "{kept}");
    }
    // the spec's default: 100 files
    let d = Fixture::new();
    for i in 0..120 {
        let name = format!("f{i}.txt");
        d.write(&name, "x\n");
        d.expand(&chunk(&name, 1, 1), 1);
    }
    assert_eq!(d.cache.stats().entries, 100);
}

#[test]
fn stays_within_max_bytes() {
    let f = Fixture::with(CacheConfig {
        max_bytes: 5_000,
        ..CacheConfig::default()
    });
    for i in 0..10 {
        let name = format!("f{i}");
        f.write(&name, &numbered(200)); // ~1.8 KB of text + offsets
        f.expand(&chunk(&name, 1, 1), 1);
    }
    let s = f.cache.stats();
    assert!(s.bytes <= 5_000, "{s:?}");
    assert!(s.entries >= 1 && s.evictions >= 1, "{s:?}");
}

#[test]
fn zero_max_files_disables_caching() {
    let f = Fixture::with(CacheConfig {
        max_files: 0,
        ..CacheConfig::default()
    });
    f.write("a", &numbered(5));
    f.expand(&chunk("a", 1, 1), 1);
    f.expand(&chunk("a", 1, 1), 1);
    let s = f.cache.stats();
    assert_eq!((s.entries, s.hits, s.misses), (0, 0, 2));
}

#[test]
fn clear_cache_removes_all_entries() {
    let f = Fixture::new();
    for name in ["a", "b", "sub/c"] {
        f.write(name, &numbered(5));
        f.expand(&chunk(name, 1, 1), 1);
    }
    assert_eq!(f.cache.stats().entries, 3);
    assert_eq!(f.cache.clear(), 3);
    let s = f.cache.stats();
    assert_eq!((s.entries, s.bytes, s.invalidations), (0, 0, 3));
    f.expand(&chunk("a", 1, 1), 1);
    assert_eq!(f.cache.stats().misses, 4);
}

#[test]
fn invalidate_file_removes_that_file_only() {
    let f = Fixture::new();
    let a = f.write("a.ts", &numbered(5));
    f.write("b.ts", &numbered(5));
    f.expand(&chunk("a.ts", 1, 1), 1);
    f.expand(&chunk("b.ts", 1, 1), 1);
    // the path as the caller spells it (possibly through a symlinked temp dir) works
    assert_eq!(f.cache.invalidate_file(&a), 1);
    assert!(!f.cache.contains(&f.canonical("a.ts")));
    assert!(f.cache.contains(&f.canonical("b.ts")));
    assert_eq!(f.cache.invalidate_file(&a), 0);
    // also after the file is gone, and with `.`/`..` in the path
    fs::remove_file(f.dir.path().join("b.ts")).unwrap();
    let dotted = f.dir.path().join("x/../b.ts");
    assert_eq!(f.cache.invalidate_file(&dotted), 1);
    assert_eq!(f.cache.stats().entries, 0);
}

#[test]
fn invalidate_directory_removes_all_files_in_it_by_components() {
    let f = Fixture::new();
    for name in [
        "a/b/one.ts",
        "a/b/deep/two.ts",
        "a/bc/three.ts",
        "a/four.ts",
    ] {
        f.write(name, &numbered(5));
        f.expand(&chunk(name, 1, 1), 1);
    }
    assert_eq!(f.cache.stats().entries, 4);
    assert_eq!(f.cache.invalidate_directory(&f.dir.path().join("a/b")), 2);
    assert!(f.cache.contains(&f.canonical("a/bc/three.ts")));
    assert!(f.cache.contains(&f.canonical("a/four.ts")));
    // a trailing slash means the same directory
    let with_slash = PathBuf::from(format!("{}/", f.dir.path().join("a").display()));
    assert_eq!(f.cache.invalidate_directory(&with_slash), 2);
    assert_eq!(f.cache.stats().entries, 0);
}

#[test]
fn respects_cache_expiration() {
    let f = Fixture::with(CacheConfig {
        ttl: Duration::from_millis(150),
        ..CacheConfig::default()
    });
    f.write("a", &numbered(5));
    f.expand(&chunk("a", 1, 1), 1);
    f.expand(&chunk("a", 1, 1), 1);
    assert_eq!(f.cache.stats().hits, 1);
    std::thread::sleep(Duration::from_millis(200));
    f.expand(&chunk("a", 1, 1), 1);
    let s = f.cache.stats();
    assert_eq!((s.hits, s.misses, s.expirations, s.entries), (1, 2, 1, 1));
    // the spec's default: 5 minutes
    assert_eq!(CacheConfig::default().ttl, Duration::from_secs(300));
}

#[test]
fn an_edited_file_is_never_served_stale() {
    let f = Fixture::new();
    let p = f.write("a.ts", "alpha\nbeta\ngamma\n");
    assert_eq!(
        f.expand(&chunk("a.ts", 2, 2), 1).content,
        "alpha\nbeta\ngamma"
    );
    // same size, different content, and the mtime set to another past second
    fs::write(&p, "ALPHA\nBETA\nGAMMA\n").unwrap();
    let file = fs::File::options().write(true).open(&p).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(5))
        .unwrap();
    assert_eq!(
        f.expand(&chunk("a.ts", 2, 2), 1).content,
        "ALPHA\nBETA\nGAMMA"
    );
    assert_eq!(f.cache.stats().stale, 1);
    // replaced by rename (a new inode), even with the very same size and mtime as before
    let tmp = f.dir.path().join("tmp");
    fs::write(&tmp, "AlPhA\nBeTa\nGaMmA\n").unwrap();
    let old_mtime = fs::metadata(&p).unwrap().modified().unwrap();
    fs::File::options()
        .write(true)
        .open(&tmp)
        .unwrap()
        .set_modified(old_mtime)
        .unwrap();
    fs::rename(&tmp, &p).unwrap();
    assert_eq!(
        f.expand(&chunk("a.ts", 2, 2), 1).content,
        "AlPhA\nBeTa\nGaMmA"
    );
    // deleted: the original content again, nothing cached
    fs::remove_file(&p).unwrap();
    let c = chunk("a.ts", 2, 2);
    assert_unchanged(&f.expand(&c, 1), &c, Reason::NotFound);
}

#[test]
fn a_just_modified_file_is_not_cached() {
    let f = Fixture::new();
    let p = f.dir.path().join("fresh.ts");
    fs::write(&p, numbered(5)).unwrap();
    f.expand(&chunk("fresh.ts", 1, 1), 1);
    let s = f.cache.stats();
    assert_eq!((s.entries, s.uncacheable), (0, 1));
    std::thread::sleep(RACY_WINDOW + Duration::from_millis(30));
    f.expand(&chunk("fresh.ts", 1, 1), 1);
    assert_eq!(f.cache.stats().entries, 1);
}

#[test]
fn file_lines_split_like_read_all_lines() {
    let l = FileLines::new("a\nb\n".into());
    assert_eq!(l.len(), 2);
    assert_eq!(l.slice(0, 2), "a\nb");
    let l = FileLines::new("a\nb".into());
    assert_eq!((l.len(), l.slice(1, 2)), (2, "b"));
    let l = FileLines::new("\n\n".into());
    assert_eq!((l.len(), l.slice(0, 2)), (2, "\n"));
    let l = FileLines::new(String::new());
    assert!(l.is_empty());
    assert_eq!(l.slice(0, 5), "");
}

// ---------------------------------------------------------------------------------------------
// Structure mode

const TS_FILE: &str = "\
import { a } from './a'

export class Service {
  private n = 0

  /** Runs it. */
  run(x: number): number {
    const y = x * 2
    const z = y + 1
    return z
  }

  stop(): void {
    this.n = 0
  }
}

function helper() {
  return 1
}
";

#[test]
fn structure_mode_expands_to_the_enclosing_method() {
    let f = Fixture::new();
    f.write("svc.ts", TS_FILE);
    let e = f.expand_mode(&chunk("svc.ts", 9, 9), 1, Mode::Structure, 200);
    assert_eq!(e.mode, Mode::Structure);
    assert_eq!(e.block_kind, Some(DefKind::Method));
    assert_eq!((e.start_line, e.end_line), (6, 11));
    assert!(e.content.starts_with("  /** Runs it. */\n  run(x: number)"));
    assert!(e.content.ends_with("    return z\n  }"));
    // spanning two methods: the class
    let e = f.expand_mode(&chunk("svc.ts", 9, 14), 1, Mode::Structure, 200);
    assert_eq!(e.block_kind, Some(DefKind::Class));
    assert_eq!((e.start_line, e.end_line), (3, 16));
    // a free function
    let e = f.expand_mode(&chunk("svc.ts", 19, 19), 1, Mode::Structure, 200);
    assert_eq!(e.block_kind, Some(DefKind::Function));
    assert_eq!((e.start_line, e.end_line), (18, 20));
}

#[test]
fn structure_mode_caps_at_max_lines_around_the_chunk() {
    let f = Fixture::new();
    let body: String = (0..100).map(|i| format!("    x{i} = {i}\n")).collect();
    f.write("big.py", &format!("def big():\n{body}    return 0\n"));
    // chunk at lines 50-51 of a 102-line function, capped at 10 lines
    let e = f.expand_mode(&chunk("big.py", 50, 51), 3, Mode::Structure, 10);
    assert!(e.clipped);
    assert_eq!(e.end_line - e.start_line + 1, 10);
    assert!(e.start_line <= 50 && e.end_line >= 51);
    assert_eq!((e.start_line, e.end_line), (46, 55));
    // near the block's start the room goes below
    let e = f.expand_mode(&chunk("big.py", 2, 2), 3, Mode::Structure, 10);
    assert_eq!((e.start_line, e.end_line), (1, 10));
    // a chunk longer than the cap is kept whole
    let e = f.expand_mode(&chunk("big.py", 20, 40), 3, Mode::Structure, 10);
    assert_eq!((e.start_line, e.end_line), (20, 40));
    // within the cap: the whole block
    let e = f.expand_mode(&chunk("big.py", 50, 51), 3, Mode::Structure, 500);
    assert!(!e.clipped);
    assert_eq!((e.start_line, e.end_line), (1, 102));
}

#[test]
fn structure_mode_falls_back_to_lines() {
    let f = Fixture::new();
    f.write("notes.md", &numbered(50));
    let e = f.expand_mode(&chunk("notes.md", 25, 30), 5, Mode::Structure, 200);
    assert_eq!(e.mode, Mode::Lines);
    assert_eq!(e.fallback, Some(Fallback::UnsupportedLanguage));
    assert_eq!((e.start_line, e.end_line), (20, 35));

    f.write("svc.ts", TS_FILE);
    let e = f.expand_mode(&chunk("svc.ts", 1, 1), 1, Mode::Structure, 200);
    assert_eq!(e.fallback, Some(Fallback::NoEnclosingBlock));
    assert_eq!((e.start_line, e.end_line), (1, 2));

    // the chunk's language is used when the extension says nothing
    f.write("script", "def f():\n    return 1\n\nx = 2\n");
    let mut c = chunk("script", 2, 2);
    c.language = Some("python".into());
    let e = f.expand_mode(&c, 1, Mode::Structure, 200);
    assert_eq!((e.mode, e.start_line, e.end_line), (Mode::Structure, 1, 2));
    // contextLines <= 0 leaves the chunk alone in structure mode too
    assert!(!f.expand_mode(&c, 0, Mode::Structure, 200).expanded);
}

// ---------------------------------------------------------------------------------------------
// Watching and concurrency

#[test]
fn the_watcher_drops_changed_files() {
    let f = Fixture::new();
    let p = f.write("w/a.ts", &numbered(5));
    f.write("w/b.ts", &numbered(5));
    let root = fs::canonicalize(f.dir.path()).unwrap();
    assert!(f.cache.watches().watch(&root).unwrap());
    assert!(!f.cache.watches().watch(&root).unwrap());
    f.expand(&chunk("w/a.ts", 1, 1), 1);
    f.expand(&chunk("w/b.ts", 1, 1), 1);
    assert_eq!(f.cache.stats().entries, 2);
    fs::write(&p, numbered(6)).unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while f.cache.contains(&f.canonical("w/a.ts")) {
        assert!(std::time::Instant::now() < deadline, "no event seen");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(f.cache.contains(&f.canonical("w/b.ts")));
    assert_eq!(f.cache.watches().roots(), vec![root.clone()]);
    assert!(f.cache.watches().unwatch(&root));
    assert!(!f.cache.watches().unwatch(&root));
    // no longer watched: a change is found by revalidation instead
    let b = f.dir.path().join("w/b.ts");
    // (whether a last event still in flight from the stopped watcher drops the entry is a race
    // with its teardown, so only the outcome is asserted: the new content, never the stale one)
    fs::write(&b, numbered(7)).unwrap();
    assert_eq!(f.expand(&chunk("w/b.ts", 7, 7), 1).content, lines_of(6, 7));
}

#[test]
fn watched_roots_are_bounded() {
    let cache = FileCache::default();
    let dirs: Vec<_> = (0..=MAX_WATCHED_ROOTS)
        .map(|_| tempfile::tempdir().unwrap())
        .collect();
    for d in &dirs[..MAX_WATCHED_ROOTS] {
        assert!(cache.watches().watch(d.path()).unwrap());
    }
    let err = cache
        .watches()
        .watch(dirs[MAX_WATCHED_ROOTS].path())
        .unwrap_err();
    assert_eq!(err.kind(), crate::ErrorKind::InvalidRequest);
    assert_eq!(cache.watches().unwatch_all(), MAX_WATCHED_ROOTS);
}

/// 1000 expansions over 50 files on 8 threads while a writer replaces some files (atomically,
/// by rename): each result is the old or the new version of its file, and once a replacement
/// is visible no later expansion returns the old one.
#[test]
fn concurrent_expansions_while_files_change() {
    let f = Arc::new(Fixture::new());
    let version = |file: usize, v: usize| -> String {
        (1..=20).map(|l| format!("f{file} v{v} l{l}\n")).collect()
    };
    for i in 0..50 {
        f.write(&format!("f{i}.ts"), &version(i, 0));
    }
    // versions[i] = the newest version written (and visible) for file i
    let visible: Arc<Vec<std::sync::atomic::AtomicUsize>> = Arc::new(
        (0..50)
            .map(|_| std::sync::atomic::AtomicUsize::default())
            .collect(),
    );
    let writer = {
        let f = f.clone();
        let visible = visible.clone();
        std::thread::spawn(move || {
            for round in 1..=5 {
                for i in (0..50).filter(|i| i % 5 == round % 5) {
                    let tmp = f.dir.path().join(format!("tmp{i}"));
                    fs::write(&tmp, version(i, round)).unwrap();
                    fs::rename(&tmp, f.dir.path().join(format!("f{i}.ts"))).unwrap();
                    visible[i].store(round, std::sync::atomic::Ordering::SeqCst);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        })
    };
    let readers: Vec<_> = (0..8)
        .map(|t| {
            let f = f.clone();
            let visible = visible.clone();
            std::thread::spawn(move || {
                for k in 0..125 {
                    let i = (t * 125 + k) % 50;
                    let floor = visible[i].load(std::sync::atomic::Ordering::SeqCst);
                    let e = f.expand(&chunk(&format!("f{i}.ts"), 10, 10), 2);
                    assert!(e.expanded);
                    let v: usize = e.content.lines().next().unwrap()[format!("f{i} v").len()..]
                        .split(' ')
                        .next()
                        .unwrap()
                        .parse()
                        .unwrap();
                    assert!(v >= floor, "file {i}: stale v{v}, v{floor} was visible");
                    let expected: Vec<String> =
                        (8..=12).map(|l| format!("f{i} v{v} l{l}")).collect();
                    assert_eq!(e.content, expected.join("\n"));
                }
            })
        })
        .collect();
    for r in readers {
        r.join().unwrap();
    }
    writer.join().unwrap();
    let s = f.cache.stats();
    assert_eq!(s.hits + s.misses, 1000);
    // after the writer finished, every file reads as its final version
    for i in 0..50 {
        let final_v = visible[i].load(std::sync::atomic::Ordering::SeqCst);
        let e = f.expand(&chunk(&format!("f{i}.ts"), 1, 1), 1);
        assert!(e.content.starts_with(&format!("f{i} v{final_v} l1")));
    }
}

// ---------------------------------------------------------------------------------------------
// Redaction

/// A varied pseudo-random string over `alphabet` (fake secrets for tests, built at run time).
use crate::secrets::fakes::rnd as fake;

use crate::secrets::{Redaction, SecretKind};

const ALNUM: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

#[test]
fn secrets_in_the_expanded_lines_are_redacted_by_default() {
    let f = Fixture::new();
    let token = format!("{}_{}", "ghp", fake(7, 36, ALNUM));
    let mut text = numbered(20);
    text = text.replace("line 12\n", &format!("const token = \"{token}\"\n"));
    f.write("cfg.ts", &text);
    let e = f.expand(&chunk("cfg.ts", 10, 10), 3);
    assert!(!e.content.contains(&token));
    assert!(
        e.content.contains("[REDACTED:github_token]"),
        "{}",
        e.content
    );
    assert_eq!(
        e.redactions,
        vec![Redaction {
            kind: SecretKind::GithubToken,
            line: 12
        }]
    );
    assert_eq!(e.content.lines().count(), 7);
    // a range that does not reach the secret has nothing redacted
    let e = f.expand(&chunk("cfg.ts", 3, 3), 1);
    assert_eq!(
        (e.redactions.len(), e.content.as_str()),
        (0, "line 2\nline 3\nline 4")
    );
    // redact: false gives the file's lines as they are
    let raw = ExpandOptions {
        redact: false,
        ..ExpandOptions::default()
    };
    let e = expand(&f.cache, f.root(), &chunk("cfg.ts", 10, 10), 3, &raw);
    assert!(e.content.contains(&token));
    assert!(e.redactions.is_empty());
}

#[test]
fn a_key_block_cut_by_the_range_is_still_redacted() {
    let f = Fixture::new();
    let body: Vec<String> = (0..6).map(|i| fake(100 + i, 64, B64)).collect();
    let pem = format!(
        "-----{} RSA PRIVATE KEY-----\n{}\n-----{} RSA PRIVATE KEY-----",
        "BEGIN",
        body.join("\n"),
        "END"
    );
    // lines 1-3 code, 4-11 the key, 12-15 code
    let text = format!("a\nb\nc\n{pem}\nx\ny\nz\nw\n");
    f.write("key.txt", &text);
    // lines 8-13: the middle of the key (no BEGIN line in the range) and the code after it
    let e = f.expand(&chunk("key.txt", 10, 11), 2);
    assert_eq!((e.start_line, e.end_line), (8, 13));
    for line in &body {
        assert!(!e.content.contains(line.as_str()), "key material leaked");
    }
    // Reported on the range's first line: the block starts before it.
    assert_eq!(
        e.redactions,
        vec![Redaction {
            kind: SecretKind::PrivateKey,
            line: 8
        }]
    );
    assert_eq!(e.content.lines().count(), 6);
    assert!(e.content.ends_with("x\ny"));
}

#[test]
fn structure_mode_covers_every_registry_language() {
    let f = Fixture::new();
    let cases = [
        (
            "Cart.java",
            "class Cart {\n  int total() {\n    return 0;\n  }\n}\n",
            3,
            (2, 4),
            DefKind::Method,
        ),
        (
            "cart.rb",
            "class Cart\n  def total\n    0\n  end\nend\n",
            3,
            (2, 4),
            DefKind::Method,
        ),
        (
            "cart.ex",
            "defmodule Cart do\n  def total(c) do\n    0\n  end\nend\n",
            3,
            (2, 4),
            DefKind::Function,
        ),
        (
            "run.sh",
            "#!/bin/sh\nbuild() {\n  make\n}\n",
            3,
            (2, 4),
            DefKind::Function,
        ),
        (
            "a.zig",
            "fn add(a: i32) i32 {\n    return a;\n}\n",
            2,
            (1, 3),
            DefKind::Function,
        ),
    ];
    for (path, text, line, (s, e), kind) in cases {
        f.write(path, text);
        let x = f.expand_mode(&chunk(path, line, line), 1, Mode::Structure, 200);
        assert_eq!(x.mode, Mode::Structure, "{path}");
        assert_eq!(
            (x.start_line, x.end_line, x.block_kind),
            (s, e, Some(kind)),
            "{path}"
        );
    }
    // A chunk that names a language the registry knows by an alias.
    f.write("Jakefile", "function build() {\n  return 1\n}\n");
    let mut c = chunk("Jakefile", 2, 2);
    c.language = Some("js".into());
    let x = f.expand_mode(&c, 1, Mode::Structure, 200);
    assert_eq!((x.mode, x.start_line, x.end_line), (Mode::Structure, 1, 3));
}

/// `..` in a chunk's path is refused by the scope; the reason says so whichever separator the
/// caller used (Windows-style paths included), and a name merely containing dots is not `..`.
#[test]
fn parent_components_are_found_with_either_separator() {
    for path in [
        "..",
        "../x",
        "a/../b",
        r"..\x",
        r"a\..\b",
        r"C:\repo\..\secret",
        r"\\?\C:\repo\..\x",
        r"a/..\b",
    ] {
        assert!(has_parent_component(path), "{path:?}");
    }
    for path in ["a/b", r"a\b", "..x", r"x..\y", "a/.../b", r"C:\repo\x", ""] {
        assert!(!has_parent_component(path), "{path:?}");
    }
}

#[test]
fn windows_style_chunk_paths_never_expand_outside_the_root() {
    let f = Fixture::new();
    f.write("a.txt", &numbered(10));
    // On Windows these leave the workspace; on Unix each is one odd name that does not exist.
    let want = if cfg!(windows) {
        Reason::OutsideWorkspace
    } else {
        Reason::NotFound
    };
    for path in [
        r"..\outside.txt",
        r"a\..\..\outside.txt",
        r"C:\outside.txt",
        r"\\?\C:\a.txt",
    ] {
        let c = chunk(path, 1, 1);
        assert_unchanged(&f.expand(&c, 2), &c, want);
    }
    let c = chunk(r"a.txt", 2, 2);
    assert!(f.expand(&c, 1).expanded);
}

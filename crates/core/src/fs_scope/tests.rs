//! Tests of [`Scope`] against real files in temporary directories.

use super::*;
use crate::ErrorKind;
#[cfg(unix)]
use std::time::Duration;

/// A temporary base holding `root/` (the scope) and `outside/` (a sibling with a secret).
struct Fixture {
    base: tempfile::TempDir,
    scope: Scope,
}

impl Fixture {
    fn new() -> Fixture {
        let base = tempfile::tempdir().unwrap();
        fs::create_dir(base.path().join("root")).unwrap();
        fs::create_dir(base.path().join("outside")).unwrap();
        fs::write(base.path().join("outside/secret.txt"), "SECRET").unwrap();
        let scope = Scope::new(base.path().join("root")).unwrap();
        Fixture { base, scope }
    }

    fn root(&self) -> PathBuf {
        self.scope.root().to_path_buf()
    }

    fn outside(&self) -> PathBuf {
        fs::canonicalize(self.base.path().join("outside")).unwrap()
    }

    fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.root().join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(&path, bytes).unwrap();
        path
    }

    /// Makes a FIFO at `rel`; its absolute path.
    #[cfg(unix)]
    fn fifo(&self, rel: &str) -> PathBuf {
        let path = self.root().join(rel);
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: `c` is a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        path
    }

    #[cfg(unix)]
    fn symlink(&self, target: impl AsRef<Path>, rel: &str) {
        std::os::unix::fs::symlink(target, self.root().join(rel)).unwrap();
    }

    /// Asserts that an error's user-facing message names nothing outside the root.
    fn assert_safe(&self, e: &ReadError) {
        let text = e.to_string();
        let base = self.base.path().to_string_lossy().into_owned();
        assert!(!text.contains(&base), "message leaks a path: {text}");
        assert!(!text.contains("SECRET"), "message leaks content: {text}");
        assert!(!text.contains("/etc"), "message names /etc: {text}");
    }
}

fn text(f: &Fixture, rel: &str) -> TextFile {
    f.scope.read_text(rel, &ReadLimits::default()).unwrap()
}

fn read_err(f: &Fixture, rel: &str) -> ReadError {
    let e = f.scope.read_text(rel, &ReadLimits::default()).unwrap_err();
    f.assert_safe(&e);
    e
}

fn resolve_err(f: &Fixture, rel: &str) -> ReadError {
    let e = f.scope.resolve(rel).unwrap_err();
    f.assert_safe(&e);
    e
}

#[cfg(unix)]
/// Runs `f` on another thread and fails (instead of hanging) if it takes longer than 5 s.
fn promptly<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(5))
        .expect("operation hung")
}

// ---------------------------------------------------------------------------------------------
// Root validation

#[test]
fn root_must_be_absolute_existing_directory() {
    let base = tempfile::tempdir().unwrap();
    let file = base.path().join("file.txt");
    fs::write(&file, "x").unwrap();
    let cases: [(PathBuf, &str); 5] = [
        (
            PathBuf::from("relative/dir"),
            "rootPath must be an absolute path",
        ),
        (PathBuf::from(""), "rootPath must not be empty"),
        (base.path().join("missing"), "rootPath does not exist"),
        (file.clone(), "rootPath is not a directory"),
        (file.join("below"), "rootPath does not exist"),
    ];
    for (root, message) in cases {
        let e = Scope::new(&root).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidRequest, "{root:?}");
        assert_eq!(e.message(), message, "{root:?}");
    }
    let e = Scope::new("/tmp/a\0b").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    assert_eq!(e.message(), "rootPath must not contain a NUL byte");
}

#[cfg(unix)]
#[test]
fn root_is_stored_canonical() {
    let f = Fixture::new();
    let alias = f.base.path().join("alias");
    std::os::unix::fs::symlink(f.root(), &alias).unwrap();
    let scope = Scope::new(alias.join(".")).unwrap();
    assert_eq!(scope.root(), fs::canonicalize(&alias).unwrap());
    assert_eq!(scope.root(), f.root());
}

// ---------------------------------------------------------------------------------------------
// Plain resolution and traversal

#[test]
fn resolves_relative_paths() {
    let f = Fixture::new();
    f.write("a/b.txt", "hello");
    for path in ["a/b.txt", "./a//b.txt", "a/./b.txt", "a/b.txt/"] {
        let r = f.scope.resolve(path).unwrap();
        assert_eq!(r.rel, "a/b.txt", "{path}");
        assert_eq!(r.abs, f.root().join("a").join("b.txt"));
        assert_eq!(r.abs, fs::canonicalize(&r.abs).unwrap());
    }
    let dir = f.scope.resolve("a").unwrap();
    assert_eq!(dir.rel, "a");
    let root = f.scope.resolve(".").unwrap();
    assert_eq!(root.rel, "");
    assert_eq!(root.abs, f.root());
    // deterministic
    assert_eq!(
        f.scope.resolve("a/b.txt").unwrap(),
        f.scope.resolve("a/b.txt").unwrap()
    );
    assert_eq!(text(&f, "a/b.txt").text, "hello");
}

#[test]
fn missing_paths_are_not_found() {
    let f = Fixture::new();
    f.write("a/b.txt", "hello");
    for path in [
        "missing.txt",
        "a/missing",
        "nope/deeper/x",
        "a/b.txt/x",
        "~",
    ] {
        let e = resolve_err(&f, path);
        assert!(
            matches!(&e, ReadError::NotFound { rel } if rel == path),
            "{path}: {e:?}"
        );
        assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    }
    assert_eq!(
        read_err(&f, "missing.txt").to_string(),
        r#"file not found: "missing.txt""#
    );
}

#[test]
fn traversal_and_malformed_paths_are_invalid() {
    let f = Fixture::new();
    f.write("a/b.txt", "hello");
    let cases = [
        "..",
        "../outside/secret.txt",
        "a/../../x",
        "a/..",
        "./..",
        "a/b.txt/..",
        "/etc/passwd",
        "/",
        "a\0b",
        "\0",
        "",
    ];
    for path in cases {
        let e = resolve_err(&f, path);
        assert!(
            matches!(e, ReadError::InvalidPath { .. }),
            "{path:?}: {e:?}"
        );
        assert_eq!(e.kind(), ErrorKind::InvalidRequest);
        let e = read_err(&f, path);
        assert!(
            matches!(e, ReadError::InvalidPath { .. }),
            "{path:?}: {e:?}"
        );
    }
    let root_abs = f.root().join("a/b.txt");
    let e = resolve_err(&f, root_abs.to_str().unwrap());
    assert!(matches!(e, ReadError::InvalidPath { .. }));
}

// ---------------------------------------------------------------------------------------------
// Windows-style paths (a published target): the string rules are tested for both platforms on
// every host; the `Path`-based checks run on Windows itself.

fn names_as(path: &str, windows: bool) -> Result<Vec<&str>, String> {
    split_relative_as(path, windows).map_err(|e| match e {
        ReadError::InvalidPath { reason } => reason,
        other => panic!("{path:?}: {other:?}"),
    })
}

#[test]
fn windows_separators_split_and_dot_dot_is_refused() {
    assert_eq!(names_as(r"src\lib.rs", true).unwrap(), ["src", "lib.rs"]);
    assert_eq!(
        names_as(r"src/sub\lib.rs", true).unwrap(),
        ["src", "sub", "lib.rs"]
    );
    assert_eq!(
        names_as(r"src\\.\lib.rs\", true).unwrap(),
        ["src", "lib.rs"]
    );
    for path in [
        r"..",
        r"..\outside\secret.txt",
        r"a\..\..\x",
        r"a\b\..",
        r"a/..\b",
        r".\..",
    ] {
        assert_eq!(
            names_as(path, true).unwrap_err(),
            "path must not contain '..'",
            "{path:?}"
        );
    }
    // On Unix a backslash is an ordinary character of a name: no traversal, one name.
    assert_eq!(
        names_as(r"..\outside\secret.txt", false).unwrap(),
        [r"..\outside\secret.txt"]
    );
    assert_eq!(names_as(r"src\lib.rs", false).unwrap(), [r"src\lib.rs"]);
    assert!(names_as("../x", false).is_err());
}

#[test]
fn windows_drives_verbatim_and_unc_prefixes_are_not_relative() {
    let rooted = "path must be relative to the root";
    for path in [
        r"C:\Windows\win.ini",
        r"c:/Windows/win.ini",
        r"C:",
        r"C:relative\to\the\drive",
        r"\Windows\win.ini",
        r"\\?\C:\Windows\win.ini",
        r"\\?\UNC\server\share\x",
        r"\\.\PhysicalDrive0",
        r"\\server\share\x",
        r"//server/share/x",
        "/etc/passwd",
    ] {
        assert_eq!(names_as(path, true).unwrap_err(), rooted, "{path:?}");
    }
    // A colon anywhere else is a drive or an alternate data stream.
    for path in [r"a\C:\x", "notes.txt:secret", r"a\b:$DATA"] {
        assert_eq!(
            names_as(path, true).unwrap_err(),
            "path must not contain ':'",
            "{path:?}"
        );
    }
    // Unix: only a leading '/' is rooted; drives and backslashes are names.
    assert_eq!(
        names_as(r"C:\Windows\win.ini", false).unwrap(),
        [r"C:\Windows\win.ini"]
    );
    assert_eq!(names_as(r"\\?\C:\x", false).unwrap(), [r"\\?\C:\x"]);
    assert_eq!(names_as("a:b", false).unwrap(), ["a:b"]);
    assert_eq!(names_as("//server/share", false).unwrap_err(), rooted);
}

#[test]
fn windows_names_of_only_dots_and_spaces_are_refused() {
    // Windows drops a name's trailing dots and spaces, so these would name the parent.
    for path in ["... ", r"a\...\b", r"a\.. \b", "a/. /b", "a/ /b", "a/.../b"] {
        assert_eq!(
            names_as(path, true).unwrap_err(),
            "path must not contain a name of only dots and spaces",
            "{path:?}"
        );
    }
    assert_eq!(
        names_as(r"a\.hidden\b.", true).unwrap(),
        ["a", ".hidden", "b."]
    );
    // On Unix they are ordinary names.
    assert_eq!(
        names_as("a/.../ /b", false).unwrap(),
        ["a", "...", " ", "b"]
    );
}

#[test]
fn this_platform_uses_its_own_rules() {
    for path in [
        r"src\lib.rs",
        r"..\outside\secret.txt",
        r"C:\Windows\win.ini",
        r"\\?\C:\x",
        r"a\...\b",
        "a/b.txt",
        "../x",
        "/etc/passwd",
    ] {
        assert_eq!(
            split_relative(path).map_err(|e| e.to_string()),
            split_relative_as(path, cfg!(windows)).map_err(|e| e.to_string()),
            "{path:?}"
        );
    }
}

#[test]
fn windows_style_caller_paths_never_read_outside() {
    let f = Fixture::new();
    f.write("a/b.txt", "hello");
    let outside = f.outside().join("secret.txt");
    let absolute = outside.to_string_lossy().replace('/', r"\");
    for path in [
        r"..\outside\secret.txt".to_owned(),
        r"a\..\..\outside\secret.txt".to_owned(),
        r"C:\outside\secret.txt".to_owned(),
        r"\\?\C:\outside\secret.txt".to_owned(),
        r"\\localhost\C$\outside\secret.txt".to_owned(),
        absolute,
    ] {
        let e = read_err(&f, &path);
        if cfg!(windows) {
            assert!(
                matches!(e, ReadError::InvalidPath { .. }),
                "{path:?}: {e:?}"
            );
        } else {
            // One odd name on Unix, which does not exist inside the root.
            assert!(matches!(e, ReadError::NotFound { .. }), "{path:?}: {e:?}");
        }
        assert!(f.scope.resolve_within(&path).is_err(), "{path:?}");
    }
    let t = f.scope.read_text(r"a\b.txt", &ReadLimits::default());
    if cfg!(windows) {
        assert_eq!(t.unwrap().rel, "a/b.txt");
    } else {
        assert!(matches!(t.unwrap_err(), ReadError::NotFound { .. }));
    }
}

/// The `Path`-based checks on Windows itself: drive letters, verbatim (`\\?\`) forms of the
/// canonical root, and `..` components.
#[cfg(windows)]
#[test]
fn windows_paths_against_a_real_root() {
    let f = Fixture::new();
    f.write("a/b.txt", "hello");
    let root = f.root();
    // `fs::canonicalize` gives the verbatim form; the caller usually writes the plain one.
    assert!(
        root.to_string_lossy().starts_with(r"\\?\"),
        "{}",
        root.display()
    );
    assert!(is_rooted(Path::new(r"C:\x")));
    assert!(is_rooted(Path::new(r"C:x")));
    assert!(is_rooted(Path::new(r"\x")));
    assert!(is_rooted(Path::new(r"\\?\C:\x")));
    assert!(is_rooted(Path::new(r"\\server\share\x")));
    assert!(!is_rooted(Path::new(r"a\b")));
    let verbatim = format!(r"{}\a\b.txt", root.display());
    assert_eq!(f.scope.resolve_within(&verbatim).unwrap().rel, "a/b.txt");
    let plain = verbatim.trim_start_matches(r"\\?\").to_owned();
    assert_eq!(f.scope.resolve_within(&plain).unwrap().rel, "a/b.txt");
    assert_eq!(
        f.scope.resolve_within(&plain.to_lowercase()).unwrap().rel,
        "a/b.txt"
    );
    let up = format!(r"{}\a\..\..\outside\secret.txt", root.display());
    assert!(matches!(
        f.scope.resolve_within(&up),
        Err(ReadError::Escape { .. })
    ));
    assert!(f.scope.contains(&root.join(r"a\b.txt")));
    assert!(!f.scope.contains(&root.join(r"a\..\..\outside")));
    assert!(!f.scope.contains(Path::new(r"C:\Windows")));
    assert_eq!(
        lexical_absolute(Path::new(r"C:\a\.\b")).unwrap(),
        Path::new(r"C:\a\b")
    );
    assert_eq!(lexical_absolute(Path::new(r"C:\a\..\b")), None);
}

// ---------------------------------------------------------------------------------------------
// Symlinks

#[cfg(unix)]
#[test]
fn symlinks_inside_the_root_are_followed() {
    let f = Fixture::new();
    let real = f.write("a/b.txt", "hello");
    f.symlink("a/b.txt", "rel_link.txt");
    f.symlink(&real, "abs_link.txt");
    f.symlink("a", "dir_link");
    f.symlink("../b.txt", "a/up_link.txt"); // `..` inside a target, staying inside
    f.write("b.txt", "top");
    f.symlink("rel_link.txt", "chain.txt");
    for path in [
        "rel_link.txt",
        "abs_link.txt",
        "dir_link/b.txt",
        "chain.txt",
    ] {
        let r = f.scope.resolve(path).unwrap();
        assert_eq!(r.rel, "a/b.txt", "{path}");
        assert_eq!(r.abs, real);
        let t = text(&f, path);
        assert_eq!(t.text, "hello");
        assert_eq!(t.rel, "a/b.txt");
    }
    assert_eq!(text(&f, "a/up_link.txt").text, "top");
    assert_eq!(text(&f, "dir_link/up_link.txt").text, "top");
    // an absolute target spelled through the root's alias is understood too
    let alias = f.base.path().join("alias");
    std::os::unix::fs::symlink(f.root(), &alias).unwrap();
    let scope = Scope::new(&alias).unwrap();
    f.symlink(alias.join("a/b.txt"), "alias_link.txt");
    assert_eq!(scope.resolve("alias_link.txt").unwrap().rel, "a/b.txt");
}

#[cfg(unix)]
#[test]
fn symlinks_leaving_the_root_escape() {
    let f = Fixture::new();
    let secret = f.outside().join("secret.txt");
    f.symlink(&secret, "abs_out.txt");
    f.symlink("../outside/secret.txt", "rel_out.txt");
    f.symlink(f.outside(), "dir_out");
    f.symlink("../outside", "rel_dir_out");
    f.symlink("/etc", "etc");
    f.symlink(f.outside().join("missing"), "dangling_out");
    f.symlink("../root/a", "out_and_back"); // leaves the root even though it comes back
    f.write("a/b.txt", "hello");
    fs::create_dir(f.root().join("sub")).unwrap();
    f.symlink("../../outside/secret.txt", "sub/deep_out.txt");
    let cases = [
        "abs_out.txt",
        "rel_out.txt",
        "dir_out",
        "dir_out/secret.txt",
        "rel_dir_out/secret.txt",
        "etc/passwd",
        "dangling_out",
        "dangling_out/x",
        "out_and_back/b.txt",
        "sub/deep_out.txt",
    ];
    for path in cases {
        let e = resolve_err(&f, path);
        assert!(
            matches!(&e, ReadError::Escape { rel } if rel == path),
            "{path}: {e:?}"
        );
        assert_eq!(e.kind(), ErrorKind::InvalidRequest);
        let e = read_err(&f, path);
        assert!(matches!(e, ReadError::Escape { .. }), "{path}: {e:?}");
    }
    assert_eq!(
        read_err(&f, "rel_out.txt").to_string(),
        r#"path "rel_out.txt" resolves outside the root"#
    );
}

/// The confined open that plain paths take first: the kernel refuses every way out of the
/// root and every symlink, so only what the checked way would reach with no symlink opens;
/// the rest is left to the checked way, whose answers the tests above pin.
#[cfg(target_os = "linux")]
#[test]
fn the_confined_open_reaches_only_plain_files_inside() {
    use std::io::Read;
    let f = Fixture::new();
    f.write("a/b.txt", "hello");
    f.symlink("a/b.txt", "inside_link.txt");
    f.symlink("a", "dir_link");
    f.symlink(f.outside(), "dir_out");
    f.symlink(f.outside().join("secret.txt"), "out.txt");
    let Some((mut file, _)) = open::open_beneath(f.scope.root(), "a/b.txt") else {
        // A kernel or sandbox without `openat2`: reads take the checked way, tested above.
        println!("note: openat2 is not available here; the checked way serves every read");
        return;
    };
    let mut content = String::new();
    file.read_to_string(&mut content).unwrap();
    assert_eq!(content, "hello");
    for path in [
        "../outside/secret.txt",
        "a/../../outside/secret.txt",
        "out.txt",
        "dir_out/secret.txt",
        "inside_link.txt",
        "dir_link/b.txt",
        "a/missing.txt",
    ] {
        assert!(open::open_beneath(f.scope.root(), path).is_none(), "{path}");
    }
    // an absolute path is not beneath the root either
    let secret = f.outside().join("secret.txt");
    assert!(open::open_beneath(f.scope.root(), secret.to_str().unwrap()).is_none());
    // and what the confined open declines, the checked way still reads with its canonical rel
    assert_eq!(text(&f, "inside_link.txt").rel, "a/b.txt");
    assert_eq!(text(&f, "dir_link/b.txt").rel, "a/b.txt");
    assert_eq!(text(&f, "./a//b.txt").rel, "a/b.txt");
    assert_eq!(text(&f, "a/b.txt").rel, "a/b.txt");
}

/// What a read gives, comparable: the text file's fields, or the error's message.
fn outcome(r: Result<TextFile, ReadError>) -> Result<(String, String, u64, bool), String> {
    r.map(|t| (t.rel, t.text, t.size, t.crlf))
        .map_err(|e| e.to_string())
}

/// The stamp a walk takes of `rel` (without following a final symlink), or a stamp of
/// nothing for a path with nothing there.
fn walk_stamp(f: &Fixture, rel: &str) -> crate::stamp::Stamp {
    crate::stamp::Stamp::of_link(&f.root().join(rel)).unwrap_or(crate::stamp::Stamp {
        size: 0,
        modified: None,
        dev: 0,
        ino: 0,
        ctime_ns: 0,
    })
}

/// A listed reader gives, for every kind of path, what `read_text` gives: plain files read
/// straight away, and everything else (symlinks inside and out, `..`, directories, missing
/// files, binary or too large files) the answers of the checked way, which it falls back to.
#[test]
fn a_listed_reader_reads_what_read_text_reads() {
    let f = Fixture::new();
    f.write("a/b.txt", "hello\nworld\n");
    f.write("crlf.txt", "one\r\ntwo\r\n");
    f.write("bin.dat", b"\x00\x01\x02binary");
    f.write("big.txt", "x".repeat(200));
    f.write("empty.txt", "");
    #[cfg(unix)]
    {
        f.symlink("a/b.txt", "inside_link.txt");
        f.symlink("a", "dir_link");
        f.symlink(f.outside(), "dir_out");
        f.symlink(f.outside().join("secret.txt"), "out.txt");
    }
    let limits = ReadLimits {
        max_bytes: 100,
        ..ReadLimits::default()
    };
    let reader = f.scope.listed_reader();
    for path in [
        "a/b.txt",
        "crlf.txt",
        "bin.dat",
        "big.txt",
        "empty.txt",
        "inside_link.txt",
        "dir_link/b.txt",
        "dir_out/secret.txt",
        "out.txt",
        "../outside/secret.txt",
        "a/../a/b.txt",
        "./a//b.txt",
        "a",
        "a/missing.txt",
        "",
    ] {
        let seen = walk_stamp(&f, path);
        let got = outcome(reader.read_text(path, &seen, &limits));
        let want = outcome(f.scope.read_text(path, &limits));
        assert_eq!(got, want, "{path}");
        if let Err(e) = reader.read_text(path, &seen, &limits) {
            f.assert_safe(&e);
        }
    }
    assert_eq!(
        outcome(reader.read_text("a/b.txt", &walk_stamp(&f, "a/b.txt"), &limits))
            .unwrap()
            .1,
        "hello\nworld\n"
    );
}

/// The walk's stamp stands for the look before opening: a file replaced since (another
/// inode, a FIFO, a symlink out of the root, a directory on the way swapped for a symlink)
/// is looked at again, and read or refused as the checked way says, never waited on and never
/// read outside the root.
#[cfg(unix)]
#[test]
fn a_listed_reader_looks_again_at_what_changed_since_the_walk() {
    let f = Fixture::new();
    f.write("a.txt", "old");
    f.write("d/x.txt", "inside");
    fs::write(f.outside().join("x.txt"), "SECRET").unwrap();
    let seen_a = walk_stamp(&f, "a.txt");
    let seen_x = walk_stamp(&f, "d/x.txt");
    let read = |path: &str, seen: crate::stamp::Stamp| {
        let scope = f.scope.clone();
        let path = path.to_owned();
        promptly(move || {
            scope
                .listed_reader()
                .read_text(&path, &seen, &ReadLimits::default())
        })
    };
    assert_eq!(read("a.txt", seen_a).unwrap().text, "old");
    // Replaced by another file (renamed over it): the new one, as `read_text` reads it.
    f.write("new.txt", "new");
    fs::rename(f.root().join("new.txt"), f.root().join("a.txt")).unwrap();
    assert_eq!(read("a.txt", seen_a).unwrap().text, "new");
    // Replaced by a FIFO with no writer: refused at once.
    fs::remove_file(f.root().join("a.txt")).unwrap();
    f.fifo("a.txt");
    let e = read("a.txt", seen_a).unwrap_err();
    assert!(matches!(e, ReadError::NotRegularFile { .. }), "{e:?}");
    // Replaced by a symlink out of the root: an escape, and nothing of outside read.
    fs::remove_file(f.root().join("a.txt")).unwrap();
    f.symlink(f.outside().join("secret.txt"), "a.txt");
    let e = read("a.txt", seen_a).unwrap_err();
    assert!(matches!(e, ReadError::Escape { .. }), "{e:?}");
    f.assert_safe(&e);
    // A directory on the way swapped for a symlink out of the root (the file at its end has
    // the walk's inode nowhere): an escape too.
    fs::rename(f.root().join("d"), f.root().join("d_moved")).unwrap();
    f.symlink(f.outside(), "d");
    let e = read("d/x.txt", seen_x).unwrap_err();
    assert!(matches!(e, ReadError::Escape { .. }), "{e:?}");
    f.assert_safe(&e);
    // Even with the stamp of the very file outside, the confined open does not reach it.
    let seen_outside = crate::stamp::Stamp::of_link(&f.outside().join("x.txt")).unwrap();
    let e = read("d/x.txt", seen_outside).unwrap_err();
    assert!(matches!(e, ReadError::Escape { .. }), "{e:?}");
}

/// The open a listed reader takes keeps only a regular file with the walk's device and inode,
/// and does not wait on a FIFO whose stamp it is given.
#[cfg(target_os = "linux")]
#[test]
fn the_open_after_a_walk_keeps_only_the_file_the_walk_saw() {
    use std::os::unix::fs::MetadataExt;
    let f = Fixture::new();
    f.write("a/b.txt", "hello");
    f.write("c.txt", "other");
    f.fifo("pipe");
    let Some(dir) = open::RootDir::open(f.scope.root()) else {
        panic!("the root opens");
    };
    let id = |rel: &str| {
        let m = fs::symlink_metadata(f.root().join(rel)).unwrap();
        (m.dev(), m.ino())
    };
    if open::open_beneath(f.scope.root(), "a/b.txt").is_none() {
        println!("note: openat2 is not available here; the checked way serves every read");
        return;
    }
    assert!(dir.open_seen("a/b.txt", id("a/b.txt")).is_some());
    assert!(dir.open_seen("a/b.txt", id("c.txt")).is_none());
    let pipe = id("pipe");
    let opened = promptly(move || dir.open_seen("pipe", pipe).is_some());
    assert!(!opened);
}

#[cfg(unix)]
#[test]
fn dangling_symlink_inside_is_not_found() {
    let f = Fixture::new();
    f.symlink("nothing-here", "dangling");
    assert!(matches!(
        resolve_err(&f, "dangling"),
        ReadError::NotFound { .. }
    ));
}

#[cfg(unix)]
#[test]
fn symlink_loops_fail_promptly() {
    let f = Fixture::new();
    f.symlink("b", "a");
    f.symlink("a", "b");
    f.symlink("self", "self");
    f.symlink(".", "d");
    f.write("f.txt", "x");
    let scope = f.scope.clone();
    let results =
        promptly(move || ["a", "b", "self", "a/x", "self/x"].map(|p| (p, scope.resolve(p))));
    for (path, r) in results {
        let e = r.unwrap_err();
        f.assert_safe(&e);
        assert!(matches!(e, ReadError::SymlinkLoop { .. }), "{path}: {e:?}");
        assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    }
    // a long but finite chain is fine up to the hop limit
    let ok = format!("{}f.txt", "d/".repeat(MAX_SYMLINK_HOPS));
    assert_eq!(f.scope.resolve(&ok).unwrap().rel, "f.txt");
    let too_many = format!("{}f.txt", "d/".repeat(MAX_SYMLINK_HOPS + 1));
    assert!(matches!(
        f.scope.resolve(&too_many).unwrap_err(),
        ReadError::SymlinkLoop { .. }
    ));
    let scope = f.scope.clone();
    let e = promptly(move || scope.read_text("a", &ReadLimits::default())).unwrap_err();
    assert!(matches!(e, ReadError::SymlinkLoop { .. }));
}

#[cfg(unix)]
#[test]
fn dev_null_through_a_symlink_is_refused() {
    let f = Fixture::new();
    f.symlink("/dev/null", "null");
    let e = read_err(&f, "null");
    assert!(
        matches!(
            e,
            ReadError::Escape { .. } | ReadError::NotRegularFile { .. }
        ),
        "{e:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Non-regular files

/// Reading a FIFO must not even open it: a writer waiting for a reader would be released
/// (and then fail). Both ways of reading look before they open.
#[cfg(unix)]
#[test]
fn fifo_is_never_opened_so_a_waiting_writer_stays_waiting() {
    let f = Fixture::new();
    let fifo = f.fifo("pipe");
    let (tx, rx) = std::sync::mpsc::channel();
    let path = fifo.clone();
    let writer = std::thread::spawn(move || {
        // Blocks until a reader opens the FIFO.
        let opened = fs::OpenOptions::new().write(true).open(&path).is_ok();
        let _ = tx.send(opened);
    });
    for rel in ["pipe", "./pipe"] {
        let e = read_err(&f, rel);
        assert!(matches!(e, ReadError::NotRegularFile { .. }), "{e:?}");
    }
    assert!(
        rx.recv_timeout(Duration::from_millis(300)).is_err(),
        "reading the FIFO opened it and released its writer"
    );
    // Release the writer: open the FIFO for reading ourselves.
    let _reader = open::open_nonblocking(&fifo).unwrap();
    assert_eq!(rx.recv_timeout(Duration::from_secs(5)), Ok(true));
    writer.join().unwrap();
}

#[cfg(unix)]
#[test]
fn fifo_is_not_a_regular_file_and_never_hangs() {
    let f = Fixture::new();
    let fifo = f.fifo("pipe");
    let scope = f.scope.clone();
    let (text, bytes) = promptly(move || {
        let r = scope.resolve("pipe").unwrap();
        (
            scope.read_resolved(&r, &ReadLimits::default()),
            scope.read_bytes(&r, 1024),
        )
    });
    assert!(matches!(
        text.unwrap_err(),
        ReadError::NotRegularFile { .. }
    ));
    assert!(matches!(
        bytes.unwrap_err(),
        ReadError::NotRegularFile { .. }
    ));
    // The low-level open itself does not wait for a writer either.
    let md = promptly(move || open::open_nonblocking(&fifo).unwrap().metadata().unwrap());
    assert!(!md.is_file());
}

#[cfg(unix)]
#[test]
fn socket_is_not_a_regular_file() {
    let f = Fixture::new();
    let _listener = std::os::unix::net::UnixListener::bind(f.root().join("sock")).unwrap();
    let e = read_err(&f, "sock");
    assert!(matches!(e, ReadError::NotRegularFile { .. }), "{e:?}");
    // and opened directly (no pre-check), it is refused by the OS or by fstat
    let e = open::open_nonblocking(&f.root().join("sock"))
        .map_err(|e| ReadError::from_io("sock", e))
        .and_then(|file| {
            if file.metadata().unwrap().is_file() {
                Ok(())
            } else {
                Err(ReadError::NotRegularFile { rel: "sock".into() })
            }
        })
        .unwrap_err();
    assert!(matches!(e, ReadError::NotRegularFile { .. }), "{e:?}");
}

#[test]
fn directory_is_not_a_regular_file() {
    let f = Fixture::new();
    f.write("dir/x.txt", "x");
    assert!(matches!(
        read_err(&f, "dir"),
        ReadError::NotRegularFile { .. }
    ));
    assert!(matches!(
        read_err(&f, "."),
        ReadError::NotRegularFile { .. }
    ));
}

// ---------------------------------------------------------------------------------------------
// Sizes

#[test]
fn empty_file_is_empty_text() {
    let f = Fixture::new();
    f.write("empty.txt", "");
    let t = text(&f, "empty.txt");
    assert_eq!(t.text, "");
    assert_eq!(t.size, 0);
    assert!(!t.crlf && !t.lossy);
    assert!(t.modified.is_some());
    let r = f.scope.resolve("empty.txt").unwrap();
    assert_eq!(f.scope.read_bytes(&r, 0).unwrap(), Vec::<u8>::new());
}

#[test]
fn large_files_respect_the_cap() {
    let f = Fixture::new();
    let line = format!("{}\n", "x".repeat(99));
    let size = 50_000_000u64;
    let content = line.repeat((size / 100) as usize);
    f.write("big.txt", &content);
    let e = read_err(&f, "big.txt");
    match e {
        ReadError::TooLarge { rel, size: s, max } => {
            assert_eq!(rel, "big.txt");
            assert_eq!(s, size);
            assert_eq!(max, 8 * 1024 * 1024);
        }
        other => panic!("{other:?}"),
    }
    let limits = ReadLimits {
        max_bytes: 64 * 1024 * 1024,
        ..ReadLimits::default()
    };
    let t = f.scope.read_text("big.txt", &limits).unwrap();
    assert_eq!(t.size, size);
    assert_eq!(t.text.len() as u64, size);
    let r = f.scope.resolve("big.txt").unwrap();
    assert!(matches!(
        f.scope.read_bytes(&r, size - 1).unwrap_err(),
        ReadError::TooLarge { .. }
    ));
    assert_eq!(f.scope.read_bytes(&r, size).unwrap().len() as u64, size);
}

// ---------------------------------------------------------------------------------------------
// Text normalization through real files

#[test]
fn invalid_utf8_is_decoded_lossily() {
    let f = Fixture::new();
    let bytes = b"caf\xe9 ok\n\xff end\n";
    f.write("bad.txt", bytes);
    let t = text(&f, "bad.txt");
    assert!(t.lossy);
    assert_eq!(t.text, "caf\u{FFFD} ok\n\u{FFFD} end\n");
    assert_eq!(t.size, bytes.len() as u64);
}

#[test]
fn line_endings_and_bom_are_normalized() {
    let f = Fixture::new();
    f.write("crlf.txt", b"\xEF\xBB\xBFone\r\ntwo\rthree\n");
    let t = text(&f, "crlf.txt");
    assert_eq!(t.text, "one\ntwo\nthree\n");
    assert!(t.crlf);
    assert!(!t.lossy);
    f.write("unix.txt", "a\nb");
    assert!(!text(&f, "unix.txt").crlf);
}

#[test]
fn long_lines_are_cut_on_char_boundaries() {
    let f = Fixture::new();
    let long = "日本🦀é".repeat(1250); // 5000 chars, multibyte
    f.write("long.txt", format!("first\n{long}\nlast\n"));
    let t = text(&f, "long.txt");
    let lines: Vec<&str> = t.text.lines().collect();
    assert_eq!(lines[0], "first");
    assert_eq!(lines[1].chars().count(), 2003);
    assert!(lines[1].ends_with("..."));
    assert!(long.starts_with(&lines[1][..lines[1].len() - 3]));
    assert_eq!(lines[2], "last");
    assert_eq!(t.long_lines_truncated, 1);
    let unlimited = ReadLimits {
        max_line_chars: 0,
        ..ReadLimits::default()
    };
    let t = f.scope.read_text("long.txt", &unlimited).unwrap();
    assert_eq!(t.long_lines_truncated, 0);
    assert!(t.text.contains(&long));
}

#[test]
fn binary_files_are_refused_unless_allowed() {
    let f = Fixture::new();
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0";
    f.write("img.png", png);
    f.write("nul.txt", b"text\0more");
    for path in ["img.png", "nul.txt"] {
        let e = read_err(&f, path);
        assert!(
            matches!(&e, ReadError::Binary { rel } if rel == path),
            "{e:?}"
        );
        assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    }
    let allow = ReadLimits {
        allow_binary: true,
        ..ReadLimits::default()
    };
    let t = f.scope.read_text("img.png", &allow).unwrap();
    assert_eq!(t.size, png.len() as u64);
    let r = f.scope.resolve("img.png").unwrap();
    assert_eq!(f.scope.read_bytes(&r, 1024).unwrap(), png.to_vec());
    f.write("cjk.txt", "你好，世界 🌏 こんにちは\n");
    assert_eq!(text(&f, "cjk.txt").text, "你好，世界 🌏 こんにちは\n");
    f.write("latin1.txt", b"na\xefve caf\xe9\n");
    assert!(text(&f, "latin1.txt").lossy);
}

// ---------------------------------------------------------------------------------------------
// Permissions and error mapping

#[cfg(unix)]
#[test]
fn unreadable_file_is_permission_denied() {
    use std::os::unix::fs::PermissionsExt;
    let f = Fixture::new();
    let path = f.write("locked.txt", "x");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o000)).unwrap();
    let user = crate::test_support::Unprivileged::enter();
    if !user.can_read(&path) {
        let e = read_err(&f, "locked.txt");
        assert!(matches!(e, ReadError::PermissionDenied { .. }), "{e:?}");
        assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    }
    drop(user);
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(
        text(&f, "locked.txt").text,
        "x",
        "readable again once the mode allows it"
    );
}

/// A root below a directory the process may not search cannot be resolved: the error says
/// so without naming the path.
#[cfg(unix)]
#[test]
fn root_below_a_locked_directory_is_not_accessible() {
    use std::os::unix::fs::PermissionsExt;
    let base = tempfile::tempdir().unwrap();
    let locked = base.path().join("locked");
    fs::create_dir_all(locked.join("root")).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let user = crate::test_support::Unprivileged::enter();
    if !user.can_read(&locked) {
        let e = Scope::new(locked.join("root")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidRequest);
        assert_eq!(
            e.message(),
            "rootPath is not accessible (permission denied)"
        );
    }
    drop(user);
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    assert!(Scope::new(locked.join("root")).is_ok());
}

#[test]
fn io_errors_map_to_variants() {
    use io::ErrorKind as K;
    let map = |e: io::Error| ReadError::from_io("x.txt", e);
    assert!(matches!(
        map(io::Error::from(K::PermissionDenied)),
        ReadError::PermissionDenied { rel } if rel == "x.txt"
    ));
    assert!(matches!(
        map(io::Error::from(K::NotFound)),
        ReadError::NotFound { .. }
    ));
    assert!(matches!(
        map(io::Error::from(K::NotADirectory)),
        ReadError::NotFound { .. }
    ));
    assert!(matches!(
        map(io::Error::from(K::IsADirectory)),
        ReadError::NotRegularFile { .. }
    ));
    let other = map(io::Error::other("disk on fire"));
    assert!(matches!(other, ReadError::Io { .. }));
    assert_eq!(other.kind(), ErrorKind::Internal);
    assert!(!other.to_string().contains("disk on fire"));
    #[cfg(unix)]
    {
        let raw = |n| map(io::Error::from_raw_os_error(n));
        assert!(matches!(
            raw(libc::EACCES),
            ReadError::PermissionDenied { .. }
        ));
        assert!(matches!(
            raw(libc::EPERM),
            ReadError::PermissionDenied { .. }
        ));
        assert!(matches!(raw(libc::ENOENT), ReadError::NotFound { .. }));
        assert!(matches!(raw(libc::ENOTDIR), ReadError::NotFound { .. }));
        assert!(matches!(raw(libc::ELOOP), ReadError::SymlinkLoop { .. }));
        assert!(matches!(raw(libc::ENXIO), ReadError::NotRegularFile { .. }));
        assert!(matches!(
            raw(libc::ENAMETOOLONG),
            ReadError::InvalidPath { .. }
        ));
        assert!(matches!(raw(libc::EIO), ReadError::Io { .. }));
    }
}

#[test]
fn read_errors_become_crate_errors_with_safe_messages() {
    let cases = [
        (
            ReadError::NotFound { rel: "a.rs".into() },
            ErrorKind::InvalidRequest,
            r#"file not found: "a.rs""#,
        ),
        (
            ReadError::Escape { rel: String::new() },
            ErrorKind::InvalidRequest,
            "path is outside the root",
        ),
        (
            ReadError::Escape { rel: "l".into() },
            ErrorKind::InvalidRequest,
            r#"path "l" resolves outside the root"#,
        ),
        (
            ReadError::InvalidPath {
                reason: "path must not be empty".into(),
            },
            ErrorKind::InvalidRequest,
            "invalid path: path must not be empty",
        ),
        (
            ReadError::SymlinkLoop { rel: "a".into() },
            ErrorKind::InvalidRequest,
            r#"too many levels of symbolic links: "a""#,
        ),
        (
            ReadError::NotRegularFile { rel: "p".into() },
            ErrorKind::InvalidRequest,
            r#"not a regular file: "p""#,
        ),
        (
            ReadError::TooLarge {
                rel: "b".into(),
                size: 10,
                max: 5,
            },
            ErrorKind::InvalidRequest,
            r#"file "b" is too large (10 bytes; the limit is 5 bytes)"#,
        ),
        (
            ReadError::Binary {
                rel: "i.png".into(),
            },
            ErrorKind::InvalidRequest,
            r#"file "i.png" looks binary"#,
        ),
        (
            ReadError::PermissionDenied { rel: "k".into() },
            ErrorKind::InvalidRequest,
            r#"permission denied: "k""#,
        ),
        (
            ReadError::Io {
                rel: "z".into(),
                source: io::Error::other("/secret/abs/path"),
            },
            ErrorKind::Internal,
            r#"could not read "z": other error"#,
        ),
    ];
    for (read_error, kind, message) in cases {
        let e = Error::from(read_error);
        assert_eq!(e.kind(), kind);
        assert_eq!(e.message(), message);
        assert!(std::error::Error::source(&e).is_some());
    }
    // control characters are escaped and very long paths shortened
    let e = ReadError::NotFound {
        rel: format!("a\nb{}", "x".repeat(500)),
    };
    let shown = e.to_string();
    assert!(!shown.contains('\n'));
    assert!(shown.len() < 260);
}

// ---------------------------------------------------------------------------------------------
// Races and forged inputs

#[test]
fn file_vanishing_after_resolve_is_not_found() {
    let f = Fixture::new();
    let path = f.write("gone.txt", "x");
    let r = f.scope.resolve("gone.txt").unwrap();
    fs::remove_file(path).unwrap();
    let e = f
        .scope
        .read_resolved(&r, &ReadLimits::default())
        .unwrap_err();
    assert!(matches!(e, ReadError::NotFound { .. }), "{e:?}");
    assert!(matches!(
        f.scope.read_bytes(&r, 10).unwrap_err(),
        ReadError::NotFound { .. }
    ));
}

#[cfg(unix)]
#[test]
fn forged_or_stale_resolved_paths_are_rechecked() {
    let f = Fixture::new();
    f.write("a/b.txt", "hello");
    let limits = ReadLimits::default();
    let forged = [
        f.outside().join("secret.txt"),
        f.root().join("../outside/secret.txt"),
        f.root().join("a/../../outside/secret.txt"),
    ];
    for abs in forged {
        let r = Resolved {
            abs,
            rel: "x".into(),
        };
        let e = f.scope.read_resolved(&r, &limits).unwrap_err();
        assert!(matches!(e, ReadError::Escape { .. }), "{e:?}");
    }
    // resolved while `d` was a directory, then `d` became a symlink out of the root
    fs::create_dir(f.root().join("d")).unwrap();
    f.write("d/secret.txt", "fine");
    let r = f.scope.resolve("d/secret.txt").unwrap();
    fs::remove_dir_all(f.root().join("d")).unwrap();
    f.symlink(f.outside(), "d");
    let e = f.scope.read_resolved(&r, &limits).unwrap_err();
    assert!(matches!(e, ReadError::Escape { .. }), "{e:?}");
    assert!(matches!(
        f.scope.read_bytes(&r, 100).unwrap_err(),
        ReadError::Escape { .. }
    ));
}

// ---------------------------------------------------------------------------------------------
// contains and resolve_within

#[test]
fn contains_is_component_wise() {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("a").join("b");
    fs::create_dir_all(&root).unwrap();
    fs::create_dir_all(base.path().join("a").join("bc")).unwrap();
    let scope = Scope::new(&root).unwrap();
    let canon = scope.root().to_path_buf();
    let parent = canon.parent().unwrap();
    assert!(scope.contains(&canon));
    assert!(scope.contains(&canon.join("x/y.txt")));
    assert!(!scope.contains(&parent.join("bc")));
    assert!(!scope.contains(&parent.join("bc/x")));
    assert!(!scope.contains(parent));
    assert!(!scope.contains(&canon.join("../bc")));
    assert!(!scope.contains(&canon.join("x/../../bc")));
    assert!(!scope.contains(Path::new("/etc/passwd")));
    assert!(!scope.contains(Path::new("b/x")));
}

#[cfg(unix)]
#[test]
fn resolve_within_accepts_absolute_paths_inside_only() {
    let f = Fixture::new();
    let real = f.write("a/b.txt", "hello");
    let root = f.root();
    // relative paths behave as resolve
    assert_eq!(f.scope.resolve_within("a/b.txt").unwrap().abs, real);
    assert!(matches!(
        f.scope.resolve_within("../x").unwrap_err(),
        ReadError::InvalidPath { .. }
    ));
    // absolute inside
    let inside = [
        real.clone(),
        root.join("./a/b.txt"),
        root.join("a/../a/b.txt"),
        f.base.path().join("root/a/b.txt"),
    ];
    for p in inside {
        let r = f.scope.resolve_within(p.to_str().unwrap()).unwrap();
        assert_eq!(r.rel, "a/b.txt", "{p:?}");
        assert_eq!(r.abs, real);
    }
    let r = f.scope.resolve_within(root.to_str().unwrap()).unwrap();
    assert_eq!(r.rel, "");
    // absolute inside but missing: not found, with the relative path only
    let e = f
        .scope
        .resolve_within(root.join("a/nope.txt").to_str().unwrap())
        .unwrap_err();
    f.assert_safe(&e);
    assert!(
        matches!(&e, ReadError::NotFound { rel } if rel == "a/nope.txt"),
        "{e:?}"
    );
    // absolute outside: escape, without repeating the path
    let secret = f.outside().join("secret.txt");
    let outside = [
        PathBuf::from("/etc/passwd"),
        PathBuf::from("/"),
        secret.clone(),
        root.join("../outside/secret.txt"),
        root.join("a/../../outside/secret.txt"),
        f.outside().join("missing/deeper"),
        root.join(".."),
    ];
    for p in outside {
        let e = f.scope.resolve_within(p.to_str().unwrap()).unwrap_err();
        f.assert_safe(&e);
        assert!(
            matches!(&e, ReadError::Escape { rel } if rel.is_empty()),
            "{p:?}: {e:?}"
        );
        assert_eq!(e.to_string(), "path is outside the root");
    }
    // sibling with a common string prefix
    fs::create_dir(f.base.path().join("rootx")).unwrap();
    fs::write(f.base.path().join("rootx/f"), "x").unwrap();
    let p = f.base.path().join("rootx/f");
    assert!(matches!(
        f.scope.resolve_within(p.to_str().unwrap()).unwrap_err(),
        ReadError::Escape { .. }
    ));
    assert!(matches!(
        f.scope.resolve_within("").unwrap_err(),
        ReadError::InvalidPath { .. }
    ));
    assert!(matches!(
        f.scope.resolve_within("/etc/\0passwd").unwrap_err(),
        ReadError::InvalidPath { .. }
    ));
}

#[cfg(unix)]
#[test]
fn resolve_within_understands_root_aliases_and_checks_symlinks() {
    let f = Fixture::new();
    let real = f.write("a/b.txt", "hello");
    let alias = f.base.path().join("alias");
    std::os::unix::fs::symlink(f.root(), &alias).unwrap();
    // scope created through the alias; paths given either way
    let via_alias = Scope::new(&alias).unwrap();
    for scope in [&via_alias, &f.scope] {
        for p in [alias.join("a/b.txt"), real.clone()] {
            let r = scope.resolve_within(p.to_str().unwrap()).unwrap();
            assert_eq!(r.abs, real);
            assert_eq!(r.rel, "a/b.txt");
        }
        let e = scope
            .resolve_within(alias.join("a/missing.txt").to_str().unwrap())
            .unwrap_err();
        assert!(matches!(e, ReadError::NotFound { .. }), "{e:?}");
    }
    // an absolute path inside the root through a symlink that leaves it still escapes
    f.symlink(f.outside(), "out");
    for p in [
        f.root().join("out/secret.txt"),
        alias.join("out/secret.txt"),
    ] {
        for scope in [&via_alias, &f.scope] {
            let e = scope.resolve_within(p.to_str().unwrap()).unwrap_err();
            f.assert_safe(&e);
            assert!(matches!(e, ReadError::Escape { .. }), "{p:?}: {e:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Property: random relative paths never resolve outside the root

#[cfg(unix)]
mod property {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn random_paths_stay_inside(
            segments in prop::collection::vec(
                prop_oneof![
                    6 => prop::sample::select(vec!["a", "b", ".", "", "/", "~"]),
                    1 => prop::sample::select(vec!["..", "\0"]),
                ],
                0..8,
            )
        ) {
            let f = Fixture::new();
            f.write("a/a", "AA");
            f.write("a/b/a", "ABA");
            f.symlink("a", "b");             // inside
            f.symlink("../outside", "~");    // escapes
            f.symlink("..", "a/~");          // up to the root: inside
            f.symlink("../..", "a/b/~");     // up to the root: inside
            f.symlink("../../..", "a/b/b");  // beyond the root: escapes
            fs::write(f.outside().join("a"), "SECRET").unwrap();
            fs::create_dir(f.outside().join("b")).unwrap();
            let path: String = segments.concat();
            let outside = f.outside();
            let limits = ReadLimits::default();
            for result in [f.scope.resolve(&path), f.scope.resolve_within(&path)] {
                match result {
                    Ok(r) => {
                        prop_assert!(f.scope.contains(&r.abs));
                        let canon = fs::canonicalize(&r.abs).unwrap();
                        prop_assert_eq!(&canon, &r.abs);
                        prop_assert!(canon.starts_with(f.root()));
                        prop_assert!(!canon.starts_with(&outside));
                        let rel_path = if r.rel.is_empty() { f.root() } else { f.root().join(&r.rel) };
                        prop_assert_eq!(rel_path, r.abs.clone());
                        if let Ok(t) = f.scope.read_resolved(&r, &limits) {
                            prop_assert!(!t.text.contains("SECRET"));
                        }
                    }
                    Err(e) => {
                        f.assert_safe(&e);
                        let relative_dotdot = !path.starts_with('/') && path.split('/').any(|s| s == "..");
                        if path.contains('\0') || relative_dotdot {
                            prop_assert!(matches!(e, ReadError::InvalidPath { .. }), "{:?}", e);
                        }
                    }
                }
            }
            if let Ok(t) = f.scope.read_text(&path, &limits) {
                prop_assert!(!t.text.contains("SECRET"));
            }
        }
    }
}

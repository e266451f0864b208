use super::*;

fn files(list: &[(&str, &str)]) -> Vec<SourceFile> {
    list.iter()
        .map(|(p, c)| SourceFile {
            path: (*p).to_owned(),
            content: (*c).to_owned(),
        })
        .collect()
}

fn query(name: &str) -> Query {
    Query {
        name: Pattern::new(name).unwrap(),
        kind: None,
        language: None,
        repos: None,
        limit: DEFAULT_LIMIT,
        offset: 0,
    }
}

fn names(r: &SearchResult) -> Vec<String> {
    r.results
        .iter()
        .map(|s| {
            format!(
                "{}:{}:{} {} {}",
                s.repo,
                s.file,
                s.line,
                s.kind.as_str(),
                s.name
            )
        })
        .collect()
}

fn sample() -> SymbolIndex {
    let index = SymbolIndex::new();
    let a = index
        .index_files(
            "acme/api",
            &files(&[
                (
                    "src/parse.ts",
                    "export function parseConfig(text: string) {\n  return JSON.parse(text)\n}\n\nexport class ConfigParser {\n  parse(s: string) { return s }\n}\n\nexport const MAX_DEPTH = 8\n",
                ),
                (
                    "tool/parse.py",
                    "class Parser:\n    def parse(self, s):\n        return s\n\ndef parse_args(argv):\n    return argv\n",
                ),
                ("README.md", "# parse things\n"),
            ]),
        )
        .unwrap();
    assert_eq!(
        a,
        IndexSummary {
            files: 2,
            symbols: 7,
            parsed: 2,
        }
    );
    index
        .index_files(
            "acme/core",
            &files(&[(
                "lib.rs",
                "pub mod parse;\n\npub trait Parse {\n    fn parse(&self);\n}\n\npub struct Parsed;\n",
            )]),
        )
        .unwrap();
    index
}

#[test]
fn wildcards_match_whole_names_case_insensitively() {
    let p = Pattern::new("parse*").unwrap();
    assert!(p.matches("parseConfig") && p.matches("Parse") && p.matches("PARSE_args"));
    assert!(!p.matches("ConfigParser"));
    let p = Pattern::new("*Pars?r").unwrap();
    assert!(p.matches("ConfigParser") && p.matches("parser") && !p.matches("Parsed"));
    let p = Pattern::new("a*b*c").unwrap();
    assert!(p.matches("abc") && p.matches("aXbYc") && p.matches("abbbc") && !p.matches("acb"));
    assert!(Pattern::new("??").unwrap().matches("éx"));
    assert!(Pattern::new("").is_err() && Pattern::new("   ").is_err());
    assert!(Pattern::new(&"x".repeat(MAX_PATTERN_CHARS + 1)).is_err());
}

#[test]
fn search_orders_exact_matches_first_then_by_name_and_place() {
    let index = sample();
    let r = index.search(&query("parse"));
    assert_eq!(
        names(&r),
        vec![
            "acme/api:src/parse.ts:6 method parse",
            "acme/api:tool/parse.py:2 method parse",
            "acme/core:lib.rs:1 module parse",
            "acme/core:lib.rs:3 interface Parse",
            "acme/core:lib.rs:4 method parse",
        ]
    );
    assert_eq!((r.total_matches, r.repos_searched), (5, 2));
    let r = index.search(&query("parse*"));
    assert_eq!(r.total_matches, 9);
    // The exact matches come first, then the rest by name.
    let rest: Vec<&str> = r.results[5..].iter().map(|s| s.name.as_str()).collect();
    assert_eq!(rest, ["parse_args", "parseConfig", "Parsed", "Parser"]);
    // Same input, same answer.
    assert_eq!(names(&index.search(&query("parse*"))), names(&r));
}

#[test]
fn filters_by_kind_language_repo_and_limit() {
    let index = sample();
    let mut q = query("*");
    q.kind = Some(SymbolKind::Class);
    let r = index.search(&q);
    assert_eq!(
        names(&r),
        vec![
            "acme/api:src/parse.ts:5 class ConfigParser",
            "acme/core:lib.rs:7 class Parsed",
            "acme/api:tool/parse.py:1 class Parser",
        ]
    );
    let mut q = query("*");
    q.language = Some(Lang::Python);
    assert_eq!(index.search(&q).total_matches, 3);
    let mut q = query("*");
    q.repos = Some(vec!["CORE".to_owned()]);
    let r = index.search(&q);
    assert_eq!((r.total_matches, r.repos_searched), (4, 1));
    let mut q = query("MAX_*");
    q.kind = Some(SymbolKind::Constant);
    let r = index.search(&q);
    assert_eq!(
        names(&r),
        vec!["acme/api:src/parse.ts:9 constant MAX_DEPTH"]
    );
    let mut q = query("*");
    q.limit = 2;
    let r = index.search(&q);
    assert_eq!((r.results.len(), r.total_matches), (2, 11));
}

#[test]
fn symbols_carry_signature_scope_column_and_range() {
    let index = sample();
    let r = index.search(&query("parseConfig"));
    let s = &r.results[0];
    assert_eq!((s.line, s.end_line, s.column), (1, 3, 16));
    assert_eq!(
        s.signature.as_deref(),
        Some("export function parseConfig(text: string)")
    );
    assert_eq!(s.language, Lang::TypeScript);
    assert_eq!(s.scope, None);
    let r = index.search(&query("parse"));
    assert_eq!(r.results[0].scope.as_deref(), Some("ConfigParser"));
}

#[test]
fn signatures_are_redacted() {
    let index = SymbolIndex::new();
    index
        .index_files(
            "r",
            &files(&[(
                "k.ts",
                "export const API_KEY = \"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\"\n",
            )]),
        )
        .unwrap();
    let r = index.search(&query("API_KEY"));
    let sig = r.results[0].signature.clone().unwrap();
    assert!(!sig.contains("ghp_0123456789"), "{sig}");
    assert!(sig.contains("REDACTED"), "{sig}");
}

#[test]
fn indexing_a_repo_replaces_it_and_removal_forgets_it() {
    let index = sample();
    index
        .index_files(
            "acme/api",
            &files(&[("a.go", "package a\n\nfunc Only() {}\n")]),
        )
        .unwrap();
    assert_eq!(index.search(&query("parseConfig")).total_matches, 0);
    assert_eq!(index.search(&query("only")).total_matches, 1);
    assert!(index.remove_repo("acme/api"));
    assert!(!index.remove_repo("acme/api"));
    assert_eq!(index.repos(), vec![("acme/core".to_owned(), 4)]);
}

#[test]
fn updating_files_merges_by_path_and_batches_equal_one_index() {
    let a = ("src/a.ts", "export function alpha() {}\n");
    let b = ("src/b.py", "def beta():\n    pass\n");
    let c = ("lib/c.go", "package c\n\nfunc Gamma() {}\n");
    // One call with every file, or the same files in two batches: the same search results.
    let whole = SymbolIndex::new();
    whole.index_files("r", &files(&[a, b, c])).unwrap();
    let batched = SymbolIndex::new();
    let first = batched.update_files("r", &files(&[a])).unwrap();
    assert_eq!(
        first,
        IndexSummary {
            files: 1,
            symbols: 1,
            parsed: 1,
        }
    );
    batched.update_files("r", &files(&[b, c])).unwrap();
    let all = |i: &SymbolIndex| names(&i.search(&query("*")));
    assert_eq!(all(&batched), all(&whole));
    assert_eq!(batched.repos(), whole.repos());
    // A changed file replaces its own symbols only; a file now without symbols drops them.
    batched
        .update_files(
            "r",
            &files(&[("src/a.ts", "export function alphaTwo() {}\n")]),
        )
        .unwrap();
    assert_eq!(batched.search(&query("alpha")).total_matches, 0);
    assert_eq!(batched.search(&query("alphaTwo")).total_matches, 1);
    assert_eq!(batched.search(&query("beta")).total_matches, 1);
    batched
        .update_files("r", &files(&[("src/b.py", "# nothing left\n")]))
        .unwrap();
    assert_eq!(batched.search(&query("beta")).total_matches, 0);
    assert_eq!(batched.search(&query("gamma")).total_matches, 1);
    // Bad input as for index_files.
    assert_eq!(
        batched.update_files("", &[]).unwrap_err().kind(),
        crate::ErrorKind::InvalidRequest
    );
}

#[test]
fn bad_input_is_invalid_request() {
    let index = SymbolIndex::new();
    let bad = |r: Result<IndexSummary>| {
        assert_eq!(r.unwrap_err().kind(), crate::ErrorKind::InvalidRequest);
    };
    bad(index.index_files("", &[]));
    bad(index.index_files("a\nb", &[]));
    bad(index.index_files("r", &files(&[("", "x")])));
    bad(index.index_root("r", Path::new("relative")));
    bad(index.index_root("r", Path::new("/definitely/not/here")));
}

#[test]
fn index_root_skips_ignored_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join(".gitignore"), "gen/\n").unwrap();
    std::fs::create_dir(root.join("gen")).unwrap();
    std::fs::write(root.join("gen/out.py"), "def generated(): pass\n").unwrap();
    std::fs::create_dir(root.join("src")).unwrap();
    std::fs::write(root.join("src/app.py"), "def handwritten(): pass\n").unwrap();
    let index = SymbolIndex::new();
    let s = index.index_root("local", root).unwrap();
    assert_eq!(
        s,
        IndexSummary {
            files: 1,
            symbols: 1,
            parsed: 1,
        }
    );
    let r = index.search(&query("*"));
    assert_eq!(names(&r), vec!["local:src/app.py:1 function handwritten"]);
}

/// Every symbol of `index`, in order, as text (all fields a search answers with).
fn everything(index: &SymbolIndex) -> Vec<String> {
    let mut q = query("*");
    q.limit = MAX_LIMIT;
    index
        .search(&q)
        .results
        .iter()
        .map(|s| {
            format!(
                "{}:{}:{}-{}:{} {} {} {:?} {:?} {}",
                s.repo,
                s.file,
                s.line,
                s.end_line,
                s.column,
                s.kind.as_str(),
                s.name,
                s.signature,
                s.scope,
                s.language.as_str()
            )
        })
        .collect()
}

fn cached(dir: &Path) -> SymbolIndex {
    SymbolIndex::with_options(SymbolIndexOptions {
        cache_dir: Some(dir.to_path_buf()),
        threads: None,
    })
    .unwrap()
}

const API: &[(&str, &str)] = &[
    (
        "src/parse.ts",
        "export function parseConfig(text: string) {\n  return JSON.parse(text)\n}\n\nexport class ConfigParser {\n  parse(s: string) { return s }\n}\n",
    ),
    (
        "tool/parse.py",
        "class Parser:\n    def parse(self, s):\n        return s\n\ndef parse_args(argv):\n    return argv\n",
    ),
    ("cmd/main.go", "package main\n\nfunc Main() {}\n"),
    ("README.md", "# parse things\n"),
];

#[test]
fn a_restart_answers_the_same_without_parsing() {
    let dir = tempfile::tempdir().unwrap();
    let first = cached(dir.path());
    let s = first.index_files("acme/api", &files(API)).unwrap();
    assert_eq!((s.files, s.parsed), (3, 3));
    first
        .index_files(
            "acme/core",
            &files(&[("lib.rs", "pub trait Parse {\n    fn parse(&self);\n}\n")]),
        )
        .unwrap();
    let want = everything(&first);
    assert!(want.len() > 5);
    first.flush();
    drop(first);

    // A new index on the same directory answers at once, with the same results.
    let second = cached(dir.path());
    assert_eq!(everything(&second), want);
    assert_eq!(
        second.repos(),
        vec![("acme/api".to_owned(), 7), ("acme/core".to_owned(), 2)]
    );
    // The same files again: nothing is parsed, nothing changes.
    let again = second.index_files("acme/api", &files(API)).unwrap();
    assert_eq!(
        again,
        IndexSummary {
            files: 3,
            symbols: 7,
            parsed: 0
        }
    );
    assert_eq!(everything(&second), want);
    // Nothing changed: nothing written either (the file is the one the first index wrote).
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let ino = |p: &Path| std::fs::metadata(p).unwrap().ino();
        let api = saved(dir.path(), "acme/api");
        let before = ino(&api);
        second.flush();
        assert_eq!(ino(&api), before);
        // In batches, the first replacing the repository: still nothing parsed or written.
        let all = files(API);
        assert_eq!(second.index_files("acme/api", &all[..1]).unwrap().parsed, 0);
        assert_eq!(
            second.update_files("acme/api", &all[1..]).unwrap().parsed,
            0
        );
        second.flush();
        assert_eq!(ino(&api), before);
        assert_eq!(everything(&second), want);
    }
    // Without a cache directory, a new index starts empty.
    assert!(SymbolIndex::new().repos().is_empty());
}

#[test]
fn a_changed_file_is_parsed_alone() {
    let dir = tempfile::tempdir().unwrap();
    let index = cached(dir.path());
    index.index_files("acme/api", &files(API)).unwrap();
    let mut changed = files(API);
    changed[2].content = "package main\n\nfunc Main() {}\n\nfunc Helper() {}\n".to_owned();
    let s = index.index_files("acme/api", &changed).unwrap();
    assert_eq!(
        s,
        IndexSummary {
            files: 3,
            symbols: 8,
            parsed: 1
        }
    );
    assert_eq!(index.search(&query("helper")).total_matches, 1);
    // A new path is parsed; a file no longer handed in is gone; a renamed file is new.
    let mut moved = changed.clone();
    moved[0].path = "src/config.ts".to_owned();
    moved.pop();
    let s = index.index_files("acme/api", &moved).unwrap();
    assert_eq!((s.files, s.parsed), (3, 1));
    let r = index.search(&query("parseConfig"));
    assert_eq!(
        names(&r),
        vec!["acme/api:src/config.ts:1 function parseConfig"]
    );
    // updateFiles re-parses only what changed among the files it names.
    let s = index
        .update_files("acme/api", &files(&[API[1], ("x.rs", "fn x() {}\n")]))
        .unwrap();
    assert_eq!((s.files, s.parsed), (2, 1));
    // After a restart the change is what is kept, and the same files parse nothing.
    index.flush();
    let restarted = cached(dir.path());
    assert_eq!(everything(&restarted), everything(&index));
    let mut all = moved.clone();
    all.push(SourceFile {
        path: "x.rs".to_owned(),
        content: "fn x() {}\n".to_owned(),
    });
    assert_eq!(restarted.index_files("acme/api", &all).unwrap().parsed, 0);
}

/// The one saved file of `repo` in `dir`.
fn saved(dir: &Path, repo: &str) -> std::path::PathBuf {
    let p = store::path_of(dir, repo);
    assert!(p.is_file(), "{repo} saved");
    p
}

#[test]
fn a_damaged_or_foreign_cache_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let index = cached(dir.path());
    index.index_files("acme/api", &files(API)).unwrap();
    index
        .index_files("acme/web", &files(&[("a.js", "function a() {}\n")]))
        .unwrap();
    index.flush();
    let want = everything(&index);
    let api = saved(dir.path(), "acme/api");
    let web = saved(dir.path(), "acme/web");
    let good = std::fs::read(&api).unwrap();

    // Each damage: the repository is not loaded, indexing it parses every file again and
    // writes a good file, which the next start loads.
    let engine = env!("CARGO_PKG_VERSION").as_bytes();
    let at = good
        .windows(engine.len())
        .position(|w| w == engine)
        .unwrap();
    let damages: Vec<(&str, Vec<u8>)> = vec![
        ("one byte flipped", {
            let mut b = good.clone();
            let i = b.len() / 2;
            b[i] ^= 0x20;
            b
        }),
        ("cut short", good[..good.len() - 3].to_vec()),
        ("empty", Vec::new()),
        ("another engine version", {
            let mut b = good.clone();
            b[at] = b'9';
            b
        }),
        ("another format", {
            let mut b = good.clone();
            b[8] = b[8].wrapping_add(1);
            b
        }),
        ("another kind of cache", {
            let mut b = good.clone();
            b[..8].copy_from_slice(b"CEIDX\r\n\0");
            b
        }),
        // Another repository's file under this repository's name.
        ("another repository's", std::fs::read(&web).unwrap()),
    ];
    for (what, bytes) in damages {
        std::fs::write(&api, &bytes).unwrap();
        let restarted = cached(dir.path());
        assert_eq!(
            restarted.repos(),
            vec![("acme/web".to_owned(), 1)],
            "{what}: not loaded"
        );
        let s = restarted.index_files("acme/api", &files(API)).unwrap();
        assert_eq!(s.parsed, 3, "{what}: parsed again");
        restarted.flush();
        assert_eq!(everything(&cached(dir.path())), want, "{what}: rebuilt");
    }
    // Not a regular file: a directory; a link, even to a good copy.
    std::fs::remove_file(&api).unwrap();
    std::fs::create_dir(&api).unwrap();
    assert_eq!(cached(dir.path()).repos().len(), 1);
    std::fs::remove_dir(&api).unwrap();
    #[cfg(unix)]
    {
        let elsewhere = tempfile::tempdir().unwrap();
        let copy = elsewhere.path().join("copy");
        std::fs::write(&copy, &good).unwrap();
        std::os::unix::fs::symlink(&copy, &api).unwrap();
        assert_eq!(
            cached(dir.path()).repos().len(),
            1,
            "a link is not followed"
        );
        std::fs::remove_file(&api).unwrap();
    }
    // Files that are not the index's are never read or removed.
    std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    let restarted = cached(dir.path());
    assert_eq!(restarted.repos().len(), 1);
    assert!(dir.path().join("notes.txt").is_file());
    // An unwritable cache directory costs a parse, not an error.
    let file_not_dir = dir.path().join("notes.txt");
    let nowhere = cached(&file_not_dir.join("sub"));
    assert_eq!(nowhere.index_files("r", &files(API)).unwrap().files, 3);
    nowhere.flush();
    assert_eq!(nowhere.search(&query("main")).total_matches, 1);
}

#[test]
fn removing_a_repo_removes_its_saved_copy() {
    let dir = tempfile::tempdir().unwrap();
    let index = cached(dir.path());
    index.index_files("acme/api", &files(API)).unwrap();
    index.flush();
    let api = saved(dir.path(), "acme/api");
    assert!(index.remove_repo("acme/api"));
    index.flush();
    assert!(!api.exists());
    assert!(cached(dir.path()).repos().is_empty());
}

#[test]
fn forged_files_with_a_matching_checksum_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let index = cached(dir.path());
    index.index_files("acme/api", &files(API)).unwrap();
    index.flush();
    let good = std::fs::read(saved(dir.path(), "acme/api")).unwrap();
    let name = store::path_of(dir.path(), "acme/api");
    let name = name.file_name().unwrap().to_str().unwrap();
    let (_, body) = crate::cache_file::checked_body(
        &good,
        &crate::cache_file::Header {
            magic: b"CESYM\r\n\0",
            format: CACHE_FORMAT_VERSION,
            version: env!("CARGO_PKG_VERSION"),
        },
    )
    .unwrap();
    let body_at = good.len() - 16 - body.b.len();
    let reframe = |mut b: Vec<u8>| {
        let end = b.len() - 16;
        let sum = crate::cache_file::Checksum::of(&b[body_at..end]);
        let len = (end - body_at) as u64;
        b[end..end + 8].copy_from_slice(&len.to_le_bytes());
        b[end + 8..].copy_from_slice(&sum.to_le_bytes());
        b
    };
    assert!(store::decode(&reframe(good.clone()), name).is_some());
    for i in body_at..good.len() - 16 {
        for x in [0x01, 0x80, 0xff] {
            let mut b = good.clone();
            b[i] ^= x;
            // Any answer but a panic; a file that still decodes holds valid symbols.
            if let Some((_, repo)) = store::decode(&reframe(b), name) {
                for f in repo.files.values() {
                    assert!(f.symbols.iter().all(|s| s.line >= 1 && !s.name.is_empty()));
                }
            }
        }
    }
}

#[test]
fn pages_cut_one_deterministic_order() {
    let index = sample();
    let mut q = query("*");
    q.limit = MAX_LIMIT;
    let all = names(&index.search(&q));
    assert_eq!(all.len(), 11);
    let mut paged = Vec::new();
    let mut offset = 0;
    loop {
        let mut q = query("*");
        q.limit = 3;
        q.offset = offset;
        let r = index.search(&q);
        assert_eq!(r.total_matches, 11);
        assert_eq!(r.has_more, offset + 3 < 11);
        paged.extend(names(&r));
        match r.next_offset {
            Some(next) => {
                assert_eq!(next, offset + 3);
                offset = next;
            }
            None => break,
        }
    }
    assert_eq!(paged, all);
    // Past the end: no results, nothing more.
    let mut q = query("*");
    q.offset = 50;
    let r = index.search(&q);
    assert!(r.results.is_empty() && !r.has_more && r.next_offset.is_none());
    assert_eq!(r.total_matches, 11);
    // Exact matches first holds across pages too.
    let mut q = query("parse");
    q.limit = 2;
    q.offset = 2;
    assert_eq!(
        names(&index.search(&q)),
        vec![
            "acme/core:lib.rs:1 module parse",
            "acme/core:lib.rs:3 interface Parse"
        ]
    );
}

#[test]
fn any_number_of_threads_gives_the_same_index() {
    let many: Vec<SourceFile> = (0..40)
        .map(|i| SourceFile {
            path: format!("src/m{i:02}.ts"),
            content: format!(
                "export function f{i}() {{}}\nexport class C{i} {{\n  m{i}() {{}}\n}}\n"
            )
            .repeat(i % 5 + 1),
        })
        .collect();
    let with = |threads| {
        let index = SymbolIndex::with_options(SymbolIndexOptions {
            cache_dir: None,
            threads: Some(threads),
        })
        .unwrap();
        assert_eq!(index.threads(), threads);
        let s = index.index_files("r", &many).unwrap();
        (s, everything(&index))
    };
    let one = with(1);
    assert_eq!(one.0.files, 40);
    assert_eq!(with(2), one);
    assert_eq!(with(7), one);
    for bad in [0, MAX_THREADS + 1] {
        let e = SymbolIndex::with_options(SymbolIndexOptions {
            cache_dir: None,
            threads: Some(bad),
        })
        .unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::InvalidRequest);
    }
    let e = SymbolIndex::with_options(SymbolIndexOptions {
        cache_dir: Some("relative/dir".into()),
        threads: None,
    })
    .unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::InvalidRequest);
}

#[test]
fn a_cancelled_call_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let index = cached(dir.path());
    index.index_files("acme/api", &files(API)).unwrap();
    index.flush();
    let before = everything(&index);
    let cancel = crate::cancel::Cancel::new();
    cancel.cancel();
    let other = files(&[("a.py", "def gone(): pass\n")]);
    for r in [
        index.index_files_with("acme/api", &other, &cancel),
        index.update_files_with("acme/api", &other, &cancel),
    ] {
        assert_eq!(r.unwrap_err().reason(), Some(crate::error::reason::ABORTED));
    }
    assert_eq!(everything(&index), before);
    assert_eq!(everything(&cached(dir.path())), before);
}

/// hound-mcp's languages (TypeScript, JavaScript, Python, Go, Rust, Solidity, C#, and bash
/// in its parser), each with the kinds its files define.
#[test]
fn every_language_hound_mcp_indexes() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "web/app.tsx",
            "export interface Props { id: string }\nexport type Id = string\nexport enum Mode { A }\nexport class View {\n  render() { return null }\n}\nexport const useView = () => null\n",
            &[
                "interface Props",
                "type Id",
                "type Mode",
                "class View",
                "method render in View",
                "function useView",
            ],
        ),
        (
            "lib/util.mjs",
            "export function debounce(f) { return f }\nclass Queue {\n  push(x) {}\n}\nconst handler = function () {}\n",
            &[
                "function debounce",
                "class Queue",
                "method push in Queue",
                "function handler",
            ],
        ),
        (
            "app/win.pyw",
            "class App:\n    def run(self):\n        pass\n\ndef main():\n    App().run()\n",
            &["class App", "method run in App", "function main"],
        ),
        (
            "pkg/server.go",
            "package pkg\n\ntype Server struct{}\n\ntype Handler interface {\n\tServe()\n}\n\nfunc (s *Server) Serve() {}\n\nfunc New() *Server { return nil }\n\nconst Port = 80\n",
            &[
                "class Server",
                "interface Handler",
                "method Serve in Handler",
                "method Serve",
                "function New",
                "constant Port",
            ],
        ),
        (
            "src/lib.rs",
            "pub struct Pool;\npub enum Kind { A }\npub trait Run {\n    fn run(&self);\n}\nimpl Run for Pool {\n    fn run(&self) {}\n}\npub fn start() {}\nmacro_rules! m { () => {} }\n",
            &[
                "class Pool",
                "type Kind",
                "interface Run",
                "method run in Run",
                "method run in Run for Pool",
                "function start",
                "function m",
            ],
        ),
        (
            "contracts/Token.sol",
            "pragma solidity ^0.8.0;\n\ninterface IERC20 {\n    function totalSupply() external view returns (uint256);\n}\n\nlibrary SafeMath {\n    function add(uint256 a, uint256 b) internal pure returns (uint256) { return a + b; }\n}\n\ncontract Token is IERC20 {\n    event Transfer(address from, address to, uint256 value);\n    error Insufficient();\n    struct Account { uint256 balance; }\n    uint256 public constant DECIMALS = 18;\n    modifier onlyOwner() { _; }\n    function totalSupply() external view returns (uint256) { return 0; }\n}\n",
            &[
                "interface IERC20",
                "method totalSupply in IERC20",
                "module SafeMath",
                "function add in SafeMath",
                "class Token",
                "type Transfer in Token",
                "type Insufficient in Token",
                "class Account in Token",
                "constant DECIMALS in Token",
                "method onlyOwner in Token",
                "method totalSupply in Token",
            ],
        ),
        (
            "Api/Service.cs",
            "namespace Api {\n  public interface IService { void Run(); }\n  public class Service : IService {\n    public void Run() {}\n  }\n  public struct Point { }\n  public enum Color { Red }\n}\n",
            &[
                "module Api",
                "interface IService in Api",
                "method Run in IService",
                "class Service in Api",
                "method Run in Service",
                "class Point in Api",
                "type Color in Api",
            ],
        ),
        (
            "scripts/deploy.zsh",
            "deploy() {\n  echo hi\n}\nfunction rollback {\n  echo back\n}\n",
            &["function deploy", "function rollback"],
        ),
    ];
    let index = SymbolIndex::new();
    for (path, text, want) in cases {
        let lang = Lang::from_path(path).unwrap();
        index.index_files(path, &files(&[(path, text)])).unwrap();
        let mut q = query("*");
        q.repos = Some(vec![(*path).to_owned()]);
        q.limit = MAX_LIMIT;
        let mut got: Vec<(usize, String)> = index
            .search(&q)
            .results
            .iter()
            .map(|s| {
                assert_eq!(s.language, lang, "{path}");
                let mut t = format!("{} {}", s.kind.as_str(), s.name);
                if let Some(scope) = &s.scope {
                    t.push_str(&format!(" in {scope}"));
                }
                (s.line, t)
            })
            .collect();
        got.sort();
        let got: Vec<String> = got.into_iter().map(|(_, t)| t).collect();
        assert_eq!(got, *want, "{path}");
        // The language filter finds them under the language's name and an alias.
        let mut q = query("*");
        q.language = Some(lang);
        assert!(index.search(&q).total_matches >= want.len(), "{path}");
    }
    assert_eq!(Lang::from_name("sol"), Some(Lang::Solidity));
    assert_eq!(Lang::from_name("solidity"), Some(Lang::Solidity));
}

#[test]
fn saved_kind_and_language_codes_are_their_places_in_all() {
    // store.rs writes a kind as `kind as u8` and reads it back as `SymbolKind::ALL[code]`, a
    // language as its index in `Lang::ALL`.
    for (i, k) in SymbolKind::ALL.into_iter().enumerate() {
        assert_eq!(k as usize, i, "{k:?}");
    }
    for (i, l) in Lang::ALL.into_iter().enumerate() {
        assert_eq!(l.index(), i, "{l:?}");
    }
}

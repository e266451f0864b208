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
            symbols: 7
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
            symbols: 1
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
            symbols: 1
        }
    );
    let r = index.search(&query("*"));
    assert_eq!(names(&r), vec!["local:src/app.py:1 function handwritten"]);
}

//! The grammars, built with their two large parse tables compressed (see `src/syntax/grammars.rs`).
//!
//! A tree-sitter grammar is a generated `parser.c`: lexer code and read-only tables, of which
//! `ts_parse_table` and `ts_small_parse_table` are 85% of the 33 MB the first 20 grammars add to the
//! addon, and mostly zeros. For each grammar this build script
//!
//! 1. reads both tables from the grammar crate itself, a build dependency compiled for the
//!    host: the crate's `LANGUAGE` gives its `TSLanguage`, whose leading fields (the same in
//!    tree-sitter ABI 14 and 15) point at the tables and give their sizes;
//! 2. writes a copy of the crate's `parser.c` to `OUT_DIR` in which both tables are declared
//!    without initializer (zero-filled `.bss`, no bytes in the library), plus two accessors;
//! 3. compiles that copy and the crate's external scanner for the target;
//! 4. writes both tables, deflate-compressed, for `grammars.rs` to embed and inflate into the
//!    arrays before the language is first used.
//!
//! The grammar's source folder comes from `cargo metadata` (the package's manifest path), so
//! the copy is of exactly the version the lock file names and the host build read.

use std::collections::HashMap;
use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use tree_sitter_language::LanguageFn;

/// One grammar: the `syntax::Lang` it serves, its package, the folder of its `parser.c` in the package, the C function that
/// returns its language, and its language as the build dependency gives it.
struct Grammar {
    lang: &'static str,
    package: &'static str,
    dir: &'static str,
    function: &'static str,
    language: LanguageFn,
}

#[allow(clippy::too_many_lines)] // A table: one grammar an entry.
fn grammars() -> Vec<Grammar> {
    let g = |lang, package, dir, function, language| Grammar {
        lang,
        package,
        dir,
        function,
        language,
    };
    vec![
        g(
            "TypeScript",
            "tree-sitter-typescript",
            "typescript/src",
            "tree_sitter_typescript",
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
        ),
        g(
            "Tsx",
            "tree-sitter-typescript",
            "tsx/src",
            "tree_sitter_tsx",
            tree_sitter_typescript::LANGUAGE_TSX,
        ),
        g(
            "JavaScript",
            "tree-sitter-javascript",
            "src",
            "tree_sitter_javascript",
            tree_sitter_javascript::LANGUAGE,
        ),
        g(
            "Python",
            "tree-sitter-python",
            "src",
            "tree_sitter_python",
            tree_sitter_python::LANGUAGE,
        ),
        g(
            "Rust",
            "tree-sitter-rust",
            "src",
            "tree_sitter_rust",
            tree_sitter_rust::LANGUAGE,
        ),
        g(
            "Go",
            "tree-sitter-go",
            "src",
            "tree_sitter_go",
            tree_sitter_go::LANGUAGE,
        ),
        g(
            "Bash",
            "tree-sitter-bash",
            "src",
            "tree_sitter_bash",
            tree_sitter_bash::LANGUAGE,
        ),
        g(
            "C",
            "tree-sitter-c",
            "src",
            "tree_sitter_c",
            tree_sitter_c::LANGUAGE,
        ),
        g(
            "Cpp",
            "tree-sitter-cpp",
            "src",
            "tree_sitter_cpp",
            tree_sitter_cpp::LANGUAGE,
        ),
        g(
            "CSharp",
            "tree-sitter-c-sharp",
            "src",
            "tree_sitter_c_sharp",
            tree_sitter_c_sharp::LANGUAGE,
        ),
        g(
            "Elixir",
            "tree-sitter-elixir",
            "src",
            "tree_sitter_elixir",
            tree_sitter_elixir::LANGUAGE,
        ),
        g(
            "Haskell",
            "tree-sitter-haskell",
            "src",
            "tree_sitter_haskell",
            tree_sitter_haskell::LANGUAGE,
        ),
        g(
            "Java",
            "tree-sitter-java",
            "src",
            "tree_sitter_java",
            tree_sitter_java::LANGUAGE,
        ),
        g(
            "Kotlin",
            "tree-sitter-kotlin-ng",
            "src",
            "tree_sitter_kotlin",
            tree_sitter_kotlin_ng::LANGUAGE,
        ),
        g(
            "Lua",
            "tree-sitter-lua",
            "src",
            "tree_sitter_lua",
            tree_sitter_lua::LANGUAGE,
        ),
        // The PHP grammar with its HTML islands: a `.php` file may start with markup.
        g(
            "Php",
            "tree-sitter-php",
            "php/src",
            "tree_sitter_php",
            tree_sitter_php::LANGUAGE_PHP,
        ),
        g(
            "Ruby",
            "tree-sitter-ruby",
            "src",
            "tree_sitter_ruby",
            tree_sitter_ruby::LANGUAGE,
        ),
        g(
            "Scala",
            "tree-sitter-scala",
            "src",
            "tree_sitter_scala",
            tree_sitter_scala::LANGUAGE,
        ),
        g(
            "Solidity",
            "tree-sitter-solidity",
            "src",
            "tree_sitter_solidity",
            tree_sitter_solidity::LANGUAGE,
        ),
        g(
            "Swift",
            "tree-sitter-swift",
            "src",
            "tree_sitter_swift",
            tree_sitter_swift::LANGUAGE,
        ),
        g(
            "Zig",
            "tree-sitter-zig",
            "src",
            "tree_sitter_zig",
            tree_sitter_zig::LANGUAGE,
        ),
    ]
}

/// The leading fields of tree-sitter's `struct TSLanguage` (`tree_sitter/parser.h`), identical
/// in ABI 14 and 15.
#[repr(C)]
struct LanguageHead {
    abi_version: u32,
    symbol_count: u32,
    alias_count: u32,
    token_count: u32,
    external_token_count: u32,
    state_count: u32,
    large_state_count: u32,
    production_id_count: u32,
    field_count: u32,
    max_alias_sequence_length: u16,
    parse_table: *const u16,
    small_parse_table: *const u16,
    small_parse_table_map: *const u32,
}

/// The two tables of `language`, as the host build of the grammar holds them.
fn tables(language: &LanguageFn) -> (Vec<u16>, Vec<u16>) {
    // SAFETY: a grammar crate's `LanguageFn` returns a pointer to its static `TSLanguage`,
    // whose first fields are `LanguageHead`'s; the tables it points at are static arrays of
    // the sizes computed here (`large_state_count × symbol_count`, and the small table up to
    // the end of its last state's entry, found through `small_parse_table_map`).
    unsafe {
        let head = &*language.into_raw()().cast::<LanguageHead>();
        assert!(
            (14..=15).contains(&head.abi_version),
            "tree-sitter ABI 14 or 15"
        );
        let large = (head.large_state_count * head.symbol_count) as usize;
        let parse = std::slice::from_raw_parts(head.parse_table, large).to_vec();
        let small_states = (head.state_count - head.large_state_count) as usize;
        let map = std::slice::from_raw_parts(head.small_parse_table_map, small_states);
        let mut end = 0usize;
        for &offset in map {
            // An entry: its group count, then per group the action, the symbol count and
            // the symbols.
            let mut at = offset as usize;
            let groups = *head.small_parse_table.add(at);
            at += 1;
            for _ in 0..groups {
                let symbols = *head.small_parse_table.add(at + 1);
                at += 2 + symbols as usize;
            }
            end = end.max(at);
        }
        let small = std::slice::from_raw_parts(head.small_parse_table, end).to_vec();
        (parse, small)
    }
}

/// Source folders of the packages this crate depends on, by name, from `cargo metadata`.
fn package_dirs() -> HashMap<String, PathBuf> {
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest =
        Path::new(&env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("Cargo.toml");
    let target = env::var("TARGET").expect("cargo sets TARGET");
    // Not `--offline`: the build's own network settings (`CARGO_NET_OFFLINE`, the config)
    // are inherited, and a package the build did not need (a dev-dependency when only
    // building) may still have to be fetched for its manifest.
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--filter-platform",
            &target,
        ])
        .arg("--manifest-path")
        .arg(&manifest)
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata is JSON");
    let mut dirs = HashMap::new();
    for p in meta["packages"].as_array().expect("packages") {
        let (Some(name), Some(path)) = (p["name"].as_str(), p["manifest_path"].as_str()) else {
            continue;
        };
        let dir = Path::new(path).parent().expect("a manifest has a folder");
        dirs.insert(name.to_owned(), dir.to_path_buf());
    }
    dirs
}

/// `parser.c` with both tables declared without initializer, and the accessors
/// `<function>_parse_table`, `<function>_small_parse_table`.
fn patched(source: &str, function: &str, small_len: usize) -> String {
    let mut out = String::with_capacity(source.len() / 4);
    let mut skipping = false;
    let mut found = 0;
    for line in source.lines() {
        if skipping {
            if line == "};" {
                skipping = false;
            }
            continue;
        }
        if line == "static const uint16_t ts_parse_table[LARGE_STATE_COUNT][SYMBOL_COUNT] = {" {
            out.push_str("static uint16_t ts_parse_table[LARGE_STATE_COUNT][SYMBOL_COUNT];\n");
            skipping = true;
            found += 1;
            continue;
        }
        if line == "static const uint16_t ts_small_parse_table[] = {" {
            out.push_str(&format!(
                "static uint16_t ts_small_parse_table[{small_len}];\n"
            ));
            skipping = true;
            found += 1;
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    assert_eq!(found, 2, "{function}: both tables found in parser.c");
    out.push_str(&format!(
        "\nuint16_t *{function}_parse_table(void) {{ return &ts_parse_table[0][0]; }}\n\
         uint16_t *{function}_small_parse_table(void) {{ return ts_small_parse_table; }}\n"
    ));
    out
}

fn compress(table: &[u16]) -> Vec<u8> {
    let bytes: Vec<u8> = table.iter().flat_map(|v| v.to_le_bytes()).collect();
    let packed = miniz_oxide::deflate::compress_to_vec(&bytes, 9);
    let mut out = Vec::with_capacity(16 + packed.len());
    out.extend_from_slice(&(table.len() as u64).to_le_bytes());
    out.extend_from_slice(&(packed.len() as u64).to_le_bytes());
    out.extend_from_slice(&packed);
    out
}

/// The Rust side of the compiled grammars, included by `src/syntax/grammars.rs`: the C
/// functions of each, its `Grammar` (language, table accessors, compressed tables), and
/// `grammar(lang)` choosing among them. Generated from [`grammars`] so that one list names them.
fn runtime_table(grammars: &[Grammar]) -> String {
    let mut externs = String::new();
    let mut statics = String::new();
    let mut arms = String::new();
    for (i, g) in grammars.iter().enumerate() {
        let f = g.function;
        externs.push_str(&format!(
            "    fn {f}() -> *const ();\n    fn {f}_parse_table() -> *mut u16;\n    \
             fn {f}_small_parse_table() -> *mut u16;\n"
        ));
        statics.push_str(&format!(
            "    Grammar {{ language: {f}, parse_table: {f}_parse_table, \
             small_parse_table: {f}_small_parse_table, \
             tables: include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{f}.tables\")), \
             ready: OnceLock::new() }},\n"
        ));
        arms.push_str(&format!("        Lang::{} => {i},\n", g.lang));
    }
    format!(
        "unsafe extern \"C\" {{\n{externs}}}\n\n\
         static GRAMMARS: [Grammar; {n}] = [\n{statics}];\n\n\
         /// The tree-sitter grammar of `lang`.\n\
         pub fn grammar(lang: Lang) -> Language {{\n    \
         GRAMMARS[match lang {{\n{arms}    }}].language()\n}}\n",
        n = grammars.len()
    )
}

pub fn build(out: &Path) {
    let dirs = package_dirs();
    let grammars = grammars();
    fs::write(out.join("grammars.rs"), runtime_table(&grammars)).expect("OUT_DIR is writable");
    for g in grammars {
        let src = dirs
            .get(g.package)
            .unwrap_or_else(|| panic!("{} is in cargo metadata", g.package))
            .join(g.dir);
        let parser = src.join("parser.c");
        let source = fs::read_to_string(&parser).expect("the grammar's parser.c reads");
        let (parse, small) = tables(&g.language);
        let copy = out.join(format!("{}_parser.c", g.function));
        fs::write(&copy, patched(&source, g.function, small.len())).expect("OUT_DIR is writable");
        let mut cc = cc::Build::new();
        cc.std("c11")
            .include(&src)
            .file(&copy)
            // Unoptimized, the parsers are slow even in tests.
            .opt_level(2)
            .warnings(false);
        let scanner = src.join("scanner.c");
        if scanner.exists() {
            cc.file(&scanner);
        }
        if cc.get_compiler().is_like_msvc() {
            cc.flag("-utf-8");
        }
        cc.compile(&format!("ctxe-{}", g.function));
        let mut blob = compress(&parse);
        blob.extend_from_slice(&compress(&small));
        fs::write(out.join(format!("{}.tables", g.function)), blob).expect("OUT_DIR is writable");
        println!("cargo::rerun-if-changed={}", parser.display());
    }
}

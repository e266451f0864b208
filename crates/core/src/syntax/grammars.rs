//! The grammars: the one place that names the tree-sitter grammar of each language of the
//! registry ([`super::Lang`]).
//!
//! Each grammar's C parser is compiled by `build.rs` (`build_grammars.rs`) with its two large
//! parse tables (`ts_parse_table`, `ts_small_parse_table`: 85% of the grammars' 33 MB, mostly
//! zeros) left empty and embedded here deflate-compressed instead (about 2 MB for all).
//! The first use of a grammar in the process inflates its tables into those arrays (a few
//! milliseconds, once); every later use gets the language as it is.

use std::sync::OnceLock;

use tree_sitter::Language;
use tree_sitter_language::LanguageFn;

use super::Lang;

/// One compiled grammar: its language function, its table accessors and its compressed
/// tables, inflated once.
struct Grammar {
    language: unsafe extern "C" fn() -> *const (),
    parse_table: unsafe extern "C" fn() -> *mut u16,
    small_parse_table: unsafe extern "C" fn() -> *mut u16,
    tables: &'static [u8],
    ready: OnceLock<()>,
}

impl Grammar {
    fn language(&'static self) -> Language {
        self.ready.get_or_init(|| {
            // SAFETY: the accessors return the grammar's two `uint16_t` arrays, declared
            // without initializer in its parser.c with exactly the lengths build.rs measured
            // and wrote before each compressed table (checked by `inflate_into`); nothing
            // reads them before this `OnceLock` initializer returns (every `Language` of this
            // grammar is made below it), and nothing writes them again.
            let rest = unsafe { inflate_into((self.parse_table)(), self.tables) };
            let rest = unsafe { inflate_into((self.small_parse_table)(), rest) };
            assert!(rest.is_empty(), "a grammar's tables end where they should");
        });
        // SAFETY: `language` is the grammar's `tree_sitter_<name>` function, which returns a
        // pointer to its static `TSLanguage`.
        Language::new(unsafe { LanguageFn::from_raw(self.language) })
    }
}

// The tables are written as little-endian `u16`s and inflated in place.
#[cfg(target_endian = "big")]
compile_error!("the embedded grammar tables are little-endian");

/// Inflates one compressed table (`u64` value count, `u64` compressed length, deflate
/// stream) straight into `table`; returns what follows it in `blob`.
///
/// # Safety
/// `table` points at a writable array of at least the value count `u16`s that nothing else
/// reads or writes meanwhile.
unsafe fn inflate_into(table: *mut u16, blob: &[u8]) -> &[u8] {
    let word = |at: usize| {
        usize::try_from(u64::from_le_bytes(
            blob[at..at + 8].try_into().expect("eight bytes"),
        ))
        .expect("a table fits in memory")
    };
    let (values, packed) = (word(0), word(8));
    // SAFETY: the caller's promise; a `u16` array is `2 × values` initialized bytes.
    let out = unsafe { std::slice::from_raw_parts_mut(table.cast::<u8>(), values * 2) };
    let written = miniz_oxide::inflate::decompress_slice_iter_to_slice(
        out,
        std::iter::once(&blob[16..16 + packed]),
        false,
        true,
    )
    .expect("the embedded tables inflate");
    assert_eq!(written, values * 2, "a table inflates to its length");
    &blob[16 + packed..]
}

/// Declares the compiled grammars: `static NAME: Grammar` for each `tree_sitter_<name>`.
macro_rules! grammars {
    ($($name:ident: $function:ident, $parse:ident, $small:ident;)*) => {
        unsafe extern "C" {
            $(
                fn $function() -> *const ();
                fn $parse() -> *mut u16;
                fn $small() -> *mut u16;
            )*
        }
        $(
            static $name: Grammar = Grammar {
                language: $function,
                parse_table: $parse,
                small_parse_table: $small,
                tables: include_bytes!(concat!(env!("OUT_DIR"), "/", stringify!($function), ".tables")),
                ready: OnceLock::new(),
            };
        )*
    };
}

grammars! {
    TYPESCRIPT: tree_sitter_typescript, tree_sitter_typescript_parse_table, tree_sitter_typescript_small_parse_table;
    TSX: tree_sitter_tsx, tree_sitter_tsx_parse_table, tree_sitter_tsx_small_parse_table;
    JAVASCRIPT: tree_sitter_javascript, tree_sitter_javascript_parse_table, tree_sitter_javascript_small_parse_table;
    PYTHON: tree_sitter_python, tree_sitter_python_parse_table, tree_sitter_python_small_parse_table;
    RUST: tree_sitter_rust, tree_sitter_rust_parse_table, tree_sitter_rust_small_parse_table;
    GO: tree_sitter_go, tree_sitter_go_parse_table, tree_sitter_go_small_parse_table;
    BASH: tree_sitter_bash, tree_sitter_bash_parse_table, tree_sitter_bash_small_parse_table;
    C: tree_sitter_c, tree_sitter_c_parse_table, tree_sitter_c_small_parse_table;
    CPP: tree_sitter_cpp, tree_sitter_cpp_parse_table, tree_sitter_cpp_small_parse_table;
    C_SHARP: tree_sitter_c_sharp, tree_sitter_c_sharp_parse_table, tree_sitter_c_sharp_small_parse_table;
    ELIXIR: tree_sitter_elixir, tree_sitter_elixir_parse_table, tree_sitter_elixir_small_parse_table;
    HASKELL: tree_sitter_haskell, tree_sitter_haskell_parse_table, tree_sitter_haskell_small_parse_table;
    JAVA: tree_sitter_java, tree_sitter_java_parse_table, tree_sitter_java_small_parse_table;
    KOTLIN: tree_sitter_kotlin, tree_sitter_kotlin_parse_table, tree_sitter_kotlin_small_parse_table;
    LUA: tree_sitter_lua, tree_sitter_lua_parse_table, tree_sitter_lua_small_parse_table;
    PHP: tree_sitter_php, tree_sitter_php_parse_table, tree_sitter_php_small_parse_table;
    RUBY: tree_sitter_ruby, tree_sitter_ruby_parse_table, tree_sitter_ruby_small_parse_table;
    SCALA: tree_sitter_scala, tree_sitter_scala_parse_table, tree_sitter_scala_small_parse_table;
    SWIFT: tree_sitter_swift, tree_sitter_swift_parse_table, tree_sitter_swift_small_parse_table;
    ZIG: tree_sitter_zig, tree_sitter_zig_parse_table, tree_sitter_zig_small_parse_table;
}

/// The tree-sitter grammar of `lang`.
pub fn grammar(lang: Lang) -> Language {
    match lang {
        Lang::TypeScript => TYPESCRIPT.language(),
        Lang::Tsx => TSX.language(),
        Lang::JavaScript => JAVASCRIPT.language(),
        Lang::Python => PYTHON.language(),
        Lang::Rust => RUST.language(),
        Lang::Go => GO.language(),
        Lang::Bash => BASH.language(),
        Lang::C => C.language(),
        Lang::Cpp => CPP.language(),
        Lang::CSharp => C_SHARP.language(),
        Lang::Elixir => ELIXIR.language(),
        Lang::Haskell => HASKELL.language(),
        Lang::Java => JAVA.language(),
        Lang::Kotlin => KOTLIN.language(),
        Lang::Lua => LUA.language(),
        // The PHP grammar with its HTML islands: a `.php` file may start with markup.
        Lang::Php => PHP.language(),
        Lang::Ruby => RUBY.language(),
        Lang::Scala => SCALA.language(),
        Lang::Swift => SWIFT.language(),
        Lang::Zig => ZIG.language(),
    }
}

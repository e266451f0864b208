//! The tree-sitter grammar of each language of the registry ([`super::Lang`]).
//!
//! The one list of grammars (language, crate, folder, C function) is `build_grammars.rs`, the
//! build script that compiles them and writes the table this module includes. Each grammar's C
//! parser is compiled by `build.rs` (`build_grammars.rs`) with its two large
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

// `unsafe extern "C"` declarations of every grammar's functions, `static GRAMMARS`, and
// `pub fn grammar(lang: Lang) -> Language`, written by build.rs from its one list of grammars.
include!(concat!(env!("OUT_DIR"), "/grammars.rs"));

//! Code structure from tree-sitter: which language a file is, where its definitions are, and
//! which block encloses a range of lines.
//!
//! The API is language-agnostic and small, so that every capability that needs structure
//! (structure-mode expansion, syntax-aware retrieval chunks, directory outlines) shares one
//! implementation:
//!
//! - [`Lang::from_path`] / [`Lang::from_name`]: the language registry (`languages.rs` maps
//!   extensions and file names to the 21 languages: bash, C, C++, C#, Elixir, Go, Haskell,
//!   Java, JavaScript, Kotlin, Lua, PHP, Python, Ruby, Rust, Scala, Solidity, Swift,
//!   TypeScript, TSX, Zig, with their comment syntax and test-file conventions;
//!   `build_grammars.rs` (the build script) names the tree-sitter grammar of each and
//!   `grammars.rs` loads it; `defs.rs` says which nodes of each grammar define what);
//! - [`definitions`]: every function, method, class, struct, interface, type alias, enum,
//!   trait, impl, module, macro and constant, with 1-based inclusive lines;
//! - [`enclosing_block`]: the smallest of those that encloses a line range;
//! - [`chunk_file`]: a file cut into syntax-aware chunks (a definition per chunk where sizes
//!   allow, line windows for languages without a grammar);
//! - [`is_test_path`]: test files by each language's conventions.
//!
//! Tree-sitter is the only definitions provider of the crate: directory outlines, symbol
//! search, structure-mode expansion and repository statistics all read this module.
//!
//! Line numbers are 1-based and inclusive, like the chunks they are compared with. A
//! definition's range includes the doc comments, attributes and decorators directly above it
//! (no blank line in between), and the `export` keyword of an exported declaration.
//!
//! Robustness: input is bounded ([`MAX_PARSE_BYTES`]) and parsing is cancelled after
//! [`PARSE_TIME_LIMIT`], so neither a huge nor a pathological file can hold a thread for long;
//! tree-sitter recovers from syntax errors, so broken or random input yields fewer definitions
//! rather than an error, and the tree walk is depth-limited ([`MAX_DEPTH`]). A parser per
//! language is kept per thread and reused.

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{ParseOptions, Parser, Tree};

mod chunks;
mod defs;
mod grammars;
mod languages;

pub(crate) use chunks::split_lines;
pub use chunks::{chunk_file, Chunk, CHUNK_MAX_LINES, CHUNK_MIN_LINES, CHUNK_SOFT_LINES};
pub use grammars::grammar;
pub use languages::{is_test_path, language_name, Lang, LangInfo, LANG_COUNT};

/// Largest text parsed, in bytes; larger texts have no structure (the functions return `None`
/// or nothing).
pub const MAX_PARSE_BYTES: usize = 4 * 1024 * 1024;

/// Longest a single parse may run before it is cancelled.
pub const PARSE_TIME_LIMIT: Duration = Duration::from_millis(750);

/// Deepest syntax-tree level the walk descends to; deeper nodes are not inspected.
pub const MAX_DEPTH: usize = 256;

/// Most definitions [`definitions`] returns for one text.
pub const MAX_DEFINITIONS: usize = 20_000;

/// What a [`Definition`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DefKind {
    /// A free function (or a named function value such as `const f = () => {}`).
    Function,
    /// A function inside a class, impl, trait or interface; a Go method.
    Method,
    /// A class.
    Class,
    /// A struct (Rust, Go) or union (Rust).
    Struct,
    /// An interface (TypeScript, Go).
    Interface,
    /// A type alias.
    Type,
    /// An enum.
    Enum,
    /// A trait (Rust).
    Trait,
    /// An impl block (Rust).
    Impl,
    /// A constant (Rust `const`/`static`, Go `const`, a top-level JavaScript `const`).
    Const,
    /// A module or namespace (Rust `mod`, C++/C#/PHP namespaces, Ruby/Elixir modules,
    /// Scala objects, TypeScript namespaces).
    Module,
    /// A macro (Rust `macro_rules!`).
    Macro,
}

impl DefKind {
    /// The lower-case name (`"function"`, `"method"`, `"class"`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            DefKind::Function => "function",
            DefKind::Method => "method",
            DefKind::Class => "class",
            DefKind::Struct => "struct",
            DefKind::Interface => "interface",
            DefKind::Type => "type",
            DefKind::Enum => "enum",
            DefKind::Trait => "trait",
            DefKind::Impl => "impl",
            DefKind::Const => "const",
            DefKind::Module => "module",
            DefKind::Macro => "macro",
        }
    }

    /// True for kinds whose body holds other definitions (class, impl, trait, interface...).
    pub const fn is_container(self) -> bool {
        matches!(
            self,
            DefKind::Class | DefKind::Impl | DefKind::Trait | DefKind::Interface | DefKind::Struct
        )
    }
}

/// A definition found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    /// The defined name (`"Foo"`, `"bar"`; for a Rust impl, `"Trait for Type"` or `"Type"`).
    pub name: String,
    /// What it is.
    pub kind: DefKind,
    /// First line, 1-based, including doc comments, attributes and decorators directly above.
    pub start_line: usize,
    /// Last line, 1-based, inclusive.
    pub end_line: usize,
    /// The name of the nearest enclosing definition (the class of a method), if any.
    pub container: Option<String>,
    /// The line of the name itself, 1-based (after any doc comments and decorators).
    pub line: usize,
    /// The column of the name on [`Definition::line`], 0-based, in characters.
    pub column: usize,
}

impl Definition {
    /// Number of lines the definition spans.
    pub fn line_count(&self) -> usize {
        self.end_line + 1 - self.start_line
    }

    /// True if the definition's lines include `start..=end`.
    pub fn encloses(&self, start: usize, end: usize) -> bool {
        self.start_line <= start && end <= self.end_line
    }
}

/// The smallest definition (function, method, class, struct, ...) whose lines include
/// `start_line..=end_line` (1-based, inclusive), as `(start_line, end_line, kind)`. `None` when
/// nothing encloses the range, the range is empty or inverted, or the text is too large or did
/// not parse in time.
pub fn enclosing_block(
    text: &str,
    lang: Lang,
    start_line: usize,
    end_line: usize,
) -> Option<(usize, usize, DefKind)> {
    if start_line == 0 || end_line < start_line {
        return None;
    }
    definitions(text, lang)
        .into_iter()
        .filter(|d| d.encloses(start_line, end_line))
        .min_by_key(|d| (d.line_count(), std::cmp::Reverse(d.start_line)))
        .map(|d| (d.start_line, d.end_line, d.kind))
}

/// Every definition in `text`, in source order (a container before its members). Empty when
/// the text is larger than [`MAX_PARSE_BYTES`] or did not parse within [`PARSE_TIME_LIMIT`];
/// syntax errors only hide the definitions they break.
pub fn definitions(text: &str, lang: Lang) -> Vec<Definition> {
    parsed_definitions(text, lang).unwrap_or_default()
}

/// [`definitions`], or `None` when the text was not parsed (larger than [`MAX_PARSE_BYTES`],
/// or cancelled after [`PARSE_TIME_LIMIT`]), so that a caller keeping the result can tell
/// "no definitions" from "not parsed".
pub fn parsed_definitions(text: &str, lang: Lang) -> Option<Vec<Definition>> {
    let tree = parse(text, lang)?;
    let mut out = Vec::new();
    let mut walk = defs::Walk {
        src: text.as_bytes(),
        lang,
        out: &mut out,
    };
    walk.visit(&mut tree.walk(), 0, None, false);
    if matches!(lang, Lang::Haskell | Lang::Elixir) {
        defs::merge_clauses(&mut out);
    }
    Some(out)
}

/// Parses `text` with the thread's parser for `lang`, within the size and time limits.
pub fn parse(text: &str, lang: Lang) -> Option<Tree> {
    if text.len() > MAX_PARSE_BYTES {
        return None;
    }
    thread_local! {
        static PARSERS: RefCell<[Option<Parser>; LANG_COUNT]> =
            RefCell::new(std::array::from_fn(|_| None));
    }
    PARSERS.with(|cell| {
        let mut parsers = cell.try_borrow_mut().ok()?;
        let slot = &mut parsers[lang.index()];
        if slot.is_none() {
            let mut parser = Parser::new();
            parser.set_language(&grammar(lang)).ok()?;
            *slot = Some(parser);
        }
        let parser = slot.as_mut()?;
        let deadline = Instant::now() + PARSE_TIME_LIMIT;
        let mut progress = |_: &tree_sitter::ParseState| {
            if Instant::now() > deadline {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let bytes = text.as_bytes();
        let mut read = |offset: usize, _| bytes.get(offset..).unwrap_or_default();
        let options = ParseOptions::new().progress_callback(&mut progress);
        let tree = parser.parse_with_options(&mut read, None, Some(options));
        if tree.is_none() {
            // A cancelled parse leaves state behind; the next parse must start fresh.
            parser.reset();
        }
        tree
    })
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_langs;

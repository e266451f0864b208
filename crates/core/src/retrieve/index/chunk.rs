//! Splitting a file into snippets: structure-aware, heuristic.
//!
//! A chunk is a contiguous line range that starts, where the file allows it, at a top-level
//! definition (with its leading comments, attributes and decorators) and ends before the next
//! one, between [`MIN_LINES`] and [`MAX_LINES`] lines long. Boundaries are found from blank
//! lines, indentation and definition keywords of the common languages, so the same chunker
//! serves Rust, TypeScript/JavaScript, Python, Go, Java, C/C++, C#, Ruby, PHP and prose.
//! [`chunk_file`] is the one entry point, so a syntax-tree chunker can replace the heuristic
//! without touching the index.

use std::sync::OnceLock;

use regex::Regex;
use rustc_hash::FxHashMap;

// The heuristic chunker cuts to the sizes of the syntax-aware one and returns the same type, so
// either can serve the index.
pub use crate::syntax::{
    Chunk, CHUNK_MAX_LINES as MAX_LINES, CHUNK_MIN_LINES as MIN_LINES,
    CHUNK_SOFT_LINES as SOFT_LINES,
};

/// The language of a file, from its name, for display and for the chunker: the one language
/// registry's ([`crate::syntax::language_name`]).
pub use crate::syntax::language_name as language;

/// The definition patterns: each a line's start (anchored), its `name` group a definition's
/// name. Their order is their priority: the first that matches and names something wins.
const PATTERN_SOURCES: [&str; 15] = [
    // Rust
    r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|unsafe|const|extern(?:\s+\x22[^\x22]*\x22)?)\s+)*(?:fn|struct|enum|trait|union|type|mod|macro_rules!)\s+(?P<name>[A-Za-z_]\w*)",
    r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const|static)\s+(?:mut\s+)?(?P<name>[A-Z_][A-Z0-9_]*)\s*:",
    // `impl Trait for Type` defines (methods of) the type, also `for &'a T`, `for [T]`;
    // `impl Type {` the type. A trait impl for a macro variable (`for $ty`) defines
    // nothing nameable, not the trait.
    r"^\s*(?:unsafe\s+)?impl(?:<[^>]*>)?\s+!?[\w:]+(?:<[^>]*>)?\s+for\s+(?:&(?:'\w+\s+)?(?:mut\s+)?|\*(?:const|mut)\s+|dyn\s+|[\[(])*(?P<name>[A-Za-z_]\w*)",
    r"^\s*(?:unsafe\s+)?impl(?:<[^>]*>)?\s+(?P<name>[A-Za-z_]\w*)(?:<[^>]*>)?\s*(?:\{|where\b|$)",
    // TypeScript / JavaScript
    r"^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\s*\*?|class|interface|type|enum|namespace|module)\s+(?:[A-Z][A-Z0-9]*_[A-Z0-9_]*\s+)?(?P<name>[A-Za-z_$][\w$]*)",
    r"^\s*(?:export\s+)?(?:const|let|var)\s+(?P<name>[A-Za-z_$][\w$]*)\s*(?::[^=]*)?=\s*(?:async\s+)?(?:function|\(|[A-Za-z_$][\w$]*\s*=>|class|\{|new\s|[A-Za-z_$][\w$.]*\()",
    // Python
    r"^\s*(?:async\s+)?def\s+(?P<name>[A-Za-z_]\w*)",
    r"^\s*class\s+(?P<name>[A-Za-z_]\w*)",
    // Go
    r"^func\s+(?:\([^)]*\)\s*)?(?P<name>[A-Za-z_]\w*)",
    r"^type\s+(?P<name>[A-Za-z_]\w*)",
    // Java, C#, Kotlin, Swift, C++ types; C++ templates (`template <typename T> class
    // basic_format_args {`) and an export macro before the name (`class FMT_API x`).
    r"^\s*(?:template\s*<[^>]*>\s*)?(?:(?:public|private|protected|internal|static|final|abstract|sealed|partial|open|data|export|case|implicit)\s+)*(?:class|interface|struct|enum|record|object|protocol|extension|trait)\s+(?:[A-Z][A-Z0-9]*_[A-Z0-9_]*\s+)?(?P<name>[A-Za-z_]\w*)",
    // Methods in class bodies (Java, C#, TypeScript, C++): `name(args) {`
    r"^\s+(?:(?:public|private|protected|static|async|override|readonly|get|set|final|virtual|abstract|synchronized)\s+)*(?:[\w<>\[\],.?]+\s+)?(?P<name>[A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\([^;]*\)\s*(?::\s*[^={]+)?\{\s*$",
    // Haskell: `newtype Key = ...`, `data Value = ...`, a class with a context
    r"^(?:newtype|data)\s+(?P<name>[A-Z]\w*)",
    r"^class\s+\([^)]*\)\s*=>\s*(?P<name>[A-Z]\w*)",
    // Ruby, Elixir, Lua, Kotlin, Swift, Scala, PHP: the keyword after modifiers
    // (`override fun`, `public func`, `private static function`, `implicit def`), and
    // Kotlin's type parameters before the name (`fun <T> HttpClient.get`).
    r"^\s*(?:(?:public|private|protected|internal|fileprivate|open|static|final|abstract|override|inline|suspend|operator|infix|tailrec|external|implicit|mutating|nonmutating|async|local|sealed|actual|expect|class)\s+)*(?:def|defp|defmacro|defmacrop|defmodule|defprotocol|defimpl|module|function|fun|func)\s+(?:<[^>]*>\s*)?(?P<name>[A-Za-z_][\w.?!]*)",
];

/// The pattern of methods in class bodies (`name(args) {`), the one pattern that can match
/// whatever a line's first word: [`definition_name`] tries it on indented lines that open a
/// block.
const METHOD: usize = 11;

/// Patterns whose `name` group ends the pattern: a match's name is the run of name characters
/// that ends the match (each such group follows a character it cannot hold: a space, `>`, `)`,
/// `&`, `[`, `(`), so a plain search finds it, with no captures. The others (`NAME:`,
/// `impl NAME {`, `const NAME = ...`, methods) have text after the name.
const NAME_ENDS_MATCH: u16 = !((1 << 1) | (1 << 3) | (1 << 5) | (1 << METHOD));

/// The first words (letters and digits after the indentation) of the lines each pattern can
/// match: each pattern but [`METHOD`] begins, after spaces, with one of a few keywords (a
/// modifier, `pub`, `template`, `export`, the definition keyword itself). `macro_rules!`'s
/// first word is `macro`, as the word stops at `_`.
const PATTERN_WORDS: [&[&str]; 15] = [
    &[
        "pub", "async", "unsafe", "const", "extern", "fn", "struct", "enum", "trait", "union",
        "type", "mod", "macro",
    ],
    &["pub", "const", "static"],
    &["unsafe", "impl"],
    &["unsafe", "impl"],
    &[
        "export",
        "default",
        "declare",
        "abstract",
        "async",
        "function",
        "class",
        "interface",
        "type",
        "enum",
        "namespace",
        "module",
    ],
    &["export", "const", "let", "var"],
    &["async", "def"],
    &["class"],
    &["func"],
    &["type"],
    &[
        "template",
        "public",
        "private",
        "protected",
        "internal",
        "static",
        "final",
        "abstract",
        "sealed",
        "partial",
        "open",
        "data",
        "export",
        "case",
        "implicit",
        "class",
        "interface",
        "struct",
        "enum",
        "record",
        "object",
        "protocol",
        "extension",
        "trait",
    ],
    &[],
    &["newtype", "data"],
    &["class"],
    &[
        "public",
        "private",
        "protected",
        "internal",
        "fileprivate",
        "open",
        "static",
        "final",
        "abstract",
        "override",
        "inline",
        "suspend",
        "operator",
        "infix",
        "tailrec",
        "external",
        "implicit",
        "mutating",
        "nonmutating",
        "async",
        "local",
        "sealed",
        "actual",
        "expect",
        "class",
        "def",
        "defp",
        "defmacro",
        "defmacrop",
        "defmodule",
        "defprotocol",
        "defimpl",
        "module",
        "function",
        "fun",
        "func",
    ],
];

/// What a line's first word says: whether it starts a statement that defines nothing
/// ([`STATEMENT`]), control flow ([`CONTROL`]), a line that may define something without
/// opening a block ([`KEYWORD`]), and the patterns ([`PATTERN_WORDS`]) the line can match.
#[derive(Clone, Copy, Default)]
struct Word {
    flags: u8,
    patterns: u16,
}

/// `return`, `await`, `throw`, `new`, `else`, `case`, `yield`.
const STATEMENT: u8 = 1;
/// `if`, `for`, `while`, `switch`, `catch`.
const CONTROL: u8 = 2;
/// [`DEF_KEYWORDS`].
const KEYWORD: u8 = 4;

/// [`Word`] of a first word: one look-up in a table of the few words that say something.
fn word_info(word: &str) -> Word {
    static WORDS: OnceLock<FxHashMap<&'static str, Word>> = OnceLock::new();
    let words = WORDS.get_or_init(|| {
        let mut words: FxHashMap<&'static str, Word> = FxHashMap::default();
        let lists: [(&[&'static str], u8); 3] = [
            (
                &["return", "await", "throw", "new", "else", "case", "yield"],
                STATEMENT,
            ),
            (&["if", "for", "while", "switch", "catch"], CONTROL),
            (DEF_KEYWORDS, KEYWORD),
        ];
        for (list, flag) in lists {
            for w in list {
                words.entry(w).or_default().flags |= flag;
            }
        }
        for (k, list) in PATTERN_WORDS.iter().enumerate() {
            for w in *list {
                words.entry(w).or_default().patterns |= 1 << k;
            }
        }
        words
    });
    words.get(word).copied().unwrap_or_default()
}

/// The compiled [`PATTERN_SOURCES`].
fn definition_patterns() -> &'static [Regex] {
    static PATTERNS: OnceLock<Vec<Regex>> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        // ASCII classes: Unicode `\w`/`\s` would make every line pay for large automata, and
        // identifiers in definitions are ASCII in practice.
        ascii_sources()
            .iter()
            .map(|p| Regex::new(p).expect("definition pattern compiles"))
            .collect()
    })
}

/// [`PATTERN_SOURCES`] with ASCII `\w` and `\s` (spaces and tabs).
fn ascii_sources() -> Vec<String> {
    PATTERN_SOURCES
        .iter()
        .map(|p| p.replace(r"\w", "[0-9A-Za-z_]").replace(r"\s", "[ \t]"))
        .collect()
}

/// Whether `path` is C or C++ source (`definition_name` then also finds top-level functions).
pub fn is_c_family(path: &str) -> bool {
    matches!(language(path), Some("c" | "cpp"))
}

/// Words that look like a method name to the patterns but are control flow.
const NOT_NAMES: &[&str] = &[
    "catch", "else", "for", "foreach", "function", "if", "match", "return", "switch", "while",
    "with",
];

/// First words of lines that may define something without opening a block on that line.
const DEF_KEYWORDS: &[&str] = &[
    "abstract",
    "async",
    "class",
    "const",
    "data",
    "declare",
    "def",
    "defmodule",
    "defp",
    "enum",
    "export",
    "extern",
    "fn",
    "fun",
    "func",
    "function",
    "impl",
    "interface",
    "internal",
    "let",
    "local",
    "macro_rules",
    "mod",
    "module",
    "namespace",
    "newtype",
    "object",
    "open",
    "partial",
    "override",
    "suspend",
    "inline",
    "operator",
    "infix",
    "tailrec",
    "fileprivate",
    "mutating",
    "implicit",
    "final",
    "defmacro",
    "defprotocol",
    "defimpl",
    "private",
    "protected",
    "pub",
    "public",
    "record",
    "sealed",
    "static",
    "struct",
    "trait",
    "type",
    "union",
    "unsafe",
    "var",
];

/// Whether `word` is one of [`DEF_KEYWORDS`].
#[cfg(test)]
fn is_def_keyword(word: &str) -> bool {
    DEF_KEYWORDS.contains(&word)
}

/// The name a line defines, if it looks like a definition; `c_family` (see [`is_c_family`])
/// adds C and C++ top-level functions.
pub fn definition_name(line: &str, c_family: bool) -> Option<&str> {
    if line.len() > 400 {
        return None;
    }
    if c_family {
        if let Some(name) = c_function_name(line) {
            return Some(name);
        }
    }
    let trimmed = trim_start(line);
    let first = trimmed.as_bytes().first().copied()?;
    if !(first.is_ascii_alphabetic() || first == b'@' || first == b'_') {
        return None;
    }
    let first_word = first_word(trimmed);
    let word = word_info(first_word);
    // A `case` of a switch defines nothing; Scala's `case class` does.
    let scala_case = first_word == "case"
        && (trimmed.starts_with("case class ") || trimmed.starts_with("case object "));
    if word.flags & STATEMENT != 0 && !scala_case {
        return None;
    }
    // Control flow (`if (ready) {`): the only pattern such a line can match names the
    // keyword itself, which is not a name.
    if word.flags & CONTROL != 0 && trimmed[first_word.len()..].trim_start().starts_with('(') {
        return None;
    }
    // Most lines are not definitions: only lines that open a block or start with a
    // definition keyword go through the patterns.
    let opens_block = matches!(last_byte_before_space(trimmed), Some(b'{' | b':' | b'('));
    if !opens_block && word.flags & KEYWORD == 0 && !scala_case {
        return None;
    }
    // Only the patterns the first word allows, and the method pattern for an indented line
    // that ends in `{` (after spaces and tabs, as the pattern has it) with a `(`.
    let mut candidates = word.patterns;
    if matches!(line.as_bytes()[0], b' ' | b'\t')
        && line.trim_end_matches([' ', '\t']).ends_with('{')
        && memchr::memchr(b'(', line.as_bytes()).is_some()
    {
        candidates |= 1 << METHOD;
    }
    let patterns = definition_patterns();
    while candidates != 0 {
        let k = candidates.trailing_zeros() as usize;
        candidates &= candidates - 1;
        let Some((start, end)) = pattern_name(k, &patterns[k], line) else {
            continue;
        };
        if c_family
            && matches!(first_word, "struct" | "union" | "enum" | "class")
            && declares_a_variable(&line[end..])
        {
            continue;
        }
        let name = &line[start..end];
        if !NOT_NAMES.contains(&name) {
            return Some(name);
        }
    }
    None
}

/// Where the `name` group of pattern `k` (`pattern`) lies in `line`, if the pattern matches:
/// without captures where the name's place follows from the match.
fn pattern_name(k: usize, pattern: &Regex, line: &str) -> Option<(usize, usize)> {
    if NAME_ENDS_MATCH & (1 << k) != 0 {
        let end = pattern.find(line)?.end();
        let is_name_byte: fn(u8) -> bool = match k {
            // `[A-Za-z_$][\w$]*`
            4 => |b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$',
            // `[A-Za-z_][\w.?!]*`
            14 => |b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'?' | b'!'),
            _ => |b| b.is_ascii_alphanumeric() || b == b'_',
        };
        let start = line.as_bytes()[..end]
            .iter()
            .rposition(|&b| !is_name_byte(b))
            .map_or(0, |i| i + 1);
        return Some((start, end));
    }
    if k == METHOD {
        // Nothing before the pattern's `(` can hold one but a type list `<...>`: without a
        // `<` before it, the `(` is the line's first, the name the word before it (after
        // spaces), which a space precedes (the pattern's indentation or one after a modifier
        // or type).
        let open = memchr::memchr(b'(', line.as_bytes())?;
        let head = &line[..open];
        if !head.contains('<') {
            if !pattern.is_match(line) {
                return None;
            }
            let end = head.trim_end_matches([' ', '\t']).len();
            let start = head[..end].rfind([' ', '\t']).map_or(0, |i| i + 1);
            return Some((start, end));
        }
    }
    let name = pattern.captures(line)?.name("name")?;
    Some((name.start(), name.end()))
}

/// `line` without its leading whitespace (as [`str::trim_start`]), fast for ASCII.
fn trim_start(line: &str) -> &str {
    let bytes = line.as_bytes();
    let i = bytes
        .iter()
        .position(|&b| !matches!(b, b' ' | b'\t'))
        .unwrap_or(bytes.len());
    match bytes.get(i) {
        Some(&b) if b >= 0x80 || is_ascii_space(b) => line[i..].trim_start(),
        _ => &line[i..],
    }
}

/// The ASCII characters that [`char::is_whitespace`] takes.
fn is_ascii_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// The last byte of `text.trim_end()`, fast for ASCII.
fn last_byte_before_space(text: &str) -> Option<u8> {
    let bytes = text.as_bytes();
    match bytes.iter().rposition(|&b| !is_ascii_space(b)) {
        Some(i) if bytes[i] < 0x80 => Some(bytes[i]),
        None => None,
        Some(_) => text.trim_end().as_bytes().last().copied(),
    }
}

/// The letters and digits that start `trimmed` (up to the first other character), fast for
/// ASCII.
fn first_word(trimmed: &str) -> &str {
    let bytes = trimmed.as_bytes();
    match bytes.iter().position(|b| !b.is_ascii_alphanumeric()) {
        Some(i) if bytes[i] >= 0x80 => trimmed
            .split(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or(""),
        Some(i) => &trimmed[..i],
        None => trimmed,
    }
}

/// Whether what follows `struct page` on a C or C++ line makes it a variable, field or
/// parameter of that type (`struct page *page;`, `struct list_head list;`, `struct foo *f)`),
/// or a forward declaration (`struct foo;`), rather than the type's definition (`struct foo {`,
/// `struct foo : base {`, the name alone with the brace below).
fn declares_a_variable(rest: &str) -> bool {
    let rest = rest.trim();
    rest.starts_with(['*', '&'])
        || rest.ends_with([';', ',', ')'])
        || rest.contains('=')
        || rest
            .as_bytes()
            .first()
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
            && !rest.starts_with("final")
}

/// The function a C or C++ line defines at the top level: the line starts in column 0 with a
/// return type (words, `*`, qualifiers and attribute macros such as `static inline int
/// __must_check`) and the name, or with the name alone when the type stands on the line
/// above (`static int` then `foo(void)`, the kernel's and BSD's style; a C++ method as
/// `Class::name`); its parameters open on the line and nothing on it ends a declaration (`;`)
/// or assigns (`=`). A prototype spread over lines is taken too; in a header that names what
/// the library defines, and a header with its source file beside it ranks below it.
///
/// As a pattern: `^(?:W(?:[ \t]*\*+[ \t]*|[ \t]+))*\**(?:W::)*NAME[ \t]*\([^;=]*$`, `W` a C
/// word, `NAME` one that starts with a lower-case letter or `_`, or an upper-case one with a
/// lower-case letter after it (not a macro's); read here by hand, as most column-0 lines of C
/// are asked.
fn c_function_name(line: &str) -> Option<&str> {
    let bytes = line.as_bytes();
    let first = *bytes.first()?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return None;
    }
    // The name's `(` is the line's first (nothing before it may hold one), and nothing after
    // it ends a declaration or assigns.
    let open = memchr::memchr(b'(', bytes)?;
    if memchr::memchr2(b';', b'=', &bytes[open..]).is_some() {
        return None;
    }
    let head = line[..open].trim_end_matches([' ', '\t']);
    let name_start = head
        .bytes()
        .rposition(|b| !is_c_word_byte(b))
        .map_or(0, |i| i + 1);
    let name = &head[name_start..];
    let nb = name.as_bytes();
    let name_ok = match nb.first() {
        Some(b) if b.is_ascii_lowercase() || *b == b'_' => true,
        Some(b) if b.is_ascii_uppercase() => nb[1..].iter().any(u8::is_ascii_lowercase),
        _ => false,
    };
    if !name_ok || !c_type_prefix(&head.as_bytes()[..name_start]) {
        return None;
    }
    (!is_c_keyword(name) && !NOT_NAMES.contains(&name)).then_some(name)
}

/// Letters, digits and `_`.
fn is_c_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether `prefix` (what precedes a C function's name) is `(?:W(?:[ \t]*\*+[ \t]*|[ \t]+))*
/// \**(?:W::)*`, `W` a word that does not start with a digit.
fn c_type_prefix(prefix: &[u8]) -> bool {
    let is_word_start = |b: u8| b.is_ascii_alphabetic() || b == b'_';
    // `(?:W::)*` at the end.
    let mut rest = prefix;
    while let Some(before) = rest.strip_suffix(b"::") {
        let start = before
            .iter()
            .rposition(|&b| !is_c_word_byte(b))
            .map_or(0, |i| i + 1);
        if !before.get(start).copied().is_some_and(is_word_start) {
            return false;
        }
        rest = &before[..start];
    }
    // Words each followed by spaces, or by stars with spaces around, then stars.
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut i = 0;
    while i < rest.len() {
        if !is_word_start(rest[i]) {
            return rest[i..].iter().all(|&b| b == b'*');
        }
        while i < rest.len() && is_c_word_byte(rest[i]) {
            i += 1;
        }
        let word_end = i;
        while i < rest.len() && blank(rest[i]) {
            i += 1;
        }
        let stars = i;
        while i < rest.len() && rest[i] == b'*' {
            i += 1;
        }
        if i > stars {
            while i < rest.len() && blank(rest[i]) {
                i += 1;
            }
        }
        if i == word_end {
            return false;
        }
    }
    true
}

/// C words that a call-like line can start with but that name no function.
fn is_c_keyword(name: &str) -> bool {
    matches!(
        name,
        "if" | "for" | "while" | "switch" | "return" | "sizeof" | "defined" | "else" | "do"
    )
}

/// Indentation width of a line (a tab counts 4).
pub(in crate::retrieve) fn indent(line: &str) -> usize {
    let mut n = 0;
    for c in line.chars() {
        match c {
            ' ' => n += 1,
            '\t' => n += 4,
            _ => break,
        }
    }
    n
}

/// Leading lines that belong to the definition below them.
fn is_preamble(trimmed: &str) -> bool {
    trimmed.starts_with("//")
        || trimmed.starts_with("/*")
        || trimmed.starts_with('*')
        || trimmed.starts_with('#')
        || trimmed.starts_with('@')
        || trimmed.starts_with("--")
        || trimmed.starts_with("\"\"\"")
}

/// Splits `text` (LF line endings) into chunks. An empty text has no chunk.
///
/// The path is used for the language only; the result depends on nothing else, so the same
/// file always gives the same chunks.
// One pass over the lines with the heuristic rules inline; the tree-sitter registry
// (`syntax::chunk_file`) is to replace it.
pub fn chunk_file(path: &str, text: &str) -> Vec<Chunk> {
    let (lines, n) = crate::syntax::split_lines(text);
    chunk_lines(path, &lines, n)
}

/// [`chunk_file`] of a text already split by [`crate::syntax::split_lines`] (`lines`, the
/// first `n` of them not all blank to the end), for a caller that needs the lines too.
pub fn chunk_lines(path: &str, lines: &[&str], n: usize) -> Vec<Chunk> {
    if n == 0 {
        return Vec::new();
    }
    let markdown = matches!(language(path), Some("markdown" | "rst" | "text"));
    let c_family = is_c_family(path);
    let lines = &lines[..n];
    // Each line once: its definition, whether it is blank, its indentation.
    let mut defs: Vec<Option<&str>> = Vec::with_capacity(n);
    let mut blank: Vec<bool> = Vec::with_capacity(n);
    let mut indents: Vec<u32> = Vec::with_capacity(n);
    for l in lines {
        let (indent, is_blank) = indent_and_blank(l);
        blank.push(is_blank);
        indents.push(indent);
        defs.push(if markdown || is_blank {
            None
        } else {
            definition_name(l, c_family)
        });
    }
    chunks_of_lines(lines, &defs, &blank, &indents, markdown)
}

/// A line's [`indent`] and whether it is blank (as `line.trim().is_empty()`), in one pass
/// over its leading whitespace (the chunker needs both for every line), fast for ASCII.
fn indent_and_blank(line: &str) -> (u32, bool) {
    let bytes = line.as_bytes();
    let mut n = 0u32;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b' ' => n += 1,
            b'\t' => n += 4,
            _ => break,
        }
        i += 1;
    }
    let blank = match bytes[i..].iter().find(|&&b| !is_ascii_space(b)) {
        None => true,
        Some(&b) if b < 0x80 => false,
        Some(_) => line.trim().is_empty(),
    };
    (n, blank)
}

/// The chunks of `lines` (all of them, at least one), given each line's definition name
/// (`defs`), whether it is blank (`blank`) and its [`indent`] (`indents`): where the
/// boundaries are, how strong, where the cuts fall, and each chunk's names.
pub(super) fn chunks_of_lines(
    lines: &[&str],
    defs: &[Option<&str>],
    blank: &[bool],
    indents: &[u32],
    markdown: bool,
) -> Vec<Chunk> {
    let n = lines.len();
    // Boundary strength before each line: 3 = top-level definition or heading,
    // 2 = top-level line after a blank, 1 = after a blank, 0 = none.
    let min_def_indent = defs
        .iter()
        .zip(indents)
        .filter(|(d, _)| d.is_some())
        .map(|(_, &k)| k)
        .min()
        .unwrap_or(0);
    let mut strength = vec![0u8; n + 1];
    for i in 1..n {
        if blank[i] {
            continue;
        }
        let line = lines[i];
        let prev_blank = blank[i - 1];
        let top = indents[i] <= min_def_indent;
        strength[i] =
            if top && ((markdown && trim_start(line).starts_with('#')) || defs[i].is_some()) {
                3
            } else if top && prev_blank {
                2
            } else {
                u8::from(prev_blank)
            };
    }
    // A definition's comments and attributes start its chunk: move strong boundaries up.
    if !markdown {
        for i in (1..n).rev() {
            if strength[i] == 3 {
                let mut j = i;
                while j > 1
                    && is_preamble(lines[j - 1].trim_start())
                    && indents[j - 1] <= indents[i]
                {
                    j -= 1;
                }
                if j < i {
                    strength[i] = strength[i].min(1);
                    strength[j] = 3;
                }
            }
        }
    }

    let mut cuts = vec![0usize];
    let mut start = 0usize;
    for i in 1..=n {
        let len = i - start;
        if i == n {
            break;
        }
        let s = strength[i];
        let cut = (len >= MIN_LINES && s >= 3) || (len >= SOFT_LINES && s >= 2);
        if cut {
            cuts.push(i);
            start = i;
        } else if len >= MAX_LINES {
            // Cut at the strongest, latest boundary in the back part of the chunk.
            let lo = start + MIN_LINES;
            let best = (lo..=i)
                .filter(|&k| strength[k] > 0)
                .max_by_key(|&k| (strength[k], k))
                .unwrap_or(i);
            cuts.push(best);
            start = best;
        }
    }
    // A short tail joins the previous chunk when that stays within the cap.
    if cuts.len() > 1 {
        let last = *cuts.last().unwrap_or(&0);
        let prev = cuts[cuts.len() - 2];
        if n - last < MIN_LINES / 2 && n - prev <= MAX_LINES {
            cuts.pop();
        }
    }
    cuts.push(n);

    let mut chunks = Vec::with_capacity(cuts.len() - 1);
    for w in cuts.windows(2) {
        let (mut a, mut b) = (w[0], w[1]);
        while a < b && blank[a] {
            a += 1;
        }
        while b > a && blank[b - 1] {
            b -= 1;
        }
        if a == b {
            continue;
        }
        let mut symbols: Vec<String> = Vec::new();
        for d in defs[a..b].iter().flatten() {
            if !symbols.iter().any(|s| s == d) && symbols.len() < 32 {
                symbols.push((*d).to_owned());
            }
        }
        chunks.push(Chunk {
            start_line: (a + 1) as u32,
            end_line: b as u32,
            symbols,
        });
    }
    chunks
}

#[cfg(test)]
#[path = "chunk_reference.rs"]
mod reference;

#[cfg(test)]
mod tests {
    use super::*;

    use super::reference;

    /// Pieces of lines: every pattern's keywords and modifiers, words of each case, the
    /// punctuation the patterns read, spaces, tabs and other whitespace (Unicode too).
    const PIECES: &[&str] = &[
        "pub",
        "pub(crate)",
        "async",
        "unsafe",
        "const",
        "extern",
        "\"C\"",
        "fn",
        "struct",
        "enum",
        "trait",
        "union",
        "type",
        "mod",
        "macro_rules!",
        "static",
        "mut",
        "impl",
        "for",
        "dyn",
        "where",
        "export",
        "default",
        "declare",
        "abstract",
        "function",
        "function*",
        "class",
        "interface",
        "namespace",
        "module",
        "let",
        "var",
        "def",
        "func",
        "template",
        "public",
        "private",
        "protected",
        "internal",
        "final",
        "sealed",
        "partial",
        "open",
        "data",
        "case",
        "implicit",
        "record",
        "object",
        "protocol",
        "extension",
        "newtype",
        "fileprivate",
        "override",
        "inline",
        "suspend",
        "operator",
        "infix",
        "tailrec",
        "external",
        "mutating",
        "nonmutating",
        "local",
        "actual",
        "expect",
        "defp",
        "defmacro",
        "defmacrop",
        "defmodule",
        "defprotocol",
        "defimpl",
        "fun",
        "readonly",
        "get",
        "set",
        "virtual",
        "synchronized",
        "return",
        "await",
        "throw",
        "new",
        "else",
        "yield",
        "if",
        "while",
        "switch",
        "catch",
        "with",
        "match",
        "do",
        "sizeof",
        "__init",
        "foo_bar",
        "Foo",
        "FOO",
        "FMT_API",
        "x2",
        "2a",
        "$el",
        "a.b",
        "T",
        "ListOps",
        "list_for_each",
        "caf\u{e9}",
        "\u{e9}t\u{e9}",
        " ",
        " ",
        " ",
        "\t",
        "\t",
        "\r",
        "\u{a0}",
        "\u{3000}",
        "\x0c",
        "(",
        ")",
        "()",
        "{",
        "}",
        "[",
        "]",
        "<",
        ">",
        "<T>",
        "::",
        ":",
        ";",
        "=",
        "=>",
        ",",
        ".",
        "*",
        "**",
        "&",
        "&'a",
        "'",
        "!",
        "?",
        "@",
        "#",
        "/",
        "//",
        "\"",
        "$",
    ];

    fn line_of(pieces: &[&str]) -> String {
        pieces.concat()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]

        /// A line's indentation and blankness, found in one pass, are `indent`'s and
        /// `trim().is_empty()`'s (spaces, tabs, other ASCII and Unicode whitespace).
        #[test]
        fn indent_and_blank_are_indent_and_trim(line in "[ \t\r\x0b\x0c\u{a0}\u{2003}\u{3000}ax{}\u{e9}]{0,12}") {
            proptest::prop_assert_eq!(
                indent_and_blank(&line),
                (indent(&line) as u32, line.trim().is_empty()),
                "{:?}", line
            );
        }

        /// Every line's definition is the reference chunker's (all patterns through one set,
        /// captures, the C function pattern as a regex), in C and C++ files and others.
        #[test]
        fn definition_name_is_the_references(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..14),
            c_family in proptest::bool::ANY,
        ) {
            let line = line_of(&pieces);
            proptest::prop_assert_eq!(
                definition_name(&line, c_family),
                reference::definition_name(&line, c_family),
                "{:?}", line
            );
        }

        /// The same for lines shaped like C: words, stars, spaces and a parameter list.
        #[test]
        fn c_function_name_is_the_references(
            words in proptest::collection::vec(
                proptest::sample::select(vec![
                    "static", "int", "*", " ", "\t", "foo_bar", "Foo", "FOO", "x2", "::",
                    "(", ")", ";", "=", "__init", "Curl_easy", "2a", ",", "{", ":", "\u{e9}",
                    "if", "sizeof", "fooBar", "F_OO", "Fo", "~",
                ]),
                1..12,
            )
        ) {
            let line: String = words.concat();
            proptest::prop_assert_eq!(
                definition_name(&line, true),
                reference::definition_name(&line, true),
                "{:?}", line
            );
            // The hand-read C rule is the pattern's `name` group.
            let starts_well = line.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
            let want = Some(&line)
                .filter(|_| starts_well)
                .and_then(|l| reference::c_function_pattern().captures(l))
                .and_then(|c| c.name("name"))
                .map(|m| m.as_str())
                .filter(|n| !is_c_keyword(n) && !NOT_NAMES.contains(n));
            proptest::prop_assert_eq!(c_function_name(&line), want, "{:?}", line);
        }

        /// Whole files of such lines chunk as the reference does, in every language.
        #[test]
        fn chunks_are_the_references(
            lines in proptest::collection::vec(
                proptest::collection::vec(proptest::sample::select(PIECES), 0..8),
                0..120,
            ),
            path in proptest::sample::select(vec![
                "a.c", "a.h", "a.cc", "a.rs", "a.ts", "a.py", "a.go", "a.java", "a.kt", "a.rb",
                "a.ex", "a.hs", "a.scala", "a.php", "a.swift", "README.md", "notes.txt", "x",
            ]),
        ) {
            let text = lines.iter().map(|l| line_of(l)).collect::<Vec<_>>().join("\n");
            let (split, n) = crate::syntax::split_lines(&text);
            proptest::prop_assert_eq!(
                chunk_lines(path, &split, n),
                reference::chunk_lines(path, &split, n)
            );
        }
    }

    /// Chunks and names of every file under `root` as the reference's; the lines and time
    /// each chunker took.
    fn compare_tree(
        root: &std::path::Path,
    ) -> (usize, usize, std::time::Duration, std::time::Duration) {
        let (mut files, mut lines) = (0, 0);
        let (mut fast, mut slow) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
        let walk = ignore::WalkBuilder::new(root)
            .standard_filters(false)
            .hidden(false)
            .build();
        for entry in walk.flatten() {
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(entry.path()) else {
                continue;
            };
            let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
            let rel = rel.to_string_lossy();
            let (split, n) = crate::syntax::split_lines(&text);
            let t = std::time::Instant::now();
            let got = chunk_lines(&rel, &split, n);
            fast += t.elapsed();
            let t = std::time::Instant::now();
            let want = reference::chunk_lines(&rel, &split, n);
            slow += t.elapsed();
            assert_eq!(got, want, "{rel}");
            for l in &split[..n] {
                for c_family in [false, true] {
                    assert_eq!(
                        definition_name(l, c_family),
                        reference::definition_name(l, c_family),
                        "{rel}: {l:?}"
                    );
                }
            }
            files += 1;
            lines += n;
        }
        (files, lines, fast, slow)
    }

    #[test]
    fn chunks_this_repository_as_the_reference() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let (files, lines, _, _) = compare_tree(&root.join("src"));
        assert!(files > 50 && lines > 10_000, "{files} files, {lines} lines");
    }

    /// A whole tree against the reference, by hand:
    /// `CHUNK_TREE=DIR cargo test --release -p context-engine-core --lib chunk::tests::tree -- --ignored --nocapture`.
    #[test]
    #[ignore = "needs a source tree (CHUNK_TREE)"]
    fn tree_chunks_as_the_reference() {
        let root = std::env::var("CHUNK_TREE").expect("CHUNK_TREE");
        let (files, lines, fast, slow) = compare_tree(std::path::Path::new(&root));
        println!(
            "{files} files, {lines} lines identical; chunker {:.3} s, reference {:.3} s",
            fast.as_secs_f64(),
            slow.as_secs_f64()
        );
    }

    #[test]
    fn finds_c_and_cpp_top_level_functions_only_in_c_family_files() {
        let defs = [
            ("int main(void) {", "main"),
            (
                "vm_fault_t handle_mm_fault(struct vm_area_struct *vma, unsigned long address,",
                "handle_mm_fault",
            ),
            (
                "static inline int __must_check request_irq(unsigned int irq, irq_handler_t h,",
                "request_irq",
            ),
            (
                "struct sk_buff *alloc_skb(unsigned int size, gfp_t pri)",
                "alloc_skb",
            ),
            (
                "copy_from_user(void *to, const void __user *from, unsigned long n)",
                "copy_from_user",
            ),
            (
                "CURLcode Curl_http_done(struct Curl_easy *data,",
                "Curl_http_done",
            ),
            ("void Formatter::format(int x) {", "format"),
            ("static void *xmalloc(size_t n)", "xmalloc"),
            ("int run(int argc) { /* entry */", "run"),
            ("int start(void) // called once", "start"),
        ];
        for (line, name) in defs {
            assert_eq!(definition_name(line, true), Some(name), "{line}");
        }
        let not_defs = [
            "int foo(int a, int b);",
            "EXPORT_SYMBOL(copy_from_user);",
            "DEFINE_MUTEX(lock);",
            "SYSCALL_DEFINE3(read, unsigned int, fd, char __user *, buf, size_t, count)",
            "static int x = f(1,",
            "    return foo(a, b);",
            "if (x) {",
            "#define MAX(a, b) ((a) > (b) ? (a) : (b))",
            "int (*callback)(void *arg);",
            "foo(); // call",
            // A variable, field or parameter of a struct type names the type, not a definition.
            "\tstruct page *page;",
            "\tstruct list_head list;",
            "        struct Curl_easy *data = conn->data;",
            "\t\t\t  struct vm_area_struct *vma)",
            "\tstruct sk_buff *skb,",
            "struct device;",
            "\tenum zone_type zone = ZONE_NORMAL;",
            "\tunion bpf_attr attr;",
        ];
        for line in not_defs {
            assert_eq!(definition_name(line, true), None, "{line}");
        }
        // The type's own definition still is one, in C and C++.
        let types = [
            ("struct page {", "page"),
            ("struct Curl_easy", "Curl_easy"),
            ("\tstruct inner {", "inner"),
            ("union bpf_attr {", "bpf_attr"),
            ("enum zone_type {", "zone_type"),
            ("struct derived : public base {", "derived"),
            (
                "class FMT_API format_error : public std::runtime_error {",
                "format_error",
            ),
            ("struct widget final {", "widget"),
        ];
        for (line, name) in types {
            assert_eq!(definition_name(line, true), Some(name), "{line}");
        }
        // Outside C and C++ the rule does not apply: a Rust unit struct is a definition.
        assert_eq!(definition_name("pub struct Marker;", false), Some("Marker"));
        // Elsewhere a call at the start of a line is not a definition.
        assert_eq!(definition_name("puts format(x)", false), None);
        assert!(is_c_family("src/http.c") && is_c_family("include/fmt/core.h"));
        assert!(is_c_family("src/format.cc") && !is_c_family("lib/a.rb"));
    }

    #[test]
    fn finds_definitions_across_languages() {
        let cases = [
            ("pub fn parse_args(x: u8) {", "parse_args"),
            ("pub(crate) async fn run() {", "run"),
            ("impl<T> Display for Wrapper<T> {", "Wrapper"),
            ("impl<'a> Serialize for &'a str {", "str"),
            ("impl<T> Serialize for [T] {", "T"),
            ("impl<T> Index<T> {", "Index"),
            ("impl Index", "Index"),
            ("defmodule Plug.Conn do", "Plug.Conn"),
            ("struct Index {", "Index"),
            (
                "export async function handleRequest(req) {",
                "handleRequest",
            ),
            ("export const createRouter = (opts) => {", "createRouter"),
            ("export default class HonoBase {", "HonoBase"),
            ("export interface Options {", "Options"),
            ("def validate_model(cls, v):", "validate_model"),
            ("    async def fetch(self):", "fetch"),
            ("class BaseModel(Representation):", "BaseModel"),
            (
                "func (s *Server) ListenAndServe() error {",
                "ListenAndServe",
            ),
            ("public class Foo extends Bar {", "Foo"),
            (
                "template <typename Context> class basic_format_args {",
                "basic_format_args",
            ),
            (
                "class FMT_API format_error : public std::runtime_error {",
                "format_error",
            ),
            ("struct FOO_BAR {", "FOO_BAR"),
            ("class Foo extends Bar {", "Foo"),
            ("  private handle(req: Request): Response {", "handle"),
            // The function keyword after modifiers.
            ("    override fun install(plugin: P) {", "install"),
            (
                "public suspend fun <T> HttpClient.get(url: String): T =",
                "HttpClient.get",
            ),
            ("    public func register(_ app: Application) {", "register"),
            ("    mutating func append(_ value: T)", "append"),
            (
                "  override def map[A, B](fa: F[A])(f: A => B): F[B] =",
                "map",
            ),
            (
                "    public function handle(LogRecord $record): bool",
                "handle",
            ),
            ("    private static function format($value)", "format"),
            ("  defmacro plug(plug, opts \\\\ []) do", "plug"),
            ("defprotocol Plug.Exception do", "Plug.Exception"),
            (
                "final case class Kleisli[F[_], -A, B](run: A => F[B]) { self =>",
                "Kleisli",
            ),
            ("sealed abstract class Chain[+A] {", "Chain"),
            ("case class Const[A, B](getConst: A)", "Const"),
            (
                "implicit class ListOps[A](private val la: List[A]) extends AnyVal {",
                "ListOps",
            ),
            (
                "sealed trait Eval[+A] extends Serializable { self =>",
                "Eval",
            ),
            ("newtype Key = Key { unKey :: Text }", "Key"),
            ("data Value = Object !Object", "Value"),
            ("class (Eq a) => ToJSONKey a where", "ToJSONKey"),
            ("data class Point(val x: Int) {", "Point"),
            (
                "function bats_replace_filename() {",
                "bats_replace_filename",
            ),
        ];
        for (line, name) in cases {
            assert_eq!(definition_name(line, false), Some(name), "{line}");
        }
        for line in [
            "  if (x) {",
            "let x = 1;",
            "// fn nope",
            "  return foo(bar) {",
            "        impl Serialize for $ty {",
            "template <typename Context> class basic_format_args;",
            "    main()",
            "setup(); {",
        ] {
            assert_eq!(definition_name(line, false), None, "{line}");
        }
    }

    #[test]
    fn chunks_at_top_level_definitions_with_their_comments() {
        let mut text = String::new();
        for k in 0..4 {
            text.push_str(&format!("/// Doc for f{k}.\n#[inline]\nfn f{k}() {{\n"));
            for j in 0..10 {
                text.push_str(&format!("    let v{j} = {j};\n"));
            }
            text.push_str("}\n\n");
        }
        let chunks = chunk_file("a.rs", &text);
        assert_eq!(chunks.len(), 4);
        assert_eq!(chunks[0].start_line, 1);
        assert_eq!(chunks[1].start_line, 16);
        assert_eq!(chunks[1].symbols, ["f1"]);
        for c in &chunks {
            assert!(c.end_line >= c.start_line);
        }
    }

    #[test]
    fn bounds_chunk_length_and_covers_content() {
        let text: String = (0..1000).map(|i| format!("x{i} = {i}\n")).collect();
        let chunks = chunk_file("data.py", &text);
        assert!(chunks
            .iter()
            .all(|c| (c.end_line - c.start_line + 1) as usize <= MAX_LINES));
        assert_eq!(chunks.first().map(|c| c.start_line), Some(1));
        assert_eq!(chunks.last().map(|c| c.end_line), Some(1000));
        for w in chunks.windows(2) {
            assert_eq!(w[0].end_line + 1, w[1].start_line);
        }
    }

    #[test]
    fn empty_and_blank_files_have_no_chunks() {
        assert!(chunk_file("a.ts", "").is_empty());
        assert!(chunk_file("a.ts", "\n\n  \n").is_empty());
        assert_eq!(chunk_file("a.ts", "x").len(), 1);
    }

    #[test]
    fn markdown_splits_at_headings() {
        let mut text = String::new();
        for k in 0..3 {
            text.push_str(&format!("# Section {k}\n\n"));
            for j in 0..10 {
                text.push_str(&format!("Line {j} of section {k}.\n"));
            }
            text.push('\n');
        }
        let chunks = chunk_file("README.md", &text);
        assert_eq!(chunks.len(), 3);
        assert_eq!(chunks[2].start_line, 27);
    }
}

//! The chunker as it was before its fast paths: every candidate line through one `RegexSet`
//! and the matching patterns' captures, the C function pattern as a regex, Unicode trims.
//! Kept for tests only, as the reference the fast chunker must equal on every line and file;
//! the boundaries and cuts made from the lines are the chunker's own, shared.

use std::sync::OnceLock;

use regex::{Regex, RegexSet};

use super::{
    declares_a_variable, is_c_family, is_c_keyword, is_def_keyword, language, Chunk, NOT_NAMES,
};

/// Patterns whose `name` group is a definition's name.
fn definition_patterns() -> &'static (RegexSet, Vec<Regex>) {
    static PATTERNS: OnceLock<(RegexSet, Vec<Regex>)> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        // ASCII classes: Unicode `\w`/`\s` would make every line pay for large automata, and
        // identifiers in definitions are ASCII in practice.
        let sources = super::ascii_sources();
        let set = RegexSet::new(&sources).expect("definition patterns compile");
        let each = sources
            .iter()
            .map(|p| Regex::new(p).expect("definition pattern compiles"))
            .collect();
        (set, each)
    })
}

/// A C or C++ function definition at the top level: the line starts in column 0 with a
/// return type (words, `*`, qualifiers and attribute macros such as `static inline int
/// __must_check`) and the name, or with the name alone when the type stands on the line
/// above (`static int` then `foo(void)`, the kernel's and BSD's style; a C++ method as
/// `Class::name`); its parameters open on the
/// line and nothing on it ends a declaration (`;`) or assigns (`=`). A prototype spread over
/// lines is taken too; in a header that names what the library defines, and a header with
/// its source file beside it ranks below it.
pub(super) fn c_function_pattern() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        Regex::new(
            r"^(?:[A-Za-z_][0-9A-Za-z_]*(?:[ \t]*\*+[ \t]*|[ \t]+))*\**(?:[A-Za-z_][0-9A-Za-z_]*::)*(?P<name>[a-z_][0-9A-Za-z_]*|[A-Z][0-9A-Za-z_]*[a-z][0-9A-Za-z_]*)[ \t]*\([^;=]*$",
        )
        .expect("the C function pattern compiles")
    })
}

/// The name a line defines, if it looks like a definition; `c_family` (see [`is_c_family`])
/// adds C and C++ top-level functions.
pub(super) fn definition_name(line: &str, c_family: bool) -> Option<&str> {
    if line.len() > 400 {
        return None;
    }
    if c_family {
        if let Some(name) = c_function_name(line) {
            return Some(name);
        }
    }
    let trimmed = line.trim_start();
    let first_word = trimmed
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("");
    // A `case` of a switch defines nothing; Scala's `case class` does.
    let scala_case = first_word == "case"
        && (trimmed.starts_with("case class ") || trimmed.starts_with("case object "));
    if matches!(
        first_word,
        "return" | "await" | "throw" | "new" | "else" | "case" | "yield"
    ) && !scala_case
    {
        return None;
    }
    // Control flow (`if (ready) {`): the only pattern such a line can match names the
    // keyword itself, which is not a name.
    if matches!(first_word, "if" | "for" | "while" | "switch" | "catch")
        && trimmed[first_word.len()..].trim_start().starts_with('(')
    {
        return None;
    }
    let first = trimmed.as_bytes().first().copied()?;
    if !(first.is_ascii_alphabetic() || first == b'@' || first == b'_') {
        return None;
    }
    // Most lines are not definitions: only lines that open a block or start with a
    // definition keyword go through the patterns.
    let opens_block = matches!(
        trimmed.trim_end().as_bytes().last(),
        Some(b'{' | b':' | b'(')
    );
    if !opens_block && !is_def_keyword(first_word) && !scala_case {
        return None;
    }
    // One pass over the line for all patterns; captures only for the ones that match.
    let (set, each) = definition_patterns();
    set.matches(line).iter().find_map(|k| {
        let name = each[k].captures(line)?.name("name")?;
        if c_family
            && matches!(first_word, "struct" | "union" | "enum" | "class")
            && declares_a_variable(&line[name.end()..])
        {
            return None;
        }
        let name = name.as_str();
        (!NOT_NAMES.contains(&name)).then_some(name)
    })
}

/// The function a C or C++ line defines at the top level ([`c_function_pattern`]).
fn c_function_name(line: &str) -> Option<&str> {
    let first = line.as_bytes().first()?;
    if !(first.is_ascii_alphabetic() || *first == b'_') {
        return None;
    }
    // What the pattern needs, checked first (most column-0 lines of C are declarations):
    // the name's `(` is the line's first (nothing before it may hold one), and nothing after
    // it ends a declaration or assigns.
    let open = line.find('(')?;
    if line[open..].contains([';', '=']) {
        return None;
    }
    // The pattern's name is the identifier just before that `(` (its prefix ends in a space,
    // `*` or `::`), so a match needs no captures (which run a backtracker on every
    // candidate line).
    if !c_function_pattern().is_match(line) {
        return None;
    }
    let head = line[..open].trim_end_matches([' ', '\t']);
    let name_start = head
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    let name = &head[name_start..];
    (!is_c_keyword(name) && !NOT_NAMES.contains(&name)).then_some(name)
}

/// [`chunk_file`] of a text already split by [`crate::syntax::split_lines`] (`lines`, the
/// first `n` of them not all blank to the end), for a caller that needs the lines too. Only
/// what a line is (its definition, blank or not) is the old code's; the boundaries and cuts
/// made of that are [`super::chunks_of_lines`], shared with the chunker.
pub(super) fn chunk_lines(path: &str, lines: &[&str], n: usize) -> Vec<Chunk> {
    if n == 0 {
        return Vec::new();
    }
    let markdown = matches!(language(path), Some("markdown" | "rst" | "text"));
    let c_family = is_c_family(path);
    let defs: Vec<Option<&str>> = lines[..n]
        .iter()
        .map(|l| {
            if markdown {
                None
            } else {
                definition_name(l, c_family)
            }
        })
        .collect();
    let blank: Vec<bool> = lines[..n].iter().map(|l| l.trim().is_empty()).collect();
    let indents: Vec<u32> = lines[..n].iter().map(|l| super::indent(l) as u32).collect();
    super::chunks_of_lines(&lines[..n], &defs, &blank, &indents, markdown)
}

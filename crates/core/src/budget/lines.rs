//! Line helpers shared by truncation and budget fitting.
//!
//! A *line* is a slice ending with `'\n'` (terminator included) or the final slice of a text
//! that does not end with a newline: exactly what `str::split_inclusive('\n')` yields. So
//! `""` has no lines, `"a"` and `"a\n"` have one, `"a\n\nb"` has three. This agrees with
//! `str::lines().count()` and with Python's `str.splitlines()` for `\n` and `\r\n` text.

/// The marker that stands for removed content, alone on a line or appended to a cut line
/// (the context-builder spec's truncation marker).
pub const MARKER: &str = "...";

/// The number of lines of `text` (see the module docs).
pub(crate) fn line_count(text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    let newlines = text.bytes().filter(|&b| b == b'\n').count();
    newlines + usize::from(!text.ends_with('\n'))
}

/// Splits a line into its content and its terminator (`"\r\n"`, `"\n"` or `""`).
pub(crate) fn split_terminator(line: &str) -> (&str, &str) {
    if let Some(body) = line.strip_suffix("\r\n") {
        (body, "\r\n")
    } else if let Some(body) = line.strip_suffix('\n') {
        (body, "\n")
    } else {
        (line, "")
    }
}

/// The first `n` chars (Unicode scalar values) of `s`, or all of `s` if it is shorter.
pub(crate) fn char_prefix(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Whether `s` has more than `n` chars, without counting past `n + 1`.
pub(crate) fn has_more_chars_than(s: &str, n: usize) -> bool {
    // A char is at least one byte, so a short byte length settles it without decoding.
    s.len() > n && s.chars().nth(n).is_some()
}

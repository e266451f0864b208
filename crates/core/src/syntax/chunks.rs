//! Syntax-aware chunks for retrieval: a file cut at its definitions.
//!
//! Each definition (function, method, class, impl, module...) that fits in
//! [`CHUNK_MAX_LINES`] is one piece; a larger one with members is cut at its members (its
//! header and the code between members become pieces of their own); a larger one without
//! members is cut into line windows. The code between definitions (imports, statements) is a
//! piece too. Small neighbouring pieces are then joined up to [`CHUNK_SOFT_LINES`], so a run of
//! one-line functions is one chunk rather than many. Files of languages without a grammar, or
//! that did not parse, are cut into windows of [`CHUNK_SOFT_LINES`] lines.
//!
//! The result has the shape of the retrieval chunker's (`retrieve::index::chunk::Chunk`): 1-based
//! inclusive `u32` lines and the names each chunk defines, covering every non-blank line of
//! the file exactly once, in order, and the same for the same input.

use super::{definitions, DefKind, Definition, Lang};

/// Chunks shorter than this are joined with a neighbour where the join stays within
/// [`CHUNK_SOFT_LINES`].
pub const CHUNK_MIN_LINES: usize = 8;
/// Pieces are joined up to this many lines; line windows are this long.
pub const CHUNK_SOFT_LINES: usize = 40;
/// No chunk is longer.
pub const CHUNK_MAX_LINES: usize = 80;

/// One chunk of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// First line, 1-based.
    pub start_line: u32,
    /// Last line, 1-based, inclusive.
    pub end_line: u32,
    /// Names this chunk defines (functions, types, classes, constants...: the definitions whose
    /// name line is in it), in order.
    pub symbols: Vec<String>,
}

/// The lines of `text` (split at `\n`) and how many remain without the blank ones at the end:
/// what both chunkers cut.
pub(crate) fn split_lines(text: &str) -> (Vec<&str>, usize) {
    let mut lines: Vec<&str> = Vec::with_capacity(text.len() / 32 + 1);
    let mut start = 0usize;
    crate::newlines::each(text.as_bytes(), |end| {
        lines.push(&text[start..end]);
        start = end + 1;
        true
    });
    lines.push(&text[start..]);
    let mut n = lines.len();
    while n > 0 && lines[n - 1].trim().is_empty() {
        n -= 1;
    }
    (lines, n)
}

/// Cuts `text` (LF or CRLF line endings) into syntax-aware chunks; `path` picks the language
/// ([`Lang::from_path`]). An empty or blank text has no chunk.
pub fn chunk_file(path: &str, text: &str) -> Vec<Chunk> {
    let (lines, n) = split_lines(text);
    if n == 0 {
        return Vec::new();
    }
    let defs = Lang::from_path(path).map_or_else(Vec::new, |lang| definitions(text, lang));
    let pieces = if defs.is_empty() {
        windows(1, n)
    } else {
        let children = tree(&defs);
        let roots: Vec<usize> = (0..defs.len())
            .filter(|&i| children.parent[i].is_none())
            .collect();
        let mut out = Vec::new();
        split(&defs, &children.kids, &roots, 1, n, &mut out);
        out
    };
    let joined = join(pieces);
    let mut chunks = Vec::with_capacity(joined.len());
    for (mut a, mut b) in joined {
        while a < b && lines[a - 1].trim().is_empty() {
            a += 1;
        }
        while b > a && lines[b - 1].trim().is_empty() {
            b -= 1;
        }
        if lines[a - 1].trim().is_empty() {
            continue;
        }
        let mut symbols: Vec<String> = Vec::new();
        for d in &defs {
            if d.kind != DefKind::Impl
                && (a..=b).contains(&d.line)
                && !symbols.iter().any(|s| s == &d.name)
            {
                symbols.push(d.name.clone());
            }
        }
        chunks.push(Chunk {
            start_line: u32::try_from(a).unwrap_or(u32::MAX),
            end_line: u32::try_from(b).unwrap_or(u32::MAX),
            symbols,
        });
    }
    chunks
}

struct Tree {
    parent: Vec<Option<usize>>,
    kids: Vec<Vec<usize>>,
}

/// The nesting of definitions (in source order, containers first) by their line ranges.
fn tree(defs: &[Definition]) -> Tree {
    let mut parent = vec![None; defs.len()];
    let mut kids = vec![Vec::new(); defs.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (i, d) in defs.iter().enumerate() {
        while let Some(&top) = stack.last() {
            let t = &defs[top];
            if t.encloses(d.start_line, d.end_line) && t.line_count() > d.line_count() {
                break;
            }
            stack.pop();
        }
        if let Some(&top) = stack.last() {
            parent[i] = Some(top);
            kids[top].push(i);
        }
        stack.push(i);
    }
    Tree { parent, kids }
}

/// Pieces of lines `a..=b` whose direct definitions are `members`.
fn split(
    defs: &[Definition],
    kids: &[Vec<usize>],
    members: &[usize],
    a: usize,
    b: usize,
    out: &mut Vec<(usize, usize)>,
) {
    let mut cursor = a;
    for &m in members {
        let d = &defs[m];
        let s = d.start_line.max(cursor);
        let e = d.end_line.min(b);
        if e < s {
            continue;
        }
        if s > cursor {
            out.extend(windows(cursor, s - 1));
        }
        if e + 1 - s <= CHUNK_MAX_LINES {
            out.push((s, e));
        } else if !kids[m].is_empty() {
            split(defs, kids, &kids[m], s, e, out);
        } else {
            out.extend(windows(s, e));
        }
        cursor = e + 1;
    }
    if cursor <= b {
        out.extend(windows(cursor, b));
    }
}

/// `a..=b` as one piece if it fits, else windows of [`CHUNK_SOFT_LINES`] lines (a short last
/// window joins the one before).
fn windows(a: usize, b: usize) -> Vec<(usize, usize)> {
    if b + 1 - a <= CHUNK_MAX_LINES {
        return vec![(a, b)];
    }
    let mut out = Vec::new();
    let mut s = a;
    while s <= b {
        let e = (s + CHUNK_SOFT_LINES - 1).min(b);
        out.push((s, e));
        s = e + 1;
    }
    if out.len() > 1 {
        let (ls, le) = out[out.len() - 1];
        if le + 1 - ls < CHUNK_MIN_LINES {
            out.pop();
            if let Some(last) = out.last_mut() {
                last.1 = le;
            }
        }
    }
    out
}

/// Joins neighbouring pieces while one of them is short and the join stays small.
fn join(pieces: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(pieces.len());
    for (s, e) in pieces {
        if let Some(last) = out.last_mut() {
            let cur = last.1 + 1 - last.0;
            let next = e + 1 - s;
            let merged = e + 1 - last.0;
            let small = cur < CHUNK_MIN_LINES || next < CHUNK_MIN_LINES;
            if (small && merged <= CHUNK_SOFT_LINES)
                || (next < CHUNK_MIN_LINES / 2 && merged <= CHUNK_MAX_LINES)
            {
                last.1 = e;
                continue;
            }
        }
        out.push((s, e));
    }
    out
}

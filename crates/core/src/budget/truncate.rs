//! Line truncation of one file around the lines that matter, with a `...` line where lines
//! were removed (the context-builder spec's `truncate_file`).

use super::lines::{char_prefix, has_more_chars_than, split_terminator, MARKER};

/// Default number of lines kept on each side of every requested line. It matches the
/// context-builder spec's "at least 10 lines of context around each error line".
pub const DEFAULT_CONTEXT_LINES: usize = 10;

/// Lines with more chars than this are cut to this many chars followed by `"..."` (the
/// spec's edge case "lines exceeding 2000 characters are truncated with '...' appended").
pub const MAX_LINE_CHARS: usize = 2000;

/// Lines kept at each end of a file when truncation would otherwise leave nothing meaningful
/// (the spec's "minimum context (first/last N lines)").
pub const SEVERE_EDGE_LINES: usize = 3;

/// The result of [`truncate_file`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Truncation {
    /// The kept text, with a `"..."` line wherever lines were removed.
    pub text: String,
    /// Lines in the input (see the [module docs](crate::budget) for what a line is).
    pub original_lines: usize,
    /// Input lines present in `text`; marker lines are not counted, a line cut to
    /// [`MAX_LINE_CHARS`] is.
    pub kept_lines: usize,
    /// Whether anything was removed: lines, or the tail of an over-long line.
    pub truncated: bool,
    /// Whether the minimum-context fallback was used because the request could not be met
    /// meaningfully: `max_lines` is 0, or every requested line is outside the file. The text
    /// then holds the first and last lines (at most `max_lines`; none at all, only the marker,
    /// when `max_lines` is 0).
    pub severe: bool,
}

/// [`truncate_file_with`] with [`DEFAULT_CONTEXT_LINES`] lines of context.
pub fn truncate_file(content: &str, max_lines: usize, around_lines: &[usize]) -> Truncation {
    truncate_file_with(content, max_lines, around_lines, DEFAULT_CONTEXT_LINES)
}

/// Keeps at most `max_lines` lines of `content`, preferring the lines around
/// `around_lines`, and marks every removed run of lines with one `"..."` line.
///
/// The rules, in order:
///
/// - **Lines.** A line is what `split_inclusive('\n')` yields (terminator included), so
///   kept lines keep their own `\n` or `\r\n`. Marker lines always end with `\n`, except a
///   marker that ends the text when the input had no final newline.
/// - **Long lines.** Every kept line longer than [`MAX_LINE_CHARS`] chars is cut to that many
///   chars plus `"..."` (its terminator is kept). This applies even when the line count is
///   within `max_lines`: a one-line minified file must not pass through whole.
/// - **Short enough.** With at most `max_lines` lines, every line is kept; the text is
///   returned unchanged (byte-identical) unless a line was over-long.
/// - **Requested lines.** `around_lines` are 1-based. Zero and numbers past the end are
///   ignored; duplicates and any order are fine. Each valid line `l` asks for the window
///   `l - context ..= l + context`, clipped to the file. Overlapping and adjacent windows
///   merge, so a marker appears only where lines were actually removed: before the first
///   window, between windows, after the last.
/// - **Shrinking.** If the windows together exceed `max_lines`, the context is shrunk
///   evenly: the largest common context `c' < context` whose windows fit is used, then the
///   lines left over are filled from the next ring (line `l - c' - 1`, then `l + c' + 1`,
///   requested lines in ascending order) until exactly `max_lines` lines are kept. If even
///   the requested lines alone exceed `max_lines`, the first `max_lines` of them (ascending)
///   are kept without context.
/// - **No requested lines.** With an empty `around_lines`, the first `max_lines` lines are
///   kept, followed by one marker.
/// - **Severe.** When nothing meaningful would survive, i.e. `max_lines == 0` or every
///   requested line is outside the file, the first and last lines are kept instead
///   (`max_lines` in all, split evenly, the head getting the odd one) with a marker between
///   them, and `severe` is set. `max_lines` is a hard cap here too (`maxLines: 0`
///   used to return six lines): with 0 the text is one marker line.
/// - `max_lines` counts input lines; the marker lines are extra (at most one more than the
///   number of kept runs).
///
/// ```
/// use context_engine_core::budget::truncate_file_with;
/// let text: String = (1..=20).map(|i| format!("line {i}\n")).collect();
/// let t = truncate_file_with(&text, 5, &[10], 1);
/// assert_eq!(t.text, "...\nline 9\nline 10\nline 11\n...\n");
/// assert_eq!((t.original_lines, t.kept_lines, t.truncated, t.severe), (20, 3, true, false));
/// ```
pub fn truncate_file_with(
    content: &str,
    max_lines: usize,
    around_lines: &[usize],
    context: usize,
) -> Truncation {
    let lines: Vec<&str> = content.split_inclusive('\n').collect();
    let n = lines.len();

    // 0-based, sorted, distinct requested lines inside the file.
    let mut wanted: Vec<usize> = around_lines
        .iter()
        .filter(|&&l| l >= 1 && l <= n)
        .map(|&l| l - 1)
        .collect();
    wanted.sort_unstable();
    wanted.dedup();

    let mut severe = false;
    let keep: Vec<bool> = if n <= max_lines {
        vec![true; n]
    } else if max_lines == 0 || (!around_lines.is_empty() && wanted.is_empty()) {
        severe = true;
        edges(n, max_lines)
    } else if wanted.is_empty() {
        let mut keep = vec![false; n];
        keep[..max_lines].fill(true);
        keep
    } else if wanted.len() >= max_lines {
        let mut keep = vec![false; n];
        for &l in &wanted[..max_lines] {
            keep[l] = true;
        }
        keep
    } else {
        windows(n, max_lines, &wanted, context)
    };

    let (text, kept_lines, any_cut) = render(content, &lines, &keep);
    let truncated = kept_lines < n || any_cut;
    Truncation {
        // Nothing removed: hand back the input itself (render produced the same bytes).
        text: if truncated { text } else { content.to_owned() },
        original_lines: n,
        kept_lines,
        truncated,
        severe,
    }
}

/// The keep-mask of the severe fallback: the first and last lines.
fn edges(n: usize, max_lines: usize) -> Vec<bool> {
    let total = max_lines;
    let head = total.div_ceil(2);
    let tail = total - head;
    if head + tail >= n {
        return vec![true; n];
    }
    let mut keep = vec![false; n];
    keep[..head].fill(true);
    keep[n - tail..].fill(true);
    keep
}

/// The number of lines in the union of the windows of `context` lines around `wanted`
/// (sorted, distinct, all `< n`).
fn union_size(n: usize, wanted: &[usize], context: usize) -> usize {
    let mut size = 0;
    let mut covered_to = 0; // lines below this index are already counted
    for &l in wanted {
        let start = l.saturating_sub(context).max(covered_to);
        let end = l.saturating_add(context).min(n - 1) + 1;
        if end > start {
            size += end - start;
            covered_to = end;
        }
    }
    size
}

/// The keep-mask of the windows around `wanted` (sorted, distinct, non-empty,
/// `wanted.len() < max_lines < n`), shrunk evenly to fit `max_lines`.
fn windows(n: usize, max_lines: usize, wanted: &[usize], context: usize) -> Vec<bool> {
    let context = context.min(n);
    // The largest context whose windows fit; context 0 always fits (wanted.len() < max_lines).
    let fitting = if union_size(n, wanted, context) <= max_lines {
        context
    } else {
        let (mut lo, mut hi) = (0, context); // size(lo) fits, size(hi) does not
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if union_size(n, wanted, mid) <= max_lines {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    };

    let mut keep = vec![false; n];
    let mut kept = 0;
    for &l in wanted {
        let end = l.saturating_add(fitting).min(n - 1);
        for slot in &mut keep[l.saturating_sub(fitting)..=end] {
            if !*slot {
                *slot = true;
                kept += 1;
            }
        }
    }
    if fitting < context {
        // Use the remaining room on the next ring; it is adjacent to each window, so runs stay
        // contiguous, and the whole ring did not fit, so it fills `max_lines` exactly.
        let ring = fitting + 1;
        'fill: for &l in wanted {
            for candidate in [l.checked_sub(ring), l.checked_add(ring).filter(|&c| c < n)] {
                if kept == max_lines {
                    break 'fill;
                }
                if let Some(c) = candidate {
                    if !keep[c] {
                        keep[c] = true;
                        kept += 1;
                    }
                }
            }
        }
    }
    keep
}

/// Writes the kept lines (over-long ones cut) with one marker per removed run. Returns the
/// text, the number of kept input lines and whether a line was cut.
fn render(content: &str, lines: &[&str], keep: &[bool]) -> (String, usize, bool) {
    let mut out = String::new();
    let mut kept = 0;
    let mut any_cut = false;
    let mut in_gap = false;
    for (line, &k) in lines.iter().zip(keep) {
        if !k {
            if !in_gap {
                out.push_str(MARKER);
                out.push('\n');
                in_gap = true;
            }
            continue;
        }
        in_gap = false;
        kept += 1;
        let (body, terminator) = split_terminator(line);
        if has_more_chars_than(body, MAX_LINE_CHARS) {
            any_cut = true;
            out.push_str(char_prefix(body, MAX_LINE_CHARS));
            out.push_str(MARKER);
            out.push_str(terminator);
        } else {
            out.push_str(line);
        }
    }
    // Only the input's last line can lack a terminator, and nothing follows it; a trailing
    // marker mirrors the input's missing final newline.
    if !content.ends_with('\n') && out.ends_with('\n') {
        out.pop();
    }
    (out, kept, any_cut)
}

//! Snippets: the lines of the ranked chunks, read again from their files, redacted, cut to
//! [`MAX_SNIPPET_LINES`] lines and [`MAX_SNIPPET_CHARS`] characters, and given stable ids.

use super::rank;
use crate::retrieve::{
    fnv1a, Index, Signals, Snippet, SnippetOptions, MAX_SNIPPET_CHARS, MAX_SNIPPET_LINES,
};

/// The id of a snippet: stable for the same path, range and content.
pub fn snippet_id(path: &str, start: u32, end: u32, content: &str) -> String {
    let range = format!("{start}-{end}");
    format!(
        "{:016x}",
        fnv1a(&[path.as_bytes(), range.as_bytes(), content.as_bytes()])
    )
}

/// Cuts `lines` to the snippet bounds: at most [`MAX_SNIPPET_LINES`] lines and
/// [`MAX_SNIPPET_CHARS`] characters, whole lines where possible. Returns the text and the
/// number of lines kept.
fn bounded(lines: &[&str]) -> (String, usize) {
    let mut out = String::new();
    let mut chars = 0usize;
    let mut kept = 0usize;
    for line in lines.iter().take(MAX_SNIPPET_LINES) {
        let n = line.chars().count() + 1;
        if chars + n > MAX_SNIPPET_CHARS {
            if kept == 0 {
                let cut: String = line.chars().take(MAX_SNIPPET_CHARS - 3).collect();
                out.push_str(&cut);
                out.push_str("...");
                kept = 1;
            }
            break;
        }
        if kept > 0 {
            out.push('\n');
        }
        out.push_str(line);
        chars += n;
        kept += 1;
    }
    (out, kept)
}

/// The number of lines of `text` (as `split('\n')` counts them), or `cap` if it has more.
fn lines_upto(text: &str, cap: usize) -> usize {
    if cap == 0 {
        return 0;
    }
    let mut n = 1;
    for _ in memchr::memchr_iter(b'\n', text.as_bytes()) {
        if n >= cap {
            break;
        }
        n += 1;
    }
    n
}

/// Reads the chunks of the ranked files and builds the snippets, sorted by score (ties by
/// path and line). Files that cannot be read now are skipped.
pub(in crate::retrieve) fn snippets(
    index: &mut Index,
    hits: &[rank::FileHit],
    limit: usize,
    options: SnippetOptions,
) -> Vec<Snippet> {
    let mut wanted: Vec<(u32, u32, f32, Signals)> = Vec::new();
    for h in hits {
        for &(c, s) in &h.chunks {
            wanted.push((h.file, c, s, h.signals));
        }
    }
    wanted.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.1.cmp(&b.1)));
    wanted.truncate(limit);
    let mut out = Vec::with_capacity(wanted.len());
    for (file, chunk, score, signals) in wanted {
        let Some(text) = index.text(file) else {
            continue;
        };
        let Some(meta) = index.files[file as usize].as_ref() else {
            continue;
        };
        let c = &index.chunks[chunk as usize];
        let a = c.start_line as usize - 1;
        // The file's lines up to the chunk's last (a large file is not split whole for the
        // few lines a snippet shows).
        let b = lines_upto(&text, (c.end_line as usize).max(a + 1));
        if a >= b {
            continue;
        }
        // Redacted before it is cut, and as the lines read in the whole file (a snippet that
        // starts inside a private key block has no BEGIN line of its own).
        let (shown, mut redactions) = if options.redact {
            crate::secrets::redact_lines(&text, a, b)
        } else {
            let lines: Vec<&str> = text.split('\n').skip(a).take(b - a).collect();
            (lines.join("\n"), Vec::new())
        };
        let shown: Vec<&str> = shown.split('\n').collect();
        let (content, kept) = bounded(&shown);
        let end_line = c.start_line + kept.saturating_sub(1) as u32;
        redactions.retain(|r| r.line <= end_line as usize);
        let score = f64::from(score);
        if !score.is_finite() {
            continue;
        }
        out.push(Snippet {
            id: snippet_id(&meta.rel, c.start_line, end_line, &content),
            path: meta.rel.clone(),
            source: format!("{}:{}-{}", meta.rel, c.start_line, end_line),
            content,
            score,
            start_line: c.start_line,
            end_line,
            language: meta.language,
            signals: options.explain.then_some(signals),
            redactions,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::lines_upto;

    #[test]
    fn lines_upto_counts_as_split_does_up_to_the_cap() {
        for text in ["", "a", "a\n", "a\nb", "a\nb\n", "\n\n\n", "x\ny\nz"] {
            let all = text.split('\n').count();
            for cap in 0..6 {
                assert_eq!(lines_upto(text, cap), all.min(cap), "{text:?} {cap}");
            }
        }
    }
}

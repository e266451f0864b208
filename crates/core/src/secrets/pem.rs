//! PEM / OpenSSH / PGP private key blocks.
//!
//! A block runs from its `-----BEGIN … PRIVATE KEY-----` line to the matching `-----END …-----`
//! line. Retrieval often cuts a file in the middle, so a block without an `END` line is still a
//! block: it then runs to the end of its base64 body (the following lines that look like key
//! material), never further than [`MAX_BLOCK`] bytes.
//!
//! A `BEGIN` line alone is not a key: code that parses PEM (`if line == "-----BEGIN RSA PRIVATE
//! KEY-----"`) mentions it without any key material. A block is only reported when its body
//! holds a run of at least [`MIN_MATERIAL_RUN`] base64 characters, as every real key body does
//! (PEM lines are 64 characters, OpenSSH 70, PGP 64).

use std::ops::ControlFlow;
use std::sync::LazyLock;

use regex::{Match, Regex};

/// The `BEGIN` line of any private key block (`RSA`, `EC`, `DSA`, `OPENSSH`, `ENCRYPTED`,
/// `PGP … BLOCK`, plain PKCS#8, …).
pub(super) const BEGIN: &str = r"-----BEGIN (?:[A-Z0-9]{2,10} ){0,2}PRIVATE KEY(?: BLOCK)?-----";

const END: &str = r"-----END (?:[A-Z0-9]{2,10} ){0,2}PRIVATE KEY(?: BLOCK)?-----";

/// The longest block considered, in bytes. A 4096-bit RSA key is about 3.3 KB and an armored
/// PGP secret key with subkeys rarely passes 10 KB.
pub(super) const MAX_BLOCK: usize = 64 * 1024;

/// The shortest run of base64 characters that counts as key material.
const MIN_MATERIAL_RUN: usize = 40;

/// A body line shorter than this (after quoting is stripped) is the last line of the body.
const FULL_LINE: usize = 40;

/// How far after a `BEGIN` header its line may go on (with quoting only) for the body to be
/// looked for on the following lines.
const HEADER_TAIL: usize = 256;

static END_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(END).expect("PEM END pattern compiles"));

/// Calls `emit(start, end)` for every private key block in `text`, in order. `begin` is the
/// compiled [`BEGIN`] pattern.
pub(super) fn blocks(
    text: &str,
    begin: &Regex,
    emit: &mut dyn FnMut(usize, usize) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let mut pos = 0;
    // The next BEGIN and END at or after the positions they were last searched from. Both
    // searches only ever move forward, so the whole walk is linear in the text.
    let mut next_end: Option<Option<Match<'_>>> = None;
    let mut next_begin = begin.find_at(text, pos);
    while let Some(header) = next_begin {
        let body_start = header.end();
        let end = match next_end {
            Some(Some(m)) if m.start() >= body_start => Some(m),
            Some(None) => None,
            _ => {
                let found = END_RE.find_at(text, body_start);
                next_end = Some(found);
                found
            }
        };
        let following_begin = begin.find_at(text, body_start);
        let complete = end.filter(|e| {
            e.end() - header.start() <= MAX_BLOCK
                && following_begin.is_none_or(|b| b.start() >= e.end())
        });
        let (body_end, block_end) = if let Some(e) = complete {
            (e.start(), e.end())
        } else {
            let block_end = truncated_end(text, body_start);
            (block_end, block_end)
        };
        if has_material(&text[body_start..body_end]) {
            emit(header.start(), block_end)?;
            pos = block_end;
            next_begin = if following_begin.is_some_and(|b| b.start() >= pos) {
                following_begin
            } else {
                begin.find_at(text, pos)
            };
        } else {
            next_begin = following_begin;
        }
    }
    ControlFlow::Continue(())
}

/// Where a block without an `END` line stops: after the last line of its body.
///
/// Every scan here is bounded ([`MAX_BLOCK`], [`HEADER_TAIL`]), so many `BEGIN` lines without
/// a body cannot make the walk quadratic.
fn truncated_end(text: &str, body_start: usize) -> usize {
    let limit = floor_char_boundary(text, body_start.saturating_add(MAX_BLOCK));
    // A key inside one string literal with `\n` escapes: the body follows the header on the
    // same line, and the block runs to the end of that line. (Also a key flattened onto one
    // line with spaces, as environment variables often hold them.)
    let after = text[body_start..limit].trim_start_matches([' ', '\t']);
    let after = after.strip_prefix("\\r").unwrap_or(after);
    let after = after.strip_prefix("\\n").unwrap_or(after);
    if after.bytes().take_while(|&b| is_base64(b)).take(16).count() >= 16 {
        return body_start + line_at(text, body_start, limit).trim_end().len();
    }
    // Otherwise the body is on the following lines, and the header line must end after the
    // header (but for quoting): `KEY = """-----BEGIN …-----` or `key: |` style.
    let tail_limit = floor_char_boundary(text, body_start.saturating_add(HEADER_TAIL));
    let rest_of_header_line = line_at(text, body_start, tail_limit);
    let header_line_ends =
        body_start + rest_of_header_line.len() < tail_limit || tail_limit == text.len();
    if !header_line_ends || !strip_quoting(rest_of_header_line).is_empty() {
        return body_start;
    }
    let mut end = body_start;
    let mut cursor = body_start + rest_of_header_line.len();
    let mut seen_body = false;
    while cursor < limit {
        // Step over the line break.
        cursor += 1;
        if cursor > limit {
            break;
        }
        let line = line_at(text, cursor, limit);
        let core = strip_quoting(line);
        if core.is_empty() {
            if seen_body {
                break;
            }
        } else if !seen_body && is_header_field(core) {
            end = cursor + line.trim_end().len();
        } else if core.bytes().all(is_base64) {
            end = cursor + line.trim_end().len();
            seen_body = true;
            if core.len() < FULL_LINE {
                break;
            }
        } else {
            break;
        }
        cursor += line.len();
    }
    end
}

/// The text from `at` to the end of its line (without the `\n`), or to `limit`.
fn line_at(text: &str, at: usize, limit: usize) -> &str {
    let rest = &text[at..limit];
    match rest.find('\n') {
        Some(i) => &rest[..i],
        None => rest,
    }
}

/// The largest char boundary of `text` at or below `i` (`str::floor_char_boundary` needs a
/// newer Rust than the crate's minimum).
pub(super) fn floor_char_boundary(text: &str, i: usize) -> usize {
    let mut i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A body line without the syntax around it when the key sits in source code:
/// `"MIIE…\n" +`, `'MIIE…',`, indentation, a trailing `\r`.
fn strip_quoting(line: &str) -> &str {
    let mut s = line.trim();
    loop {
        let before = s.len();
        s = s.trim_matches(|c: char| {
            matches!(c, '"' | '\'' | '`' | '+' | ',' | ';' | ' ' | '\t' | '\r')
        });
        for suffix in ["\\n", "\\r"] {
            if let Some(stripped) = s.strip_suffix(suffix) {
                s = stripped;
            }
        }
        if s.len() == before {
            return s;
        }
    }
}

/// `Proc-Type: 4,ENCRYPTED`, `DEK-Info: …`, `Version: …`, `Comment: …`.
fn is_header_field(line: &str) -> bool {
    match line.split_once(": ") {
        Some((name, _)) => {
            !name.is_empty()
                && name.as_bytes()[0].is_ascii_alphabetic()
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        }
        None => false,
    }
}

fn is_base64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=')
}

fn longest_base64_run(s: &str) -> usize {
    let mut best = 0;
    let mut run = 0;
    for b in s.bytes() {
        if is_base64(b) {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    best
}

fn has_material(body: &str) -> bool {
    longest_base64_run(body) >= MIN_MATERIAL_RUN
}

/// Where a `PuTTY` private key section ends: `from` is just after its `Private-Lines: N` line.
/// The section runs over the base64 lines that follow (at most [`MAX_BLOCK`] bytes) and the
/// `Private-MAC:` line after them; `from` itself when no base64 line follows.
pub(super) fn ppk_block_end(text: &str, from: usize) -> usize {
    let limit = floor_char_boundary(text, from.saturating_add(MAX_BLOCK));
    let mut end = from;
    let mut cursor = from;
    let mut seen_body = false;
    while cursor < limit {
        let line = line_at(text, cursor, limit);
        let core = line.trim_end_matches('\r').trim();
        if !core.is_empty() && core.bytes().all(is_base64) {
            seen_body = true;
            end = cursor + line.trim_end().len();
        } else {
            if seen_body && core.starts_with("Private-MAC:") {
                end = cursor + line.trim_end().len();
            }
            break;
        }
        cursor += line.len() + 1;
    }
    if seen_body {
        end
    } else {
        from
    }
}

/// The byte offset of the start of the line holding the `BEGIN` of a private key block (PEM,
/// OpenSSH, PGP, or a `PuTTY` `Private-Lines` section) that is still open at `at`: one that
/// starts in the [`MAX_BLOCK`] bytes before `at` and has no `END` between. `None` when `at` is
/// not inside such a block.
pub(super) fn open_block_start(text: &str, at: usize, begin: &Regex, ppk: &Regex) -> Option<usize> {
    let from = floor_char_boundary(text, at.saturating_sub(MAX_BLOCK));
    let window = &text[from..at];
    if !window.contains("PRIVATE KEY") && !window.contains("Private-Lines") {
        return None;
    }
    let last_begin = begin
        .find_iter(window)
        .last()
        .map(|m| m.start())
        .into_iter()
        .chain(ppk.find_iter(window).last().map(|m| m.start()))
        .max()?;
    // Closed before `at`: an END line after the last BEGIN (a PuTTY section closes with its
    // `Private-MAC` line).
    let after = &window[last_begin..];
    if END_RE.is_match(after) || after.contains("Private-MAC:") {
        return None;
    }
    let abs = from + last_begin;
    Some(text[..abs].rfind('\n').map_or(0, |i| i + 1))
}

//! Byte-to-text conversion shared by every reader: binary detection, UTF-8 decoding, line-ending
//! normalization and long-line truncation. Pure functions, no I/O.

use std::borrow::Cow;

/// How many leading bytes [`looks_binary`] inspects.
pub const BINARY_SNIFF_BYTES: usize = 8 * 1024;

/// What is appended to a line cut by [`truncate_long_lines`].
pub const TRUNCATION_MARKER: &str = "...";

/// The result of [`normalize_text`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NormalizedText {
    /// The decoded text: `'\n'` line endings, no BOM, long lines cut.
    pub text: String,
    /// True if any `"\r\n"` or lone `'\r'` was converted to `'\n'`.
    pub crlf: bool,
    /// True if the bytes were not valid UTF-8 and invalid sequences became U+FFFD.
    pub lossy: bool,
    /// How many lines were cut to the line limit.
    pub long_lines_truncated: usize,
}

/// Guesses whether `bytes` is binary content rather than text.
///
/// Only the first [`BINARY_SNIFF_BYTES`] bytes are looked at. The content is binary if that
/// sample holds a NUL byte, or if more than 10% of it are control bytes that text does not
/// use (anything below `0x20` except tab, line feed, vertical tab, form feed, carriage return,
/// backspace and escape; and DEL). Bytes `0x80` and above never count against the content, so
/// UTF-8 text in any script and latin-1-style legacy encodings are text. An empty slice is text.
pub fn looks_binary(bytes: &[u8]) -> bool {
    let sample = &bytes[..bytes.len().min(BINARY_SNIFF_BYTES)];
    // UTF-16 with a byte-order mark: half its bytes are NUL for Latin text, so it is judged
    // on its decoded characters instead.
    if let Some(little_endian) = utf16_bom(sample) {
        let units = decode_utf16_units(&sample[2..], little_endian);
        let decoded: String = char::decode_utf16(units)
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect();
        return decoded.contains('\0')
            || decoded.bytes().filter(|&b| is_non_text_control(b)).count() * 10 > decoded.len();
    }
    if sample.is_empty() {
        return false;
    }
    if sample.contains(&0) {
        return true;
    }
    non_text_controls(sample) * 10 > sample.len()
}

/// How many of `bytes` are [`is_non_text_control`]: counted without a branch a byte, in
/// byte-wide sums of at most 255, which the compiler turns into vector code (the test of
/// every file an index reads was a scalar loop of compares and jumps).
fn non_text_controls(bytes: &[u8]) -> usize {
    bytes
        .chunks(255)
        .map(|c| {
            let n = c
                .iter()
                .fold(0u8, |n, &b| n + u8::from(is_non_text_control(b)));
            usize::from(n)
        })
        .sum()
}

/// Control bytes that do not occur in ordinary text.
#[inline]
#[allow(clippy::needless_bitwise_bool)] // branch-free on purpose
fn is_non_text_control(b: u8) -> bool {
    // Below 0x20 but for backspace, tab, LF, VT, FF, CR (0x08..=0x0D) and ESC (ANSI colour
    // codes in logs); and DEL. Written with `&` and `|`, not branches (see
    // [`non_text_controls`]).
    (b < 0x20) & (b.wrapping_sub(0x08) > 0x05) & (b != 0x1B) | (b == 0x7F)
}

/// Decodes file bytes into display text.
///
/// In order: a leading UTF-8 byte-order mark is removed; the bytes are decoded as UTF-8, with
/// invalid sequences replaced by U+FFFD (`lossy`), or as UTF-16 when they start with a UTF-16
/// byte-order mark (`FF FE` little-endian, `FE FF` big-endian); `"\r\n"` and lone `'\r'` become `'\n'`
/// (`crlf`); lines longer than `max_line_chars` characters are cut as by
/// [`truncate_long_lines`] (`long_lines_truncated`). `max_line_chars == 0` means no limit.
pub fn normalize_text(bytes: &[u8], max_line_chars: usize) -> NormalizedText {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let (decoded, lossy) = if let Some(little_endian) = utf16_bom(bytes) {
        decode_utf16(&bytes[2..], little_endian)
    } else {
        match std::str::from_utf8(body) {
            Ok(s) => (Cow::Borrowed(s), false),
            Err(_) => (String::from_utf8_lossy(body), true),
        }
    };
    let (unix, crlf) = if decoded.contains('\r') {
        (Cow::Owned(convert_line_endings(&decoded)), true)
    } else {
        (decoded, false)
    };
    let (cut, long_lines_truncated) = truncate_counted(&unix, max_line_chars);
    let text = match cut {
        Cow::Owned(s) => s,
        Cow::Borrowed(_) => unix.into_owned(),
    };
    NormalizedText {
        text,
        crlf,
        lossy,
        long_lines_truncated,
    }
}

/// [`normalize_text`] of bytes the caller gives up: when they need no change (UTF-8 without
/// a BOM, no `'\r'`, no line to cut: nearly every source file) they become the text without
/// a copy. The result is the same as [`normalize_text`]'s.
pub fn normalize_text_owned(bytes: Vec<u8>, max_line_chars: usize) -> NormalizedText {
    if bytes.starts_with(b"\xEF\xBB\xBF")
        || utf16_bom(&bytes).is_some()
        || memchr::memchr(b'\r', &bytes).is_some()
    {
        return normalize_text(&bytes, max_line_chars);
    }
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => return normalize_text(e.as_bytes(), max_line_chars),
    };
    let (cut, long_lines_truncated) = truncate_counted(&text, max_line_chars);
    let cut = match cut {
        Cow::Owned(s) => Some(s),
        Cow::Borrowed(_) => None,
    };
    NormalizedText {
        text: cut.unwrap_or(text),
        crlf: false,
        lossy: false,
        long_lines_truncated,
    }
}

/// `Some(true)` for a UTF-16 little-endian byte-order mark, `Some(false)` for big-endian.
fn utf16_bom(bytes: &[u8]) -> Option<bool> {
    match bytes.get(..2) {
        Some([0xFF, 0xFE]) => Some(true),
        Some([0xFE, 0xFF]) => Some(false),
        _ => None,
    }
}

fn decode_utf16_units(bytes: &[u8], little_endian: bool) -> impl Iterator<Item = u16> + '_ {
    bytes.chunks_exact(2).map(move |p| {
        if little_endian {
            u16::from_le_bytes([p[0], p[1]])
        } else {
            u16::from_be_bytes([p[0], p[1]])
        }
    })
}

/// UTF-16 (after its BOM) to text; unpaired surrogates and an odd last byte become U+FFFD
/// (`lossy`).
fn decode_utf16(bytes: &[u8], little_endian: bool) -> (Cow<'static, str>, bool) {
    let mut lossy = bytes.len() % 2 == 1;
    let mut out = String::with_capacity(bytes.len() / 2);
    for c in char::decode_utf16(decode_utf16_units(bytes, little_endian)) {
        out.push(c.unwrap_or_else(|_| {
            lossy = true;
            char::REPLACEMENT_CHARACTER
        }));
    }
    if bytes.len() % 2 == 1 {
        out.push(char::REPLACEMENT_CHARACTER);
    }
    (Cow::Owned(out), lossy)
}

/// Replaces `"\r\n"` and lone `'\r'` with `'\n'`.
fn convert_line_endings(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('\r') {
        out.push_str(&rest[..i]);
        out.push('\n');
        rest = &rest[i + 1..];
        if let Some(after) = rest.strip_prefix('\n') {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Cuts every line of `text` that is longer than `max_line_chars` characters (Unicode scalar
/// values, not bytes) to its first `max_line_chars` characters followed by `"..."`. A cut
/// that would fall inside a secret ([`crate::secrets::safe_cut`]) moves back to the secret's
/// start, so no secret's prefix survives a cut.
///
/// Lines are separated by `'\n'`; a `'\r'` just before it belongs to the line ending and is
/// kept. The cut is always on a character boundary. Returns the input unchanged (borrowed) when
/// no line is too long. `max_line_chars == 0` means no limit.
pub fn truncate_long_lines(text: &str, max_line_chars: usize) -> Cow<'_, str> {
    truncate_counted(text, max_line_chars).0
}

/// [`truncate_long_lines`] that also returns how many lines were cut.
fn truncate_counted(text: &str, max_line_chars: usize) -> (Cow<'_, str>, usize) {
    // A line of at most `max` bytes has at most `max` characters.
    if max_line_chars == 0 || text.len() <= max_line_chars {
        return (Cow::Borrowed(text), 0);
    }
    // The common case, checked by newline positions alone: no line is longer than `max`
    // bytes.
    let mut line_start = 0usize;
    let fits = crate::newlines::each(text.as_bytes(), |end| {
        let short = end - line_start <= max_line_chars;
        line_start = end + 1;
        short
    }) && text.len() - line_start <= max_line_chars;
    if fits {
        return (Cow::Borrowed(text), 0);
    }
    let mut out: Option<String> = None;
    let mut cut = 0usize;
    let mut start = 0usize;
    while start <= text.len() {
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let full = &text[start..end];
        let line = full.strip_suffix('\r').unwrap_or(full);
        let cut_at = if line.len() > max_line_chars {
            // Never inside a secret: cutting there would leave its first characters, which
            // no redaction of the cut text can recognise any more (so the cut moves back to
            // the secret's start, and the secret is left out with the rest of the line).
            line.char_indices()
                .nth(max_line_chars)
                .map(|(i, _)| crate::secrets::safe_cut(line, i))
        } else {
            None
        };
        match cut_at {
            Some(i) => {
                let buf = out.get_or_insert_with(|| {
                    let mut s = String::with_capacity(text.len());
                    s.push_str(&text[..start]);
                    s
                });
                buf.push_str(&line[..i]);
                buf.push_str(TRUNCATION_MARKER);
                buf.push_str(&full[line.len()..]);
                cut += 1;
            }
            None => {
                if let Some(buf) = out.as_mut() {
                    buf.push_str(full);
                }
            }
        }
        if end == text.len() {
            break;
        }
        if let Some(buf) = out.as_mut() {
            buf.push('\n');
        }
        start = end + 1;
    }
    match out {
        Some(s) => (Cow::Owned(s), cut),
        None => (Cow::Borrowed(text), 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Taking the bytes changes nothing: BOMs, CR, invalid UTF-8 and long lines included.
        #[test]
        fn owned_normalization_matches_borrowed(
            head in proptest::sample::select(vec![&b""[..], b"\xEF\xBB\xBF", b"\xFF\xFE", b"\xFE\xFF"]),
            body in proptest::collection::vec(proptest::sample::select(vec![b'a', b' ', b'\n', b'\r', 0xC3, 0xA9, 0xFF, 0xE2, 0x82, 0xAC]), 0..80),
            max in proptest::sample::select(vec![0usize, 1, 4, 16, 2000]),
        ) {
            let bytes = [head, &body[..]].concat();
            proptest::prop_assert_eq!(normalize_text_owned(bytes.clone(), max), normalize_text(&bytes, max));
        }
    }

    #[test]
    fn non_text_controls_are_the_listed_bytes() {
        for b in 0..=255u8 {
            let want = matches!(b, 0x00..=0x07 | 0x0E..=0x1A | 0x1C..=0x1F | 0x7F);
            assert_eq!(is_non_text_control(b), want, "{b:#x}");
        }
        // Sums past a byte-wide count's range.
        let bytes: Vec<u8> = (0..3000u32).map(|i| (i % 256) as u8).collect();
        let want = bytes.iter().filter(|&&b| is_non_text_control(b)).count();
        assert_eq!(non_text_controls(&bytes), want);
        assert_eq!(non_text_controls(&[1u8; 1000]), 1000);
    }

    #[test]
    fn binary_detection() {
        assert!(!looks_binary(b""));
        assert!(!looks_binary(b"fn main() {}\n"));
        assert!(!looks_binary("汉字テキスト 🦀 emoji\n".as_bytes()));
        // latin-1 bytes, invalid UTF-8 but text
        assert!(!looks_binary(b"caf\xe9 na\xefve r\xe9sum\xe9\r\n"));
        assert!(!looks_binary(b"\x1b[31mred\x1b[0m\tTAB\x0c\n"));
        assert!(looks_binary(b"abc\0def"));
        assert!(looks_binary(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"));
        assert!(looks_binary(b"\x89PNG\r\n\x1a\n"));
        assert!(looks_binary(&[1u8, 2, 3, 4, 5, 6, 7, b'a']));
        // a few stray control bytes in a lot of text are fine
        let mut mostly = b"x".repeat(100);
        mostly.push(0x01);
        assert!(!looks_binary(&mostly));
        // a NUL after the sniff window is not seen
        let mut late = b"a".repeat(BINARY_SNIFF_BYTES);
        late.push(0);
        assert!(!looks_binary(&late));
    }

    #[test]
    fn normalize_plain() {
        let n = normalize_text(b"a\nb\n", 2000);
        assert_eq!(
            n,
            NormalizedText {
                text: "a\nb\n".into(),
                crlf: false,
                lossy: false,
                long_lines_truncated: 0
            }
        );
        assert_eq!(normalize_text(b"", 2000).text, "");
    }

    #[test]
    fn normalize_line_endings() {
        let n = normalize_text(b"a\r\nb\rc\n\r\n\r", 2000);
        assert_eq!(n.text, "a\nb\nc\n\n\n");
        assert!(n.crlf);
        assert!(!n.lossy);
    }

    #[test]
    fn normalize_bom_and_lossy() {
        let n = normalize_text(b"\xEF\xBB\xBFhello", 2000);
        assert_eq!(n.text, "hello");
        assert!(!n.lossy);
        let n = normalize_text(b"ok \xff\xfe end", 2000);
        assert_eq!(n.text, "ok \u{FFFD}\u{FFFD} end");
        assert!(n.lossy);
        // only a leading BOM is stripped
        let n = normalize_text("a\u{FEFF}b".as_bytes(), 2000);
        assert_eq!(n.text, "a\u{FEFF}b");
    }

    #[test]
    fn utf16_with_a_bom_is_text() {
        // UTF-16 files used to be refused as binary (half their bytes are NUL).
        let text = "fn main() {\r\n    println!(\"héllo 🦀\");\r\n}\r\n";
        let units: Vec<u16> = text.encode_utf16().collect();
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(units.iter().flat_map(|u| u.to_le_bytes()))
            .collect();
        let be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain(units.iter().flat_map(|u| u.to_be_bytes()))
            .collect();
        for bytes in [&le, &be] {
            assert!(!looks_binary(bytes));
            let n = normalize_text(bytes, 2000);
            assert_eq!(n.text, "fn main() {\n    println!(\"héllo 🦀\");\n}\n");
            assert!(n.crlf && !n.lossy);
        }
        // A BOM in front of binary data does not make it text.
        let mut fake = vec![0xFF, 0xFE];
        fake.extend_from_slice(&[0, 0, 1, 0, 2, 0, 3, 0]);
        assert!(looks_binary(&fake));
        // An odd trailing byte is lossy, not a panic.
        let n = normalize_text(&[0xFF, 0xFE, b'a', 0, b'b'], 0);
        assert_eq!(n.text, "a\u{FFFD}");
        assert!(n.lossy);
    }

    #[test]
    fn truncation_counts_chars() {
        let line = "é".repeat(5000);
        let text = format!("short\n{line}\nend");
        let out = truncate_long_lines(&text, 2000);
        let lines: Vec<&str> = out.split('\n').collect();
        assert_eq!(lines[0], "short");
        assert_eq!(lines[1].chars().count(), 2003);
        assert!(lines[1].ends_with("é..."));
        assert_eq!(lines[2], "end");
        // exactly at the limit: untouched and borrowed
        let exact = "ü".repeat(10);
        assert!(matches!(truncate_long_lines(&exact, 10), Cow::Borrowed(_)));
        assert_eq!(
            truncate_long_lines(&exact, 9),
            format!("{}...", "ü".repeat(9))
        );
        // zero means no limit
        assert!(matches!(truncate_long_lines(&line, 0), Cow::Borrowed(_)));
    }

    #[test]
    fn truncation_keeps_structure() {
        assert_eq!(truncate_long_lines("abcdef\r\nxy\n", 3), "abc...\r\nxy\n");
        assert_eq!(truncate_long_lines("\n\nabcd\n", 2), "\n\nab...\n");
        assert_eq!(truncate_long_lines("🦀🦀🦀", 2), "🦀🦀...");
        let n = normalize_text("🦀🦀🦀\r\n🦀\r\n🦀🦀🦀🦀".as_bytes(), 2);
        assert_eq!(n.text, "🦀🦀...\n🦀\n🦀🦀...");
        assert_eq!(n.long_lines_truncated, 2);
        assert!(n.crlf);
    }
}

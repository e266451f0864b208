//! Picking a window of lines out of a byte stream without holding the stream.
//!
//! [`LineWindow`] is fed chunks as they arrive. Lines before the window are only counted;
//! lines inside it are kept (each capped at [`MAX_LINE_BYTES`] bytes, then decoded and cut to
//! [`MAX_LINE_CHARS`] characters like every other reader of the engine); once the last line of
//! the window and the binary sniff sample are complete, it says it is done and the caller stops
//! reading. Memory is therefore bounded by the window, whatever the size of the file.

use crate::error::{Error, Result};
use crate::fs_scope::{looks_binary, truncate_long_lines, BINARY_SNIFF_BYTES};

/// Longest line kept, in characters; longer lines end in `...` (as in `fs_scope`).
pub const MAX_LINE_CHARS: usize = 2000;
/// Bytes of one line kept before decoding (enough for [`MAX_LINE_CHARS`] of any script).
pub const MAX_LINE_BYTES: usize = MAX_LINE_CHARS * 4 + 4;

/// Collects lines `start..=end` (1-based) of a stream.
#[derive(Debug)]
pub struct LineWindow {
    start: usize,
    end: usize,
    cap: u64,
    /// Lines completed so far.
    completed: usize,
    /// Bytes of the current (incomplete) line, if it is inside the window.
    current: Vec<u8>,
    /// Whether the current line has any byte at all (a line may be inside or outside).
    current_started: bool,
    lines: Vec<String>,
    seen: u64,
    sniff: Vec<u8>,
    /// The last line ended with a CR: an LF right after it belongs to the same line break.
    after_cr: bool,
    /// How the stream's bytes become text.
    decoder: Decoder,
}

/// The stream's encoding, known from its first two bytes: UTF-16 with a byte-order mark (as
/// local reads accept it) is decoded to UTF-8 as it arrives; anything else is read as UTF-8.
#[derive(Debug)]
enum Decoder {
    /// Fewer than two bytes seen: the bytes so far.
    Undecided(Vec<u8>),
    Utf8,
    /// UTF-16; `carry` holds the bytes of a unit or surrogate pair that a chunk split.
    Utf16 {
        little_endian: bool,
        carry: Vec<u8>,
    },
}

impl Decoder {
    /// The UTF-8 text of `chunk` (and of what earlier chunks left), keeping an incomplete
    /// tail for the next chunk; at the end of the stream (`last`) nothing is kept.
    fn decode<'a>(&mut self, chunk: &'a [u8], last: bool) -> std::borrow::Cow<'a, [u8]> {
        use std::borrow::Cow;
        if let Decoder::Undecided(head) = self {
            head.extend_from_slice(chunk);
            if head.len() < 2 && !last {
                return Cow::Borrowed(&[]);
            }
            let head = std::mem::take(head);
            *self = match head.get(..2) {
                Some([0xFF, 0xFE]) => Decoder::Utf16 {
                    little_endian: true,
                    carry: Vec::new(),
                },
                Some([0xFE, 0xFF]) => Decoder::Utf16 {
                    little_endian: false,
                    carry: Vec::new(),
                },
                _ => Decoder::Utf8,
            };
            return match self {
                Decoder::Utf16 { .. } => Cow::Owned(self.decode(&head[2..], last).into_owned()),
                _ => Cow::Owned(head),
            };
        }
        let Decoder::Utf16 {
            little_endian,
            carry,
        } = self
        else {
            return Cow::Borrowed(chunk);
        };
        carry.extend_from_slice(chunk);
        let unit = |b: &[u8]| {
            if *little_endian {
                u16::from_le_bytes([b[0], b[1]])
            } else {
                u16::from_be_bytes([b[0], b[1]])
            }
        };
        let mut units: Vec<u16> = carry.chunks_exact(2).map(unit).collect();
        let mut keep = carry.len() % 2;
        // A high surrogate at the end waits for its pair.
        if !last && units.last().is_some_and(|u| (0xD800..0xDC00).contains(u)) {
            units.pop();
            keep += 2;
        }
        let mut out = String::with_capacity(units.len());
        out.extend(char::decode_utf16(units).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)));
        if last && keep > 0 {
            out.push(char::REPLACEMENT_CHARACTER);
            keep = 0;
        }
        let rest = carry.split_off(carry.len() - keep);
        *carry = rest;
        Cow::Owned(out.into_bytes())
    }
}

/// The outcome of a [`LineWindow`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// First line returned (1-based).
    pub start: usize,
    /// Last line returned.
    pub end: usize,
    /// The lines, without line endings (`\n`, `\r\n` and a lone `\r` all end a line, as
    /// in [`crate::fs_scope::normalize_text_owned`]).
    pub lines: Vec<String>,
    /// Lines in the whole file, when the stream was read to its end.
    pub total_lines: Option<usize>,
}

impl LineWindow {
    /// A window over lines `start..=end`, refusing streams longer than `cap` bytes before the
    /// window is complete.
    pub fn new(start: usize, end: usize, cap: u64) -> Self {
        debug_assert!(start >= 1 && start <= end);
        LineWindow {
            start,
            end,
            cap,
            completed: 0,
            current: Vec::new(),
            current_started: false,
            lines: Vec::with_capacity((end - start + 1).min(4096)),
            seen: 0,
            sniff: Vec::new(),
            after_cr: false,
            decoder: Decoder::Undecided(Vec::new()),
        }
    }

    fn in_window(&self) -> bool {
        let line = self.completed + 1;
        line >= self.start && line <= self.end
    }

    /// Whether everything needed has been read: the window's last line and the sniff sample.
    pub fn is_done(&self) -> bool {
        self.completed >= self.end && self.sniff_complete()
    }

    fn sniff_complete(&self) -> bool {
        self.sniff.len() >= BINARY_SNIFF_BYTES
    }

    /// Feeds one chunk; returns `Ok(true)` once [`is_done`](Self::is_done).
    pub fn feed(&mut self, chunk: &[u8]) -> Result<bool> {
        self.seen += chunk.len() as u64;
        let mut decoder = std::mem::replace(&mut self.decoder, Decoder::Utf8);
        let text = decoder.decode(chunk, false);
        self.decoder = decoder;
        self.feed_text(&text)?;
        if self.is_done() {
            return Ok(true);
        }
        if self.seen > self.cap {
            return Err(Error::invalid_request(format!(
                "lines {}-{} are beyond the first {} bytes of the file that are read (maxBytes)",
                self.start, self.end, self.cap
            )));
        }
        Ok(false)
    }

    /// Splits decoded UTF-8 text into lines, keeping those of the window.
    fn feed_text(&mut self, mut chunk: &[u8]) -> Result<()> {
        if self.sniff.len() < BINARY_SNIFF_BYTES {
            let take = (BINARY_SNIFF_BYTES - self.sniff.len()).min(chunk.len());
            self.sniff.extend_from_slice(&chunk[..take]);
            // A NUL settles it at once; the control-byte ratio only on the whole sample, so a
            // first chunk of a few bytes is not judged on its own.
            let decided = self.sniff.contains(&0) || self.sniff_complete();
            if decided && refused(&self.sniff) {
                return Err(binary_error());
            }
        }
        while !chunk.is_empty() && self.completed < self.end {
            if std::mem::take(&mut self.after_cr) && chunk[0] == b'\n' {
                // The LF of a CRLF whose CR ended the previous line (perhaps in the last chunk).
                chunk = &chunk[1..];
                continue;
            }
            let newline = chunk.iter().position(|&b| b == b'\n' || b == b'\r');
            let (part, rest) = match newline {
                Some(i) => (&chunk[..i], Some((chunk[i] == b'\r', &chunk[i + 1..]))),
                None => (chunk, None),
            };
            if self.in_window() {
                let room = MAX_LINE_BYTES.saturating_sub(self.current.len());
                self.current
                    .extend_from_slice(&part[..part.len().min(room)]);
            }
            self.current_started = true;
            match rest {
                Some((cr, rest)) => {
                    self.finish_line();
                    self.after_cr = cr;
                    chunk = rest;
                }
                None => chunk = &[],
            }
        }
        Ok(())
    }

    fn finish_line(&mut self) {
        if self.in_window() {
            let mut bytes = std::mem::take(&mut self.current);
            if bytes.last() == Some(&b'\r') {
                bytes.pop();
            }
            if self.completed == 0 && bytes.starts_with(b"\xEF\xBB\xBF") {
                bytes.drain(..3);
            }
            let text = String::from_utf8_lossy(&bytes);
            self.lines
                .push(truncate_long_lines(&text, MAX_LINE_CHARS).into_owned());
        }
        self.current.clear();
        self.current_started = false;
        self.completed += 1;
    }

    /// Ends the stream (or accepts an early stop) and returns the window.
    ///
    /// `invalid_request` if the file is binary, or if `start` is past its last line.
    pub fn finish(mut self, reached_end: bool) -> Result<Window> {
        if reached_end {
            let mut decoder = std::mem::replace(&mut self.decoder, Decoder::Utf8);
            let text = decoder.decode(&[], true).into_owned();
            self.feed_text(&text)?;
        }
        if refused(&self.sniff) {
            return Err(binary_error());
        }
        if reached_end && self.current_started && self.completed < self.end {
            // A last line without a trailing newline.
            self.finish_line();
        }
        let total = reached_end.then_some(self.completed);
        if self.lines.is_empty() {
            return Err(past_end(self.start, self.completed));
        }
        let end = self.start + self.lines.len() - 1;
        Ok(Window {
            start: self.start,
            end,
            lines: self.lines,
            total_lines: total,
        })
    }
}

/// Whether a stream is refused as binary (judged on its decoded text, so UTF-16 with a
/// byte-order mark is text, as in local reads).
fn refused(sniff: &[u8]) -> bool {
    looks_binary(sniff)
}

/// The error for a line past the end of a file.
pub fn past_end(line: usize, total: usize) -> Error {
    Error::invalid_request(format!(
        "line {line} is past the end of the file ({total} lines)"
    ))
}

/// The error for binary content.
pub fn binary_error() -> Error {
    Error::invalid_request("the file is binary; only text files have line context")
        .with_reason(crate::error::reason::BINARY)
}

/// Numbers `lines` (the first is `start`) for display: `"  12 | text"`, with a `>` marker on
/// `target`, right-aligned to the widest number.
pub fn number_lines(lines: &[String], start: usize, target: usize) -> String {
    let last = start + lines.len().saturating_sub(1);
    let width = last.to_string().len();
    let mut out = String::with_capacity(lines.iter().map(|l| l.len() + width + 5).sum());
    for (i, line) in lines.iter().enumerate() {
        let n = start + i;
        let marker = if n == target { '>' } else { ' ' };
        out.push(marker);
        out.push_str(&format!("{n:>width$} | "));
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(text: &[u8], start: usize, end: usize, chunk: usize) -> Result<Window> {
        let mut w = LineWindow::new(start, end, 1 << 20);
        for c in text.chunks(chunk.max(1)) {
            if w.feed(c)? {
                return w.finish(false);
            }
        }
        w.finish(true)
    }

    fn utf16(text: &str, little_endian: bool) -> Vec<u8> {
        let mut out = if little_endian {
            vec![0xFF, 0xFE]
        } else {
            vec![0xFE, 0xFF]
        };
        for u in text.encode_utf16() {
            out.extend(if little_endian {
                u.to_le_bytes()
            } else {
                u.to_be_bytes()
            });
        }
        out
    }

    #[test]
    fn utf16_with_a_bom_is_text_across_any_chunking() {
        let text = "héllo\r\nwörld 😀\rthird → line\nfourth";
        for le in [true, false] {
            let bytes = utf16(text, le);
            for chunk in [1, 2, 3, 5, 7, 100] {
                let w = window(&bytes, 1, 4, chunk).unwrap();
                assert_eq!(
                    w.lines,
                    ["héllo", "wörld 😀", "third → line", "fourth"],
                    "le {le} chunk {chunk}"
                );
                assert_eq!(w.total_lines, Some(4));
            }
        }
        // An odd last byte and a lone high surrogate become U+FFFD, not a panic or a hang.
        let mut bytes = utf16("ab", true);
        bytes.extend([0x3D, 0xD8, 0x41]);
        let w = window(&bytes, 1, 1, 3).unwrap();
        assert_eq!(w.lines, ["ab\u{FFFD}\u{FFFD}"]);
        // UTF-16 binary (NULs in the decoded text) is still refused.
        let mut bin = utf16("x", true);
        bin.extend(std::iter::repeat_n(0u8, 64));
        assert!(window(&bin, 1, 1, 8).is_err());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 256,
            rng_seed: proptest::test_runner::RngSeed::Fixed(14),
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// Any bytes a server sends, cut into any chunks: never a panic, and the result does
        /// not depend on the chunking.
        #[test]
        fn any_stream_any_chunking(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..600),
            start in 1usize..20,
            len in 0usize..20,
            chunk in 1usize..64,
        ) {
            let a = window(&bytes, start, start + len, chunk);
            let b = window(&bytes, start, start + len, bytes.len().max(1));
            proptest::prop_assert_eq!(a.is_ok(), b.is_ok());
            if let (Ok(a), Ok(b)) = (a, b) {
                proptest::prop_assert_eq!(&a, &b);
                proptest::prop_assert!(a.lines.len() <= len + 1);
            }
        }
    }

    #[test]
    fn picks_lines_across_any_chunking() {
        let text = b"one\ntwo\r\nthree\nfour\nfive";
        for chunk in [1, 2, 3, 5, 100] {
            let w = window(text, 2, 4, chunk).unwrap();
            assert_eq!(w.lines, ["two", "three", "four"], "chunk {chunk}");
            assert_eq!((w.start, w.end), (2, 4));
        }
        let w = window(text, 4, 9, 4).unwrap();
        assert_eq!(w.lines, ["four", "five"]);
        assert_eq!((w.end, w.total_lines), (5, Some(5)));
    }

    #[test]
    fn cr_only_and_mixed_line_endings_split_lines() {
        // Classic Mac (CR-only) content used to come back as one line.
        for chunk in [1, 2, 3, 64] {
            let w = window(b"a\rb\rc", 1, 3, chunk).unwrap();
            assert_eq!(w.lines, ["a", "b", "c"], "chunk {chunk}");
            let w = window(b"a\r\nb\rc\n\r\nd", 1, 5, chunk).unwrap();
            assert_eq!(w.lines, ["a", "b", "c", "", "d"], "chunk {chunk}");
            let w = window(b"x\r\r\ny", 2, 3, chunk).unwrap();
            assert_eq!(w.lines, ["", "y"], "chunk {chunk}");
        }
    }

    #[test]
    fn trailing_newline_does_not_make_a_line() {
        let w = window(b"a\nb\n", 1, 5, 1).unwrap();
        assert_eq!(w.lines, ["a", "b"]);
        assert_eq!(w.total_lines, Some(2));
        let e = window(b"a\nb\n", 3, 5, 1).unwrap_err();
        assert_eq!(e.message(), "line 3 is past the end of the file (2 lines)");
        assert!(window(b"", 1, 1, 1).is_err());
    }

    #[test]
    fn empty_lines_are_lines() {
        let w = window(b"\n\nx\n", 1, 3, 2).unwrap();
        assert_eq!(w.lines, ["", "", "x"]);
    }

    #[test]
    fn binary_is_refused_even_after_the_window() {
        let mut text = b"a\nb\n".to_vec();
        text.extend_from_slice(&[0u8; 10]);
        let e = window(&text, 1, 1, 1).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::InvalidRequest);
        assert!(e.message().contains("binary"));
    }

    #[test]
    fn a_tiny_first_chunk_is_not_judged_alone() {
        // One control byte in 8 KiB of text is text, even when it arrives alone as the first chunk.
        let mut text = b"\x01".to_vec();
        text.extend(b"line of ordinary text\n".repeat(400));
        let w = window(&text, 2, 3, 1).unwrap();
        assert_eq!(w.lines, ["line of ordinary text", "line of ordinary text"]);
    }

    #[test]
    fn stops_once_window_and_sniff_are_complete() {
        let line = b"0123456789abcdef\n";
        let mut w = LineWindow::new(2, 3, u64::MAX);
        let mut fed = 0usize;
        loop {
            fed += line.len();
            if w.feed(line).unwrap() {
                break;
            }
        }
        assert!(fed >= BINARY_SNIFF_BYTES && fed < BINARY_SNIFF_BYTES + line.len() * 2);
        assert_eq!(w.finish(false).unwrap().lines.len(), 2);
    }

    #[test]
    fn cap_applies_before_the_window_is_complete() {
        let mut w = LineWindow::new(1000, 1000, 100);
        let e = w.feed(&[b'x'; 50].repeat(3)).unwrap_err();
        assert!(e.message().contains("maxBytes"));
    }

    #[test]
    fn long_lines_are_cut_and_bom_removed() {
        let mut text = b"\xEF\xBB\xBF".to_vec();
        text.extend(std::iter::repeat_n(b'y', 20_000));
        text.push(b'\n');
        let w = window(&text, 1, 1, 777).unwrap();
        assert_eq!(w.lines[0].chars().count(), MAX_LINE_CHARS + 3);
        assert!(w.lines[0].starts_with('y') && w.lines[0].ends_with("..."));
    }

    #[test]
    fn numbering_aligns_and_marks_the_target() {
        let lines: Vec<String> = ["a", "b", "c"]
            .iter()
            .map(std::string::ToString::to_string)
            .collect();
        assert_eq!(number_lines(&lines, 9, 10), "  9 | a\n>10 | b\n 11 | c\n");
    }
}

//! Exact token counts pinned by a fixture (`testdata/token_counts.json`).
//!
//! The fixture was written by [`regenerate_token_fixture`] with the tokenizer of `bpe-openai`
//! 0.3.2 (whose counts equal tiktoken's), before the tokenizer was replaced. Any
//! implementation must reproduce it exactly: plain counts of many varied texts (every
//! pre-tokenizer rule, unicode, code, whitespace runs, long words), raw byte-pair counts of
//! every char prefix of long pieces (what [`fit_to_budget`] uses to cut a piece), and the
//! outcome of budget fits that cut inside lines.

use std::fmt::Write as _;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::*;

const ENCODINGS: [Encoding; 2] = [Encoding::O200kBase, Encoding::Cl100kBase];

#[derive(Serialize, Deserialize)]
struct Fixture {
    /// Texts with their counts, `[o200k_base, cl100k_base]`.
    counts: Vec<(String, [usize; 2])>,
    /// Single pieces with the byte-pair count of each char prefix (no pre-tokenization),
    /// `[o200k_base, cl100k_base]`.
    prefixes: Vec<(String, [Vec<usize>; 2])>,
    /// Fit cases of [`fit_cases`] by index: budget, counter, output byte lengths, tokens after.
    fits: Vec<(usize, String, Vec<usize>, usize)>,
}

fn fixture_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/budget/testdata/token_counts.json")
}

/// A small deterministic generator (xorshift64*), so the texts need no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Fragments covering each alternative of both pre-tokenization patterns and their edges.
const FRAGMENTS: &[&str] = &[
    "hello",
    "Hello",
    "HELLO",
    "hElLo",
    "world",
    " ",
    "  ",
    "   ",
    "\t",
    "\t\t",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    " \n",
    "\n ",
    " \t \n",
    "'s",
    "'S",
    "'re",
    "'RE",
    "'ll",
    "'d",
    "'m",
    "'ve",
    "'t",
    "'x",
    "don't",
    "I'M",
    "They'Re",
    "123",
    "1234567",
    "3.14159",
    "0x1F",
    "١٢٣٤",
    "１２３",
    "²³",
    "½",
    "Ⅻ",
    "!",
    "!!",
    "...",
    "?!",
    " !",
    " ...",
    "//",
    "/*",
    "*/",
    "->",
    "=>",
    "::",
    "{",
    "}",
    "();",
    "\"",
    "'",
    "`",
    "#",
    "@",
    "$",
    "%",
    "^",
    "&",
    "|",
    "~",
    "path/to/file.rs",
    "https://example.com/a?b=c&d=e",
    "snake_case_name",
    "camelCaseName",
    "PascalCase",
    "XMLHttpRequest",
    "getHTTPResponseCode",
    "ALLCAPS",
    "a",
    "I",
    "é",
    "e\u{301}",
    "ñ",
    "ß",
    "Straße",
    "naïve",
    "café",
    "Ωμέγα",
    "ΑΒΓ",
    "Привет",
    "мир",
    "中文",
    "日本語",
    "お誕生日おめでとう",
    "한국어",
    "안녕하세요",
    "हिन्दी",
    "العربية",
    "עברית",
    "ไทย",
    "ᏣᎳᎩ",
    "😀",
    "👍🏽",
    "👨\u{200d}👩\u{200d}👧",
    "🇫🇷",
    "\u{00a0}",
    "\u{3000}",
    "\u{2028}",
    "\u{200b}",
    "\u{feff}",
    "\u{0}",
    "\u{7}",
    "\u{1b}[0m",
    "\u{ffff}",
    "\u{10ffff}",
    "antidisestablishmentarianism",
    "Pneumonoultramicroscopicsilicovolcanoconiosis",
    "fn main() {",
    "    let x = 1;",
    "def f(self):",
    "#include <stdio.h>",
    "SELECT * FROM t;",
    "<div class=\"a\">",
    "</div>",
    "{\"k\":[1,2,3]}",
    "aGVsbG8gd29ybGQ=",
    "==",
    "===",
    "----",
    "____",
    "****",
    "....",
    "    ",
    "\t\t\t",
    "  \n  ",
    "\n\n\n\n",
];

fn generated_texts() -> Vec<String> {
    let mut texts: Vec<String> = FRAGMENTS.iter().map(|s| (*s).to_string()).collect();
    // Whitespace runs before every kind of following char, and at the end.
    for ws in [
        "",
        " ",
        "  ",
        "   ",
        "\t ",
        " \t",
        "\u{3000} ",
        "\n",
        " \n ",
        "\r\n  ",
    ] {
        for next in ["x", "X", "1", "!", "é", "中", "'s", "😀", " ", "\n", ""] {
            texts.push(format!("a{ws}{next}"));
            texts.push(format!("{ws}{next}"));
        }
    }
    // Long runs and long words.
    for (unit, n) in [
        ("a", 1000),
        ("ab", 500),
        ("abc", 300),
        ("Ab", 300),
        ("!", 300),
        ("!?", 200),
        (" ", 500),
        ("\n", 200),
        ("\t", 100),
        (" \n", 100),
        ("0", 100),
        ("12", 100),
        ("é", 300),
        ("中", 300),
        ("😀", 100),
        ("e\u{301}", 200),
        ("xyz ", 250),
        ("=", 400),
        ("-", 400),
        ("_", 400),
    ] {
        texts.push(unit.repeat(n));
    }
    // Random joins of fragments, short and long.
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for i in 0..400 {
        let parts = 1 + rng.below(if i % 10 == 0 { 200 } else { 12 });
        let mut s = String::new();
        for _ in 0..parts {
            s.push_str(FRAGMENTS[rng.below(FRAGMENTS.len())]);
        }
        texts.push(s);
    }
    // Random chars from mixed ranges (every class the patterns distinguish).
    let ranges: &[(u32, u32)] = &[
        (0x20, 0x7e),
        (0x09, 0x0d),
        (0xa0, 0x24f),
        (0x300, 0x36f),
        (0x370, 0x3ff),
        (0x400, 0x4ff),
        (0x600, 0x6ff),
        (0x900, 0x97f),
        (0x2000, 0x206f),
        (0x3000, 0x30ff),
        (0x4e00, 0x4fff),
        (0xac00, 0xacff),
        (0x1f300, 0x1f6ff),
    ];
    for _ in 0..200 {
        let len = 1 + rng.below(80);
        let mut s = String::new();
        while s.chars().count() < len {
            let (lo, hi) = ranges[rng.below(ranges.len())];
            if let Some(c) = char::from_u32(lo + rng.below((hi - lo + 1) as usize) as u32) {
                s.push(c);
            }
        }
        texts.push(s);
    }
    // Real source files of this crate.
    for file in ["budget/fit.rs", "budget/truncate.rs", "budget/lines.rs"] {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("src")
            .join(file);
        let text = std::fs::read_to_string(path).expect("source file");
        texts.push(text);
    }
    texts
}

/// Long single pieces whose every char prefix is counted (raw byte pairs).
fn prefix_texts() -> Vec<String> {
    let mut texts: Vec<String> = [
        "antidisestablishmentarianism",
        "Pneumonoultramicroscopicsilicovolcanoconiosis",
        "supercalifragilisticexpialidocious",
        "お誕生日おめでとう",
        "Ωμέγαβήτααλφα",
        "!!!???...---===",
        "                                        ",
        "ThisIsAVeryLongPascalCaseIdentifierName",
        "aGVsbG8gd29ybGQhIGhlbGxvIHdvcmxkIQ",
    ]
    .iter()
    .map(|s| (*s).to_string())
    .collect();
    texts.push("a".repeat(300));
    texts.push("é".repeat(100));
    texts
}

/// Sections, budget and counter of one budget fit.
type FitCase = (Vec<(String, String)>, usize, Counter);

/// Inputs of budget fits that cut within lines and single pieces.
fn fit_cases() -> Vec<FitCase> {
    let mut cases = Vec::new();
    let long_word = "abcdefghij".repeat(400);
    let json: String = (0..400).fold(String::from("["), |mut s, i| {
        let _ = write!(s, "{{\"id\":{i},\"name\":\"item{i}\"}},");
        s
    });
    let prose = "The quick brown fox jumps over the lazy dog. ".repeat(200);
    let cjk = "日本語のテキストです。".repeat(200);
    for counter in [
        Counter::Exact(Encoding::O200kBase),
        Counter::Exact(Encoding::Cl100kBase),
    ] {
        for budget in [7, 40, 150, 600] {
            for text in [&long_word, &json, &prose, &cjk] {
                let code: String = (0..30).map(|i| format!("line {i} of code\n")).collect();
                cases.push((
                    vec![
                        ("a".to_string(), format!("{text}\nnext\n")),
                        ("b".to_string(), code),
                    ],
                    budget,
                    counter,
                ));
            }
        }
    }
    cases
}

fn counter_name(counter: Counter) -> String {
    match counter {
        Counter::Exact(encoding) => encoding.as_str().to_string(),
        Counter::Estimate => "estimate".to_string(),
    }
}

fn run_fit(input: &[(String, String)], budget: usize, counter: Counter) -> (Vec<usize>, usize) {
    let options = FitOptions {
        counter,
        ..FitOptions::default()
    };
    let fitted = fit_to_budget(input, budget, &options);
    let lens = fitted.sections.iter().map(|(_, v)| v.len()).collect();
    let after = fitted
        .metadata
        .map_or_else(|| total_of(input, counter), |m| m.tokens_after);
    (lens, after)
}

fn total_of(sections: &[(String, String)], counter: Counter) -> usize {
    sections.iter().map(|(_, c)| counter.count(c)).sum()
}

fn prefix_counts(text: &str, encoding: Encoding) -> Vec<usize> {
    let mut counts = Vec::new();
    let mut counter = super::bpe::PrefixCounter::new(encoding);
    for c in text.chars() {
        let mut buf = [0; 4];
        counts.push(counter.push(c.encode_utf8(&mut buf).as_bytes()));
    }
    counts
}

/// Writes the fixture from the current implementation. Run by hand:
/// `cargo test -p context-engine-core --lib budget::fixture_tests::regenerate -- --ignored`.
#[test]
#[ignore = "writes the fixture; run by hand only with a trusted tokenizer"]
fn regenerate_token_fixture() {
    let counts = generated_texts()
        .into_iter()
        .map(|t| {
            let c = ENCODINGS.map(|e| count_tokens(&t, e));
            (t, c)
        })
        .collect();
    let prefixes = prefix_texts()
        .into_iter()
        .map(|t| {
            let c = ENCODINGS.map(|e| prefix_counts(&t, e));
            (t, c)
        })
        .collect();
    let fits = fit_cases()
        .into_iter()
        .map(|(input, budget, counter)| {
            let (lens, after) = run_fit(&input, budget, counter);
            (budget, counter_name(counter), lens, after)
        })
        .collect();
    let fixture = Fixture {
        counts,
        prefixes,
        fits,
    };
    let json = serde_json::to_string(&fixture).expect("serialisable");
    std::fs::create_dir_all(fixture_path().parent().unwrap()).unwrap();
    std::fs::write(fixture_path(), json + "\n").expect("write fixture");
}

fn load() -> Fixture {
    let text = std::fs::read_to_string(fixture_path()).expect("fixture present");
    serde_json::from_str(&text).expect("fixture parses")
}

#[test]
fn counts_match_the_fixture() {
    let fixture = load();
    assert!(fixture.counts.len() > 700, "{}", fixture.counts.len());
    for (text, expected) in &fixture.counts {
        for (encoding, &want) in ENCODINGS.iter().zip(expected) {
            assert_eq!(
                count_tokens(text, *encoding),
                want,
                "{encoding} on {:?}",
                text.chars().take(80).collect::<String>()
            );
        }
    }
}

#[test]
fn prefix_counts_match_the_fixture() {
    let fixture = load();
    assert_eq!(fixture.prefixes.len(), prefix_texts().len());
    for (text, expected) in &fixture.prefixes {
        for (encoding, want) in ENCODINGS.iter().zip(expected) {
            assert_eq!(
                &prefix_counts(text, *encoding),
                want,
                "{encoding} on {text:?}"
            );
        }
    }
}

#[test]
fn fits_match_the_fixture() {
    let fixture = load();
    let cases = fit_cases();
    assert_eq!(cases.len(), fixture.fits.len());
    for ((input, budget, counter), (want_budget, name, lens, after)) in
        cases.iter().zip(&fixture.fits)
    {
        assert_eq!(
            (*budget, counter_name(*counter)),
            (*want_budget, name.clone())
        );
        assert_eq!(
            &run_fit(input, *budget, *counter),
            &(lens.clone(), *after),
            "{name} budget {budget}"
        );
    }
}

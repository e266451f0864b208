use proptest::prelude::*;

use super::*;

const O200K: Counter = Counter::Exact(Encoding::O200kBase);
const CL100K: Counter = Counter::Exact(Encoding::Cl100kBase);

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

fn sections(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn total(sections: &[(String, String)], counter: Counter) -> usize {
    sections.iter().map(|(_, c)| counter.count(c)).sum()
}

/// Some source-like text of about `lines` lines.
fn code(lines: usize, salt: usize) -> String {
    (0..lines)
        .map(|i| {
            format!(
                "    let value_{i}_{salt} = compute(\"item {}\", {i}) + offset; // step {}\n",
                i * 7 + salt,
                i % 13
            )
        })
        .collect()
}

/// Asserts that every non-marker line of `output` is, in order, a line of `input` or a prefix
/// of one followed by "...".
fn assert_lines_from(input: &str, output: &str) {
    let inputs: Vec<&str> = input.lines().collect();
    let mut next = 0;
    for line in output.lines().filter(|l| *l != MARKER) {
        let found = inputs[next..].iter().position(|candidate| {
            *candidate == line
                || line
                    .strip_suffix(MARKER)
                    .is_some_and(|p| candidate.starts_with(p))
        });
        match found {
            Some(p) => next += p + 1,
            None => panic!("output line {line:?} is not from the input, in order"),
        }
    }
}

// ---------------------------------------------------------------- estimate_tokens

#[test]
fn estimate_tokens_is_ceil_chars_over_four() {
    assert_eq!(estimate_tokens(""), 0);
    for (s, want) in [("a", 1), ("ab", 1), ("abc", 1), ("abcd", 1), ("abcde", 2)] {
        assert_eq!(estimate_tokens(s), want, "{s:?}");
    }
    assert_eq!(estimate_tokens("hello world"), 3); // 11 chars
    assert_eq!(estimate_tokens(&"x".repeat(4000)), 1000);
    assert_eq!(estimate_tokens(&"x".repeat(4001)), 1001);
    // Multibyte: chars, not bytes. "héllo" is 5 chars, 6 bytes.
    assert_eq!(estimate_tokens("héllo"), 2);
    assert_eq!(estimate_tokens("日本語"), 1);
    assert_eq!(estimate_tokens("日本語です"), 2);
    // One emoji is one scalar; a ZWJ family is several.
    assert_eq!(estimate_tokens("😀"), 1);
    assert_eq!(estimate_tokens("😀😀😀😀😀"), 2);
    assert_eq!(estimate_tokens("👨‍👩‍👧"), 2); // 5 scalars
}

// ---------------------------------------------------------------- count_tokens

#[test]
fn count_tokens_known_values() {
    // Values from OpenAI's tiktoken cookbook ("How to count tokens with tiktoken").
    for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
        assert_eq!(count_tokens("", enc), 0);
        assert_eq!(count_tokens("hello world", enc), 2);
        assert_eq!(count_tokens("Hello, world!", enc), 4);
        assert_eq!(count_tokens("tiktoken is great!", enc), 6);
        assert_eq!(count_tokens("antidisestablishmentarianism", enc), 6);
        assert_eq!(count_tokens("2 + 2 = 4", enc), 7);
    }
    assert_eq!(count_tokens("お誕生日おめでとう", Encoding::Cl100kBase), 9);
    assert_eq!(count_tokens("お誕生日おめでとう", Encoding::O200kBase), 8);
}

#[test]
fn count_tokens_large_text_and_counter() {
    let text = code(20_000, 1); // ~1.5 MB
    let exact = count_tokens(&text, Encoding::O200kBase);
    assert!(exact > 100_000);
    assert_eq!(O200K.count(&text), exact);
    assert_eq!(Counter::default(), O200K);
    assert_eq!(Counter::Estimate.count(&text), estimate_tokens(&text));
    // Repeated calls agree (the tokenizer is shared).
    assert_eq!(count_tokens(&text, Encoding::O200kBase), exact);
}

#[test]
fn estimate_is_within_20_percent_on_real_code() {
    // The spec's accuracy criterion (within 20%), measured on this module's own (typical
    // Rust) source.
    let source = [
        include_str!("fit.rs"),
        include_str!("truncate.rs"),
        include_str!("tokens.rs"),
    ]
    .concat();
    for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
        let estimate = estimate_tokens(&source) as f64;
        let exact = count_tokens(&source, enc) as f64;
        assert!(
            (estimate - exact).abs() / exact < 0.2,
            "{enc}: {estimate} vs {exact}"
        );
    }
}

#[test]
fn encoding_names() {
    assert_eq!(Encoding::default(), Encoding::O200kBase);
    for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
        assert_eq!(Encoding::parse(enc.as_str()), Some(enc));
        assert_eq!(enc.to_string(), enc.as_str());
    }
    assert_eq!(Encoding::O200kBase.as_str(), "o200k_base");
    assert_eq!(Encoding::Cl100kBase.as_str(), "cl100k_base");
    assert_eq!(Encoding::parse("cl100k"), Some(Encoding::Cl100kBase));
    assert_eq!(Encoding::parse("o200k"), Some(Encoding::O200kBase));
    assert_eq!(Encoding::parse("p50k_base"), None);
    assert_eq!(Encoding::parse("O200K_BASE"), None);
    assert_eq!(Encoding::parse(""), None);
}

// ---------------------------------------------------------------- truncate_file

#[test]
fn truncate_unchanged_under_max_lines() {
    for content in ["", "a", "a\n", "a\r\nb\r\n", &numbered(10)] {
        let t = truncate_file(content, 10, &[3]);
        assert_eq!(t.text, content);
        assert!(!t.truncated && !t.severe);
        assert_eq!(t.kept_lines, t.original_lines);
    }
    let t = truncate_file(&numbered(10), 10, &[]);
    assert_eq!((t.original_lines, t.kept_lines), (10, 10));
}

#[test]
fn truncate_head_without_around_lines() {
    let t = truncate_file(&numbered(10), 3, &[]);
    assert_eq!(t.text, "line 1\nline 2\nline 3\n...\n");
    assert_eq!((t.original_lines, t.kept_lines), (10, 3));
    assert!(t.truncated && !t.severe);
    // No final newline in, none out.
    let t = truncate_file("a\nb\nc", 1, &[]);
    assert_eq!(t.text, "a\n...");
}

#[test]
fn truncate_window_around_one_line() {
    let t = truncate_file_with(&numbered(100), 50, &[50], 2);
    assert_eq!(
        t.text,
        "...\nline 48\nline 49\nline 50\nline 51\nline 52\n...\n"
    );
    assert_eq!(t.kept_lines, 5);
    // Default context is 10 each side.
    let t = truncate_file(&numbered(100), 50, &[50]);
    assert_eq!(t.kept_lines, 21);
    assert!(t.text.starts_with("...\nline 40\n"));
    assert!(t.text.ends_with("line 60\n...\n"));
    // Window clipped at the file's start and end: no marker there.
    let t = truncate_file_with(&numbered(100), 50, &[1, 100], 2);
    assert_eq!(
        t.text,
        "line 1\nline 2\nline 3\n...\nline 98\nline 99\nline 100\n"
    );
}

#[test]
fn truncate_merges_overlapping_and_adjacent_windows() {
    // Windows 8..=12 and 12..=16 overlap: one run.
    let t = truncate_file_with(&numbered(30), 20, &[10, 14], 2);
    let expected: String = std::iter::once("...\n".to_string())
        .chain((8..=16).map(|i| format!("line {i}\n")))
        .chain(std::iter::once("...\n".to_string()))
        .collect();
    assert_eq!(t.text, expected);
    // Windows 8..=12 and 13..=17 are adjacent: still one run, no marker between.
    let t = truncate_file_with(&numbered(30), 20, &[15, 10], 2);
    assert_eq!(t.text.matches("...\n").count(), 2);
    assert_eq!(t.kept_lines, 10);
    // A gap of one line gets its marker.
    let t = truncate_file_with(&numbered(30), 20, &[10, 16], 2);
    assert_eq!(t.text.matches("...\n").count(), 3);
    assert!(t.text.contains("line 12\n...\nline 14\n"));
}

#[test]
fn truncate_ignores_bad_line_numbers_and_duplicates() {
    let a = truncate_file_with(&numbered(50), 10, &[20], 2);
    let b = truncate_file_with(&numbered(50), 10, &[0, 20, 999, 20, usize::MAX], 2);
    assert_eq!(a, b);
    assert!(!b.severe);
}

#[test]
fn truncate_shrinks_context_evenly() {
    // Three errors, context 10 would need 63 lines; only 15 allowed.
    let t = truncate_file(&numbered(200), 15, &[150, 50, 100]);
    assert_eq!(t.kept_lines, 15);
    assert!(!t.severe);
    for l in ["line 50\n", "line 100\n", "line 150\n"] {
        assert!(t.text.contains(l));
    }
    // Context 2 each side is 15 lines exactly.
    assert!(t
        .text
        .contains("line 48\nline 49\nline 50\nline 51\nline 52\n"));
    assert!(t
        .text
        .contains("line 148\nline 149\nline 150\nline 151\nline 152\n"));
    // 16 lines: context 2 plus one line from the next ring (before the first error).
    let t = truncate_file(&numbered(200), 16, &[150, 50, 100]);
    assert_eq!(t.kept_lines, 16);
    assert!(t.text.contains("...\nline 47\nline 48\n"));
    // More errors than lines: the first ones, without context.
    let t = truncate_file(&numbered(200), 2, &[150, 50, 100]);
    assert_eq!(t.text, "...\nline 50\n...\nline 100\n...\n");
}

#[test]
fn truncate_markers_exactly_where_lines_were_removed() {
    let content = numbered(40);
    for around in [&[1usize][..], &[40], &[20], &[5, 35], &[1, 20, 40]] {
        let t = truncate_file_with(&content, 12, around, 1);
        let out: Vec<&str> = t.text.lines().collect();
        // Reconstruct the kept line numbers; every marker sits on a gap and every gap has one.
        let mut prev = 0;
        let mut pending_marker = false;
        for line in &out {
            if *line == MARKER {
                assert!(!pending_marker, "two markers in a row: {out:?}");
                pending_marker = true;
                continue;
            }
            let n: usize = line.trim_start_matches("line ").parse().unwrap();
            assert_eq!(n > prev + 1, pending_marker, "gap/marker mismatch: {out:?}");
            prev = n;
            pending_marker = false;
        }
        assert_eq!(
            prev < 40,
            pending_marker,
            "end gap/marker mismatch: {out:?}"
        );
    }
}

#[test]
fn truncate_severe_cases() {
    // max_lines 0 is a hard cap (it used to keep six lines): only the
    // marker remains.
    let t = truncate_file(&numbered(20), 0, &[10]);
    assert_eq!(t.text, "...\n");
    assert!(t.severe && t.truncated);
    assert_eq!(t.kept_lines, 0);
    // Every requested line outside the file: the edges, within max_lines.
    let t = truncate_file(&numbered(20), 4, &[0, 21, 500]);
    assert!(t.severe);
    assert_eq!(t.kept_lines, 4);
    assert_eq!(t.text, "line 1\nline 2\n...\nline 19\nline 20\n");
    // With room for more, the edges grow to max_lines.
    let t = truncate_file(&numbered(40), 10, &[99]);
    assert_eq!(t.kept_lines, 10);
    assert!(t.text.starts_with("line 1\n") && t.text.ends_with("line 40\n"));
    // A tiny file with max_lines 0: nothing kept either.
    let t = truncate_file("a\nb\n", 0, &[]);
    assert_eq!(t.text, "...\n");
    assert!(t.severe && t.truncated);
    // Empty content is never severe.
    let t = truncate_file("", 0, &[1]);
    assert!(!t.severe && !t.truncated);
}

#[test]
fn truncate_cuts_long_lines() {
    let long = "é".repeat(2500);
    let content = format!("short\n{long}\nend");
    let t = truncate_file(&content, 10, &[]);
    assert!(t.truncated && !t.severe);
    assert_eq!(t.kept_lines, 3);
    let lines: Vec<&str> = t.text.lines().collect();
    assert_eq!(lines[1].chars().count(), 2003);
    assert!(lines[1].ends_with("é..."));
    assert_eq!(lines[2], "end");
    // Exactly 2000 chars is left alone.
    let ok = "x".repeat(2000);
    assert_eq!(truncate_file(&ok, 1, &[]).text, ok);
    // CRLF is kept on the cut line.
    let t = truncate_file(&format!("{}\r\nb\r\n", "y".repeat(3000)), 5, &[]);
    assert!(t.text.ends_with("y...\r\nb\r\n"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn truncate_properties(
        suffixes in prop::collection::vec("[a-z ]{0,12}", 0..60),
        max_lines in 0usize..40,
        around in prop::collection::vec(0usize..70, 0..6),
        context in 0usize..12,
        trailing_newline in any::<bool>(),
    ) {
        let lines: Vec<String> =
            suffixes.iter().enumerate().map(|(i, s)| format!("{i}:{s}")).collect();
        let mut content = lines.join("\n");
        if trailing_newline && !content.is_empty() {
            content.push('\n');
        }
        let n = lines.len();
        let t = truncate_file_with(&content, max_lines, &around, context);
        prop_assert_eq!(&t, &truncate_file_with(&content, max_lines, &around, context));
        prop_assert_eq!(t.original_lines, n);
        assert_lines_from(&content, &t.text);
        let kept: Vec<usize> = t
            .text
            .lines()
            .filter(|l| *l != MARKER)
            .map(|l| l.split(':').next().unwrap().parse().unwrap())
            .collect();
        prop_assert_eq!(kept.len(), t.kept_lines);
        prop_assert_eq!(t.truncated, t.kept_lines < n);
        if n <= max_lines {
            prop_assert_eq!(&t.text, &content);
        } else {
            prop_assert!(t.kept_lines <= max_lines);
        }
        if n > max_lines && !t.severe {
            let valid: std::collections::BTreeSet<usize> =
                around.iter().filter(|&&l| l >= 1 && l <= n).map(|&l| l - 1).collect();
            if valid.len() <= max_lines {
                for l in &valid {
                    prop_assert!(kept.contains(l), "requested line {} missing", l);
                }
            }
        }
        // One marker per removed run.
        let markers = t.text.lines().filter(|l| *l == MARKER).count();
        let mut runs = 0;
        let mut prev: Option<usize> = None;
        for &k in &kept {
            if k > prev.map_or(0, |p| p + 1) {
                runs += 1;
            }
            prev = Some(k);
        }
        if prev.map_or(n > 0, |p| p + 1 < n) {
            runs += 1;
        }
        prop_assert_eq!(markers, runs);
    }
}

// ---------------------------------------------------------------- fit_to_budget

#[test]
fn fit_under_budget_is_unchanged() {
    // Spec acceptance scenario 2.
    let input = sections(&[("a", "hello world\n"), ("b", ""), ("c", "x")]);
    for counter in [O200K, CL100K, Counter::Estimate] {
        let options = FitOptions {
            counter,
            ..FitOptions::default()
        };
        let t = total(&input, counter);
        let fitted = fit_to_budget(&input, t, &options);
        assert_eq!(fitted.sections, input);
        assert_eq!(fitted.metadata, None);
    }
    let fitted = fit_to_budget(&[], 0, &FitOptions::default());
    assert!(fitted.sections.is_empty() && fitted.metadata.is_none());
}

#[test]
fn fit_truncates_proportionally() {
    // Spec acceptance scenario 1.
    let big = code(400, 1);
    let small = code(200, 2);
    let input = sections(&[("big", &big), ("small", &small)]);
    for counter in [O200K, CL100K, Counter::Estimate] {
        let options = FitOptions {
            counter,
            ..FitOptions::default()
        };
        let budget = total(&input, counter) / 4;
        let fitted = fit_to_budget(&input, budget, &options);
        let meta = fitted.metadata.clone().expect("metadata");
        let after = total(&fitted.sections, counter);
        assert!(after <= budget, "{after} > {budget}");
        assert!(
            after as f64 >= budget as f64 * 0.95,
            "wasted budget: {after} of {budget}"
        );
        assert_eq!(meta.tokens_after, after);
        assert_eq!(meta.budget, budget);
        assert_eq!(meta.tokens_before, total(&input, counter));
        assert!(meta.truncated && !meta.severe);
        assert_eq!(meta.sections_affected, vec!["big", "small"]);
        assert_eq!(meta.original_lines, 600);
        // About a quarter of each section survives.
        let kept_big = counter.count(&fitted.sections[0].1) as f64;
        let kept_small = counter.count(&fitted.sections[1].1) as f64;
        let ratio = kept_big / kept_small;
        assert!((1.6..2.4).contains(&ratio), "ratio {ratio}");
        for ((name, out), (_, orig)) in fitted.sections.iter().zip(&input) {
            assert!(out.ends_with("...\n"), "{name} has no end marker");
            assert!(orig.starts_with(&out[..out.len() - 4]));
            assert_lines_from(orig, out);
        }
        let kept: usize = fitted
            .sections
            .iter()
            .map(|(_, o)| o.lines().filter(|l| *l != MARKER).count())
            .sum();
        assert_eq!(meta.kept_lines, kept);
    }
}

#[test]
fn fit_small_sections_keep_everything_when_shares_allow() {
    // A small section under its (minimum + proportional) share stays whole; the big one
    // takes the rest of the budget.
    let input = sections(&[("tiny", "fn main() {}\n"), ("big", &code(500, 3))]);
    let budget = 2_000;
    let fitted = fit_to_budget(&input, budget, &FitOptions::default());
    assert_eq!(fitted.sections[0], input[0]);
    let meta = fitted.metadata.unwrap();
    assert_eq!(meta.sections_affected, vec!["big"]);
    assert!(meta.tokens_after <= budget && meta.tokens_after >= budget - 40);
}

#[test]
fn fit_prioritises_larger_sections_when_minimums_do_not_fit() {
    // Spec acceptance scenario 3.
    let input = sections(&[
        ("small", &code(5, 1)),
        ("large", &code(300, 2)),
        ("medium", &code(50, 3)),
        ("empty", ""),
    ]);
    let options = FitOptions::default();
    let large_min = O200K.count(&code(3, 2)) + 1; // three lines and a marker
    let budget = large_min + 10;
    let fitted = fit_to_budget(&input, budget, &options);
    let meta = fitted.metadata.unwrap();
    assert!(meta.severe && meta.truncated);
    assert!(meta.tokens_after <= budget);
    assert_eq!(meta.sections_affected, vec!["small", "large", "medium"]);
    let out: Vec<&str> = fitted.sections.iter().map(|(_, v)| v.as_str()).collect();
    assert!(
        out[1].starts_with(&code(3, 2)),
        "large keeps its minimum: {:?}",
        out[1]
    );
    assert!(
        out[0].is_empty() || out[0] == "...\n",
        "small: {:?}",
        out[0]
    );
    assert_eq!(out[3], "");
    let keys: Vec<&str> = fitted.sections.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, vec!["small", "large", "medium", "empty"]);
}

#[test]
fn fit_cuts_a_single_huge_line() {
    let json: String = std::iter::once("[".to_string())
        .chain((0..40_000).map(|i| format!("{{\"id\":{i},\"name\":\"item-{i}\",\"ok\":true}},")))
        .chain(std::iter::once("]".to_string()))
        .collect();
    assert!(json.len() > 1_000_000 && !json.contains('\n'));
    let input = sections(&[("data", &json)]);
    for counter in [O200K, Counter::Estimate] {
        let options = FitOptions {
            counter,
            ..FitOptions::default()
        };
        let fitted = fit_to_budget(&input, 1_000, &options);
        let out = &fitted.sections[0].1;
        let tokens = counter.count(out);
        assert!((950..=1_000).contains(&tokens), "{tokens}");
        assert!(out.ends_with("..."));
        assert!(json.starts_with(&out[..out.len() - 3]));
        let meta = fitted.metadata.unwrap();
        assert_eq!((meta.original_lines, meta.kept_lines), (1, 1));
        assert!(!meta.severe);
    }
}

#[test]
fn fit_huge_line_after_short_ones() {
    // A minified line later in the section is cut rather than dropped.
    let text = format!("header\nsecond\n{}\ntrailer\n", "abc,".repeat(100_000));
    let input = sections(&[("s", &text)]);
    let fitted = fit_to_budget(&input, 500, &FitOptions::default());
    let out = &fitted.sections[0].1;
    assert!(out.starts_with("header\nsecond\nabc,abc"));
    assert!(out.ends_with("...\n...\n"), "{:?}", &out[out.len() - 20..]);
    let tokens = O200K.count(out);
    assert!((450..=500).contains(&tokens), "{tokens}");
    assert_lines_from(&text, out);
}

#[test]
fn fit_unicode() {
    let cjk: String = (0..300)
        .map(|i| format!("第{i}行：日本語のテキスト😀 ünïcödé\n"))
        .collect();
    let emoji = "👨‍👩‍👧🎉".repeat(3000); // one long line of multi-scalar emoji
    let input = sections(&[("cjk", &cjk), ("emoji", &emoji)]);
    for counter in [O200K, CL100K, Counter::Estimate] {
        let options = FitOptions {
            counter,
            ..FitOptions::default()
        };
        let budget = total(&input, counter) / 10;
        let fitted = fit_to_budget(&input, budget, &options);
        let after = total(&fitted.sections, counter);
        assert!(
            after <= budget && after * 10 >= budget * 9,
            "{after} / {budget}"
        );
        for ((_, out), (_, orig)) in fitted.sections.iter().zip(&input) {
            assert_lines_from(orig, out);
        }
    }
}

#[test]
fn fit_budget_zero_empties_everything() {
    let input = sections(&[("a", "some text\n"), ("b", ""), ("c", &code(10, 1))]);
    for min_lines in [0, 3] {
        let options = FitOptions {
            min_lines,
            ..FitOptions::default()
        };
        let fitted = fit_to_budget(&input, 0, &options);
        assert!(fitted.sections.iter().all(|(_, v)| v.is_empty()));
        let meta = fitted.metadata.unwrap();
        assert!(meta.truncated && meta.severe);
        assert_eq!(meta.sections_affected, vec!["a", "c"]);
        assert_eq!((meta.kept_lines, meta.original_lines), (0, 11));
        assert_eq!(meta.tokens_after, 0);
    }
}

#[test]
fn fit_empty_sections_untouched() {
    let input = sections(&[("e1", ""), ("x", &code(100, 1)), ("e2", "")]);
    let fitted = fit_to_budget(&input, 300, &FitOptions::default());
    assert_eq!(fitted.sections[0], input[0]);
    assert_eq!(fitted.sections[2], input[2]);
    assert_eq!(fitted.metadata.unwrap().sections_affected, vec!["x"]);
}

#[test]
fn fit_many_tiny_sections() {
    // Equal contents, so equal sizes: ties go by input order.
    let owned: Vec<(String, String)> = (0..500)
        .map(|i| (format!("s{i}"), "let x = 1;\nlet y = x * 2;\n".to_string()))
        .collect();
    for counter in [O200K, Counter::Estimate] {
        let options = FitOptions {
            counter,
            ..FitOptions::default()
        };
        let before = total(&owned, counter);
        for budget in [0, 1, 7, 100, before / 2, before - 1] {
            let fitted = fit_to_budget(&owned, budget, &options);
            let after = total(&fitted.sections, counter);
            assert!(after <= budget, "{after} > {budget}");
            if budget >= 100 {
                assert!(after * 10 >= budget * 9, "{after} of {budget}");
            }
            let meta = fitted.metadata.unwrap();
            assert_eq!(meta.original_lines, 1000);
            // When it cannot hold everyone's two lines, the first sections win.
            if budget == 100 {
                assert!(meta.severe);
                assert!(!fitted.sections[0].1.is_empty());
                assert!(fitted.sections[499].1.is_empty() || fitted.sections[499].1 == "...\n");
            }
        }
    }
}

#[test]
fn fit_min_lines_zero_is_purely_proportional() {
    let input = sections(&[("a", &code(10, 1)), ("b", &code(1000, 2))]);
    let options = FitOptions {
        min_lines: 0,
        ..FitOptions::default()
    };
    let budget = total(&input, O200K) / 100;
    let fitted = fit_to_budget(&input, budget, &options);
    assert!(total(&fitted.sections, O200K) <= budget);
    // "a" is 1% of the total, so about 1% of the budget: less than one line.
    assert!(fitted.sections[0].1.lines().count() <= 1);
}

#[test]
fn fit_keeps_crlf_and_missing_final_newline() {
    let text: String = (0..100).map(|i| format!("row {i}\r\n")).collect();
    let input = sections(&[("crlf", &text), ("nonl", "a b c\nd e f\ng h i\nj k l")]);
    let fitted = fit_to_budget(&input, 30, &FitOptions::default());
    let crlf = &fitted.sections[0].1;
    assert!(crlf.starts_with("row 0\r\nrow 1\r\n"));
    assert!(crlf.ends_with("\r\n...\n"));
    let nonl = &fitted.sections[1].1;
    if nonl != "a b c\nd e f\ng h i\nj k l" {
        assert!(nonl.ends_with("..."));
        assert!(!nonl.ends_with('\n'));
    }
}

fn line_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z ]{0,30}",
        2 => " {0,8}[a-z(){};=,.0-9]{0,24}",
        2 => "\\PC{0,20}",
        1 => "[ \t]{0,6}",
        1 => "[a-z0-9,:\"{}]{200,3000}",
        1 => "(日本語|😀|é|👨‍👩‍👧|\u{301}|a){1,400}",
    ]
}

fn section_strategy() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(line_strategy(), 0..30),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(lines, crlf, trailing)| {
            let sep = if crlf { "\r\n" } else { "\n" };
            let mut s = lines.join(sep);
            if trailing && !s.is_empty() {
                s.push_str(sep);
            }
            s
        })
}

fn counter_strategy() -> impl Strategy<Value = Counter> {
    prop_oneof![Just(O200K), Just(CL100K), Just(Counter::Estimate)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn fit_properties(
        contents in prop::collection::vec(section_strategy(), 0..6),
        fraction in 0.0f64..1.2,
        counter in counter_strategy(),
        min_lines in 0usize..5,
    ) {
        let input: Vec<(String, String)> = contents
            .into_iter()
            .enumerate()
            .map(|(i, c)| (format!("s{}", i % 4), c)) // duplicate names are allowed
            .collect();
        let options = FitOptions { counter, min_lines };
        let before = total(&input, counter);
        let budget = (before as f64 * fraction) as usize;
        let fitted = fit_to_budget(&input, budget, &options);
        prop_assert_eq!(&fitted, &fit_to_budget(&input, budget, &options));
        let after = total(&fitted.sections, counter);
        prop_assert!(after as f64 <= budget as f64 * 1.05, "{} > 1.05 * {}", after, budget);
        prop_assert!(after <= budget, "over budget (within 5%): {} > {}", after, budget);
        prop_assert_eq!(fitted.sections.len(), input.len());
        if before <= budget {
            prop_assert_eq!(&fitted.sections, &input);
            prop_assert!(fitted.metadata.is_none());
        } else {
            let meta = fitted.metadata.clone().unwrap();
            prop_assert!(meta.truncated);
            prop_assert_eq!(meta.tokens_after, after);
            prop_assert_eq!(meta.tokens_before, before);
            prop_assert!(meta.kept_lines <= meta.original_lines);
            let changed: Vec<String> = input
                .iter()
                .zip(&fitted.sections)
                .filter(|(a, b)| a.1 != b.1)
                .map(|(a, _)| a.0.clone())
                .collect();
            prop_assert_eq!(&meta.sections_affected, &changed);
        }
        for ((k_in, v_in), (k_out, v_out)) in input.iter().zip(&fitted.sections) {
            prop_assert_eq!(k_in, k_out);
            assert_lines_from(v_in, v_out);
        }
    }
}

/// Rough timings; run with
/// `cargo test --release --lib budget::tests::timings -- --ignored --nocapture`.
#[test]
#[ignore = "a timing run by hand, never in CI"]
fn timings() {
    use std::time::Instant;
    count_tokens("warm up", Encoding::O200kBase); // load the tokenizer outside the timing
    for (label, lines) in [("~1 MB", 6_500), ("~10 MB", 65_000)] {
        let a = code(lines, 1);
        let b = code(lines / 3, 2);
        let mut json = String::from("[");
        for i in 0..lines * 2 {
            json.push_str(&format!("{{\"id\":{i},\"v\":\"x{i}\"}},"));
        }
        json.push(']');
        let input = vec![
            ("code".to_string(), a),
            ("more".to_string(), b),
            ("json".to_string(), json),
        ];
        let bytes: usize = input.iter().map(|(_, v)| v.len()).sum();
        let start = Instant::now();
        let exact = total(&input, O200K);
        println!(
            "{label}: counting alone {:?} ({exact} tokens)",
            start.elapsed()
        );
        for counter in [O200K, Counter::Estimate] {
            let options = FitOptions {
                counter,
                ..FitOptions::default()
            };
            let start = Instant::now();
            let fitted = fit_to_budget(&input, DEFAULT_BUDGET, &options);
            let elapsed = start.elapsed();
            let meta = fitted.metadata.unwrap();
            println!(
                "{label} ({bytes} bytes) {counter:?}: {elapsed:?}, {} -> {} tokens",
                meta.tokens_before, meta.tokens_after
            );
        }
    }
}

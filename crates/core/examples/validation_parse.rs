//! Time of `parse_validation_output` on large pytest output (8 MiB of
//! `FAILED` lines took 37 s when each summary line was compared with every earlier error).
//!
//! ```sh
//! cargo run --release -p context-engine-core --example validation_parse
//! ```

use std::time::Instant;

use context_engine_core::builders::parse_validation_output;

fn main() {
    let target = 8 * 1024 * 1024;
    // Tracebacks, then one summary line per test, as pytest prints them.
    let mut tracebacks = String::new();
    let mut summary = String::new();
    let mut i = 0usize;
    while tracebacks.len() + summary.len() < target {
        tracebacks.push_str(&format!(
            "E       assert {i} == {}\ntests/test_big.py:{}: AssertionError\n",
            i + 1,
            i + 10
        ));
        summary.push_str(&format!(
            "FAILED tests/test_big.py::test_{i} - assert {i} == {}\n",
            i + 1
        ));
        i += 1;
    }
    let matched = format!("{tracebacks}{summary}");
    // Summary lines only (no traceback to match): the case of `pytest -q --tb=no`.
    let unmatched: String = (0..)
        .map(|i| {
            format!(
                "FAILED tests/test_{}.py::test_{i} - AssertionError: boom\n",
                i % 50
            )
        })
        .take_while({
            let mut len = 0;
            move |l: &String| {
                len += l.len();
                len < target
            }
        })
        .collect();
    for (name, text) in [
        ("tracebacks + FAILED", &matched),
        ("FAILED only", &unmatched),
    ] {
        let mut best = f64::MAX;
        let mut n = 0;
        for _ in 0..3 {
            let started = Instant::now();
            n = parse_validation_output(text).len();
            best = best.min(started.elapsed().as_secs_f64());
        }
        println!(
            "{name}: {:.1} MiB, {} lines, {n} errors, best of 3 {:.3} s",
            text.len() as f64 / 1_048_576.0,
            text.lines().count(),
            best
        );
    }
    // Reference in the same run: splitting the same text into lines.
    let started = Instant::now();
    let lines = matched.lines().count();
    println!(
        "reference (lines() over the first text): {:.4} s ({lines} lines)",
        started.elapsed().as_secs_f64()
    );
}

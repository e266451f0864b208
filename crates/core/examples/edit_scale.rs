//! The cost of the first call after an edit on a large tree, in-process: after a cold build
//! and two warm rounds, each prompt is asked right after one of `--edit` files is rewritten
//! (a line appended, written beside it and renamed over it, so a hard-linked copy of a tree
//! never changes the original).
//!
//! ```sh
//! cargo run --release -p context-engine-core --example edit_scale -- ROOT PROMPTS_FILE \
//!     --edit kernel/sched/core.c,mm/memory.c [--out RESULTS_FILE]
//! ```

use std::time::Instant;

use context_engine_core::retrieve::{Request, Retrieval, RetrievalOptions};

fn arg(args: &[String], name: &str) -> Option<String> {
    let i = args.iter().position(|a| a == name)?;
    args.get(i + 1).cloned()
}

fn pct(xs: &[f64], p: f64) -> f64 {
    let mut s = xs.to_vec();
    s.sort_by(f64::total_cmp);
    let k = ((p / 100.0) * s.len() as f64).ceil() as usize;
    s[k.clamp(1, s.len()) - 1]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let root = args.get(1).expect("ROOT").clone();
    let prompts: Vec<String> = std::fs::read_to_string(args.get(2).expect("PROMPTS_FILE"))
        .expect("prompts file")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    let edits: Vec<String> = arg(&args, "--edit")
        .expect("--edit FILES")
        .split(',')
        .map(str::to_owned)
        .collect();
    let retrieval = Retrieval::new(RetrievalOptions::default());
    let ask = |prompt: &str| {
        retrieval
            .retrieve(&Request {
                prompt: prompt.to_owned(),
                root: root.clone(),
                limit: 20,
            })
            .expect("retrieve")
    };
    let t = Instant::now();
    ask(&prompts[0]);
    println!("cold {:.2} s", t.elapsed().as_secs_f64());
    let mut warm = Vec::new();
    for round in 0..2 {
        for p in &prompts {
            let t = Instant::now();
            ask(p);
            if round == 1 {
                warm.push(t.elapsed().as_secs_f64() * 1000.0);
            }
        }
    }
    println!(
        "warm: p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms",
        pct(&warm, 50.0),
        pct(&warm, 95.0),
        pct(&warm, 100.0)
    );
    let rss = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .map(str::to_owned)
        })
        .unwrap_or_default();
    println!("after the warm rounds: {rss}");
    let mut after = Vec::new();
    let mut out = String::new();
    for (k, p) in prompts.iter().enumerate() {
        let rel = &edits[k % edits.len()];
        let path = std::path::Path::new(&root).join(rel);
        let mut text = std::fs::read_to_string(&path).expect("edited file");
        text.push_str(&format!("\n/* edit {k} */\n"));
        let tmp = std::path::Path::new(&root).join(format!("../.edit-{k}.tmp"));
        std::fs::write(&tmp, text).expect("write");
        std::fs::rename(&tmp, &path).expect("rename");
        std::thread::sleep(std::time::Duration::from_millis(30));
        let t = Instant::now();
        let snippets = ask(p);
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        after.push(ms);
        println!("{ms:8.2} ms  {p}");
        out.push_str(&format!("## {k} {p}\n"));
        for s in &snippets {
            out.push_str(&format!("{} {:.6}\n", s.source, s.score));
        }
    }
    println!(
        "after an edit: p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms",
        pct(&after, 50.0),
        pct(&after, 95.0),
        pct(&after, 100.0)
    );
    if let Some(path) = arg(&args, "--out") {
        std::fs::write(path, out).expect("write results");
    }
}

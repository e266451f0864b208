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

use context_engine_core::retrieve::{Retrieval, RetrievalOptions};

mod scale_common;
use scale_common::{arg, ask, cpu_seconds, prompts, rss, summary};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let root = args.get(1).expect("ROOT").clone();
    let prompts = prompts(args.get(2).expect("PROMPTS_FILE"));
    let edits: Vec<String> = arg(&args, "--edit")
        .expect("--edit FILES")
        .split(',')
        .map(str::to_owned)
        .collect();
    let retrieval = Retrieval::new(RetrievalOptions::default());
    let ask = |prompt: &str| ask(&retrieval, &root, prompt);
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
    println!("warm: {}", summary(&warm));
    println!("RSS after the warm rounds: {}", rss());
    let cpu0 = cpu_seconds();
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
    println!("after an edit: {}", summary(&after));
    if let (Some(a), Some(b)) = (cpu0, cpu_seconds()) {
        // Includes the edits' writes and the refresh each one causes.
        println!(
            "after an edit, CPU (whole process): {:.2} ms a call",
            (b - a) * 1000.0 / after.len() as f64
        );
    }
    if let Some(path) = arg(&args, "--out") {
        std::fs::write(path, out).expect("write results");
    }
}

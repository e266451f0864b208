//! Warm retrieval latency on a large tree, in-process (no Node), for profiling `rank` with
//! `perf` and for checking that an optimization leaves every result list identical.
//!
//! ```sh
//! cargo run --release -p context-engine-core --example retrieve_scale -- ROOT PROMPTS_FILE \
//!     [--rounds 3] [--cache-dir DIR] [--out RESULTS_FILE] [--pause SECS] [--max-files N]
//! ```
//! `PROMPTS_FILE`: one prompt per line. `--out` writes every result list (path, lines, score)
//! of the last round, to compare two builds with `cmp`. `--pause` sleeps after the cold build
//! (time to attach `perf record -p PID`). The build's CPU (the whole process's, and the merging
//! thread's) and resident memory are printed after the build, memory again after the warm
//! calls (Linux). Each prompt's line gives its median CPU over the rounds, of the
//! calling thread only (a ranking that scores long posting lists on a second thread shows the
//! caller's share: what its latency follows on an idle machine).

use std::time::Instant;

use context_engine_core::retrieve::{Retrieval, RetrievalOptions};

mod scale_common;
use scale_common::{arg, ask, cpu_seconds, prompts, rss, summary, thread_cpu_seconds};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let root = args.get(1).expect("ROOT").clone();
    let prompts = prompts(args.get(2).expect("PROMPTS_FILE"));
    let rounds: usize = arg(&args, "--rounds").map_or(3, |r| r.parse().expect("rounds"));
    let mut options = RetrievalOptions {
        cache_dir: arg(&args, "--cache-dir").map(Into::into),
        ..RetrievalOptions::default()
    };
    if let Some(n) = arg(&args, "--max-files") {
        options.max_files = n.parse().expect("max files");
    }
    let options_cache = options.cache_dir.is_some();
    let retrieval = Retrieval::new(options);
    let ask = |prompt: &str| ask(&retrieval, &root, prompt);
    let t = Instant::now();
    ask(&prompts[0]);
    let stats = retrieval.prepare(&root).expect("stats");
    println!(
        "cold {:.2} s; {} files, {} chunks, {} terms, {} postings, {} MB estimated; pid {}",
        t.elapsed().as_secs_f64(),
        stats.files,
        stats.chunks,
        stats.terms,
        stats.postings,
        stats.bytes / 1_000_000,
        std::process::id()
    );
    // The build reads on worker threads and merges on this one: the process's CPU so far is
    // the build's (and the first prompt's), this thread's the merging part of it.
    println!(
        "build CPU: {:.2} s, of which the merging thread {:.2} s",
        cpu_seconds().unwrap_or(0.0),
        thread_cpu_seconds().unwrap_or(0.0)
    );
    println!("RSS after build: {}", rss());
    if let Some(s) = arg(&args, "--pause") {
        std::thread::sleep(std::time::Duration::from_secs(s.parse().expect("pause")));
    }
    let cpu0 = cpu_seconds();
    let mut all = Vec::new();
    let mut all_cpu = Vec::new();
    let mut prompt_cpu = vec![Vec::new(); prompts.len()];
    let mut out = String::new();
    for round in 0..rounds {
        let mut times = Vec::new();
        for (k, p) in prompts.iter().enumerate() {
            let c = thread_cpu_seconds();
            let t = Instant::now();
            let snippets = ask(p);
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            // The calling thread's CPU: what the call itself spent, whatever the machine's load.
            let cpu_ms = c
                .zip(thread_cpu_seconds())
                .map_or(0.0, |(a, b)| (b - a) * 1000.0);
            times.push(ms);
            all_cpu.push(cpu_ms);
            prompt_cpu[k].push(cpu_ms);
            if round + 1 == rounds {
                let median = scale_common::pct(&prompt_cpu[k], 50.0);
                println!("{ms:8.2} ms {median:8.2} CPU-ms (median of the rounds)  {p}");
                out.push_str(&format!("## {k} {p}\n"));
                for s in &snippets {
                    out.push_str(&format!("{} {:.6}\n", s.source, s.score));
                }
            }
        }
        println!("round {round}: {}", summary(&times));
        all.extend(times);
    }
    println!("all {} calls: {}", all.len(), summary(&all));
    println!("thread CPU a call: {}", summary(&all_cpu));
    if let (Some(a), Some(b)) = (cpu0, cpu_seconds()) {
        // CPU time moves less than wall time when the machine is shared.
        println!(
            "warm CPU (user + system, whole process): {:.2} ms a call",
            (b - a) * 1000.0 / all.len() as f64
        );
    }
    println!("RSS after the warm calls: {}", rss());
    if options_cache {
        // A background save follows the build; let it finish.
        std::thread::sleep(std::time::Duration::from_secs(8));
        let stats = retrieval.status(&root).expect("status").stats;
        println!(
            "RSS 8 s later: {}; {} MB estimated on the heap, {} MB read from the mapped file",
            rss(),
            stats.bytes / 1_000_000,
            stats.mapped_bytes / 1_000_000
        );
        // Each prompt once more: a mapped index counts the pages they touch.
        for p in &prompts {
            ask(p);
        }
        println!("RSS after one more round: {}", rss());
    }
    if let Some(path) = arg(&args, "--out") {
        std::fs::write(path, out).expect("write results");
    }
}

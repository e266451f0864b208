//! Warm retrieval latency on a large tree, in-process (no Node), for profiling `rank` with
//! `perf` and for checking that an optimization leaves every result list identical.
//!
//! ```sh
//! cargo run --release -p context-engine-core --example retrieve_scale -- ROOT PROMPTS_FILE \
//!     [--rounds 3] [--cache-dir DIR] [--out RESULTS_FILE] [--pause SECS] [--max-files N]
//! ```
//! `PROMPTS_FILE`: one prompt per line. `--out` writes every result list (path, lines, score)
//! of the last round, to compare two builds with `cmp`. `--pause` sleeps after the cold build
//! (time to attach `perf record -p PID`). Resident memory is printed after the build and after
//! the warm calls (Linux).

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

/// Resident memory now and at its peak (Linux; "n/a" elsewhere).
fn rss() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map_or("n/a".to_owned(), |v| v.trim().to_owned())
    };
    format!("{} (peak {})", field("VmRSS:"), field("VmHWM:"))
}

/// User plus system CPU time of the process so far (unix).
fn cpu_seconds() -> Option<f64> {
    #[cfg(unix)]
    {
        // SAFETY: getrusage writes the struct it is given.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &raw mut u) } != 0 {
            return None;
        }
        let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
        Some(t(u.ru_utime) + t(u.ru_stime))
    }
    #[cfg(not(unix))]
    None
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
    println!("RSS after build: {}", rss());
    if let Some(s) = arg(&args, "--pause") {
        std::thread::sleep(std::time::Duration::from_secs(s.parse().expect("pause")));
    }
    let cpu0 = cpu_seconds();
    let mut all = Vec::new();
    let mut out = String::new();
    for round in 0..rounds {
        let mut times = Vec::new();
        for (k, p) in prompts.iter().enumerate() {
            let t = Instant::now();
            let snippets = ask(p);
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            times.push(ms);
            if round + 1 == rounds {
                println!("{ms:8.2} ms  {p}");
                out.push_str(&format!("## {k} {p}\n"));
                for s in &snippets {
                    out.push_str(&format!("{} {:.6}\n", s.source, s.score));
                }
            }
        }
        println!(
            "round {round}: p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms",
            pct(&times, 50.0),
            pct(&times, 95.0),
            pct(&times, 100.0)
        );
        all.extend(times);
    }
    println!(
        "all {} calls: p50 {:.2} ms, p95 {:.2} ms",
        all.len(),
        pct(&all, 50.0),
        pct(&all, 95.0)
    );
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
        println!("RSS 8 s later: {}", rss());
    }
    if let Some(path) = arg(&args, "--out") {
        std::fs::write(path, out).expect("write results");
    }
}

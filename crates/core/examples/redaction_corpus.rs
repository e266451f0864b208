//! Redaction recall, false positives and cost, measured on a corpus built at run time.
//!
//! ```sh
//! cargo run --release -p context-engine-core --features test-support --example redaction_corpus -- [DIR ...]
//! ```
//!
//! - Positives: fake secrets of every [`SecretKind`] (`secrets::fakes`, 300 seeds each, never a
//!   real credential), each between two ordinary lines. Recall = the kind was found and no
//!   12+-character piece of the secret is left in the redacted text.
//! - Negatives: every line of the text files under `DIR`s (default: `~/.cargo/registry/src`
//!   and this repository's `node_modules`), read now, never stored. Each finding is printed as
//!   `kind path:line` (never the value) so it can be classified by hand: a real test key in a
//!   crate is a true positive, anything else a false one.
//! - Cost: `redact` throughput over the negative corpus, file by file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use context_engine_core::secrets::{self, fakes, SecretKind};

const SEEDS: u64 = 300;
const MAX_FILES: usize = 20_000;
const MAX_BYTES: u64 = 256 * 1024;
const EXTENSIONS: &[&str] = &[
    "rs", "toml", "md", "json", "js", "ts", "py", "go", "yaml", "yml", "lock", "c", "h", "txt",
];

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for e in entries {
        if out.len() >= MAX_FILES {
            return;
        }
        let p = e.path();
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            collect(&p, out);
        } else if ft.is_file()
            && p.extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| EXTENSIONS.contains(&x))
            && e.metadata().is_ok_and(|m| m.len() <= MAX_BYTES)
        {
            out.push(p);
        }
    }
}

// A measurement script: one pass per kind, then the ordinary corpus, then the cost.
#[allow(clippy::too_many_lines)]
fn main() {
    let mut dirs: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    if dirs.is_empty() {
        let home = std::env::var("HOME").unwrap_or_default();
        dirs.push(Path::new(&home).join(".cargo/registry/src"));
        dirs.push(PathBuf::from("node_modules"));
    }

    // ---- positives
    println!("kind | samples | recall");
    println!("--- | ---: | ---:");
    let mut total = (0usize, 0usize);
    for kind in SecretKind::ALL {
        let mut n = 0;
        let mut hit = 0;
        for seed in 0..SEEDS {
            for sample in fakes::samples(kind, seed * 7919 + 1) {
                n += 1;
                let text = format!("let a = 1;\n{sample}\nfn b() {{}}\n");
                let r = secrets::redact(&text);
                let found = r.findings.iter().any(|f| f.kind == kind);
                let leaked = sample
                    .split(|c: char| c.is_whitespace() || "\"'();,=".contains(c))
                    .filter(|p| p.len() >= 12 && secrets::contains_secret(p))
                    .any(|p| r.text.contains(p));
                if found && !leaked {
                    hit += 1;
                }
            }
        }
        total.0 += n;
        total.1 += hit;
        println!(
            "{} | {n} | {:.1}%",
            kind.as_str(),
            100.0 * hit as f64 / n as f64
        );
    }
    println!(
        "all | {} | {:.2}%\n",
        total.0,
        100.0 * total.1 as f64 / total.0 as f64
    );

    // ---- negatives and cost
    let mut files = Vec::new();
    for d in &dirs {
        collect(d, &mut files);
    }
    let mut texts = Vec::new();
    for f in &files {
        if let Ok(t) = std::fs::read_to_string(f) {
            texts.push((f.clone(), t));
        }
    }
    let bytes: usize = texts.iter().map(|(_, t)| t.len()).sum();
    let lines: usize = texts.iter().map(|(_, t)| t.lines().count()).sum();
    let mut per_kind: BTreeMap<&str, usize> = BTreeMap::new();
    let mut best = f64::MAX;
    for pass in 0..3 {
        let started = Instant::now();
        let mut found = 0usize;
        for (path, t) in &texts {
            let r = secrets::redact(t);
            found += r.findings.len();
            if pass == 0 {
                for f in &r.findings {
                    *per_kind.entry(f.kind.as_str()).or_default() += 1;
                    println!("finding {} {}:{}", f.kind.as_str(), path.display(), f.line);
                }
            }
        }
        best = best.min(started.elapsed().as_secs_f64());
        std::hint::black_box(found);
    }
    println!(
        "\nnegative corpus: {} files, {lines} lines, {:.1} MB",
        texts.len(),
        bytes as f64 / 1e6
    );
    println!("findings per kind: {per_kind:?}");
    println!(
        "redact: best of 3 {:.3} s = {:.1} MB/s ({:.2} ms per MB)",
        best,
        bytes as f64 / 1e6 / best,
        best * 1e3 / (bytes as f64 / 1e6)
    );
    // Per rule: one regex pass over the corpus (find_iter), to see what the set pays for.
    if std::env::var_os("PER_RULE").is_some() {
        for pattern in secrets::rule_patterns() {
            let re = regex::Regex::new(pattern).expect("compiles");
            let started = Instant::now();
            let n: usize = texts.iter().map(|(_, t)| re.find_iter(t).count()).sum();
            let took = started.elapsed().as_secs_f64();
            println!(
                "rule {:>8.1} MB/s {n:>6} matches  {}",
                bytes as f64 / 1e6 / took,
                &pattern[..pattern.len().min(70)]
            );
        }
        let all = secrets::rule_patterns();
        for (name, group) in [
            ("all", &all[..]),
            ("first19", &all[..19]),
            ("providers", &all[19..]),
            ("p-a", &all[19..36]),
            ("p-b", &all[36..]),
        ] {
            let set = regex::RegexSet::new(group).expect("compiles");
            let started = Instant::now();
            let n: usize = texts
                .iter()
                .map(|(_, t)| set.matches(t).iter().count())
                .sum();
            let took = started.elapsed().as_secs_f64();
            println!(
                "set {name} {:>8.1} MB/s {n:>6} rule hits",
                bytes as f64 / 1e6 / took
            );
        }
    }
    // Reference in the same run: a plain pass over the same bytes (counting lines).
    let started = Instant::now();
    let nl: usize = texts
        .iter()
        .map(|(_, t)| t.bytes().filter(|&b| b == b'\n').count())
        .sum();
    let reference = started.elapsed().as_secs_f64();
    println!(
        "reference (count newlines): {:.3} s = {:.0} MB/s ({nl} newlines)",
        reference,
        bytes as f64 / 1e6 / reference
    );
}

//! What the scale examples (`retrieve_scale`, `edit_scale`) share: arguments, prompts,
//! percentiles, resident memory and CPU time, and the request they time.

use context_engine_core::retrieve::{Request, Retrieval, Snippet};

/// The value after `name` in `args`.
pub fn arg(args: &[String], name: &str) -> Option<String> {
    let i = args.iter().position(|a| a == name)?;
    args.get(i + 1).cloned()
}

/// The non-empty lines of the file at `path`.
pub fn prompts(path: &str) -> Vec<String> {
    std::fs::read_to_string(path)
        .expect("prompts file")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// The `p`-th percentile of `xs` (nearest rank).
pub fn pct(xs: &[f64], p: f64) -> f64 {
    let mut s = xs.to_vec();
    s.sort_by(f64::total_cmp);
    let k = ((p / 100.0) * s.len() as f64).ceil() as usize;
    s[k.clamp(1, s.len()) - 1]
}

/// `p50 …, p95 …, max …` of `xs` in milliseconds.
pub fn summary(xs: &[f64]) -> String {
    format!(
        "p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms",
        pct(xs, 50.0),
        pct(xs, 95.0),
        pct(xs, 100.0)
    )
}

/// Resident memory now and at its peak (Linux; "n/a" elsewhere).
pub fn rss() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map_or("n/a".to_owned(), |v| v.trim().to_owned())
    };
    format!(
        "{} (peak {}; anonymous {}, file pages {})",
        field("VmRSS:"),
        field("VmHWM:"),
        field("RssAnon:"),
        field("RssFile:")
    )
}

/// User plus system CPU time of the process so far (unix), which a shared machine disturbs
/// less than wall time.
pub fn cpu_seconds() -> Option<f64> {
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

/// CPU time of the calling thread so far (Linux), for one call's own CPU on a shared machine.
#[allow(dead_code, reason = "retrieve_scale's; edit_scale shares this module")]
pub fn thread_cpu_seconds() -> Option<f64> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: clock_gettime writes the struct it is given.
        let mut t: libc::timespec = unsafe { std::mem::zeroed() };
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &raw mut t) } != 0 {
            return None;
        }
        Some(t.tv_sec as f64 + t.tv_nsec as f64 / 1e9)
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// The 20 best snippets of `root` for `prompt`.
pub fn ask(retrieval: &Retrieval, root: &str, prompt: &str) -> Vec<Snippet> {
    retrieval
        .retrieve(&Request {
            prompt: prompt.to_owned(),
            root: root.to_owned(),
            limit: 20,
        })
        .expect("retrieve")
}

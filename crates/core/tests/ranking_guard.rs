//! Ranking guard: a small frozen repository (`tests/ranking-guard/corpus`, a task queue in
//! Python with a TypeScript client, a Go agent and a Rust crate, written for this test, MIT
//! licensed) and prompts of the three kinds agents send (a question, a commit message, a bug
//! report with a traceback or a pasted error), each with the file that answers it and the rank
//! it must reach. A change that breaks ranking (a signal lost, a weight gone wrong) moves some
//! answers down and fails here; the message lists every miss with the files ranked above.
//!
//! The corpus also holds what crowds real answers: a changelog, a translation catalog, a licence,
//! docs and tests that repeat the words of the code.

use std::path::PathBuf;

use context_engine_core::retrieve::{Request, Retrieval, RetrievalOptions, SnippetOptions};

/// What a prompt is like.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// A natural-language question.
    Question,
    /// A symbol name alone.
    Symbol,
    /// A commit message.
    Commit,
    /// A bug report: prose with a traceback, a panic or a pasted error message.
    Bug,
}

/// (kind, prompt, expected file, rank it must reach or beat: 1 or 3).
const CASES: &[(Kind, &str, &str, usize)] = &[
    // Questions.
    (
        Kind::Question,
        "how are failed tasks retried with exponential backoff",
        "tidepool/retry.py",
        3,
    ),
    (
        Kind::Question,
        "where is the visibility timeout of a leased task applied",
        "tidepool/storage/redis_backend.py",
        1,
    ),
    (
        Kind::Question,
        "how does the worker shut down gracefully on SIGTERM",
        "tidepool/signals.py",
        3,
    ),
    (
        Kind::Question,
        "how are cron expressions parsed",
        "tidepool/scheduler.py",
        1,
    ),
    (
        Kind::Question,
        "where are metrics exported in the prometheus text format",
        "tidepool/metrics.py",
        1,
    ),
    (
        Kind::Question,
        "how does the rate limiter refill its tokens",
        "tidepool/ratelimit.py",
        1,
    ),
    (
        Kind::Question,
        "how are task payloads serialized",
        "tidepool/serializers.py",
        3,
    ),
    (
        Kind::Question,
        "which environment variables configure the settings",
        "tidepool/config.py",
        1,
    ),
    (
        Kind::Question,
        "how does the TypeScript client abandon a request that takes too long",
        "clients/ts/src/client.ts",
        1,
    ),
    (
        Kind::Question,
        "how are queues assigned to nodes with consistent hashing",
        "crates/hashring/src/lib.rs",
        1,
    ),
    (
        Kind::Question,
        "how does the agent send heartbeats while a task runs",
        "agent/heartbeat.go",
        3,
    ),
    (
        Kind::Question,
        "in which order are tasks of different priority dequeued",
        "tidepool/queue.py",
        1,
    ),
    (
        Kind::Question,
        "how does the in-memory backend keep leases",
        "tidepool/storage/memory_backend.py",
        1,
    ),
    (
        Kind::Question,
        "command line entry point that starts a worker process",
        "tidepool/cli.py",
        3,
    ),
    // Symbols.
    (Kind::Symbol, "ClientOptions", "clients/ts/src/types.ts", 1),
    (Kind::Symbol, "RetryPolicy", "tidepool/retry.py", 1),
    (Kind::Symbol, "TaskQueue", "tidepool/queue.py", 1),
    (Kind::Symbol, "parse_cron", "tidepool/scheduler.py", 1),
    (Kind::Symbol, "HashRing", "crates/hashring/src/lib.rs", 1),
    (Kind::Symbol, "TokenBucket", "tidepool/ratelimit.py", 1),
    (Kind::Symbol, "renewLease", "agent/lease.go", 1),
    (Kind::Symbol, "StartHeartbeat", "agent/heartbeat.go", 1),
    // Commit messages.
    (
        Kind::Commit,
        "Add jitter to retry delays so that workers that failed together do not retry in lockstep",
        "tidepool/retry.py",
        1,
    ),
    (
        Kind::Commit,
        "Fix lease renewal racing with ack in the Redis backend",
        "tidepool/storage/redis_backend.py",
        1,
    ),
    (
        Kind::Commit,
        "Make the token bucket rate limiter thread-safe",
        "tidepool/ratelimit.py",
        1,
    ),
    (
        Kind::Commit,
        "Expose the queue depth as a gauge",
        "tidepool/metrics.py",
        3,
    ),
    (
        Kind::Commit,
        "client: honour the Retry-After header when the server throttles requests",
        "clients/ts/src/client.ts",
        1,
    ),
    (
        Kind::Commit,
        "Allow step values like */5 in every cron field",
        "tidepool/scheduler.py",
        1,
    ),
    (
        Kind::Commit,
        "agent: stop the heartbeat once the lease is lost",
        "agent/heartbeat.go",
        3,
    ),
    (
        Kind::Commit,
        "Use virtual nodes in the hash ring to spread keys evenly",
        "crates/hashring/src/lib.rs",
        1,
    ),
    (
        Kind::Commit,
        "Support msgpack as a serializer for task payloads",
        "tidepool/serializers.py",
        1,
    ),
    (
        Kind::Commit,
        "Add a queue stats route to the v2 API",
        "clients/ts/src/v2/api.ts",
        3,
    ),
    // Bug reports.
    (
        Kind::Bug,
        "Enqueue fails under load\n\nTraceback (most recent call last):\n  File \"app/jobs.py\", line 12, in schedule_all\n    queue.enqueue(task)\n  File \"tidepool/queue.py\", line 41, in enqueue\n    raise QueueFullError(self.maxsize)\ntidepool.errors.QueueFullError: Queue is full: cannot enqueue more than 1000 tasks\n\nThe limit should come from the settings.",
        "tidepool/queue.py",
        3,
    ),
    (
        Kind::Bug,
        "Calling current_task() from a thread started by my handler fails with\n\nRuntimeError: Working outside of a worker context.\n\nThe handler itself can call it.",
        "tidepool/context.py",
        1,
    ),
    (
        Kind::Bug,
        "Scheduling a periodic task with minute 61 gives an unclear error:\n\nValueError: invalid cron expression '61 * * * *': minute out of range\n\nIt should say which values are allowed.",
        "tidepool/scheduler.py",
        1,
    ),
    (
        Kind::Bug,
        "The agent crashes after a task finishes early:\n\npanic: lease: renew called on released lease\n\ngoroutine 18 [running]:\nmain.renewLease(0xc000120000, 0xc00011e000)\n\t/src/agent/lease.go:28 +0x1a5\nmain.StartHeartbeat.func1()\n\t/src/agent/heartbeat.go:21 +0x9c",
        "agent/lease.go",
        3,
    ),
    (
        Kind::Bug,
        "status() throws when the server answers 404\n\nTypeError: Cannot read properties of undefined (reading 'state')\n    at TidepoolClient.status (client.ts:27:12)\n    at async main (index.ts:8:3)",
        "clients/ts/src/client.ts",
        1,
    ),
    (
        Kind::Bug,
        "Getting \"Queue is full: cannot enqueue more than 500 tasks\" though the queue is empty",
        "tidepool/errors.py",
        1,
    ),
    (
        Kind::Bug,
        "Retries never stop when max_attempts is 0: a failing task runs again and again. Expected: no retry at all.",
        "tidepool/retry.py",
        1,
    ),
    (
        Kind::Bug,
        "TIDEPOOL_VISIBILITY_TIMEOUT is ignored: leases always last 30 seconds whatever the environment says.",
        "tidepool/config.py",
        3,
    ),
    (
        Kind::Bug,
        "thread 'main' panicked at 'hash ring is empty', src/lib.rs:41:13\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\nnode_for should return None instead.",
        "crates/hashring/src/lib.rs",
        1,
    ),
    (
        Kind::Bug,
        "Decoding a task stored by an older version fails:\n\nTraceback (most recent call last):\n  File \"tidepool/worker.py\", line 30, in process\n  File \"tidepool/serializers.py\", line 38, in decode_task\ntidepool.errors.PayloadError: task payload is missing the 'payload' key",
        "tidepool/serializers.py",
        1,
    ),
    (
        Kind::Bug,
        "The metrics endpoint prints histogram buckets with counts that are not cumulative per le bound",
        "tidepool/metrics.py",
        1,
    ),
    // A report's title word for a role ("config") that the project names its code after
    // (`tidepool/config.py`) describes that code: the deployment TOML stays demoted.
    (
        Kind::Bug,
        "Config: the visibility timeout from the environment is ignored\n\nI set the visibility timeout to 120 seconds in the environment of every worker.\nLeases still expire after 30 seconds, the default visibility timeout.\nThe broker url and the concurrency from the environment are applied.",
        "tidepool/config.py",
        1,
    ),
    // "docs" asks for the documentation, not for the change log that quotes the fix.
    (
        Kind::Bug,
        "The retry docs are wrong about max attempts zero\n\nThe documentation says a task whose retry policy has max attempts set to zero is never retried.\nA failing task with that policy is retried again and again.\nEither the docs or the retry policy is wrong.",
        "docs/retries.md",
        2,
    ),
    // A library's release copied in under its version (`retrykit-1.4.2.js`) is not the
    // project's retry code.
    (
        Kind::Question,
        "how a failed attempt is retried after an exponential backoff delay with jitter",
        "tidepool/retry.py",
        2,
    ),
];

fn corpus() -> String {
    let dir: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests",
        "ranking-guard",
        "corpus",
    ]
    .iter()
    .collect();
    dir.canonicalize()
        .expect("the guard corpus exists")
        .to_string_lossy()
        .into_owned()
}

/// The distinct files of a response, in rank order.
fn ranked_files(retrieval: &Retrieval, root: &str, prompt: &str) -> Vec<String> {
    let request = Request {
        prompt: prompt.to_string(),
        root: root.to_string(),
        limit: 20,
    };
    let snippets = retrieval
        .retrieve_with(&request, &SnippetOptions::default())
        .expect("retrieval answers");
    let mut files: Vec<String> = Vec::new();
    for s in snippets {
        if !files.contains(&s.path) {
            files.push(s.path);
        }
    }
    files
}

fn retrieval() -> Retrieval {
    Retrieval::new(RetrievalOptions {
        watch: false,
        ..RetrievalOptions::default()
    })
}

#[test]
fn every_prompt_ranks_its_answer_near_the_top() {
    let root = corpus();
    let retrieval = retrieval();
    let mut misses = Vec::new();
    for (kind, prompt, expected, within) in CASES {
        let files = ranked_files(&retrieval, &root, prompt);
        let rank = files.iter().position(|f| f == expected).map(|r| r + 1);
        if rank.is_none_or(|r| r > *within) {
            let shown: Vec<&str> = files.iter().take(5).map(String::as_str).collect();
            let first_line = prompt.lines().next().unwrap_or_default();
            misses.push(format!(
                "{kind:?} {first_line:?}: {expected} at {} (must be within {within}); top: {shown:?}",
                rank.map_or("none".to_string(), |r| r.to_string())
            ));
        }
    }
    assert!(
        misses.is_empty(),
        "{} of {} guard prompts miss:\n{}",
        misses.len(),
        CASES.len(),
        misses.join("\n")
    );
}

#[test]
fn the_guard_covers_every_kind_of_prompt() {
    let count = |k: fn(&Kind) -> bool| CASES.iter().filter(|c| k(&c.0)).count();
    assert!(count(|k| matches!(k, Kind::Question)) >= 10);
    assert!(count(|k| matches!(k, Kind::Symbol)) >= 5);
    assert!(count(|k| matches!(k, Kind::Commit)) >= 8);
    assert!(count(|k| matches!(k, Kind::Bug)) >= 8);
    assert!((30..=50).contains(&CASES.len()));
}

#[test]
fn answers_are_deterministic() {
    let root = corpus();
    let (a, b) = (retrieval(), retrieval());
    for (_, prompt, _, _) in CASES.iter().step_by(4) {
        assert_eq!(
            ranked_files(&a, &root, prompt),
            ranked_files(&b, &root, prompt)
        );
    }
}

//! Tests of retrieval over several roots: real temporary git repositories.

use std::fs;
use std::path::Path;
use std::process::Command;

use super::*;
use crate::retrieve::{Request, RetrievalOptions};

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

fn git_init(root: &Path) {
    fs::create_dir_all(root).unwrap();
    // Without git the walk is the same (ignore rules are read from the files themselves).
    let _ = Command::new("git")
        .args(["init", "-q"])
        .current_dir(root)
        .status();
}

/// Prose words every root shares, some common, some rare.
const WORDS: &[&str] = &[
    "widget",
    "render",
    "cache",
    "token",
    "parse",
    "layout",
    "stream",
    "buffer",
    "socket",
    "retry",
    "timeout",
    "config",
    "session",
    "cookie",
    "header",
    "route",
    "handler",
    "queue",
    "worker",
    "schedule",
    "metric",
    "counter",
    "encode",
    "decode",
    "compress",
    "archive",
    "ledger",
    "invoice",
    "payment",
    "refund",
    "account",
    "profile",
    "avatar",
    "upload",
    "thumbnail",
    "resize",
    "palette",
    "gradient",
    "shadow",
    "border",
];

/// A deterministic pseudo-random tree: `files` Python files under a few folders, each with
/// functions named with `prefix` (so no name is defined in two roots) over the shared words,
/// drawn with a bias `skew` so that each root's word frequencies differ from the others'.
fn corpus(root: &Path, prefix: &str, files: usize, seed: u64, skew: usize) {
    let mut state = seed;
    let mut next = move |n: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) as usize) % n
    };
    let folders = ["src", "src/core", "lib", "tests"];
    for f in 0..files {
        let folder = folders[next(folders.len())];
        let name_word = WORDS[(next(WORDS.len()) + skew) % WORDS.len()];
        let mut text = format!("\"\"\"The {name_word} module of {prefix}.\"\"\"\n\n");
        for k in 0..(2 + next(4)) {
            let a = WORDS[(next(WORDS.len() / 2) + skew) % WORDS.len()];
            let b = WORDS[next(WORDS.len())];
            text.push_str(&format!("def {prefix}_{a}_{b}_{f}_{k}(value):\n"));
            text.push_str(&format!(
                "    \"\"\"{a} the {b} before the next step.\"\"\"\n"
            ));
            for _ in 0..=next(5) {
                let c = WORDS[(next(WORDS.len() / 3) + 2 * skew) % WORDS.len()];
                let d = WORDS[next(WORDS.len())];
                text.push_str(&format!("    value = {c}_{d}(value)  # {c} {d}\n"));
            }
            text.push_str("    return value\n\n");
        }
        write(root, &format!("{folder}/{name_word}_{f}.py"), &text);
    }
}

const PROMPTS: &[&str] = &[
    "widget",
    "render the widget layout",
    "retry the socket on timeout",
    "ledger invoice payment refund",
    "how are thumbnails resized and uploaded",
    "cache token session cookie header",
    "compress and archive the stream buffer\nthen schedule a worker",
    "palette gradient shadow border",
    "queue worker schedule metric counter",
    "decode the header of the route handler",
    "alpha_render_widget_0_0",
    "beta_widget",
    "src/core/widget_3.py",
    "account profile avatar",
    "encode decode",
];

/// (label, path, start line, end line, score) of a multi-root answer, the label naming the
/// root, as the union tree names the root's folder.
type Row = (String, u32, u32, f64);

fn rows_of_roots(out: &[RootSnippet], labels: &[(&str, &str)]) -> Vec<Row> {
    out.iter()
        .map(|s| {
            let label = labels.iter().find(|l| l.0 == s.root).unwrap().1;
            (
                format!("{label}/{}", s.snippet.path),
                s.snippet.start_line,
                s.snippet.end_line,
                s.snippet.score,
            )
        })
        .collect()
}

fn rows_of(out: &[Snippet]) -> Vec<Row> {
    out.iter()
        .map(|s| (s.path.clone(), s.start_line, s.end_line, s.score))
        .collect()
}

/// The same rows in an order that does not depend on how ties are broken.
fn canonical(mut rows: Vec<Row>) -> Vec<Row> {
    rows.sort_by(|a, b| {
        b.3.total_cmp(&a.3)
            .then_with(|| a.0.cmp(&b.0))
            .then(a.1.cmp(&b.1))
    });
    rows
}

struct Trees {
    _dir: tempfile::TempDir,
    a: String,
    b: String,
    union: String,
}

/// Roots `ra` and `rb` (each a git repository) and a third repository holding both as its
/// folders `ra/` and `rb/`.
fn trees() -> Trees {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("ra");
    let b = dir.path().join("rb");
    let u = dir.path().join("union");
    for r in [&a, &b, &u] {
        git_init(r);
    }
    // Names are prefixed with words no path holds (the union's folder names would otherwise
    // match a prompt naming them in its paths only).
    corpus(&a, "alpha", 40, 7, 0);
    corpus(&b, "beta", 25, 11, 13);
    corpus(&u.join("ra"), "alpha", 40, 7, 0);
    corpus(&u.join("rb"), "beta", 25, 11, 13);
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    Trees {
        a: s(&a),
        b: s(&b),
        union: s(&u),
        _dir: dir,
    }
}

fn multi(r: &Retrieval, roots: &[&str], prompt: &str, limit: usize) -> Vec<RootSnippet> {
    r.retrieve_roots(
        &RootsRequest {
            prompt: prompt.to_owned(),
            roots: roots.iter().map(|s| (*s).to_owned()).collect(),
            limit,
        },
        &SnippetOptions::default(),
        &Cancel::default(),
    )
    .unwrap()
}

fn single(r: &Retrieval, root: &str, prompt: &str, limit: usize) -> Vec<Snippet> {
    r.retrieve(&Request {
        prompt: prompt.to_owned(),
        root: root.to_owned(),
        limit,
    })
    .unwrap()
}

#[test]
fn two_roots_rank_as_one_tree_holding_both() {
    let t = trees();
    let r = Retrieval::default();
    let labels = [(t.a.as_str(), "ra"), (t.b.as_str(), "rb")];
    let mut naive_differs = false;
    for prompt in PROMPTS {
        let got = multi(&r, &[&t.a, &t.b], prompt, 100);
        let want = single(&r, &t.union, prompt, 100);
        assert!(!want.is_empty(), "{prompt}");
        let got_rows = rows_of_roots(&got, &labels);
        let want_rows = rows_of(&want);
        // The same snippets at the same scores, and the same order but for ties.
        assert_eq!(
            canonical(got_rows.clone()),
            canonical(want_rows.clone()),
            "{prompt}"
        );
        for (g, w) in got_rows.iter().zip(&want_rows) {
            assert_eq!(g.3, w.3, "{prompt}: scores in order");
        }
        // Ranking each root with its own statistics and merging by score does not give the
        // union's ranking for at least one prompt: the test can tell them apart.
        let mut naive: Vec<Row> = rows_of(&single(&r, &t.a, prompt, 100))
            .into_iter()
            .map(|(p, a, b, s)| (format!("ra/{p}"), a, b, s))
            .chain(
                rows_of(&single(&r, &t.b, prompt, 100))
                    .into_iter()
                    .map(|(p, a, b, s)| (format!("rb/{p}"), a, b, s)),
            )
            .collect();
        naive = canonical(naive);
        naive.truncate(100);
        let top = |rows: &[Row]| {
            rows.iter()
                .take(10)
                .map(|r| r.0.clone())
                .collect::<Vec<_>>()
        };
        if top(&naive) != top(&canonical(want_rows)) {
            naive_differs = true;
        }
    }
    assert!(naive_differs, "per-root statistics should rank differently");
}

#[test]
fn one_root_ranks_exactly_as_a_single_root_call() {
    let t = trees();
    let r = Retrieval::default();
    for prompt in PROMPTS {
        for root in [&t.a, &t.b, &t.union] {
            let got: Vec<Snippet> = multi(&r, &[root], prompt, 20)
                .into_iter()
                .map(|s| {
                    assert_eq!(&s.root, root);
                    s.snippet
                })
                .collect();
            assert_eq!(got, single(&r, root, prompt, 20), "{prompt}");
        }
    }
}

#[test]
fn ties_across_roots_go_by_root_whatever_the_listed_order() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("one"), dir.path().join("two"));
    for r in [&a, &b] {
        git_init(r);
        write(r, "src/same.py", "def frobnicate_gadget():\n    return 1\n");
    }
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let r = Retrieval::default();
    let first = multi(&r, &[a, b], "frobnicate gadget", 10);
    let second = multi(&r, &[b, a], "frobnicate gadget", 10);
    assert_eq!(first.len(), 2);
    assert_eq!(first[0].snippet.score, first[1].snippet.score);
    assert_eq!(first[0].root, a);
    assert_eq!(first[1].root, b);
    assert_eq!(first, second);
}

#[test]
fn a_synonym_is_bounded_by_its_postings_over_all_roots() {
    // "delete old files": each root's `tidy.py` says `remove`, which the prompt meets only as
    // a synonym. With `jobs` files calling `remove` in each root, the synonym's postings are
    // under the bound in every root alone and over it summed: the roots rank as the union
    // tree does, which walks the synonym only while the summed list is under the bound.
    let bound = crate::retrieve::query::rank::MAX_SYNONYM_POSTINGS;
    for jobs in [bound / 4, bound * 3 / 4] {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, u) = (
            dir.path().join("ra"),
            dir.path().join("rb"),
            dir.path().join("union"),
        );
        for (root, tree) in [
            (&a, a.clone()),
            (&b, b.clone()),
            (&u, u.join("ra")),
            (&u, u.join("rb")),
        ] {
            git_init(root);
            write(
                &tree,
                "src/tidy.py",
                "def tidy_old(files):\n    \"\"\"Remove old files.\"\"\"\n    for f in files:\n        f.remove()\n",
            );
            write(
                &tree,
                "src/listing.py",
                "def list_old(files):\n    \"\"\"List old files.\"\"\"\n    for f in files:\n        f.show()\n",
            );
            for k in 0..jobs {
                write(
                    &tree,
                    &format!("src/jobs/job{k}.py"),
                    &format!("def job{k}(queue):\n    queue.remove({k})\n"),
                );
            }
        }
        assert!(2 * jobs > bound || 2 * (jobs + 1) <= bound);
        let (a, b, u) = (
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            u.to_str().unwrap(),
        );
        let r = Retrieval::default();
        let labels = [(a, "ra"), (b, "rb")];
        let got = rows_of_roots(&multi(&r, &[a, b], "delete old files", 20), &labels);
        let want = rows_of(&single(&r, u, "delete old files", 20));
        assert_eq!(
            canonical(got.clone()),
            canonical(want),
            "{jobs} jobs a root"
        );
        // Under the bound the synonym puts the remover first; over it, the two files say the
        // same of "old files" and the lister comes first by its path.
        let first = if 2 * (jobs + 1) <= bound {
            "src/tidy.py"
        } else {
            "src/listing.py"
        };
        assert!(got[0].0.ends_with(first), "{jobs} jobs a root: {got:?}");
    }
}

#[test]
fn duplicate_and_nested_roots_count_once() {
    let t = trees();
    let r = Retrieval::default();
    let nested = format!("{}/src", t.a);
    let doubled = format!("{}/./", t.a);
    let once = multi(&r, &[&t.a, &t.b], "widget layout", 100);
    let again = multi(&r, &[&t.a, &nested, &t.b, &doubled], "widget layout", 100);
    assert_eq!(once, again);
    // A nested root listed before its outer root is dropped too, and the outer root keeps
    // the string the caller gave first for it.
    let first = multi(&r, &[&nested, &doubled, &t.b], "widget layout", 100);
    assert!(first.iter().all(|s| s.root == doubled || s.root == t.b));
    assert!(first.iter().any(|s| s.root == doubled));
}

#[test]
fn bad_lists_of_roots_are_invalid_requests() {
    let t = trees();
    let r = Retrieval::new(RetrievalOptions {
        max_roots: 2,
        ..RetrievalOptions::default()
    });
    let ask = |roots: Vec<String>| {
        r.retrieve_roots(
            &RootsRequest {
                prompt: "widget".into(),
                roots,
                limit: 10,
            },
            &SnippetOptions::default(),
            &Cancel::default(),
        )
        .unwrap_err()
    };
    let e = ask(vec![]);
    assert_eq!(e.kind(), crate::ErrorKind::InvalidRequest);
    let e = ask(vec![t.a.clone(); MAX_ROOTS_PER_CALL + 1]);
    assert!(e.message().contains("too many"), "{}", e.message());
    let e = ask(vec![t.a.clone(), "relative/path".into()]);
    assert_eq!(e.message(), "rootPaths[1] must be an absolute path");
    let missing = format!("{}/nope", t.a);
    let e = ask(vec![t.b.clone(), missing]);
    assert!(e.message().starts_with("rootPaths[1]"), "{}", e.message());
    assert!(!e.message().contains(&t.a), "no path in the message");
    let e = ask(vec![t.a.clone(), t.b.clone(), t.union.clone()]);
    assert!(e.message().contains("maxRoots"), "{}", e.message());
    assert_eq!(e.kind(), crate::ErrorKind::InvalidRequest);
}

#[cfg(unix)]
#[test]
fn nothing_leaves_a_root_through_a_symlink() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, outside) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("outside"),
    );
    for r in [&a, &b, &outside] {
        git_init(r);
    }
    write(
        &outside,
        "secret.py",
        "def zanzibar_treasure():\n    pass\n",
    );
    write(&a, "src/main.py", "def zanzibar_map():\n    pass\n");
    std::os::unix::fs::symlink(&outside, b.join("link")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.py"), b.join("secret.py")).unwrap();
    let r = Retrieval::default();
    let out = multi(
        &r,
        &[a.to_str().unwrap(), b.to_str().unwrap()],
        "zanzibar treasure map",
        10,
    );
    assert!(!out.is_empty());
    assert!(out.iter().all(|s| !s.snippet.content.contains("treasure")));
}

#[test]
fn a_change_under_any_root_is_seen_by_the_next_call() {
    let t = trees();
    let r = Retrieval::default();
    let roots = [t.a.as_str(), t.b.as_str()];
    assert!(multi(&r, &roots, "quuxification", 10).is_empty());
    write(
        Path::new(&t.b),
        "src/new_module.py",
        "def rb_quuxification():\n    return 'quuxification'\n",
    );
    let out = multi(&r, &roots, "quuxification", 10);
    assert_eq!(out[0].root, t.b);
    assert_eq!(out[0].snippet.path, "src/new_module.py");
    write(
        Path::new(&t.a),
        "lib/other.py",
        "def ra_quuxification_twice():\n    return 'quuxification quuxification'\n",
    );
    let out = multi(&r, &roots, "quuxification", 10);
    assert_eq!(out.len(), 2);
    assert!(out.iter().any(|s| s.root == t.a));
    fs::remove_file(Path::new(&t.b).join("src/new_module.py")).unwrap();
    let out = multi(&r, &roots, "quuxification", 10);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].root, t.a);
    // Each root has its own index, which a single-root call reads as it is.
    assert_eq!(
        r.status(&t.a).unwrap().state,
        crate::retrieve::IndexState::Ready
    );
    assert_eq!(
        single(&r, &t.a, "quuxification", 10)[0].path,
        "lib/other.py"
    );
}

#[test]
fn each_root_keeps_its_own_saved_index() {
    let t = trees();
    let cache = tempfile::tempdir().unwrap();
    let options = RetrievalOptions {
        cache_dir: Some(cache.path().to_path_buf()),
        ..RetrievalOptions::default()
    };
    let roots = [t.a.as_str(), t.b.as_str()];
    let first = Retrieval::new(options.clone());
    let before = multi(&first, &roots, "render the widget layout", 20);
    assert!(!before.is_empty());
    drop(first); // waits for the background saves
    assert_eq!(
        fs::read_dir(cache.path()).unwrap().count(),
        2,
        "one file per root"
    );

    // A restart loads both and reads nothing but what changed while it was down.
    write(
        Path::new(&t.a),
        "src/while_down.py",
        "def ra_widget_render_layout_again():\n    return 'widget layout render'\n",
    );
    let second = Retrieval::new(options);
    let after = multi(&second, &roots, "render the widget layout", 20);
    assert_eq!(second.status(&t.b).unwrap().files_read, 0);
    assert_eq!(second.status(&t.a).unwrap().files_read, 1);
    assert!(after
        .iter()
        .any(|s| s.root == t.a && s.snippet.path == "src/while_down.py"));
    let fresh = Retrieval::default();
    assert_eq!(after, multi(&fresh, &roots, "render the widget layout", 20));
}

#[test]
fn a_cancelled_call_leaves_no_half_built_root() {
    let t = trees();
    let r = Retrieval::default();
    let cancel = Cancel::default();
    cancel.cancel();
    let e = r
        .retrieve_roots(
            &RootsRequest {
                prompt: "widget".into(),
                roots: vec![t.a.clone(), t.b.clone()],
                limit: 10,
            },
            &SnippetOptions::default(),
            &cancel,
        )
        .unwrap_err();
    assert_ne!(e.kind(), crate::ErrorKind::InvalidRequest);
    for root in [&t.a, &t.b] {
        assert_eq!(
            r.status(root).unwrap().state,
            crate::retrieve::IndexState::Absent
        );
    }
}

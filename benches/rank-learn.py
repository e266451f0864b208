#!/usr/bin/env python3
"""Learns a re-ranking of the engine's top files from the score parts `explain` shows, and
checks it by leaving one repository out.

    python3 benches/rank-learn.py FEATURES.jsonl [--top 30] [--features NAMES] [--l2 0.001]
    python3 benches/rank-learn.py FEATURES.jsonl --features ref_multi --grid 0,0.05,0.1,0.15,0.2,0.25,0.3

FEATURES.jsonl is what `benches/rank-features.py` writes (every DEV query with its ranked files
and their signals). The model is log-linear over the engine's own score: a file's new score is
`total × exp(w · x)`, x its features (below), so w = 0 is the engine as it is. It is trained
pairwise (a relevant file over a non-relevant one among the top files of the same query;
logistic loss, L2), each set (commits, bug reports, semble) weighing the same.

Features (`features()`): each signal's share of the file's score, alone and crossed with
the prompt's kind (one line, or more), the role, non-code files, the number of chunks shown,
folder depth, package entries, and how many of the top files import the file (`ref_*`, the
engine's `referencedBy`; the score is taken before the factor the engine gave it, or with it
when --keep-ref is given), and, when the features were computed from the files' text by
`benches/rank-prox.py`, its term-proximity, densest-window and identifier-phrase signals
(`prox`, `proxLines`, `win`, `winLines`, `phrase`, `phraseDef`: each as log(1 + x), as x over
the query's largest (`_rel`), as present (`_has`), and each of those for one-line (`_single`)
or longer (`_multi`) prompts only). With
--grid, only the first feature is learned, its weight picked from the grid (coordinate ascent
otherwise).

Printed: the figures of each set (commits R@10 and MRR, bug reports R@10 and MRR (DEV-issue and
the second bug-report set apart; one set to the objective), semble
NDCG@10 in chunk mode as the harness scores it) for the engine, for the model trained on all
repositories (in-sample), and for the model applied to each repository after training on all
the others (leave-one-repository-out), then the weights learned on all.
Needs numpy.
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys

import numpy as np

NON_CODE = re.compile(
    r"(^|/)(changelog|changes|history|news|authors|contributors|license|licence|copying|notice)"
    r"([._-][^/]*)?$|\.(po|pot|md|rst|txt|adoc|html|css|svg|json|ya?ml|toml|lock|csv|xml)$",
    re.I,
)
ROLES = ["test", "docs", "example", "config", "fixture", "generated", "vendored", "legacy",
         "template", "declarations"]


def files_of(results):
    """Distinct files in rank order: (path, signals, top score, [(start, end, ratio)])."""
    out, at = [], {}
    for r in results:
        p = r["p"]
        if p not in at:
            at[p] = len(out)
            out.append([p, r["sig"], r["score"], []])
        f = out[at[p]]
        f[3].append((r["s"], r["e"], r["score"] / f[2] if f[2] > 0 else 1.0))
    return out


def query_kind(prompt):
    lines = [l for l in prompt.split("\n") if l.strip()]
    return len(lines) > 1


def features(q, files, names):
    """The feature matrix of a query's files (rows) for the feature `names`."""
    multi = query_kind(q["prompt"])
    words = len(re.findall(r"\w+", q["prompt"]))
    rows = []
    top = max(f[1]["total"] for f in files) if files else 1.0
    depths = [f[0].count("/") for f in files]
    dmin = min(depths) if depths else 0
    # Text features of `benches/rank-prox.py`, when present: each also relative to the
    # query's largest among its top files.
    extra = ("prox", "proxLines", "phrase", "phraseDef", "win", "winLines")
    most = {k: max([f[1].get(k, 0.0) for f in files] + [1e-9]) for k in extra}
    for (p, s, score, chunks), depth in zip(files, depths):
        base = s["bm25"] + s["chunk"] + s["path"] + s["symbol"] + s["mention"] + s["message"]
        base = base if base > 0 else 1.0
        share = {k: s[k] / base for k in ("bm25", "chunk", "path", "symbol", "mention", "message")}
        v = {}
        for k, x in share.items():
            v[f"share_{k}"] = x
            v[f"share_{k}_multi"] = x * multi
            v[f"share_{k}_single"] = x * (not multi)
        for role in ROLES:
            v[f"role_{role}"] = float(s["role"] == role)
            v[f"role_{role}_multi"] = float(s["role"] == role) * multi
        v["noncode"] = float(bool(NON_CODE.search(p)))
        v["noncode_multi"] = v["noncode"] * multi
        v["chunks"] = len(chunks) - 1
        v["depth_rel"] = depth - dmin
        v["rel_score"] = math.log(max(s["total"], 1e-6) / top)
        v["rel_score_multi"] = v["rel_score"] * multi
        v["has_path"] = float(s["path"] > 0)
        v["has_symbol"] = float(s["symbol"] > 0)
        v["has_symbol_multi"] = v["has_symbol"] * multi
        v["has_path_multi"] = v["has_path"] * multi
        v["init"] = float(bool(re.search(r"(^|/)(__init__\.py|index\.[jt]sx?|mod\.rs|lib\.rs)$", p)))
        v["words"] = math.log(words + 1)
        v["ref"] = math.log1p(s.get("referencedBy", 0))
        v["ref_multi"] = v["ref"] * multi
        v["ref_single"] = v["ref"] * (not multi)
        v["demoted"] = float(s["roleFactor"] < 0.99)
        for k in extra:
            x = s.get(k, 0.0)
            v[f"{k}_log"] = math.log1p(x)
            v[f"{k}_rel"] = x / most[k]
            v[f"{k}_has"] = float(x > 0)
            for kind, on in (("multi", multi), ("single", not multi)):
                v[f"{k}_log_{kind}"] = v[f"{k}_log"] * on
                v[f"{k}_rel_{kind}"] = v[f"{k}_rel"] * on
                v[f"{k}_has_{kind}"] = v[f"{k}_has"] * on
        rows.append([v[n] for n in names])
    return np.array(rows, dtype=np.float64).reshape(len(files), len(names))


ALL_FEATURES = None
# The owners of the second bug-report set's repositories (sphinx, pylint, pytest, requests).
SWE_EXTRA = {"sphinx-doc", "pylint-dev", "pytest-dev", "psf"}


KEEP_REF = False


def load(path, top, names):
    qs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            q = json.loads(line)
            files = files_of(q["results"])[:top]
            if not files:
                q["X"] = np.zeros((0, len(names)))
                q["logs"] = np.zeros(0)
            else:
                q["X"] = features(q, files, names)
                # The engine's score before the references' factor (the feature that learns it).
                q["logs"] = np.log(np.maximum(
                    [f[1]["total"] / (1.0 if KEEP_REF else f[1].get("referenceFactor", 1.0))
                     for f in files], 1e-9))
            q["files"] = files
            gold = {g["path"] for g in q["gold"]}
            q["rel"] = np.array([f[0] in gold for f in files], dtype=bool)
            # Reported apart (the objective keeps all bug reports as one set).
            q["part"] = "swe-extra" if q["set"] == "swe" and q["repo"].split("/")[0] in SWE_EXTRA else q["set"]
            prepare(q)
            qs.append(q)
    return qs


def prepare(q):
    """Arrays for fast scoring: gold flags and count; for semble, every snippet's file, log
    ratio to its file's score and which targets it covers."""
    files = q["files"]
    gold = {g["path"] for g in q["gold"]}
    q["n_gold"] = len(gold)
    if q["set"] == "semble":
        sf, sl, cover = [], [], []
        for i, f in enumerate(files):
            for (a, b, ratio) in f[3]:
                sf.append(i)
                sl.append(math.log(max(ratio, 1e-9)))
                row = []
                for t in q["gold"]:
                    if f[0] != t["path"]:
                        row.append(False)
                    elif t.get("start_line") is None or t.get("end_line") is None:
                        row.append(True)
                    else:
                        e = b if b is not None else float("inf")
                        row.append(not (e < t["start_line"] or (a or 1) > t["end_line"]))
                cover.append(row)
        q["sf"] = np.array(sf, dtype=int)
        q["sl"] = np.array(sl)
        q["cover"] = np.array(cover, dtype=bool).reshape(len(sf), len(q["gold"]))
        q["sidx"] = np.arange(len(sf))
        q["idcg"] = sum(1 / math.log2(i + 2) for i in range(min(10, len(q["gold"]))))
    q["idx"] = np.arange(len(files))


def metrics(q, w):
    s = q["logs"] + (q["X"] @ w if len(w) and len(q["logs"]) else 0)
    if q["set"] == "semble":
        if len(q["logs"]) == 0 or q["idcg"] == 0:
            return {"ndcg": 0.0}
        ss = s[q["sf"]] + q["sl"]
        order = np.lexsort((q["sidx"], -ss))[:10]
        cov = q["cover"][order]
        # Each target counts at its first covering rank; targets sharing a rank count once.
        has = cov.any(axis=0)
        ranks = set(np.argmax(cov[:, has], axis=0).tolist())
        dcg = sum(1.0 / math.log2(r + 2) for r in ranks)
        return {"ndcg": dcg / q["idcg"]}
    if len(q["logs"]) == 0 or q["n_gold"] == 0:
        return {"r10": 0.0, "mrr": 0.0}
    order = np.lexsort((q["idx"], -s))
    rel = q["rel"][order]
    r10 = float(rel[:10].sum()) / q["n_gold"]
    first = np.argmax(rel) if rel.any() else -1
    return {"r10": r10, "mrr": 1.0 / (first + 1) if first >= 0 else 0.0}


def objective(qs, w):
    per = {}
    for q in qs:
        m = metrics(q, w)
        v = m["ndcg"] if q["set"] == "semble" else (m["r10"] + m["mrr"]) / 2
        per.setdefault(q["set"], []).append(v)
    return sum(sum(v) / len(v) for v in per.values()) / len(per)


def summary(qs, w_of):
    out = {}
    for name in ("commits", "swe", "swe-extra", "semble"):
        sub = [q for q in qs if q["part"] == name]
        if not sub:
            continue
        ms = [metrics(q, w_of(q)) for q in sub]
        keys = ms[0].keys()
        out[name] = {k: sum(m[k] for m in ms) / len(ms) for k in keys}
        if name == "semble":
            langs = {}
            for q, m in zip(sub, ms):
                langs.setdefault(q.get("lang"), {}).setdefault(q["repo"], []).append(m["ndcg"])
            out["semble_lang"] = {
                l: sum(sum(v) / len(v) for v in rs.values()) / len(rs) for l, rs in sorted(langs.items())
            }
    return out


STEPS = (-1.0, -0.5, -0.25, -0.1, 0.1, 0.25, 0.5, 1.0)


def train(qs, n, l2, iters=3, lr=None):
    """Coordinate ascent on the objective (each set's mean of R@10 and MRR, or NDCG@10, the
    sets weighing the same), minus l2 × |w|²: each round tries every weight at a few steps
    and keeps the best step that gains."""
    w = np.zeros(n)
    best = objective(qs, w)
    for _ in range(iters):
        moved = False
        for j in range(n):
            cand = None
            for d in STEPS:
                v = w.copy()
                v[j] += d
                o = objective(qs, v) - l2 * float(v @ v)
                if o > best + 1e-5 and (cand is None or o > cand[0]):
                    cand = (o, v)
            if cand:
                best, w = cand
                moved = True
        if not moved:
            break
    return w


def fmt(s):
    parts = []
    if "commits" in s:
        parts.append(f"commits R@10 {s['commits']['r10']:.3f} MRR {s['commits']['mrr']:.3f}")
    if "swe" in s:
        parts.append(f"issues R@10 {s['swe']['r10']:.3f} MRR {s['swe']['mrr']:.3f}")
    if "swe-extra" in s:
        parts.append(f"issues extra R@10 {s['swe-extra']['r10']:.3f} MRR {s['swe-extra']['mrr']:.3f}")
    if "semble" in s:
        langs = " ".join(f"{l} {v:.3f}" for l, v in s["semble_lang"].items())
        parts.append(f"semble NDCG@10 {s['semble']['ndcg']:.3f} ({langs})")
    return "\n  ".join(parts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("features")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--features", dest="names", default=None)
    ap.add_argument("--l2", type=float, default=0.001)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--grid", default=None,
                    help="only the first feature, its weight chosen from these values (comma-separated)")
    ap.add_argument("--keep-ref", action="store_true",
                    help="score from the engine's total with the references' factor kept")
    a = ap.parse_args()
    global KEEP_REF
    KEEP_REF = a.keep_ref
    names = a.names.split(",") if a.names else [
        "share_bm25_multi", "share_path_multi", "share_symbol_multi", "share_mention_multi",
        "share_bm25_single", "share_path_single", "share_symbol_single", "share_mention_single",
        "noncode", "noncode_multi", "chunks", "depth_rel", "has_symbol", "has_path",
        "role_test", "role_docs", "role_test_multi", "init",
    ]
    qs = load(a.features, a.top, names)
    n = len(names)
    zero = np.zeros(n)
    print("engine:\n  " + fmt(summary(qs, lambda q: zero)))
    if a.grid:
        grid = [float(x) for x in a.grid.split(",")]

        def fit(sub):
            return np.array([max(grid, key=lambda v: (objective(sub, np.array([v] + [0.0] * (n - 1))), -abs(v)))]
                            + [0.0] * (n - 1))
    else:
        def fit(sub):
            return train(sub, n, a.l2, a.iters)
    w_all = fit(qs)
    print("in-sample:\n  " + fmt(summary(qs, lambda q: w_all)))
    repos = sorted({q["repo"] for q in qs})
    w_loo = {}
    for r in repos:
        w_loo[r] = fit([q for q in qs if q["repo"] != r])
    print("leave-one-repository-out:\n  " + fmt(summary(qs, lambda q: w_loo[q["repo"]])))
    print("weights (all):")
    if a.grid:
        print("  chosen when leaving out each repository: "
              + ", ".join(f"{r} {w_loo[r][0]:+.2f}" for r in repos))
    for k, x in zip(names, w_all):
        spread = np.std([w_loo[r][names.index(k)] for r in repos])
        print(f"  {k:24s} {x:+.3f} (LOO sd {spread:.3f})")


if __name__ == "__main__":
    main()

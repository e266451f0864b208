#!/usr/bin/env python3
"""Leave-one-repository-out check of one number picked from a grid by whole DEV runs (one run
of the engine per grid value, each scored by the harness).

    python3 benches/loo-grid.py VALUE=SCORES.json[,SCORES.json...] VALUE=... [--set-of REPO=SET]

Each argument names one grid value and the harness's score files of the run made with it
(`retrieval-dev.sh` writes RUNS_DIR/NAME.<set>.json); every value needs the same sets and
queries. A query's repository is its id up to the first `__` or `-` (SWE-bench ids
`owner__repo-N` give the repository name, commit ids `repo-NNNN-sha` theirs). For each
repository, the value is picked on all the others (the mean over sets of each set's
(R@10 + MRR) / 2, sets weighing the same), and the held-out repository's queries are scored
with that value. Printed: per value, each set's R@1 / R@10 / MRR; then the same with every
repository answered by the value picked without it, and the picks. A semble-style score file
(`RUNS/NAME.semble.json`, `RUNS/NAME.semble-extra.json`; question ids `repo/NNN`) counts as a
set whose three figures are its NDCG@10, named by the file's last-but-one dotted part.
"""
from __future__ import annotations

import json
import sys
from collections import defaultdict


def repo_of(qid: str) -> str:
    if "/" in qid:
        return qid.split("/", 1)[0]
    if "__" in qid:
        return qid.split("__", 1)[1].rsplit("-", 1)[0]
    return qid.split("-", 1)[0]


def load(files):
    out = {}
    for f in files:
        data = json.load(open(f, encoding="utf-8"))
        if isinstance(data, dict):
            # A semble-style score file (`semble_eval.py --json`): NDCG@10 per question, kept
            # in all three places so the set's figure and objective are its NDCG@10.
            s = f.rsplit(".", 2)[-2] if f.count(".") >= 2 else "semble"
            for q in data["per_query"]:
                out[(s, q["id"])] = {"R@1": q["ndcg"], "R@10": q["ndcg"], "RR": q["ndcg"]}
            continue
        for entry in data:
            s = entry["dataset"]
            for q in entry["per_query"]:
                out[(s, q["id"])] = q
    return out


def figures(qs):
    by = defaultdict(list)
    for (s, _), q in qs.items():
        by[s].append(q)
    return {s: tuple(sum(q[k] for q in v) / len(v) for k in ("R@1", "R@10", "RR")) for s, v in sorted(by.items())}


def objective(qs):
    f = figures(qs)
    return sum((r10 + mrr) / 2 for _, r10, mrr in f.values()) / max(len(f), 1)


def main():
    runs = {}
    for arg in sys.argv[1:]:
        value, files = arg.split("=", 1)
        runs[value] = load(files.split(","))
    values = list(runs)
    keys = sorted(runs[values[0]])
    for v in values:
        assert sorted(runs[v]) == keys, f"value {v} has other queries"
    fmt = lambda f: "  ".join(f"{s} {a:.3f}/{b:.3f}/{c:.3f}" for s, (a, b, c) in f.items())
    for v in values:
        print(f"{v:>8}: {fmt(figures(runs[v]))}")
    repos = sorted({repo_of(q) for _, q in keys})
    loo = {}
    picks = {}
    for r in repos:
        rest = lambda v: {k: q for k, q in runs[v].items() if repo_of(k[1]) != r}
        best = max(values, key=lambda v: (objective(rest(v)), -values.index(v)))
        picks[r] = best
        loo.update({k: q for k, q in runs[best].items() if repo_of(k[1]) == r})
    print(f"{'LOO':>8}: {fmt(figures(loo))}")
    print("picks:", ", ".join(f"{r}={v}" for r, v in picks.items()))


if __name__ == "__main__":
    main()

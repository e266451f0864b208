#!/usr/bin/env python3
"""DEV figures per language and per repository, from score files the harness already wrote.

    dev-report.py semble SEMBLE_JSON [SEMBLE_JSON ...]
    dev-report.py issues SCORE_JSON [--runs RUN_DIR]

semble: the JSON files of semble_eval.py (--json), such as RUNS/NAME.semble.json and
RUNS/NAME.semble-extra.json. Prints NDCG@10 per language (mean over the language's
repositories, as semble reports it) for each file and for all of them together, then pooled
(mean over queries) and per category over all of them.

issues: a score file of score.py (--json) over a bug-report set. Prints R@1, R@10 and MRR per
repository for every engine in it. With --runs (the run folder of run_engine.py, holding
responses.jsonl), also what fills the top 10 distinct files: code, tests, changelogs,
translation catalogs, licence files, documentation, other; and how often the first result is
not code. Python 3.9+, standard library only.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs) if xs else None


def f3(x):
    return "-" if x is None else f"{x:.3f}"


def semble(paths):
    sets = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            d = json.load(f)
        name = os.path.basename(p)
        name = name[:-5] if name.endswith(".json") else name
        sets.append((name.split(".", 1)[-1], d))
    langs = sorted({r["language"] for _, d in sets for r in d["repos"]})
    head = ["language"] + [f"{n} (repos/queries)" for n, _ in sets] + ["all (repos/queries)"]
    print("| " + " | ".join(head) + " |")
    print("| --- |" + " ---: |" * (len(head) - 1))

    def cell(repos):
        repos = [r for r in repos if r["n"]]
        if not repos:
            return ""
        return f"{f3(mean(r['ndcg10'] for r in repos))} ({len(repos)}/{sum(r['n'] for r in repos)})"

    for lang in langs:
        row = [lang]
        every = []
        for _, d in sets:
            rs = [r for r in d["repos"] if r["language"] == lang]
            every += rs
            row.append(cell(rs))
        row.append(cell(every))
        print("| " + " | ".join(row) + " |")
    allq = [q for _, d in sets for q in d["per_query"]]
    allr = [r for _, d in sets for r in d["repos"] if r["n"]]
    row = ["**pooled** (mean over queries)"]
    for _, d in sets:
        row.append(f"{f3(mean(q['ndcg'] for q in d['per_query']))} ({len(d['per_query'])})")
    row.append(f"{f3(mean(q['ndcg'] for q in allq))} ({len(allq)})")
    print("| " + " | ".join(row) + " |")
    row = ["repo-mean"]
    for _, d in sets:
        row.append(f3(mean(r["ndcg10"] for r in d["repos"] if r["n"])))
    row.append(f3(mean(r["ndcg10"] for r in allr)))
    print("| " + " | ".join(row) + " |")
    for cat in sorted({q["category"] for q in allq}):
        row = [cat]
        for _, d in sets:
            v = [q["ndcg"] for q in d["per_query"] if q["category"] == cat]
            row.append(f"{f3(mean(v))} ({len(v)})" if v else "")
        v = [q["ndcg"] for q in allq if q["category"] == cat]
        row.append(f"{f3(mean(v))} ({len(v)})")
        print("| " + " | ".join(row) + " |")
    low = min(((mean(r["ndcg10"] for r in allr if r["language"] == lang), lang) for lang in langs))
    print(f"\nlowest language (repo-mean over all sets): {low[1]} {low[0]:.3f}")


def repo_of(qid):
    return qid.rsplit("-", 1)[0].split("__")[-1]


CHANGELOG = re.compile(r"(^|/)(changes|changelog|history|news|release[-_ ]?notes)([._-][^/]*)?$|(^|/)(changelog|changes|whatsnew)/", re.I)
LICENCE = re.compile(r"(^|/)(licen[cs]e|copying|authors|notice)([._-][^/]*)?$|(^|/)licen[cs]es?/", re.I)
TRANSLATION = re.compile(r"\.(po|pot|mo)$", re.I)
TEST = re.compile(r"(^|/)(tests?|testing)/|(^|/)test_[^/]*$|_tests?\.py$|(^|/)conftest\.py$", re.I)
DOC = re.compile(r"(^|/)docs?/|\.(rst|md|txt|adoc)$", re.I)
CODE = re.compile(r"\.(py|pyx|pyi|c|h|js|ts)$", re.I)


def kind(path):
    if TRANSLATION.search(path):
        return "translation"
    if CHANGELOG.search(path):
        return "changelog"
    if LICENCE.search(path):
        return "licence"
    if TEST.search(path):
        return "test"
    if DOC.search(path):
        return "doc"
    if CODE.search(path):
        return "code"
    return "other"


def rel(path, root_hint):
    p = path.replace("\\", "/")
    if os.path.isabs(p):
        m = re.search(r"/corpora/[^/]+/(.*)$", p)
        if m:
            return m.group(1)
        if root_hint and p.startswith(root_hint.rstrip("/") + "/"):
            return p[len(root_hint.rstrip("/")) + 1:]
    while p.startswith("./"):
        p = p[2:]
    return p


def issues(path, runs):
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    print("| engine | repository | n | R@1 | R@10 | MRR |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for e in d:
        per = collections.defaultdict(list)
        for q in e["per_query"]:
            per[repo_of(q["id"])].append(q)
        rows = sorted(per.items()) + [("**all**", e["per_query"])]
        for repo, qs in rows:
            print(f"| {e['engine']} | {repo} | {len(qs)} | {f3(mean(q['R@1'] for q in qs))} | "
                  f"{f3(mean(q['R@10'] for q in qs))} | {f3(mean(q['RR'] for q in qs))} |")
    if not runs:
        return
    kinds = ["code", "test", "changelog", "translation", "licence", "doc", "other"]
    per = collections.defaultdict(collections.Counter)
    first = collections.defaultdict(collections.Counter)
    with open(os.path.join(runs, "responses.jsonl"), encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            files = []
            for x in r.get("results") or []:
                p = rel(str(x.get("path", "")), None)
                if p and p not in files:
                    files.append(p)
            repo = repo_of(r["id"])
            for p in files[:10]:
                per[repo][kind(p)] += 1
                per["**all**"][kind(p)] += 1
            if files:
                first[repo][kind(files[0])] += 1
                first["**all**"][kind(files[0])] += 1
    print(f"\ntop-10 distinct files by kind ({os.path.basename(runs.rstrip('/'))}; first result's kind in brackets)")
    print("| repository | " + " | ".join(kinds) + " |")
    print("| --- |" + " ---: |" * len(kinds))
    for repo in sorted(per, key=lambda k: (k == "**all**", k)):
        print(f"| {repo} | " + " | ".join(f"{per[repo][k]} ({first[repo][k]})" for k in kinds) + " |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["semble", "issues"])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--runs", help="issues: the engine's run folder (responses.jsonl)")
    a = ap.parse_args(argv)
    if a.what == "semble":
        semble(a.files)
    else:
        if len(a.files) != 1:
            ap.error("issues takes one score file")
        issues(a.files[0], a.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Dumps the engine's ranked files with their score parts (`explain`) for every query of the
DEV sets, for offline study of re-ranking rules (`benches/rank-learn.py`).

    python3 benches/rank-features.py DATA_DIR SEMBLE_DIR OUT.jsonl [--limit 100] [--sets commits,swe,semble]

DATA_DIR is the layout `benches/data/prepare-all.sh` makes (commits/<repo>/, swe-dev/,
semble-corpora/); SEMBLE_DIR holds the semble benchmark's repos.json and queries.jsonl (a
folder of more such folders may be given with --extra-semble DIR:CORPORA, more commit sets
with --extra-commits DIR, whose sub-folders are read like DATA_DIR/commits/, and more bug
reports with --extra-swe DIR, read like DATA_DIR/swe-dev/). One engine process
(`context-engine serve --stdio --no-cache`, default options) per repository, as the runners
start it; each line of OUT is one query: its set, repository, gold files (with spans for
semble) and the engine's results (path, lines, score, signals).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Engine:
    home = HERE

    def __init__(self):
        cmd = ["node", os.path.join(Engine.home, "bin/context-engine.js"), "serve", "--stdio", "--no-cache"]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def ask(self, qid, root, prompt, limit):
        req = {"id": qid, "root": root, "prompt": prompt, "limit": limit, "explain": True}
        self.proc.stdin.write((json.dumps(req) + "\n").encode())
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        resp = json.loads(line)
        out = []
        for r in resp.get("results", []):
            out.append({"p": r["path"], "s": r.get("startLine"), "e": r.get("endLine"),
                        "score": r["score"], "sig": r.get("signals")})
        return out

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def commits(out, base, repos, limit):
    for repo in repos:
        d = os.path.join(base, repo)
        qs = read_jsonl(os.path.join(d, "queries.jsonl"))
        e = Engine()
        root = os.path.join(d, "corpus")
        for q in qs:
            res = e.ask(q["id"], root, q["prompt"], limit)
            out.write(json.dumps({"set": "commits", "repo": repo, "id": q["id"], "prompt": q["prompt"],
                                  "gold": [{"path": g} for g in q["gold"]], "results": res}) + "\n")
        e.close()
        print(f"commits {repo}: {len(qs)}", file=sys.stderr)


def swe(out, qfile, limit):
    qs = read_jsonl(qfile)
    e = Engine()
    for q in qs:
        root = os.path.join(os.path.dirname(qfile), q["root"])
        res = e.ask(q["id"], root, q["prompt"], limit)
        out.write(json.dumps({"set": "swe", "repo": q["repo"], "id": q["id"], "prompt": q["prompt"],
                              "gold": [{"path": g} for g in q["gold"]], "results": res}) + "\n")
    e.close()
    print(f"swe: {len(qs)}", file=sys.stderr)


def semble(out, sdir, corpora, limit):
    repos = {r["name"]: r for r in json.load(open(os.path.join(sdir, "repos.json")))}
    qs = read_jsonl(os.path.join(sdir, "queries.jsonl"))
    by_repo = {}
    for q in qs:
        by_repo.setdefault(q["repo"], []).append(q)
    for name in sorted(by_repo):
        r = repos[name]
        broot = r.get("benchmark_root") or ""
        root = os.path.join(corpora, name, broot) if broot not in ("", ".") else os.path.join(corpora, name)
        if not os.path.isdir(root):
            print(f"semble {name}: no corpus at {root}", file=sys.stderr)
            continue
        prefix = "" if broot in ("", ".") else broot.strip("/") + "/"
        e = Engine()
        for q in by_repo[name]:
            res = e.ask(q["id"], os.path.abspath(root), q["query"], limit)
            for x in res:
                x["p"] = os.path.normpath(prefix + x["p"])
            gold = list(q.get("relevant", [])) + list(q.get("secondary", []))
            out.write(json.dumps({"set": "semble", "repo": name, "lang": r.get("language"),
                                  "category": q.get("category"), "id": q["id"], "prompt": q["query"],
                                  "gold": gold, "results": res}) + "\n")
        e.close()
        print(f"semble {name}: {len(by_repo[name])}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("semble")
    ap.add_argument("out")
    ap.add_argument("--limit", type=int, default=100)
    ap.add_argument("--sets", default="commits,swe,semble")
    ap.add_argument("--repos", default="hono,ripgrep,pydantic")
    ap.add_argument("--extra-semble", action="append", default=[],
                    help="DIR:CORPORA, a semble-style query folder and its corpora")
    ap.add_argument("--engine", default=HERE, help="the package folder to run (default: this one)")
    ap.add_argument("--extra-swe", action="append", default=[],
                    help="a folder of more bug reports (queries.jsonl with each query's root)")
    ap.add_argument("--extra-commits", action="append", default=[], help="a folder of commit sets")
    a = ap.parse_args()
    sets = a.sets.split(",")
    Engine.home = a.engine
    with open(a.out, "w", encoding="utf-8") as out:
        if "commits" in sets:
            commits(out, os.path.join(a.data, "commits"), a.repos.split(","), a.limit)
            for extra in a.extra_commits:
                names = sorted(n for n in os.listdir(extra)
                               if os.path.isfile(os.path.join(extra, n, "queries.jsonl")))
                commits(out, extra, names, a.limit)
        if "swe" in sets:
            swe(out, os.path.join(a.data, "swe-dev/queries.jsonl"), a.limit)
            for extra in a.extra_swe:
                swe(out, os.path.join(extra, "queries.jsonl"), a.limit)
        if "semble" in sets:
            semble(out, a.semble, os.path.join(a.data, "semble-corpora"), a.limit)
            for extra in a.extra_semble:
                d, c = extra.split(":", 1)
                semble(out, d, c, a.limit)


if __name__ == "__main__":
    main()

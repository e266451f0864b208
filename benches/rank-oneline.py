#!/usr/bin/env python3
"""Re-scores the engine's top files for one-line questions offline with evidence read from the
files' text, to see whether it would lift the answers (the semble-style sets' NDCG@10).

    python3 benches/rank-oneline.py FEATURES.jsonl CORPORA_DIR [CORPORA_DIR...] [--top 30]

FEATURES.jsonl is what `benches/rank-features.py --sets semble` writes (with
`--extra-semble` for the extra set); each CORPORA_DIR holds one folder per repository (the
semble corpora, the extra set's corpora), where the dumped paths are read. Each file's new
score is the engine's times exp(w · x), x one of the candidates below, and NDCG@10 is computed
as `benches/rank-learn.py` computes it (its figures at w = 0 equal the harness's). Printed:
NDCG@10 of the semble DEV questions and of the extra set's, for each candidate and weight.

Candidates (all for one-line prompts; words are identifier parts, lowercased, lightly stemmed
as the engine's tokenizer does):

- `symref-K-cap` / `symref-K-stem`: how many of the top K files name a type the file defines
  (a capitalized definition name), or the definition named like the file, as log(1 + n): the
  question's best files point at the file that holds its concept (`FunctionK`).
- `prf-T-SRC-TGT-M`: pseudo-relevance feedback from the top T files: the words of their
  definition names (SRC `def`) or of all their identifiers (SRC `all`) that at least M of them
  share, not in the question, rarer than a fifth of the files; x is the idf share of those
  words the file's definition names (TGT `def`) or identifiers (TGT `all`) hold.
- `defcov-share` / `defcov-n` / `defcov-multi`: the question's words among the file's
  definition names: idf share, log(1 + count), two or more.
- `folder-T`: how many of the top T files share the file's folder, as log(1 + n).
- `stemref-T`: how many of the top T files hold the file's name (its stem, four letters or
  more) as an identifier, as log(1 + n).
- `synonym-all` / `synonym-any`: the part of the score the general synonyms gave
  (`explain`'s `synonym`) taken away from a file that holds all (any) of the question's
  words the synonyms stand for: a synonym counted only where its word is absent.
"""
from __future__ import annotations

import argparse
import importlib.util
import math
import os
import re

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("rank_learn", os.path.join(HERE, "rank-learn.py"))
rl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rl)

DEF = re.compile(
    r"\b(?:class|struct|trait|interface|type|object|enum|def|fn|func|function|module|protocol"
    r"|record|data|newtype|defmodule)\s+(?:\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_]{3,})"
)
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
STOP = set("the a an and or of to in on for with by how is are be from as at that this it its "
           "into when what which does do get set new".split())


def stem(w):
    n = len(w)
    if n <= 3:
        return w
    if n > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif n > 5 and w.endswith("ing"):
        w = w[:-3]
    elif n > 4 and w.endswith("ed") and not w.endswith("eed"):
        w = w[:-2]
    elif n > 4 and w.endswith(("ches", "shes", "sses", "xes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if len(w) >= 4 and w.endswith("e") and not w.endswith("ee"):
        w = w[:-1]
    return w


def parts(ident):
    return {stem(p.lower()) for p in PART.findall(ident) if len(p) >= 3 and p.lower() not in STOP}


def qterms(s):
    return {stem(w.lower()) for w in re.findall(r"[A-Za-z]+", s) if w.lower() not in STOP}


class Texts:
    def __init__(self, corpora):
        self.corpora = corpora
        self.cache = {}
        self.dfs = {}

    def root(self, repo):
        for base in self.corpora:
            if os.path.isdir(os.path.join(base, repo)):
                return os.path.join(base, repo)
        return None

    def text(self, repo, path):
        root = self.root(repo)
        fp = os.path.join(root, path) if root else ""
        if fp not in self.cache:
            try:
                with open(fp, encoding="utf-8", errors="replace") as f:
                    self.cache[fp] = f.read()
            except OSError:
                self.cache[fp] = ""
        return self.cache[fp]

    def df(self, repo):
        """(files, {word: files holding it}) over the repository's corpus."""
        if repo not in self.dfs:
            cnt, n = {}, 0
            for dp, dn, fn in os.walk(self.root(repo)):
                dn[:] = [d for d in dn if not d.startswith(".") and d != "node_modules"]
                for f in fn:
                    try:
                        with open(os.path.join(dp, f), encoding="utf-8", errors="ignore") as h:
                            t = h.read(200000)
                    except OSError:
                        continue
                    n += 1
                    s = set()
                    for i in set(IDENT.findall(t)):
                        s |= parts(i)
                    for x in s:
                        cnt[x] = cnt.get(x, 0) + 1
            self.dfs[repo] = (n, cnt)
        return self.dfs[repo]


def def_terms(t):
    s = set()
    for d in DEF.findall(t):
        s |= parts(d)
    return s


def all_terms(t):
    s = set()
    for d in set(IDENT.findall(t)):
        s |= parts(d)
    return s


def one_line(q):
    return "\n" not in q["prompt"].strip()


def symref(q, tx, k, mode):
    files = q["files"]
    texts = [tx.text(q["repo"], f[0]) for f in files]
    toks = [set(IDENT.findall(t)) for t in texts]
    x = np.zeros(len(files))
    for i, f in enumerate(files):
        defs = set(DEF.findall(texts[i]))
        if mode == "cap":
            names = {d for d in defs if d[0].isupper()}
        else:
            s = os.path.splitext(os.path.basename(f[0]))[0]
            names = {s} if len(s) >= 4 and s in defs else set()
        if names:
            x[i] = math.log1p(sum(1 for j in range(min(k, len(files))) if j != i and names & toks[j]))
    return x


def prf(q, tx, top, src, tgt, share_min):
    files = q["files"]
    n_files, cnt = tx.df(q["repo"])
    texts = [tx.text(q["repo"], f[0]) for f in files]
    qt = qterms(q["prompt"])
    of = {"def": def_terms, "all": all_terms}
    share = {}
    for t in texts[:top]:
        for w in of[src](t) - qt:
            share[w] = share.get(w, 0) + 1
    words = {w: math.log(1 + n_files / cnt.get(w, 1)) for w, c in share.items()
             if c >= share_min and cnt.get(w, 0) / max(n_files, 1) < 0.2}
    total = sum(words.values())
    x = np.zeros(len(files))
    if total > 0:
        for i, t in enumerate(texts):
            s = of[tgt](t)
            x[i] = sum(v for w, v in words.items() if w in s) / total
    return x


def defcov(q, tx, mode):
    files = q["files"]
    n_files, cnt = tx.df(q["repo"])
    idf = {w: math.log(1 + n_files / cnt[w]) for w in qterms(q["prompt"]) if len(w) >= 3 and cnt.get(w)}
    total = sum(idf.values()) or 1.0
    x = np.zeros(len(files))
    for i, f in enumerate(files):
        s = def_terms(tx.text(q["repo"], f[0]))
        held = [w for w in idf if w in s]
        x[i] = {"share": sum(idf[w] for w in held) / total, "n": math.log1p(len(held)),
                "multi": float(len(held) >= 2)}[mode]
    return x


def folder(q, top):
    d = [os.path.dirname(f[0]) for f in q["files"]]
    return np.array([math.log1p(sum(1 for j in range(min(top, len(d))) if j != i and d[j] == d[i]))
                     for i in range(len(d))])


def stemref(q, tx, top):
    files = q["files"]
    toks = [{w.lower() for w in IDENT.findall(tx.text(q["repo"], f[0]))} for f in files[:top]]
    x = np.zeros(len(files))
    for i, f in enumerate(files):
        s = os.path.splitext(os.path.basename(f[0]))[0].lower().replace("-", "_")
        if len(s) >= 4:
            x[i] = math.log1p(sum(1 for j in range(len(toks)) if j != i and s in toks[j]))
    return x


def synonym(q, tx, groups, mode):
    files = q["files"]
    words = [w for w in qterms(q["prompt"]) if any(w in g for g in groups)]
    x = np.zeros(len(files))
    if not words:
        return x
    for i, f in enumerate(files):
        sig = f[1]
        if sig.get("synonym", 0) <= 0:
            continue
        s = all_terms(tx.text(q["repo"], f[0]))
        held = [w in s for w in words]
        if (mode == "all" and all(held)) or (mode == "any" and any(held)):
            rest = max(sig["total"] - sig["synonym"] * sig.get("roleFactor", 1.0), 1e-6)
            x[i] = math.log(rest) - math.log(sig["total"])
    return x


def synonym_groups():
    src = open(os.path.join(HERE, "..", "crates/core/src/retrieve/query/prompt.rs"), encoding="utf-8").read()
    block = src.split("const SYNONYMS: &[&[&str]] = &[")[1].split("];")[0]
    return [[stem(w) for w in re.findall(r'"([a-z]+)"', line)] for line in block.splitlines() if '"' in line]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("features")
    ap.add_argument("corpora", nargs="+")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--extra-repos", default=os.path.join(HERE, "data/semble-extra/repos.json"))
    a = ap.parse_args()
    import json
    extra = {r["name"] for r in json.load(open(a.extra_repos))}
    qs = [q for q in rl.load(a.features, a.top, []) if q["set"] == "semble"]
    tx = Texts(a.corpora)
    groups = synonym_groups()

    def report(label, xs, ws):
        for w in ws:
            per = {}
            for q, x in zip(qs, xs):
                q2 = dict(q)
                if len(x):
                    q2["logs"] = q["logs"] + w * x
                m = rl.metrics(q2, np.zeros(0))
                per.setdefault("extra" if q["repo"] in extra else "dev", []).append(m["ndcg"])
            print(f"{label:24s} w={w:<5} semble DEV {np.mean(per.get('dev', [0])):.4f}"
                  f"  extra {np.mean(per.get('extra', [0])):.4f}", flush=True)

    def each(f):
        return [f(q) if q["files"] and one_line(q) else np.zeros(len(q["files"])) for q in qs]

    report("engine", each(lambda q: np.zeros(len(q["files"]))), [0])
    for k in (5, 10):
        for mode in ("cap", "stem"):
            report(f"symref-{k}-{mode}", each(lambda q: symref(q, tx, k, mode)), [0.05, 0.1, 0.2])
    for cfg in [(3, "def", "def", 2), (3, "def", "all", 2), (5, "def", "def", 3), (3, "all", "def", 3),
                (3, "all", "all", 2)]:
        report("prf-" + "-".join(map(str, cfg)), each(lambda q: prf(q, tx, *cfg)), [0.1, 0.2, 0.4])
    for mode in ("share", "n", "multi"):
        report(f"defcov-{mode}", each(lambda q: defcov(q, tx, mode)), [-0.1, 0.05, 0.1, 0.2])
    for top in (3, 5):
        report(f"folder-{top}", each(lambda q: folder(q, top)), [-0.1, 0.05, 0.1, 0.2])
        report(f"stemref-{top}", each(lambda q: stemref(q, tx, top)), [-0.1, 0.05, 0.1, 0.2])
    for mode in ("all", "any"):
        report(f"synonym-{mode}", each(lambda q: synonym(q, tx, groups, mode)), [0.5, 1.0])


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Offline study of the semble-style answers ranked second and third: file-level evidence
that might break the near ties at the top of a one-line question's ranking.

    python3 benches/rank-near-ties.py FEATURES.jsonl DATA_DIR SEMBLE_DIR [--loo FEATURE:FORM]

FEATURES.jsonl is what `benches/rank-features.py ... --sets semble --extra-semble DIR:CORPORA`
writes (main's ranked files with their score parts); DATA_DIR holds `semble-corpora/` and
`semble-extra-corpora/` (the files' texts are read from there); SEMBLE_DIR's repos.json names
the DEV repositories (the others are the extra set). Each feature x is tried as a re-scoring
of the engine's files, score × exp(w · x), scored as `benches/rank-learn.py` scores the semble
sets (NDCG@10, chunk mode; main's own order gives the harness's figure). Printed for each
feature: the pairs (answer ranked 2nd or 3rd, a file above it) where the answer has the larger
/ smaller value, then for each form and weight the DEV and extra NDCG@10 and how many
questions move up / down. With --loo, the weight of one feature (name:form) is picked for each
repository on all the others from a small grid.

Features (terms, stems and idf over the corpus's files as `benches/rank-prox.py` computes them):
- family: `base` the file's stem is a proper word prefix or suffix of another top-10 file's
  stem in the same folder (`Pair` / `ImmutablePair`, `Abort` / `AbortError`); `derived` the
  reverse; `parent` the file `x.ext` beside a folder `x/` holding another top-10 file
  (`session.ex` / `session/cookie.ex`); `child` the reverse.
- name: `stemFolder` the file's stem meets a question word and one of its two innermost
  folders meets another; `stemWhole` every word of the stem meets a question word.
- text: `rareCov` the idf share of the question's rarer half of words the file holds;
  `defTogether` the most idf (over the question's) of distinct question words on one
  definition line, counted when two or more are; `nameTogether` the same within the defined
  name only; `docTogether` within a comment block and the definition line after it.
- chunks: `spread` the second shown chunk's score over the best (0 when under half of it, as
  the engine shows no such chunk); `single` one chunk shown.
Forms: `raw` x; `rel` x over the question's largest; `bin` x > 0.
Needs numpy.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import re

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def module(name):
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"), os.path.join(HERE, name + ".py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


rl = module("rank-learn")
rp = module("rank-prox")

COMMENT = re.compile(r"^\s*(//|#|\*|/\*|--|;|%|\"\"\"|'''|@doc|@moduledoc|///|//!)")
NAME = re.compile(r"\b(def|defp|defmodule|class|fn|func|function|struct|enum|trait|interface|type|"
                  r"module|fun|object|protocol|data|newtype)\s+(?:\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_.]*)")
FAMILY_TOP = 10


def stem_words(stem):
    return [rp.stem(p.lower()) for p in rp.split_parts(stem) if rp.word_ok(p.lower())]


def split_path(p):
    d, _, n = p.rpartition("/")
    stem = n.split(".")[0] if n.count(".") <= 1 else n.rsplit(".", 1)[0]
    return d, stem


def meets(words, terms):
    return {t for t in terms for w in words if rp.same(w, t)}


def path_features(q, terms):
    files = q["files"]
    n = len(files)
    info = [split_path(f[0]) for f in files]
    wd = [stem_words(s) for _, s in info]
    fam = np.zeros((n, 4))
    for i in range(n):
        for j in range(min(n, FAMILY_TOP)):
            if i == j:
                continue
            (di, si), (dj, _) = info[i], info[j]
            a, b = wd[i], wd[j]
            if a and di == dj and len(a) < len(b) and (b[:len(a)] == a or b[-len(a):] == a):
                fam[i, 0] = 1
                fam[j, 1] = 1
            if files[j][0].startswith((di + "/" if di else "") + si + "/"):
                fam[i, 2] = 1
                fam[j, 3] = 1
    name = np.zeros((n, 2))
    for i, f in enumerate(files):
        d, _ = info[i]
        sh = meets(wd[i], terms)
        dh = meets([w for comp in d.split("/")[-2:] for w in stem_words(comp)], terms) - sh
        name[i, 0] = float(bool(sh) and bool(dh))
        name[i, 1] = float(bool(wd[i]) and all(meets([w], terms) for w in wd[i]))
    return {"base": fam[:, 0], "derived": fam[:, 1], "parent": fam[:, 2], "child": fam[:, 3],
            "stemFolder": name[:, 0], "stemWhole": name[:, 1]}


def text_features(corpus, terms, rel):
    idf = {t: corpus.idf(t) for t in terms}
    tot = sum(idf.values()) or 1.0
    ranked = sorted(terms, key=lambda t: -idf[t])
    rare = ranked[: max(1, (len(ranked) + 1) // 2)]
    toks, lines = corpus.toks(rel)
    fterms = {x[0] for x in toks}
    present = {t for t in terms if t in fterms or any(rp.same(f, t) for f in fterms if f[:3] == t[:3])}
    rare_cov = sum(idf[t] for t in rare if t in present) / (sum(idf[t] for t in rare) or 1.0)
    by_line = {}
    for (w, ln, _, _) in toks:
        for t in terms:
            if w == t or (w[:3] == t[:3] and rp.same(w, t)):
                by_line.setdefault(ln, set()).add(t)
    def_t = name_t = doc_t = 0.0
    for ln, ts in by_line.items():
        if len(ts) < 2:
            continue
        line = lines[ln] if ln < len(lines) else ""
        if rp.DEF.search(line) and not COMMENT.match(line):
            def_t = max(def_t, sum(idf[t] for t in ts))
            m = NAME.search(line)
            if m:
                hit = meets(stem_words(m.group(2)), ts)
                if len(hit) >= 2:
                    name_t = max(name_t, sum(idf[t] for t in hit))
    i, n = 0, len(lines)
    while i < n:
        if not COMMENT.match(lines[i]):
            i += 1
            continue
        j = i
        while j < n and COMMENT.match(lines[j]):
            j += 1
        if j < n and rp.DEF.search(lines[j]):
            ts = set()
            for ln in range(i, j + 1):
                ts |= by_line.get(ln, set())
            if len(ts) >= 2:
                doc_t = max(doc_t, sum(idf[t] for t in ts))
        i = j
    return [rare_cov, def_t / tot, name_t / tot, doc_t / tot]


def chunk_features(files):
    out = np.zeros((len(files), 2))
    for i, f in enumerate(files):
        ratios = sorted((c[2] for c in f[3]), reverse=True)
        # An extra chunk is shown at EXTRA_FRACTION (0.3) × its score over the best.
        out[i, 0] = ratios[1] / 0.3 if len(ratios) > 1 else 0.0
        out[i, 1] = float(len(ratios) == 1)
    return {"spread": out[:, 0], "single": out[:, 1]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("features")
    ap.add_argument("data")
    ap.add_argument("semble")
    ap.add_argument("--loo", action="append", default=[])
    args = ap.parse_args()
    dev_repos = {r["name"] for r in json.load(open(os.path.join(args.semble, "repos.json")))}
    qs = [q for q in rl.load(args.features, 30, []) if q["set"] == "semble"]
    corpora = {}
    for q in qs:
        sub = "semble-corpora" if q["repo"] in dev_repos else "semble-extra-corpora"
        root = os.path.join(args.data, sub, q["repo"])
        if root not in corpora:
            for c in corpora.values():
                c.cache.clear()
            corpora[root] = rp.Corpus(root)
        terms = rp.prompt_terms(q["prompt"])
        f = path_features(q, terms)
        f.update(chunk_features(q["files"]))
        text = np.array([text_features(corpora[root], terms, x[0]) for x in q["files"]]).reshape(-1, 4)
        for k, name in enumerate(("rareCov", "defTogether", "nameTogether", "docTogether")):
            f[name] = text[:, k]
        q["feat"] = f
    names = list(qs[0]["feat"].keys())

    def column(q, name, form):
        x = q["feat"][name]
        if form == "rel":
            mx = x.max() if len(x) else 0.0
            return x / mx if mx > 0 else x
        if form == "bin":
            return (x > 0).astype(float)
        return x

    def run(name, form, w):
        m = {}
        for q in qs:
            q["X"] = column(q, name, form).reshape(-1, 1)
            m[q["id"]] = rl.metrics(q, np.array([w]))["ndcg"]
        return m

    def means(m):
        dev = [v for k, v in m.items() if k.split("/")[0] in dev_repos]
        ext = [v for k, v in m.items() if k.split("/")[0] not in dev_repos]
        return sum(dev) / len(dev), sum(ext) / max(1, len(ext)), len(dev), len(ext)

    m0 = run(names[0], "raw", 0.0)
    d, e, nd, ne = means(m0)
    print(f"main: semble DEV ({nd}) {d:.4f}, extra ({ne}) {e:.4f}")
    for name in names:
        larger = smaller = 0
        for q in qs:
            gold = {g["path"] for g in q["gold"]}
            at = [i for i, f in enumerate(q["files"]) if f[0] in gold]
            if not at or at[0] not in (1, 2):
                continue
            x = q["feat"][name]
            g = at[0]
            larger += int(sum(x[g] > x[i] + 1e-9 for i in range(g)))
            smaller += int(sum(x[g] < x[i] - 1e-9 for i in range(g)))
        print(f"\n{name}: pairs answer larger / smaller {larger} / {smaller}")
        for form in ("raw", "rel") if name in ("rareCov", "defTogether", "nameTogether", "docTogether", "spread") else ("raw",):
            for w in (-0.2, -0.1, -0.05, 0.03, 0.05, 0.1, 0.2):
                m = run(name, form, w)
                d, e, _, _ = means(m)
                up = sum(m[k] > m0[k] + 1e-9 for k in m)
                down = sum(m[k] < m0[k] - 1e-9 for k in m)
                print(f"  {form:4s} w {w:+.2f}: DEV {d:.4f} extra {e:.4f} up {up} down {down}")
    for spec in args.loo:
        name, form = spec.split(":")
        grid = [0.0, 0.03, 0.05, 0.1]
        ms = {w: run(name, form, w) for w in grid}
        loo, picks = {}, {}
        for r in sorted({q["repo"] for q in qs}):
            others = [q["id"] for q in qs if q["repo"] != r]
            best = max(grid, key=lambda w: (sum(ms[w][k] for k in others), -abs(w)))
            picks[best] = picks.get(best, 0) + 1
            for q in qs:
                if q["repo"] == r:
                    loo[q["id"]] = ms[best][q["id"]]
        d, e, _, _ = means(loo)
        print(f"\nLOO {name} ({form}) over {grid}: DEV {d:.4f} extra {e:.4f}; picks {picks}")
        for w in grid[1:]:
            m = ms[w]
            print(f"  w {w}: up {sorted(k for k in m if m[k] > m0[k] + 1e-9)}"
                  f" down {sorted(k for k in m if m[k] < m0[k] - 1e-9)}")


if __name__ == "__main__":
    main()

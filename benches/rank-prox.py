#!/usr/bin/env python3
"""Adds term-proximity and identifier-phrase features, computed from the files' text, to the
ranked files that `benches/rank-features.py` dumped, for offline study with
`benches/rank-learn.py`.

    python3 benches/rank-prox.py FEATURES.jsonl OUT.jsonl DATA_DIR SEMBLE_DIR EXTRA_SEMBLE_DIR:CORPORA [--top 30]

Words are the engine's terms (identifiers split into their parts, lowercased, lightly
stemmed, stop words and numbers dropped; `crates/core/src/retrieve/tokenize.rs`). For each of
a query's top files, added to its signals:

- `prox`: BM25TP-style term proximity. For each pair of distinct prompt terms, every two
  occurrences of the two in the file at most WINDOW terms apart add 1 / d²; the pair counts
  min(idf) × tp / (1 + tp). Summed over pairs.
- `proxLines`: the same with distances in lines (0 = same line), 1 / (1 + d)².
- `phrase`: pairs of adjacent prompt words (no stop word or punctuation between) that are
  consecutive parts of one identifier of the file, in order (`route parameters` ->
  `routeParams` by a shared prefix of 4+ letters, `request timeout` -> `request_timeout`),
  each counted once, weighted by the pair's summed idf.
- `phraseDef`: the same, the identifier on a line that defines it (a keyword of a definition
  before it on the line).
"""
from __future__ import annotations

import json
import math
import os
import re
import sys
from collections import defaultdict

STOP = set("""a all also an and any are as at be been but by can could do does for from has have
if in into is it its may more not now of on only or our should so some such than that the their
then there these they this to use used using via was we were when which will with would you""".split())

IDENT = re.compile(r"[A-Za-z0-9_]+")
WINDOW = 5
WIN_TOKENS = 12
WIN_LINES = 3


def split_parts(ident):
    parts = []
    for piece in ident.split("_"):
        if not piece:
            continue
        parts.extend(re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z0-9]+|[A-Z0-9]+", piece))
    return parts


def stem(w):
    n = len(w)
    if n <= 3:
        return w
    if n > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif n > 5 and w.endswith("ing"):
        w = undouble(w[:-3])
    elif n > 4 and w.endswith("ed") and not w.endswith("eed"):
        w = undouble(w[:-2])
    elif n > 4 and (w.endswith("ches") or w.endswith("shes") or w.endswith("sses") or w.endswith("xes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith("ss") and not w.endswith("us") and not w.endswith("is"):
        w = w[:-1]
    if len(w) >= 4 and w.endswith("e") and not w.endswith("ee"):
        w = w[:-1]
    return w


def undouble(w):
    if len(w) >= 3 and w[-1] == w[-2] and w[-1] not in "lszeo":
        return w[:-1]
    return w


def word_ok(w):
    return len(w) >= 2 and not w.isdigit() and w not in STOP


def tokens(text):
    """(term, line, ident index, part index) of every word of the text."""
    out = []
    k = 0
    for ln, line in enumerate(text.split("\n")):
        for m in IDENT.finditer(line):
            ident = m.group(0)
            if len(ident) > 64:
                continue
            for j, p in enumerate(split_parts(ident)):
                w = p.lower()
                if word_ok(w):
                    out.append((stem(w), ln, k, j))
            k += 1
    return out


DEF = re.compile(r"\b(def|class|fn|func|function|struct|enum|trait|interface|type|impl|module|"
                 r"const|let|var|val|fun|static|void|int|char|public|private|protected)\b")


def prompt_terms(prompt):
    seen = []
    for m in IDENT.finditer(prompt):
        for p in split_parts(m.group(0)):
            w = p.lower()
            if word_ok(w):
                s = stem(w)
                if s not in seen:
                    seen.append(s)
    return seen


def prompt_pairs(prompt):
    """Adjacent plain words of the prompt (no stop word or punctuation between), stemmed."""
    pairs = []
    for line in prompt.split("\n"):
        run = []
        for token in line.split(" "):
            word = token.rstrip(",.:;?!")
            plain = bool(word) and word.isalnum() and any(c.isalpha() for c in word) and len(word) <= 30
            lw = word.lower()
            if not plain or lw in STOP:
                run = []
                continue
            run.append(stem(lw))
            if len(run) >= 2 and run[-1] != run[-2]:
                pairs.append((run[-2], run[-1]))
            if word != token:
                run = []
    out = []
    for p in pairs:
        if p not in out:
            out.append(p)
    return out[:16]


def same(a, b):
    """A file's identifier part meets a prompt word: equal stems, or one a prefix of the
    other of 4+ letters (`param` / `paramet`)."""
    if a == b:
        return True
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return len(short) >= 4 and long_.startswith(short)


class Corpus:
    def __init__(self, root):
        self.root = root
        self.df = None
        self.n = 0
        self.cache = {}

    def files(self):
        for d, dirs, fs in os.walk(self.root):
            dirs[:] = [x for x in dirs if not x.startswith(".") and x not in ("node_modules", "target")]
            for f in fs:
                yield os.path.join(d, f)

    def idf(self, term):
        if self.df is None:
            self.df = defaultdict(int)
            for f in self.files():
                try:
                    if os.path.getsize(f) > 1_000_000:
                        continue
                    t = open(f, encoding="utf-8", errors="ignore").read()
                except OSError:
                    continue
                self.n += 1
                for w in {x[0] for x in tokens(t)}:
                    self.df[w] += 1
        df = self.df.get(term, 0)
        return math.log(1 + (self.n - df + 0.5) / (df + 0.5))

    def toks(self, rel):
        if rel not in self.cache:
            try:
                t = open(os.path.join(self.root, rel), encoding="utf-8", errors="ignore").read()
            except OSError:
                t = ""
            self.cache[rel] = (tokens(t), t.split("\n"))
        return self.cache[rel]


def best_window(occ, idf, at, width):
    """The most idf of distinct prompt terms among occurrences `occ` (position tuples, term
    at index 1) whose position `occ[i][at]` lies within `width` of each other."""
    have = defaultdict(int)
    best = cur = 0.0
    lo = 0
    for hi in range(len(occ)):
        t = occ[hi][1]
        if have[t] == 0:
            cur += idf[t]
        have[t] += 1
        while occ[hi][at] - occ[lo][at] >= width:
            u = occ[lo][1]
            have[u] -= 1
            if have[u] == 0:
                cur -= idf[u]
            lo += 1
        best = max(best, cur)
    return best


def features(corpus, prompt, rel):
    terms = prompt_terms(prompt)
    pairs = prompt_pairs(prompt)
    toks, lines = corpus.toks(rel)
    tset = set(terms)
    idf = {t: corpus.idf(t) for t in terms}
    # Proximity over the file's prompt-term occurrences.
    occ = [(i, t[0], t[1]) for i, t in enumerate(toks) if t[0] in tset]
    tp = defaultdict(float)
    tpl = defaultdict(float)
    for a in range(len(occ)):
        i, ta, la = occ[a]
        for b in range(a + 1, len(occ)):
            j, tb, lb = occ[b]
            if j - i > WINDOW and lb - la > 2:
                break
            if ta == tb:
                continue
            key = (ta, tb) if ta < tb else (tb, ta)
            if j - i <= WINDOW:
                tp[key] += 1.0 / (j - i) ** 2
            if lb - la <= 2:
                tpl[key] += 1.0 / (1 + lb - la) ** 2
    prox = sum(min(idf[a], idf[b]) * v / (1 + v) for (a, b), v in tp.items())
    proxl = sum(min(idf[a], idf[b]) * v / (1 + v) for (a, b), v in tpl.items())
    # The best window: the most prompt idf (distinct terms) within WIN_TOKENS terms, or
    # within WIN_LINES lines, over the prompt's idf.
    total = sum(idf.values()) or 1.0
    win = best_window(occ, idf, 0, WIN_TOKENS)
    winl = best_window(occ, idf, 2, WIN_LINES)
    # Identifier phrases.
    phrase = 0.0
    phrase_def = 0.0
    found = set()
    found_def = set()
    for x in range(1, len(toks)):
        w1, l1, k1, j1 = toks[x - 1]
        w2, l2, k2, j2 = toks[x]
        if k1 != k2 or j2 != j1 + 1:
            continue
        for p in pairs:
            if p in found and p in found_def:
                continue
            if same(w1, p[0]) and same(w2, p[1]):
                found.add(p)
                if p not in found_def and DEF.search(lines[l1]):
                    found_def.add(p)
    for p in found:
        phrase += corpus.idf(p[0]) + corpus.idf(p[1])
    for p in found_def:
        phrase_def += corpus.idf(p[0]) + corpus.idf(p[1])
    return {"prox": prox, "proxLines": proxl, "win": win / total, "winLines": winl / total, "phrase": phrase, "phraseDef": phrase_def}


def main():
    src, dst, data, semble, extra = sys.argv[1:6]
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 30
    edir, ecorp = extra.split(":", 1)
    roots = {}
    for qf in (os.path.join(data, "swe-dev/queries.jsonl"), os.path.join(data, "swe-extra/queries.jsonl")):
        for line in open(qf, encoding="utf-8"):
            q = json.loads(line)
            roots[("swe", q["id"])] = os.path.join(os.path.dirname(qf), q["root"])
    corpora = {}

    def corpus(root):
        if root not in corpora:
            if len(corpora) > 4:
                # Keep the idf of a repository, drop the texts.
                for c in corpora.values():
                    c.cache.clear()
            corpora[root] = Corpus(root)
        return corpora[root]

    srepos = {r["name"] for r in json.load(open(os.path.join(semble, "repos.json")))}
    erepos = {r["name"] for r in json.load(open(os.path.join(edir, "repos.json")))}
    idf_of_repo = {}
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as out:
        for n, line in enumerate(f):
            q = json.loads(line)
            if q["set"] == "commits":
                root = os.path.join(data, "commits", q["repo"], "corpus")
            elif q["set"] == "swe":
                root = roots[("swe", q["id"])]
            elif q["repo"] in srepos and os.path.isdir(os.path.join(data, "semble-corpora", q["repo"])):
                root = os.path.join(data, "semble-corpora", q["repo"])
            else:
                root = os.path.join(ecorp, q["repo"])
            c = corpus(root)
            # One repository's idf for all of its snapshots (bug reports).
            if q["repo"] in idf_of_repo and c.df is None:
                c.df, c.n = idf_of_repo[q["repo"]]
            seen = {}
            for r in q["results"]:
                if r["p"] not in seen and len(seen) < top:
                    seen[r["p"]] = features(c, q["prompt"], r["p"])
                if r["p"] in seen:
                    r["sig"].update(seen[r["p"]])
            idf_of_repo[q["repo"]] = (c.df, c.n)
            out.write(json.dumps(q) + "\n")
            if n % 50 == 0:
                print(n, q["id"], file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A semantic signal for ranking, measured by hand: word vectors trained on code found on this
machine, used to re-rank the engine's results. Not part of the package; what it
measured is in docs/benchmark-history.md ("Semantic signals").

    python3 -m venv $VENV && $VENV/bin/pip install gensim numpy
    $VENV/bin/python benches/code_word2vec.py corpus DIR/corpus.txt --bench HARNESS \\
        ~/.cargo/registry/src /usr/include /usr/lib/python3 $(npm root -g) [JDK/lib/src.zip ...]
    $VENV/bin/python benches/code_word2vec.py train DIR/corpus.txt DIR/sg      # skip-gram
    WRAP="$VENV/bin/python benches/code_word2vec.py rerank DIR/sg" \\
        bash benches/retrieval-dev.sh DATA_DIR RUNS_DIR NAME

`corpus` tokenizes every source file under the roots (and the `.java` files of any `.zip`
given) into sub-words (`HttpClientEngine parse_url2` -> `http client engine parse url`), one
line per window of 200 tokens, skipping minified files (a line over 2,000 characters), files
over 1 MB and repeated files. It leaves out every directory whose name contains the name of a
repository a benchmark uses (read from `--bench`: `repos-dev.json`, `semble/repos.json`, the
DEV-issue repositories; more with `--exclude NAME`), so no benchmark code is trained on.
`train` fits gensim's Word2Vec (128 dimensions, window 8, min count 5, 3 epochs; `--cbow`
for CBOW, 5 epochs) and writes the vectors (fp16) and the vocabulary with each word's idf
over the corpus windows. `rerank` wraps the engine's command (`retrieval-dev.sh` appends
`context-engine serve --stdio`): it asks for SEM_CANDIDATES results (default 20) and orders them
by `score / best score + SEM_LAMBDA * cosine(prompt, snippet)` (default 1.2), a text's vector
being the idf-weighted mean of its sub-words' unit vectors; SEM_RANDOM=SEED swaps in random
vectors of the same vocabulary (the control: word overlap without meaning).
"""
import json
import os
import re
import subprocess
import sys
import time
import zipfile

WINDOW = 200
EXTENSIONS = {".rs", ".py", ".pyi", ".js", ".mjs", ".cjs", ".ts", ".c", ".h", ".cc", ".cpp",
              ".go", ".java", ".rb", ".php", ".sh", ".lua"}
_WORDS = re.compile(r"[^A-Za-z0-9]+")
_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def tokens(text):
    """Lowercase sub-words of a text's identifiers and words, without digits and 1-letter parts."""
    out = []
    for word in _WORDS.split(text):
        for part in _PARTS.findall(word):
            if len(part) > 1 and not part.isdigit():
                out.append(part.lower())
    return out


def benchmark_names(bench, extra):
    names = {n.lower() for n in extra}
    with open(os.path.join(bench, "semble", "repos.json")) as f:
        for r in json.load(f):
            names.update([r["name"].lower(), r["repo"].split("/")[-1].lower()])
    with open(os.path.join(bench, "repos-dev.json")) as f:
        names.update(r["repo"].split("/")[-1].lower() for r in json.load(f)["repos"])
    names.update(["astropy", "xarray", "seaborn", "flask"])  # the DEV-issue set's repositories
    return sorted(names)


def windows(text):
    t = tokens(text)
    return [" ".join(t[i:i + WINDOW]) for i in range(0, len(t), WINDOW)], len(t)


def corpus(out_path, roots, bench, extra):
    banned = benchmark_names(bench, extra)
    skip = lambda name: any(b in name.lower() for b in banned)
    started, seen, n_files, n_tokens = time.time(), set(), 0, 0
    with open(out_path, "w") as out:
        def add(text):
            nonlocal n_files, n_tokens
            if max((len(line) for line in text.split("\n")), default=0) > 2000:
                return
            lines, n = windows(text)
            key = hash(text)
            if n == 0 or key in seen:
                return
            seen.add(key)
            out.write("\n".join(lines) + "\n")
            n_files, n_tokens = n_files + 1, n_tokens + n
        for root in roots:
            if root.endswith(".zip"):
                with zipfile.ZipFile(root) as z:
                    for info in z.infolist():
                        parts = info.filename.split("/")
                        if info.filename.endswith(".java") and not any(skip(p) for p in parts[:-1]):
                            add(z.read(info).decode("utf-8", "ignore"))
                continue
            for d, dirs, files in os.walk(root):
                dirs[:] = sorted(x for x in dirs if not skip(x) and x not in ("__pycache__", ".git"))
                for name in sorted(files):
                    path = os.path.join(d, name)
                    if os.path.splitext(name)[1] not in EXTENSIONS or name.endswith(".min.js"):
                        continue
                    try:
                        if os.path.getsize(path) > 1_000_000:
                            continue
                        with open(path, encoding="utf-8", errors="ignore") as f:
                            add(f.read())
                    except OSError:
                        continue
    print(json.dumps({"files": n_files, "tokens": n_tokens, "excluded_names": banned,
                      "seconds": round(time.time() - started, 1)}))


def train(corpus_path, out, cbow):
    import numpy as np
    from gensim.models import Word2Vec
    started = time.time()
    model = Word2Vec(corpus_file=corpus_path, vector_size=128, window=8, min_count=5, workers=2,
                     sg=0 if cbow else 1, epochs=5 if cbow else 3, negative=5, sample=1e-4)
    seconds = time.time() - started
    kv = model.wv
    df, docs = np.zeros(len(kv), np.int64), 0
    with open(corpus_path) as f:
        for line in f:
            docs += 1
            ids = {kv.key_to_index[w] for w in line.split() if w in kv.key_to_index}
            if ids:
                df[list(ids)] += 1
    idf = np.log((docs + 1) / (df + 0.5))
    np.save(out + ".vectors.npy", kv.vectors.astype(np.float16))
    with open(out + ".vocab.json", "w") as f:
        json.dump({"words": list(kv.index_to_key), "idf": [round(float(x), 4) for x in idf]}, f)
    print(json.dumps({"train_s": round(seconds, 1), "vocab": len(kv), "dims": kv.vector_size}))
    for w in ["reply", "teardown", "halt", "serialization", "retry", "reporter"]:
        if w in kv.key_to_index:
            print(w, [x for x, _ in kv.most_similar(w, topn=6)])


def rerank(model, engine_cmd):
    import numpy as np
    candidates = int(os.environ.get("SEM_CANDIDATES", 20))
    lam = float(os.environ.get("SEM_LAMBDA", 1.2))
    vectors = np.load(model + ".vectors.npy").astype(np.float32)
    if os.environ.get("SEM_RANDOM"):
        vectors = np.random.default_rng(int(os.environ["SEM_RANDOM"])).standard_normal(vectors.shape)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    with open(model + ".vocab.json") as f:
        meta = json.load(f)
    index = {w: i for i, w in enumerate(meta["words"])}
    idf = np.array(meta["idf"], np.float32)
    stats = {"seconds": 0.0, "snippets": 0}

    def vector(text):
        ids = np.array([index[w] for w in tokens(text)[:2048] if w in index], dtype=np.int64)
        if len(ids) == 0:
            return np.zeros(vectors.shape[1], np.float32)
        v = (vectors[ids] * idf[ids][:, None]).sum(axis=0)
        n = np.linalg.norm(v)
        return v / n if n > 0 else v

    engine = subprocess.Popen(engine_cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    for line in sys.stdin:
        request = json.loads(line)
        limit = request.get("limit", 10)
        engine.stdin.write(json.dumps(dict(request, limit=max(limit, candidates))) + "\n")
        engine.stdin.flush()
        response = json.loads(engine.stdout.readline())
        results = response.get("results") or []
        if results and lam > 0:
            t = time.perf_counter()
            q = vector(request["prompt"])
            cos = [float(vector(r.get("path", "").replace("/", " ") + "\n" + (r.get("content") or "")) @ q)
                   for r in results]
            best = max(r.get("score", 0) for r in results) or 1.0
            fused = [r.get("score", 0) / best + lam * cos[i] for i, r in enumerate(results)]
            results = [results[i] for i in sorted(range(len(results)), key=lambda i: (-fused[i], i))]
            stats["seconds"] += time.perf_counter() - t
            stats["snippets"] += len(cos)
        response["results"] = results[:limit]
        sys.stdout.write(json.dumps(response) + "\n")
        sys.stdout.flush()
    engine.stdin.close()
    engine.wait()
    stats["ms_per_snippet"] = 1000 * stats["seconds"] / max(stats["snippets"], 1)
    print(json.dumps(stats), file=sys.stderr)


def main():
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "corpus":
        bench, extra, roots, i = os.environ.get("BENCH", ""), [], [], 2
        while i < len(args):
            if args[i] in ("--bench", "--exclude") and i + 1 < len(args):
                if args[i] == "--bench":
                    bench = args[i + 1]
                else:
                    extra.append(args[i + 1])
                i += 2
            else:
                roots.append(args[i])
                i += 1
        if not bench:
            sys.exit("--bench HARNESS (or BENCH=HARNESS): the retrieval benchmark harness folder")
        corpus(args[1], roots, bench, extra)
    elif len(args) >= 3 and args[0] == "train":
        train(args[1], args[2], "--cbow" in args[3:])
    elif len(args) >= 3 and args[0] == "rerank":
        rerank(args[1], args[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()

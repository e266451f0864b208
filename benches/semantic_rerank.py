#!/usr/bin/env python3
"""A semantic signal for ranking, measured by hand: re-ranks the engine's results with a static
word-embedding model and answers the bench harnesses in the engine's place.

    WRAP="$VENV/bin/python benches/semantic_rerank.py" \\
      bash benches/retrieval-dev.sh DATA_DIR RUNS_DIR NAME

It starts the engine command it is given (`retrieval-dev.sh` appends `context-engine serve
--stdio`), asks it for SEM_CANDIDATES results (default 30) instead of the request's limit, and
re-ranks them by `score / best score + SEM_LAMBDA * cosine(prompt, snippet)` (SEM_FUSE=lin, the
default) or by reciprocal rank fusion, `1 / (K + rank) + SEM_LAMBDA / (K + cosine rank)`
(SEM_FUSE=rrf, K = SEM_RRF_K, default 60). A text's vector is the mean of its tokens' vectors,
normalized; the snippet's text is its path (separators as spaces) and its content
(SEM_PATH=0: content only), cut at SEM_MAX_TOKENS tokens (default 2048). On exit it prints
to stderr the time spent embedding, and the snippets and tokens embedded.

The model is WordLlama's `l2_supercat_256` (32,000 tokens x 256 dimensions, fp16, 16 MB), the
only static embedding model whose weights a package registry serves (it ships inside the
`wordllama` wheel on PyPI). Set-up, outside the repository:

    python3 -m venv $VENV && $VENV/bin/pip install numpy tokenizers safetensors
    $VENV/bin/pip download --no-deps wordllama -d $DIR && unzip -o $DIR/wordllama-*.whl -d $DIR
    export SEM_MODEL_DIR=$DIR/wordllama

Nothing here is part of the package: docs/benchmark-history.md has what it measured.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

MODEL = os.environ.get("SEM_MODEL_DIR", "wordllama")
CANDIDATES = int(os.environ.get("SEM_CANDIDATES", 30))
FUSE = os.environ.get("SEM_FUSE", "lin")
LAMBDA = float(os.environ.get("SEM_LAMBDA", 0.3))
WITH_PATH = os.environ.get("SEM_PATH", "1") == "1"
RRF_K = float(os.environ.get("SEM_RRF_K", 60))
MAX_TOKENS = int(os.environ.get("SEM_MAX_TOKENS", 2048))

started = time.perf_counter()
weights = load_file(f"{MODEL}/weights/l2_supercat_256.safetensors")["embedding.weight"]
weights = weights.astype(np.float32)
with open(f"{MODEL}/tokenizers/l2_supercat_tokenizer_config.json", encoding="utf-8") as f:
    tokenizer = Tokenizer.from_str(f.read())
stats = {"load_s": time.perf_counter() - started, "embed_s": 0.0, "snippets": 0, "tokens": 0}


def vector(text):
    """The normalized mean of the text's token vectors (zeros for no token)."""
    ids = tokenizer.encode(text, add_special_tokens=False).ids[:MAX_TOKENS]
    stats["tokens"] += len(ids)
    if not ids:
        return np.zeros(weights.shape[1], np.float32)
    v = weights[np.clip(np.array(ids), 0, weights.shape[0] - 1)].mean(axis=0)
    n = np.linalg.norm(v)
    return v / n if n > 0 else v


def rerank(prompt, results):
    """The results in their fused order."""
    t = time.perf_counter()
    q = vector(prompt)
    cos = []
    for r in results:
        path = r.get("path", "").replace("/", " ").replace("_", " ") + "\n" if WITH_PATH else ""
        cos.append(float(vector(path + (r.get("content") or "")) @ q))
    stats["embed_s"] += time.perf_counter() - t
    stats["snippets"] += len(results)
    if FUSE == "rrf":
        by_cos = sorted(range(len(results)), key=lambda i: -cos[i])
        cos_rank = {i: k for k, i in enumerate(by_cos)}
        fused = [1 / (RRF_K + i + 1) + LAMBDA / (RRF_K + cos_rank[i] + 1) for i in range(len(results))]
    else:
        best = max(r.get("score", 0) for r in results) or 1.0
        fused = [r.get("score", 0) / best + LAMBDA * cos[i] for i, r in enumerate(results)]
    order = sorted(range(len(results)), key=lambda i: (-fused[i], i))
    return [results[i] for i in order]


def main():
    engine = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    for line in sys.stdin:
        request = json.loads(line)
        limit = request.get("limit", 10)
        engine.stdin.write(json.dumps(dict(request, limit=max(limit, CANDIDATES))) + "\n")
        engine.stdin.flush()
        response = json.loads(engine.stdout.readline())
        results = response.get("results") or []
        if results and LAMBDA > 0:
            results = rerank(request["prompt"], results)
        response["results"] = results[:limit]
        sys.stdout.write(json.dumps(response) + "\n")
        sys.stdout.flush()
    engine.stdin.close()
    engine.wait()
    print(json.dumps(stats), file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# Runs this engine (through `context-engine serve --stdio`) over the mined DEV query sets of
# ../shared/bench and scores it beside the baselines' runs, if present.
#
#   benches/retrieval-dev.sh DATA_DIR RUNS_DIR [NAME]
#
# DATA_DIR holds one mined set per repository (DATA_DIR/<repo>/queries.jsonl, corpus/), as
# written by mine_commits.py with the heads and depths of repos-dev.json; RUNS_DIR receives
# RUNS_DIR/<NAME>/<repo>/ and the score table. See BENCHMARKS.md for the full recipe.
set -euo pipefail
DATA=${1:?DATA_DIR}
RUNS=${2:?RUNS_DIR}
NAME=${3:-context-engine}
HERE=$(cd "$(dirname "$0")/.." && pwd)
BENCH=${BENCH:-$HERE/../shared/bench}
REPOS=${REPOS:-"hono ripgrep pydantic"}
for r in $REPOS; do
  rm -rf "$RUNS/$NAME/$r"
  python3 "$BENCH/run_engine.py" --queries "$DATA/$r/queries.jsonl" --out "$RUNS/$NAME/$r" \
    --name "$NAME" -- node "$HERE/bin/context-engine.js" serve --stdio
done
runs=()
for e in bm25 grep "$NAME"; do
  for r in $REPOS; do
    [ -d "$RUNS/$e/$r" ] && runs+=("$RUNS/$e/$r")
  done
done
python3 "$BENCH/score.py" "${runs[@]}" --json "$RUNS/$NAME.score.json"

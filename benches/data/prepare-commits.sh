#!/usr/bin/env bash
# Prepares one commit-message query set with the harness's mine_commits.py: the tree at the
# DEPTH-th first-parent ancestor of HEAD goes to OUT_DIR/corpus, the later qualifying commits
# (up to MAX_QUERIES, default 100, oldest first) to OUT_DIR/queries.jsonl, the recipe to
# OUT_DIR/meta.json.
#
#   BENCH=<retrieval benchmark harness folder> benches/data/prepare-commits.sh GIT OUT_DIR NAME HEAD DEPTH [MAX_QUERIES]
#
# GIT: a git directory (a bare mirror is enough), a clone, or a clone URL (cloned bare next to
# OUT_DIR). HEAD: a commit id (or a ref of GIT; the commit it names is printed and recorded).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
usage="usage: BENCH=HARNESS prepare-commits.sh GIT OUT_DIR NAME HEAD DEPTH [MAX_QUERIES]"
src=${1:?$usage} out=${2:?$usage} name=${3:?$usage} head=${4:?$usage} depth=${5:?$usage}
max=${6:-100}
need_bench
mkdir -p "$out"
out=$(cd "$out" && pwd)
g=$(git_dir "$src" "$(dirname "$out")/.git")
sha=$(git --git-dir="$g" rev-parse --verify "$head^{commit}")
rm -rf "$out/corpus" "$out/queries.jsonl" "$out/meta.json"
python3 "$BENCH/mine_commits.py" "$g" "$out" --head "$sha" --snapshot-depth "$depth" \
  --max-queries "$max" --repo-name "$name" >&2
python3 - "$out" "$name" <<'PY'
import json, os, sys
out, name = sys.argv[1], sys.argv[2]
m = json.load(open(os.path.join(out, "meta.json")))
n = sum(1 for _ in open(os.path.join(out, "queries.jsonl")))
files = sum(len(f) for _, _, f in os.walk(os.path.join(out, "corpus")))
print(f"{name}: head {m.get('head')} snapshot {m.get('snapshot')} depth {m.get('snapshot_depth', m.get('depth'))} "
      f"queries {n} corpus files {files}")
PY

#!/usr/bin/env bash
# Prepares the DEV commit sets (hono, ripgrep, pydantic) exactly as the harness's
# repos-dev.json records them (head, snapshot depth, 100 queries at most), into
# OUT_ROOT/<name>/{queries.jsonl,corpus/,meta.json}, and checks the snapshot commit and the
# query count against that recipe.
#
#   BENCH=<retrieval benchmark harness folder> benches/data/prepare-commits-dev.sh OUT_ROOT SOURCE
#
# SOURCE: as for prepare-semble.sh (a folder of git directories or a clone URL prefix).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
out=${1:?usage: BENCH=HARNESS prepare-commits-dev.sh OUT_ROOT SOURCE}
src=${2:?usage: BENCH=HARNESS prepare-commits-dev.sh OUT_ROOT SOURCE}
need_bench
mkdir -p "$out"
out=$(cd "$out" && pwd)
fail=0
while read -r repo head depth max snapshot queries; do
  name=${repo#*/}
  g=$(repo_git_dir "$src" "$repo" "$out/.git") || { fail=1; continue; }
  "$here/prepare-commits.sh" "$g" "$out/$name" "$name" "$head" "$depth" "$max"
  python3 - "$out/$name" "$snapshot" "$queries" <<'PY' || fail=1
import json, os, sys
out, snapshot, queries = sys.argv[1], sys.argv[2], int(sys.argv[3])
m = json.load(open(os.path.join(out, "meta.json")))
n = sum(1 for _ in open(os.path.join(out, "queries.jsonl")))
ok = m.get("snapshot") == snapshot and n == queries
print(f"  recipe check: snapshot {'ok' if m.get('snapshot') == snapshot else 'DIFFERS'}, "
      f"queries {n} (recipe {queries}) {'ok' if n == queries else 'DIFFERS'}")
sys.exit(0 if ok else 1)
PY
done < <(python3 - "$BENCH/repos-dev.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["repos"]:
    print(r["repo"], r["head_at_mining"], r["snapshot_depth"], r.get("max_queries", 100), r["snapshot"], r["queries"])
PY
)
exit $fail

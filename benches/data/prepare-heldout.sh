#!/usr/bin/env bash
# Prepares the held-out commit sets: three repositories no DEV set uses (encode/httpx,
# tokio-rs/axum, axios/axios), mined as the DEV commit sets are (snapshot = the 200th
# first-parent ancestor of the head, up to 100 queries), into OUT_ROOT/<name>/{queries.jsonl,
# corpus/,meta.json}. Do not tune on them: they check that a change generalizes.
#
#   BENCH=<retrieval benchmark harness folder> benches/data/prepare-heldout.sh OUT_ROOT SOURCE
#
# SOURCE: as for prepare-semble.sh. The heads are pinned below (the heads the published
# held-out figures were mined at); HEADS=current mines at each git directory's HEAD instead.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
out=${1:?usage: BENCH=HARNESS prepare-heldout.sh OUT_ROOT SOURCE}
src=${2:?usage: BENCH=HARNESS prepare-heldout.sh OUT_ROOT SOURCE}
need_bench
mkdir -p "$out"
out=$(cd "$out" && pwd)
DEPTH=200 MAX=100
while read -r repo head; do
  name=${repo#*/}
  g=$(repo_git_dir "$src" "$repo" "$out/.git")
  [ "${HEADS:-}" = current ] && head=$(git --git-dir="$g" rev-parse HEAD)
  "$here/prepare-commits.sh" "$g" "$out/$name" "$name" "$head" "$DEPTH" "$MAX"
done <<'LIST'
encode/httpx ae1b9f66238f75ced3ced5e4485408435de10768
tokio-rs/axum 3d78036dcac289d6c1d54934708acb6a5bd73686
axios/axios 23a25af0688d1db2c396deb09229d2271cc24f6c
LIST

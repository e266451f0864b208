#!/usr/bin/env bash
# Prepares the semble DEV corpora: for each repository of the harness's semble/repos.json,
# the folder semble indexes (`benchmark_root`) of the tree at the pinned `commit`, extracted to
# OUT_DIR/<name>/<benchmark_root>, with OUT_DIR/<name>.commit holding the commit (the layout
# the harness's semble_eval.py takes as --corpora).
#
#   BENCH=<retrieval benchmark harness folder> benches/data/prepare-semble.sh OUT_DIR SOURCE [NAME...]
#
# SOURCE: a folder holding one git directory or clone per repository (OWNER+NAME/repo,
# OWNER+NAME, OWNER/NAME, NAME.git or NAME), or a clone URL prefix (each repository is then
# cloned bare into OUT_DIR/.git/). NAME...: only these repositories (default: all).
# Only benchmark_root is extracted: a whole-tree archive can stop at a blob the git directory
# lacks outside that folder.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
out=${1:?usage: BENCH=HARNESS prepare-semble.sh OUT_DIR SOURCE [NAME...]}
src=${2:?usage: BENCH=HARNESS prepare-semble.sh OUT_DIR SOURCE [NAME...]}
shift 2
need_bench
mkdir -p "$out"
out=$(cd "$out" && pwd)
want=" $* "
fail=0
while read -r name repo commit root; do
  [ "$want" = "  " ] || [[ $want == *" $name "* ]] || continue
  if ! g=$(repo_git_dir "$src" "$repo" "$out/.git"); then
    fail=1; continue
  fi
  if ! have_commit "$g" "$commit"; then
    echo "$name: $repo lacks commit $commit" >&2; fail=1; continue
  fi
  d="$out/$name"
  rm -rf "$d" "$out/$name.commit"
  mkdir -p "$d"
  if [ "$root" = "." ]; then
    git --git-dir="$g" archive "$commit" | tar -x -C "$d"
  else
    git --git-dir="$g" archive "$commit" -- "$root" | tar -x -C "$d"
  fi
  echo "$commit" >"$out/$name.commit"
  echo "$name $repo ${commit:0:12} $root: $(find "$d" -type f | wc -l) files"
done < <(python3 - "$BENCH/semble/repos.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    print(r["name"], r["repo"], r["commit"], r.get("benchmark_root") or ".")
PY
)
exit $fail

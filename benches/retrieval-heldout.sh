#!/usr/bin/env bash
# Runs this engine (through `context-engine serve --stdio`) over the held-out commit sets
# (httpx, axum, axios: repositories no DEV set uses) and scores it, beside the baselines when
# asked, with the retrieval benchmark harness.
#
#   BENCH=<retrieval benchmark harness folder> benches/retrieval-heldout.sh DATA_DIR RUNS_DIR [NAME]
#
# DATA_DIR/heldout/<repo>/{queries.jsonl,corpus/} as made by benches/data/prepare-heldout.sh.
# RUNS_DIR receives RUNS_DIR/<engine>/heldout/<repo>/ and RUNS_DIR/NAME.heldout.json.
# Environment: BASELINES=1 to run BM25 over whole files and the ripgrep ranker too,
# REPOS (default "httpx axum axios"), WRAP (as in retrieval-dev.sh).
set -euo pipefail
DATA=${1:?DATA_DIR}
RUNS=${2:?RUNS_DIR}
NAME=${3:-context-engine}
HERE=$(cd "$(dirname "$0")/.." && pwd)
: "${BENCH:?set BENCH to the folder of the retrieval benchmark harness}"
REPOS=${REPOS:-"httpx axum axios"}
# shellcheck source=benches/retrieval-common.sh
source "$HERE/benches/retrieval-common.sh"

commit_sets heldout

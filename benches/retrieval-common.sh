# shellcheck shell=bash
# Shared by retrieval-dev.sh and retrieval-heldout.sh (sourced, after DATA, RUNS, NAME, HERE and
# BENCH are set): the engine's command and the harness's runner.
#
# --no-cache: every corpus is indexed cold, as the baselines are, and nothing is written to the
# per-user cache folder (a saved index would make a second run's times, not its answers, differ).
# WRAP: a command the engine's command is appended to (it then answers the harness).
ENGINE=(node "$HERE/bin/context-engine.js" serve --stdio --no-cache)
if [ -n "${WRAP:-}" ]; then
  read -r -a wrap <<<"$WRAP"
  ENGINE=("${wrap[@]}" "${ENGINE[@]}")
fi
mkdir -p "$RUNS"

run() { # run NAME OUT QUERIES -- CMD...
  local name=$1 out=$2 q=$3
  shift 4
  rm -rf "$out"
  python3 "$BENCH/run_engine.py" --queries "$q" --out "$out" --name "$name" -- "$@" >/dev/null
}

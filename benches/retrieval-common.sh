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

# commit_sets SET: the commit-message sets DATA/SET/<repo>/queries.jsonl of every repository in
# REPOS, through the engine (and with BASELINES=1 BM25 over whole files and the ripgrep ranker),
# scored together into RUNS/NAME.SET.json.
commit_sets() {
  local set=$1 r q e
  local -a runs=()
  for r in $REPOS; do
    q=$DATA/$set/$r/queries.jsonl
    run "$NAME" "$RUNS/$NAME/$set/$r" "$q" -- "${ENGINE[@]}"
    if [ "${BASELINES:-0}" = 1 ]; then
      run bm25_files "$RUNS/bm25/$set/$r" "$q" -- python3 "$BENCH/engines/bm25_files.py"
      run grep_rank "$RUNS/grep/$set/$r" "$q" -- python3 "$BENCH/engines/grep_rank.py"
    fi
  done
  for e in bm25 grep "$NAME"; do
    for r in $REPOS; do [ -d "$RUNS/$e/$set/$r" ] && runs+=("$RUNS/$e/$set/$r"); done
  done
  python3 "$BENCH/score.py" "${runs[@]}" --json "$RUNS/$NAME.$set.json"
}

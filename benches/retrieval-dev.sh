#!/usr/bin/env bash
# Runs this engine (through `context-engine serve --stdio`) over the three DEV sets of the
# retrieval benchmark harness and scores it beside the baselines measured in the same run.
#
#   BENCH=<retrieval benchmark harness folder> benches/retrieval-dev.sh DATA_DIR RUNS_DIR [NAME]
#
# DATA_DIR layout (benches/data/prepare-all.sh makes it; see benches/README.md):
#   DATA_DIR/commits/<repo>/{queries.jsonl,corpus/}  mine_commits.py with repos-dev.json's heads
#   DATA_DIR/swe-dev/queries.jsonl                   swebench_to_queries.py (the DEV-issue set)
#   DATA_DIR/semble-corpora/<name>/                  the semble DEV corpora
#   DATA_DIR/semble-extra-corpora/<name>/            the corpora of benches/data/semble-extra/
#                                                    (prepare-dev-extra.sh)
#   DATA_DIR/swe-extra/queries.jsonl                 the second DEV-issue set (prepare-swe-extra.sh)
# RUNS_DIR receives RUNS_DIR/<engine>/<set>/ and one score file per set.
# Environment: SETS (default "commits issues semble semble-extra swe-extra"), BASELINES=1 to run the baselines too,
# REPOS (commit repos, default "hono ripgrep pydantic"), WRAP (a command the engine's command
# is appended to, such as "python3 benches/semantic_rerank.py": it then answers the harness).
set -euo pipefail
DATA=${1:?DATA_DIR}
RUNS=${2:?RUNS_DIR}
NAME=${3:-context-engine}
HERE=$(cd "$(dirname "$0")/.." && pwd)
: "${BENCH:?set BENCH to the folder of the retrieval benchmark harness}"
REPOS=${REPOS:-"hono ripgrep pydantic"}
SETS=${SETS:-"commits issues semble semble-extra swe-extra"}
# shellcheck source=benches/retrieval-common.sh
source "$HERE/benches/retrieval-common.sh"

for set in $SETS; do
  case $set in
  commits)
    commit_sets commits
    ;;
  issues | swe-extra)
    if [ "$set" = issues ]; then q=$DATA/swe-dev/queries.jsonl; else q=$DATA/swe-extra/queries.jsonl; fi
    run "$NAME" "$RUNS/$NAME/$set" "$q" -- "${ENGINE[@]}"
    if [ "${BASELINES:-0}" = 1 ]; then
      run bm25_py_no_tests "$RUNS/bm25py/$set" "$q" -- python3 "$BENCH/engines/bm25_files.py" --ext .py --exclude-tests
      run bm25_files "$RUNS/bm25/$set" "$q" -- python3 "$BENCH/engines/bm25_files.py"
    fi
    runs=()
    for e in bm25py bm25 "$NAME"; do [ -d "$RUNS/$e/$set" ] && runs+=("$RUNS/$e/$set"); done
    python3 "$BENCH/score.py" "${runs[@]}" --no-pooled --json "$RUNS/$NAME.$set.json"
    python3 "$HERE/benches/dev-report.py" issues "$RUNS/$NAME.$set.json" --runs "$RUNS/$NAME/$set"
    ;;
  semble)
    if [ "${BASELINES:-0}" = 1 ]; then
      python3 "$BENCH/semble_eval.py" --data "$BENCH/semble" --corpora "$DATA/semble-corpora" \
        --json "$RUNS/bm25.semble.json" --quiet -- python3 "$BENCH/engines/bm25_files.py"
    fi
    (cd "$HERE" && python3 "$BENCH/semble_eval.py" --data "$BENCH/semble" --corpora "$DATA/semble-corpora" \
      --json "$RUNS/$NAME.semble.json" --worst "${WORST:-0}" -- "${ENGINE[@]}")
    ;;
  semble-extra)
    extra=$HERE/benches/data/semble-extra
    if [ "${BASELINES:-0}" = 1 ]; then
      python3 "$BENCH/semble_eval.py" --data "$extra" --corpora "$DATA/semble-extra-corpora" \
        --json "$RUNS/bm25.semble-extra.json" --quiet -- python3 "$BENCH/engines/bm25_files.py"
    fi
    (cd "$HERE" && python3 "$BENCH/semble_eval.py" --data "$extra" --corpora "$DATA/semble-extra-corpora" \
      --json "$RUNS/$NAME.semble-extra.json" --worst "${WORST:-0}" -- "${ENGINE[@]}")
    ;;
  esac
done
# Per language over both semble-style sets, when both were scored in RUNS_DIR.
if [ -f "$RUNS/$NAME.semble.json" ] && [ -f "$RUNS/$NAME.semble-extra.json" ]; then
  python3 "$HERE/benches/dev-report.py" semble "$RUNS/$NAME.semble.json" "$RUNS/$NAME.semble-extra.json"
fi

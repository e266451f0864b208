# shellcheck shell=bash
# Shared helpers of the data-preparation scripts (sourced, not run).

# need_bench: the retrieval benchmark harness folder must be given in $BENCH.
need_bench() {
  : "${BENCH:?set BENCH to the folder of the retrieval benchmark harness}"
  [ -f "$BENCH/mine_commits.py" ] || { echo "BENCH=$BENCH does not look like the retrieval benchmark harness" >&2; exit 2; }
}

# git_dir SOURCE CACHE -> prints an absolute git directory.
# SOURCE is a git directory (bare or a clone's .git), a clone's work tree, or a clone URL;
# a URL is cloned bare once into CACHE/<last path part>.
git_dir() {
  local src=$1 cache=$2 d
  case $src in
  *://* | *@*:*)
    d="$cache/$(basename "${src%.git}").git"
    if [ ! -d "$d" ]; then
      mkdir -p "$cache"
      git clone -q --bare "$src" "$d" >&2
    fi
    git -C "$d" rev-parse --absolute-git-dir
    ;;
  *)
    git -C "$src" rev-parse --absolute-git-dir
    ;;
  esac
}

# repo_git_dir SOURCE OWNER/NAME CACHE -> the git directory of one repository out of many.
# SOURCE is a clone URL prefix (the repository's URL is SOURCE/OWNER/NAME.git), or a folder
# holding one git directory or clone per repository as OWNER+NAME/repo, OWNER+NAME,
# OWNER/NAME, NAME.git or NAME.
repo_git_dir() {
  local src=$1 repo=$2 cache=$3 owner=${2%%/*} name=${2#*/} d
  case $src in
  *://* | *@*:*)
    git_dir "${src%/}/$repo.git" "$cache"
    return
    ;;
  esac
  for d in "$src/$owner+$name/repo" "$src/$owner+$name" "$src/$owner/$name" "$src/$name.git" "$src/$name"; do
    if [ -d "$d" ] && git -C "$d" rev-parse --absolute-git-dir 2>/dev/null; then
      return
    fi
  done
  echo "no git directory for $repo under $src" >&2
  return 1
}

# have_commit GIT_DIR SHA: true when the commit is present.
have_commit() {
  git --git-dir="$1" cat-file -e "$2^{commit}" 2>/dev/null
}

# extract_corpora OUT_DIR SOURCE REPOS_JSON [NAME...]: for each repository of a semble-style
# repos.json (name, repo, commit, benchmark_root), the folder asked about at the pinned commit,
# extracted to OUT_DIR/<name>/<benchmark_root>, with OUT_DIR/<name>.commit holding the commit
# (the layout the harness's semble_eval.py takes as --corpora). NAME...: only these
# repositories (default: all). Only benchmark_root is extracted: a whole-tree archive can stop
# at a blob the git directory lacks outside that folder. Returns 1 when any repository failed.
extract_corpora() {
  local out=$1 src=$2 repos=$3 want fail=0 name repo commit root g d
  shift 3
  want=" $* "
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
  done < <(python3 - "$repos" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    print(r["name"], r["repo"], r["commit"], r.get("benchmark_root") or ".")
PY
)
  return $fail
}

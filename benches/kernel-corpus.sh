#!/usr/bin/env bash
# The kernel-scale corpus of BENCHMARKS.md: the Linux 6.1 source as Debian packages it
# (`linux-source-6.1`, about 78k files and 1.5 GB unpacked), under DIR/linux-source-6.1.
#
#   bash benches/kernel-corpus.sh DIR
#
# The tarball comes from the Debian archive through apt (root needed to install it); the
# package keeps it at /usr/src/linux-source-6.1.tar.xz. Debian's tarball adds two lines to
# the top-level .gitignore ("/*" and "!/debian/", which make its packaging ignore the upstream
# tree); they are removed so the tree is read as an upstream checkout is (`rg --files` then
# lists about 78k files). Run it again to check an existing tree: nothing is unpacked twice.
set -euo pipefail
dir=${1:?usage: kernel-corpus.sh DIR}
tarball=/usr/src/linux-source-6.1.tar.xz
if [ ! -f "$tarball" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends linux-source-6.1
fi
mkdir -p "$dir"
tree="$dir/linux-source-6.1"
if [ ! -d "$tree" ]; then
  tar -xJf "$tarball" -C "$dir"
fi
sed -i -e '/^\/\*$/d' -e '/^!\/debian\/$/d' "$tree/.gitignore"
files=$(find "$tree" -type f | wc -l)
listed=$(command -v rg >/dev/null && rg --files "$tree" | wc -l || echo "n/a (no rg)")
echo "$tree: $files files, $listed listed by rg --files"

#!/usr/bin/env bash
# Prepares the scale corpus: the Linux 6.1 source (Debian's linux-source-6.1, ~78k files)
# unpacked under OUT_DIR/linux-source-6.1, through the retrieval benchmark harness's
# kernel-corpus.sh (installs the Debian package with apt-get, so it needs root).
#
#   BENCH=<retrieval benchmark harness folder> benches/data/prepare-kernel.sh OUT_DIR
set -euo pipefail
out=${1:?usage: BENCH=HARNESS prepare-kernel.sh OUT_DIR}
: "${BENCH:?set BENCH to the folder of the retrieval benchmark harness}"
bash "$BENCH/kernel-corpus.sh" "$out"
echo "files: $(find "$out/linux-source-6.1" -type f | wc -l)"
echo "package: $(dpkg-query -W -f='${Package} ${Version}' linux-source-6.1 2>/dev/null || echo unknown)"

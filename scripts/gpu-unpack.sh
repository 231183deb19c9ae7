#!/usr/bin/env bash
# gpu-unpack.sh PACK_DIR: prints the folder holding PACK_DIR's binaries (tests/, examples/),
# unpacking bin.tar.xz from scripts/gpu-pack.sh into a fresh temp folder first when there is one.
set -euo pipefail
pack=${1:?usage: gpu-unpack.sh PACK_DIR}
if [ ! -f "$pack/bin.tar.xz" ]; then
    echo "$pack"
    exit 0
fi
unpacked=$(mktemp -d)
if command -v xz >/dev/null; then
    tar -C "$unpacked" -xJf "$pack/bin.tar.xz"
else
    python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1], "r:xz").extractall(sys.argv[2])' \
        "$pack/bin.tar.xz" "$unpacked"
fi
echo "$unpacked"

#!/usr/bin/env bash
# scripts/gpu-pack.sh [PACK_DIR]: builds the release test binaries and examples with
# `--features cuda,bellpepper,gpu-test-kernels` (CUDA runtime linked statically), strips them and
# packs them with scripts/gpu-run.sh (and gpu-unpack.sh, gpu-sanitize.sh, gpu-ab.sh,
# gpu-steps.sh, gpu-ncu.sh, gpu-pipes.sh, side-by-side.py) into PACK_DIR (default gpu-pack/,
# git-ignored). The binaries are xz-compressed with a dictionary larger than one binary: every
# binary carries the same GPU code (~16 MB for the default architectures, compressed by nvcc)
# and a match reaches back one binary to the previous copy, so only the first copy costs space.
# The GPU tests are one binary (tests/gpu/), the largest: ~9 MB stripped with
# GROTH16_C2_CUDA_ARCHS=90, ~20 MB with the default architectures; 64 MiB covers it with room to
# spare (xz then takes ~0.6 GB to compress, 64 MiB to unpack). The folder is
# what is copied to the GPU machine, a separate machine with the driver but no Rust; there,
# `bash gpu-pack/gpu-run.sh gpu-pack LOG_DIR` runs the tests (it unpacks the binaries itself).
#
# GPU_PACK_TESTS (space-separated test target names) overrides the default selection;
# GPU_PACK_EXTRA="path=name ..." adds prebuilt binaries as examples/name (e.g. an A/B build).
# GROTH16_C2_CUDA_ARCHS=90 packs H200 code only (faster to build, smaller).
set -euo pipefail
cd "$(dirname "$0")/.."
pack=${1:-gpu-pack}
tests=${GPU_PACK_TESTS:-"gpu byte_identity concurrency"}
examples=${GPU_PACK_EXAMPLES:-"gpu_bench prove bench hold_gpu_memory"}

if ! command -v nvcc >/dev/null && [ -z "${NVCC:-}" ] && [ -f .cuda-venv/cuda.env ]; then
    # shellcheck disable=SC1091
    source .cuda-venv/cuda.env
fi

stage=target/gpu-pack-stage
rm -rf "$pack" "$stage"
mkdir -p "$pack" "$stage/tests" "$stage/examples"
args=(--release --features "cuda,bellpepper,gpu-test-kernels")
targets=(--lib)
for t in $tests; do targets+=(--test "$t"); done
# Ask cargo where it put each test executable.
cargo test "${args[@]}" "${targets[@]}" --no-run --message-format=json-render-diagnostics |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        kind = m["target"]["kind"][0]
        name = "lib" if kind == "lib" else m["target"]["name"]
        print(name, m["executable"])
' | while read -r name exe; do
    cp "$exe" "$stage/tests/$name"
done
for e in $examples; do
    cargo build "${args[@]}" --example "$e"
    cp "target/release/examples/$e" "$stage/examples/$e"
done
for extra in ${GPU_PACK_EXTRA:-}; do
    cp "${extra%%=*}" "$stage/examples/${extra#*=}"
done
strip "$stage"/tests/* "$stage"/examples/*
ls -l "$stage/tests" "$stage/examples"
tar -C "$stage" -cf - tests examples | xz -T1 --lzma2=preset=6,dict=64MiB >"$pack/bin.tar.xz"
cp scripts/gpu-run.sh scripts/gpu-unpack.sh scripts/gpu-sanitize.sh scripts/gpu-ab.sh scripts/gpu-pipes.sh scripts/side-by-side.py \
    scripts/gpu-steps.sh scripts/gpu-ncu.sh "$pack/"
du -sh "$pack"

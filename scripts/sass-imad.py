#!/usr/bin/env python3
"""sass-imad.py SASS_FILE [NAME_SUBSTRING]: per-function instruction count and IMAD-pipe cycle
estimate from `cuobjdump -sass` output (sm_90), without a GPU.

On Hopper every integer multiply runs on the FMA-heavy pipe: IMAD.WIDE and IMAD.HI hold it for
4 cycles per warp instruction, IMAD (IMAD.X, IMAD.MOV, ...) for 2 (measured on the H200 with
Nsight Compute's pipe counters, scripts/gpu-pipes.sh). Kernels bound by that pipe run in proportion to
`cycles`. E.g.
    nvcc -std=c++17 -O3 -arch=sm_90 -cubin -Icuda -o /tmp/ntt.cubin cuda/ntt.cu
    .cuda-venv/sass-tools/cuobjdump -sass /tmp/ntt.cubin > /tmp/ntt.sass
    python3 scripts/sass-imad.py /tmp/ntt.sass ntt_pass_kernel
(scripts/sass-mix.sh installs cuobjdump into .cuda-venv/sass-tools the first time.)"""
import re
import sys


def mix(path):
    functions = {}
    current = None
    for line in open(path, errors="replace"):
        m = re.search(r"Function : (\S+)", line)
        if m:
            current = functions.setdefault(m.group(1), {"total": 0, "wide": 0, "hi": 0, "imad": 0})
            continue
        if current is None:
            continue
        m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if not m:
            continue
        op = m.group(1)
        current["total"] += 1
        if op.startswith("IMAD.WIDE"):
            current["wide"] += 1
        elif op.startswith("IMAD.HI"):
            current["hi"] += 1
        elif op.startswith("IMAD"):
            current["imad"] += 1
    return functions


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    pattern = sys.argv[2] if len(sys.argv) > 2 else ""
    print(f"{'function':<72} {'instr':>7} {'WIDE':>6} {'HI':>6} {'IMAD':>6} {'cycles':>8}")
    for name, c in mix(sys.argv[1]).items():
        if pattern in name:
            cycles = 4 * (c["wide"] + c["hi"]) + 2 * c["imad"]
            print(f"{name[:72]:<72} {c['total']:>7} {c['wide']:>6} {c['hi']:>6} {c['imad']:>6} {cycles:>8}")


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# scripts/sass-diff.sh dump DIR [ARCH ...]: compiles every cuda/*.cu as the default cargo build
# does (one PTX for the lowest default architecture, compute_75 with CUDA 13, then machine code
# per architecture; GROTH16_C2_NVCC_FLAGS is added) and writes each file's SASS, one file per
# architecture and source, to DIR/sm_XX/<file>.sass (ARCH default: 89 90). SASS_PTX=native
# takes each architecture's own PTX instead (as GROTH16_C2_CUDA_ARCHS=XX builds); SASS_ONLY
# ("msm_g1 ntt") limits the dump to those sources.
# scripts/sass-diff.sh compare A B: per architecture, how many kernels are identical in the
# dumps A and B, and which differ or exist in one of them only (exit 1 if any differs).
#
# The dumps keep only the code: functions sorted by name, each as its resources (registers,
# shared memory, stack), instructions and encodings, without file names, addresses and section
# headers, so two builds compare equal exactly when every kernel's machine code is the same.
# Needs nvcc (NVCC, else PATH) and cuobjdump (CUOBJDUMP, else PATH, else .cuda-venv/sass-tools,
# where scripts/sass-mix.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: sass-diff.sh dump DIR [ARCH ...] | compare A B"

find_cuobjdump() {
    if [ -n "${CUOBJDUMP:-}" ]; then
        echo "$CUOBJDUMP"
    elif command -v cuobjdump >/dev/null; then
        command -v cuobjdump
    elif [ -x .cuda-venv/sass-tools/cuobjdump ]; then
        echo .cuda-venv/sass-tools/cuobjdump
    else
        echo "sass-diff: no cuobjdump (set CUOBJDUMP, or run scripts/sass-mix.sh once)" >&2
        return 1
    fi
}

# SASS of one object on stdin -> per-architecture files: function blocks sorted by name.
normalise() {
    python3 -c '
import re, sys, os
out, src = sys.argv[1], sys.argv[2]
funcs = {}  # arch -> name -> lines
res = {}  # arch -> name -> resource line (cuobjdump -res-usage)
arch = name = pending = None
for line in sys.stdin:
    m = re.match(r"\s*arch = (sm_\w+)", line)
    if m:
        arch, name = m.group(1), None
        continue
    if pending:
        res.setdefault(arch, {})[pending] = line.strip()
        pending = None
        continue
    m = re.match(r" (Function \S+|Common):$", line)
    if m:
        pending = m.group(1).replace("Function ", "")
        continue
    m = re.match(r"\s*Function : (\S+)", line)
    if m and arch:
        name = m.group(1)
        funcs.setdefault(arch, {})[name] = []
        continue
    # Instructions and their encodings only (not section headers or padding).
    if name is None or not line.lstrip().startswith("/*"):
        continue
    # "/*0040*/ IMAD R1, ... ; /* 0x... */" -> "IMAD R1, ... ; 0x..."
    code = re.sub(r"/\*[0-9a-f]{4,}\*/", "", line)
    code = re.sub(r"/\*\s*(0x[0-9a-f]+)\s*\*/", r"\1", code).strip()
    code = re.sub(r"\s+", " ", code)
    if code:
        funcs[arch][name].append(code)
for arch, fs in funcs.items():
    os.makedirs(os.path.join(out, arch), exist_ok=True)
    with open(os.path.join(out, arch, src + ".sass"), "w") as f:
        for n in sorted(fs):
            f.write("Function : %s\n" % n)
            f.write("resources: %s\n" % res.get(arch, {}).get(n, "?"))
            f.write("\n".join(fs[n]) + "\n\n")
        f.write("Function : [common]\nresources: %s\n" % res.get(arch, {}).get("Common", "?"))
' "$@"
}

dump() {
    local dir=${1:?$usage}
    shift
    local archs=("$@")
    [ ${#archs[@]} -gt 0 ] || archs=(89 90)
    local nvcc=${NVCC:-nvcc} cuobjdump
    cuobjdump=$(find_cuobjdump)
    local work
    work=$(mktemp -d)
    trap 'rm -rf "$work"' RETURN
    local gencode=()
    if [ "${SASS_PTX:-75}" = native ]; then
        for a in "${archs[@]}"; do gencode+=("-gencode=arch=compute_$a,code=sm_$a"); done
    else
        local codes
        codes=$(printf 'sm_%s,' "${archs[@]}")
        gencode=("-gencode=arch=compute_${SASS_PTX:-75},code=[${codes%,}]")
    fi
    mkdir -p "$dir"
    for cu in cuda/*.cu; do
        local stem
        stem=$(basename "$cu" .cu)
        if [ -n "${SASS_ONLY:-}" ] && [[ " $SASS_ONLY " != *" $stem "* ]]; then continue; fi
        echo "sass-diff: $cu" >&2
        # The flags build.rs gives nvcc that reach the device code.
        # shellcheck disable=SC2086
        "$nvcc" -std=c++17 -O3 -Xcompiler=-Wno-unknown-pragmas -Icuda "${gencode[@]}" \
            ${GROTH16_C2_NVCC_FLAGS:-} -c "$cu" -o "$work/$stem.o"
        { "$cuobjdump" -res-usage "$work/$stem.o"; "$cuobjdump" -sass "$work/$stem.o"; } |
            normalise "$dir" "$stem"
    done
}

compare() {
    local a=${1:?$usage} b=${2:?$usage} differ=0
    python3 - "$a" "$b" <<'PY' || differ=1
import os, re, sys
def load(root):
    out = {}  # arch -> (file, function) -> code
    for arch in sorted(os.listdir(root)):
        for f in sorted(os.listdir(os.path.join(root, arch))):
            text = open(os.path.join(root, arch, f)).read()
            for block in text.split("Function : ")[1:]:
                name, _, code = block.partition("\n")
                out.setdefault(arch, {})[(f[:-5], name)] = code
    return out
a, b = load(sys.argv[1]), load(sys.argv[2])
bad = False
for arch in sorted(set(a) | set(b)):
    fa, fb = a.get(arch, {}), b.get(arch, {})
    both = sorted(set(fa) & set(fb))
    same = [k for k in both if fa[k] == fb[k]]
    print(f"{arch}: {len(same)} of {len(both)} functions in both identical; "
          f"{len(set(fa) - set(fb))} only in A, {len(set(fb) - set(fa))} only in B")
    for k in both:
        if fa[k] != fb[k]:
            bad = True
            print(f"  differs: {k[0]}: {k[1]}")
    for k in sorted(set(fa) - set(fb)):
        print(f"  only in A: {k[0]}: {k[1]}")
    for k in sorted(set(fb) - set(fa)):
        print(f"  only in B: {k[0]}: {k[1]}")
sys.exit(1 if bad else 0)
PY
    return $differ
}

case "${1:-}" in
dump) shift; dump "$@" ;;
compare) shift; compare "$@" ;;
*) echo "$usage" >&2; exit 2 ;;
esac

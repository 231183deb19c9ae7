#!/usr/bin/env python3
"""side-by-side.py --ours LOG... --sppark LOG...: one table of our kernels next to sppark's, from the
same run on one GPU: the `RESULT <what> <size> <value> ms` lines of gpu_bench (or gpu-ab.sh logs)
and the result rows of `sppark_bench ntt` / `sppark_bench msm` (their header row names the
`median_ms` column). Our `ntt_<variant>` rows pair with sppark's NTT rows of the same variant,
`msm_g1` with its `dev` MSM rows (points and scalars on the device). With several logs of ours
or sppark's, the median of each row is used."""
import statistics
import sys


def ours(paths):
    rows = {}
    for path in paths:
        for line in open(path, errors="replace"):
            p = line.split()
            if len(p) == 5 and p[0] == "RESULT" and p[4] == "ms":
                rows.setdefault((p[1], p[2]), []).append(float(p[3]))
    return {k: statistics.median(v) for k, v in rows.items()}


def sppark(paths):
    rows = {}
    for path in paths:
        median_col = None
        for line in open(path, errors="replace"):
            if line.startswith("#"):
                continue
            p = line.split()
            if "median_ms" in p:
                median_col = p.index("median_ms")
                continue
            if median_col is None or len(p) <= median_col or p[0] not in ("ntt", "msm"):
                continue
            try:
                lg = int(p[1])
                value = float(p[median_col])
            except ValueError:
                continue
            what = p[3]
            key = (f"ntt_{what}" if p[0] == "ntt" else f"msm_{what}", f"2^{lg}")
            rows.setdefault(key, []).append(value)
    return {k: statistics.median(v) for k, v in rows.items()}


def main():
    groups = {"--ours": [], "--sppark": []}
    current = None
    for a in sys.argv[1:]:
        if a in groups:
            current = a
        elif current:
            groups[current].append(a)
        else:
            sys.exit(__doc__)
    if not groups["--ours"] or not groups["--sppark"]:
        sys.exit(__doc__)
    mine = ours(groups["--ours"])
    theirs = sppark(groups["--sppark"])
    print("| kernel | size | sppark ms | ours ms | ours/sppark |")
    print("|---|---|---|---|---|")
    pairs = []
    for (what, size), ms in sorted(mine.items()):
        other = "msm_dev" if what == "msm_g1" else what
        if (other, size) in theirs:
            pairs.append((what, size, theirs[(other, size)], ms))
    for what, size, s, o in pairs:
        print(f"| {what} | {size} | {s:.2f} | {o:.2f} | {o / s:.2f} |")
    if not pairs:
        print("(no rows in common)")


if __name__ == "__main__":
    main()

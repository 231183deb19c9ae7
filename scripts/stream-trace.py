#!/usr/bin/env python3
"""stream-trace.py LOG [--gaps]: where a streamed device section's kernels waited, from the
`trace STREAM START_MS END_MS OP` lines that GROTH16_C2_LOG_TIMINGS=3 prints (one block per
section). Per section: its span, the copy and side streams' busy time, the compute stream's
gaps (no kernel running) summed by the kind of kernel that ran next, and the kernels' time by
kind; with --gaps, every gap over half a millisecond with how busy the copy and side streams
were during it (a gap with the copy stream idle waited for a slot to free, not for PCIe)."""
import collections
import sys


def sections(path):
    """The trace lines of each section, as (stream, start, end, op) tuples."""
    out, cur = [], []
    for line in open(path, errors="replace"):
        if line.startswith("trace "):
            p = line.split(None, 4)
            cur.append((p[1], float(p[2]), float(p[3]), p[4].strip()))
        elif cur:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def busy(intervals, a, b):
    """Milliseconds of [a, b) that some interval covers (intervals of one stream never overlap)."""
    return sum(max(0.0, min(e, b) - max(s, a)) for s, e in intervals)


def report(ops, show_gaps):
    compute = sorted((o for o in ops if o[0] == "compute"), key=lambda o: o[1])
    copy = [(o[1], o[2]) for o in ops if o[0] == "copy"]
    side = [(o[1], o[2]) for o in ops if o[0] == "side"]
    end = max(o[2] for o in ops)
    gaps, counts, rows = collections.Counter(), collections.Counter(), []
    t = compute[0][1] if compute else 0.0
    for _, start, stop, op in compute:
        if start > t + 0.02:
            kind = op.split()[0]
            gaps[kind] += start - t
            counts[kind] += 1
            g = start - t
            rows.append((t, start, op, busy(copy, t, start) / g, busy(side, t, start) / g))
        t = max(t, stop)
    print(
        f"span {end:.1f} ms, first kernel at {compute[0][1] if compute else 0:.1f}; "
        f"copy busy {busy(copy, 0, end):.1f}, side busy {busy(side, 0, end):.1f}; "
        f"compute gaps {sum(gaps.values()):.1f} ms"
    )
    for kind, ms in gaps.most_common():
        print(f"  gaps before {kind:<16} {ms:8.1f} ms in {counts[kind]}")
    kinds = collections.Counter()
    for _, start, stop, op in compute:
        kinds[op.split()[0]] += stop - start
    print("  kernels: " + ", ".join(f"{k} {v:.1f}" for k, v in kinds.most_common()))
    if show_gaps:
        for a, b, op, c, s in rows:
            if b - a > 0.5:
                print(f"    {a:8.1f}-{b:8.1f} {b - a:6.1f} ms before {op[:48]:<48} copy {c:4.0%} side {s:4.0%}")


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    for i, ops in enumerate(sections(args[0])):
        print(f"== section {i}: {len(ops)} timed ops")
        report(ops, "--gaps" in args)


if __name__ == "__main__":
    main()

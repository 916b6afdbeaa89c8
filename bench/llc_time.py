#!/usr/bin/env python3
"""bench/llc_time.py LLC_TIME [--rounds N] [--sizes A,B,...] [--quick]: the LLC a shared host leaves a program,
and the lines its other tenants bring in as time passes, fitted on a pointer chase.

LLC_TIME is the build's bench/llc_time (bench/llc_time.c): a chase over a random cycle of
lines with a chain of multiplies between its loads. This runs it at 4 to 32 MiB with 0 to
240 cycles between loads, and at 1 and 128 MiB (L2 and memory), in N rounds (3) 30 s apart,
and takes each point's latency: the ticks a step, less the multiplies' (their ticks at
1 MiB), in core cycles (a multiply is 3). A point's share of memory f is its latency's way
from the LLC's (4 MiB, nothing between loads) to memory's (128 MiB). The model backend's
law (vg_tool.c, llc_hit()): a line the chase comes back to after D of its own lines and t
cycles is in memory with the chance E^4 / (E^4 + S^4), E = D + r t; a lap takes t = D x
(latency + the multiplies' cycles). The fit is the S and r of least squared error in f over
every round's points: put `llc_share_mib = S` and `llc_foreign = r x 10^6` in a profile
file (base = the profile you use) for --profile. Also prints the fit with r = 0 (no time
term), and each point's measured and fitted f. --sizes: the sizes in MiB instead of 4 to 32
(the smallest is the LLC's own latency): where a guest keeps less than 4 MiB of the LLC, as a
Zen 5 guest did (ipcc bench latency: 20-124 ns a load at 4 MiB), 2 to 16. --quick: 4 and 8 MiB, 0 and 60 cycles
between loads, one round (a check that it runs, not a fit to keep). Where memory is no
slower than the LLC (a machine with all its LLC to itself), it says so: there is no share.
"""
import math
import os
import statistics
import subprocess
import sys
import time

SIZES_MIB = [4, 6, 8, 12, 16, 24, 32]
DELAYS = [0, 10, 20, 40, 80]  # multiplies, 3 cycles each


def run(prog, mib, delay):
    out = subprocess.run([prog, str(mib), str(delay)], capture_output=True, text=True, check=True)
    try:
        return float(out.stdout)
    except ValueError:  # "llc_time: x86-64 only"
        print(out.stdout.strip())
        sys.exit(0)


def measure(prog, rounds, sizes, delays):
    pts = []  # (round, mib, delay, latency in cycles)
    for r in range(rounds):
        if r:
            time.sleep(30)
        ref = {d: run(prog, 1, d) for d in delays}
        # Ticks a cycle: the multiplies' ticks at 1 MiB, 3 cycles each.
        tpc = statistics.median((ref[d] - ref[0]) / (3 * d) for d in delays if d)
        for mib in sizes + [128]:
            for d in delays if mib != 128 else [0]:
                ticks = run(prog, mib, d) - (ref[d] - ref[0])
                pts.append((r, mib, d, ticks / tpc))
    return pts


def law(S, r, D, t):
    x = ((D + r * t) / S) ** 4
    return x / (1 + x)


def fit(points):
    best = None
    for s_mib in list(range(1, 8)) + list(range(8, 401, 2)):
        S = s_mib * 16384
        for k in [None] + list(range(-100, -19)):
            r = 0.0 if k is None else 10 ** (k / 20)
            e = sum((law(S, r, D, t) - f) ** 2 for D, t, f in points)
            if best is None or e < best[0]:
                best = (e, s_mib, r)
    return best


def main():
    argv = sys.argv[1:]
    rounds, sizes, delays = 3, SIZES_MIB, DELAYS
    if "--quick" in argv:
        argv.remove("--quick")
        rounds, sizes, delays = 1, [4, 8], [0, 20]
    if "--sizes" in argv:
        i = argv.index("--sizes")
        try:
            sizes = sorted(int(v) for v in argv[i + 1].split(","))
        except (IndexError, ValueError):
            sizes = []  # the usage below
        del argv[i:i + 2]
    if "--rounds" in argv:
        i = argv.index("--rounds")
        try:
            rounds = int(argv[i + 1])
        except (IndexError, ValueError):
            rounds = 0  # the usage below
        del argv[i:i + 2]
    if len(argv) != 1 or rounds < 1 or not sizes or sizes[0] < 1:
        print(__doc__)
        return 2
    if not os.access(argv[0], os.X_OK):
        print(f"llc_time.py: {argv[0]}: not a program to run (the build's bench/llc_time)",
              file=sys.stderr)
        return 2
    pts = measure(argv[0], rounds, sizes, delays)
    llc = min(c for _, m, d, c in pts if m == sizes[0] and d == 0)
    mem = min(c for _, m, d, c in pts if m == 128)
    if mem <= llc * 1.2:
        print(f"memory ({mem:.0f} cycles a load at 128 MiB) is not slower than the LLC "
              f"({llc:.0f} at {sizes[0]} MiB): no share to fit")
        return 0
    rows = []  # (mib, delay, D lines, t cycles a lap, f)
    for _, mib, d, c in pts:
        if mib != 128:
            lines = mib * 16384
            rows.append((mib, d, lines, lines * (c + 3 * d),
                         min(max((c - llc) / (mem - llc), 0.0), 1.0)))
    points = [(D, t, f) for _, _, D, t, f in rows]
    e, s_mib, r = fit(points)
    e0 = min((sum((law(s * 16384, 0.0, D, t) - f) ** 2 for D, t, f in points), s)
             for s in list(range(1, 8)) + list(range(8, 401, 2)))
    n = len(points)
    print(f"LLC {llc:.0f} cycles a load ({sizes[0]} MiB), memory {mem:.0f} (128 MiB); {rounds} rounds")
    print("size MiB  cycles between loads   measured f (each round)   fitted f")
    for mib in sizes:
        for d in delays:
            mine = [(t, f) for m, dd, _, t, f in rows if m == mib and dd == d]
            g = law(s_mib * 16384, r, mib * 16384, statistics.median(t for t, _ in mine))
            print(f"{mib:8d} {3 * d:21d}   " + " ".join(f"{f:5.2f}" for _, f in mine).ljust(23)
                  + f"   {g:8.2f}")
    print(f"fit: llc_share_mib = {s_mib}, llc_foreign = {r * 1e6:.0f} "
          f"(rms {math.sqrt(e / n):.3f} in f over {n} points); with no other tenant: "
          f"llc_share_mib = {e0[1]} (rms {math.sqrt(e0[0] / n):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

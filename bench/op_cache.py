#!/usr/bin/env python3
"""bench/op_cache.py [--quick] [--profile P] IPCC PROG [N:K[m|d][@AT] ...]: where the
decoded-op cache runs out, natively and under the model backend (PROG: bench/op_cache).

Per row, N blocks a line apart in a random order, each K four-byte nops and a jmp: cycles a
block natively (PROG time: the fewest of three rounds) and under the model backend (the
difference of two runs, so that neither the start nor the first pass counts), and the
model's L1i misses a block. On Zen 5 (stop 68) a block of 15 instructions takes 3.0 cycles
while the op cache holds them all (to 320 blocks, 4,800 instructions) and 4.0-4.5 past it,
in L1i or not; a block of 5 takes 0.6 to 896 blocks (56 KiB: past L1i, which the op cache
hides) and 2.0-3.0 past 1,536 (docs/internals/model-backend.md, stop 68; nops are fused
away natively, so a block of them is no measure of the op cache's entries). The model has
the op cache's capacity since stop 71 (zen5's opcache_capacity, 1,024 entries of six ops,
16-way): a block it holds skips L1i, one past it comes through the decoders, four
instructions a cycle and two cycles a block at the least.

K m: each block K adds and loads in turn (independent: each register added to once a block,
the loads' results unused) instead of nops, the ops the op cache's entries hold (nops are
fused away: four and a jmp ran at 0.6 cycles); K d: the loads with 32-bit displacements;
@AT: each block AT bytes into two lines of its own, so that it crosses into the second. On
Zen 5 (stop 70, 64 blocks): K + 1 = 2 to 8 ops 1.0 cycle a block (one taken branch a cycle),
9 to 12 at the width of 8, 13 and 14 2.9 (a line of more ops than two entries hold);
displacements change nothing; across two lines 1.2-1.3, 2.0 where the first holds 9 or more
or the jmp crosses, 1.5 where the second holds 9. The model (zen5's opcache_entries): 1.0,
1.125-1.5, 3.0; across two lines 1.0, and 2.0 where either holds more than 6.
--quick runs fewer passes under the model (a check that it runs, not a figure); --profile P
models with profile P (ipcc stat's --profile; default: this machine's).
"""
import re
import subprocess
import sys

import block_rows

ROWS = ((128, "14"), (256, "14"), (320, "14"), (384, "14"), (512, "14"), (1024, "14"),
        (512, "4"), (896, "4"), (1024, "4"), (1536, "4"), (4096, "4"), (64, "1m"), (64, "7m"),
        (64, "8m"), (64, "11m"), (64, "12m"), (64, "7d"), (64, "7m@48"), (64, "10m@32"))
KIND = re.compile(r"(\d+)(?:([md])(?:@(\d+))?)?")


def model(ipcc, prog, n, k, blocks, extra):
    """The model's cycles and L1i misses a block: the difference of P and 2P passes."""
    p = max(10, blocks // n)
    cycles, l1i = block_rows.model_difference(
        ipcc, lambda passes: [prog, "run", str(n), str(k), str(passes)], p,
        lambda j: (j["counters"]["cycles"], j["model"]["counts"]["l1i_misses"]), extra)
    return cycles / (p * n), l1i / (p * n)


def row(a):
    """(N, K as PROG takes it) from N:K[m|d][@AT], or None where it is not one."""
    n, _, k = a.partition(":")
    m = KIND.fullmatch(k)
    if not n.isdigit() or not m or not 1 <= int(n) <= 65536 or int(m.group(1)) > 14:
        return None
    if m.group(3) is not None and int(m.group(3)) >= 64:
        return None
    return int(n), k


def main(argv):
    extra = []
    if "--profile" in argv:
        i = argv.index("--profile")
        if i + 1 >= len(argv):
            print("op_cache.py: --profile needs a profile", file=sys.stderr)
            return 2
        extra = argv[i:i + 2]
        argv = argv[:i] + argv[i + 2:]
    got = block_rows.arguments(argv, __doc__, "op_cache.py", ROWS, lambda n, k: True,
                               "N:K[m|d][@AT], N 1 to 65536 blocks of K 0 to 14 nops (m: adds "
                               "and loads; d: with 32-bit displacements; @AT 0 to 63 with "
                               "either)", row)
    if isinstance(got, int):
        return got
    ipcc, prog, quick, rows = got
    print("op_cache: cycles a block of K nops (or adds and loads) and a jmp, natively (the "
          "fewest of three rounds) and under the model backend\n")
    print(f"{'N':>6} {'K':>6} {'insns':>6} {'code KiB':>8} | {'native':>7} | {'model':>7} "
          f"{'L1i/blk':>7}")
    for n, k in rows:
        out = subprocess.run([prog, "time", str(n), str(k)], capture_output=True, text=True,
                             check=True).stdout
        if "x86-64 only" in out:
            print(out.strip())
            return 0
        native = float(out.split()[2])
        m, l1i = model(ipcc, prog, n, k, 20000 if quick else 400000, extra)
        kk = int(KIND.fullmatch(k).group(1))
        print(f"{n:>6} {k:>6} {n * (kk + 1):>6} {n * 64 / 1024:>8.0f} | {native:>7.2f} | "
              f"{m:>7.2f} {l1i:>7.3f}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

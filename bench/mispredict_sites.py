#!/usr/bin/env python3
"""bench/mispredict_sites.py [--quick] IPCC PROG [N:R ...]: what a mispredict costs where many branch
sites mispredict, natively and under the model backend (PROG: bench/mispredict_sites).

Per row, N blocks a line apart in a random order, every R-th one's branch random: cycles a
block natively with the random bits and with bits that take no branch (PROG time: the
fewest of three rounds), and the same two under the model backend (the difference of two
runs, so that neither the start nor the learning counts). A mispredict's cycles are the
difference over the mispredicts a block: half the random branches natively (the bits are
too many to learn), the model's own count under it. Natively the cost climbs with the
number of sites that mispredict (stop 67: 30 cycles at 1,024 to 90 at 8,192); the model
charges a mispredict the same wherever it is (docs/internals/model-backend.md, stop 67).
--quick times fewer blocks (a check that it runs, not a figure).
"""
import subprocess
import sys

import block_rows

ROWS = ((256, 1), (1024, 1), (2048, 1), (3072, 1), (4096, 1), (6144, 1), (8192, 1), (8192, 4),
        (8192, 8))


def model(ipcc, prog, n, r, never, blocks):
    """The model's cycles and mispredicts a block: the difference of K and 2K passes."""
    k = max(20, blocks // n)
    cycles, misp = block_rows.model_difference(
        ipcc,
        lambda passes: [prog, "run", str(n), str(r), str(passes)] + (["never"] if never else []),
        k, lambda j: (j["counters"]["cycles"], j["model"]["counts"]["mispredicts"]))
    return cycles / (k * n), misp / (k * n)


def main(argv):
    got = block_rows.arguments(argv, __doc__, "mispredict_sites.py", ROWS,
                               lambda n, r: n >= 1 and r >= 1, "N:R, two positive integers")
    if isinstance(got, int):
        return got
    ipcc, prog, quick, rows = got
    print("mispredict_sites: cycles a block and a mispredict's cycles, natively (the fewest of "
          "three rounds) and under the model backend\n")
    print(f"{'N':>6} {'R':>3} {'sites':>6} | {'random':>7} {'never':>6} {'a misp':>7} | "
          f"{'model':>7} {'never':>6} {'misp/blk':>8} {'a misp':>7}")
    for n, r in rows:
        out = subprocess.run([prog, "time", str(n), str(r)] + (["100000"] if quick else []), capture_output=True, text=True,
                             check=True).stdout
        if "x86-64 only" in out:
            print(out.strip())
            return 0
        out = out.split()
        rnd, nev = float(out[2]), float(out[3])
        native_misp = 0.5 / r
        m_rnd, m_misp = model(ipcc, prog, n, r, False, 20000 if quick else 400000)
        m_nev, _ = model(ipcc, prog, n, r, True, 20000 if quick else 400000)
        m_cost = (m_rnd - m_nev) / m_misp if m_misp > 0 else float("nan")
        print(f"{n:>6} {r:>3} {(n + r - 1) // r:>6} | {rnd:>7.2f} {nev:>6.2f} "
              f"{(rnd - nev) / native_misp:>7.1f} | {m_rnd:>7.2f} {m_nev:>6.2f} {m_misp:>8.3f} "
              f"{m_cost:>7.1f}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

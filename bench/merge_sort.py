#!/usr/bin/env python3
"""bench/merge_sort.py IPCC PROG [SMALL LARGE]: a merge sort's compares, natively and under the
model backend (PROG: bench/merge_sort), where a branch on loaded values meets misses.

Per case (N records; random or sorted values; a branch or a select on each compare): cycles a
compare natively (ipcc stat, time backend, with --regions: the fewest ns of the region "sort"
over the rounds of three runs, times the core frequency ipcc measured around the run) and
under the model backend (its modelled cycles of "sort" over the rounds after the first), the
model's error, and its mispredicts a compare and its cycles a compare charged to mispredicts
and to loads that L2, the LLC or memory served. SMALL and LARGE set the two sizes (default
20,000 records, whose 640 KiB L2 holds, and 200,000, 6.4 MiB, which the LLC serves); a quick
check passes small ones. docs/internals/model-backend.md, stop 57, has the figures and what
they say: the machine fetches the records its array of pointers names ahead of the loads (a
pointer prefetcher, which profiles with pointer_prefetch model).
"""
import json
import subprocess
import sys
import tempfile


def stat(ipcc, args, backend):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        p = subprocess.run([ipcc, "stat", "--backend", backend, "--regions", "--format", "json",
                            "-o", out.name, "--"] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True, check=True)
        compares = int(p.stdout.split()[-1])
        j = json.load(open(out.name))
        region = [r for r in j["regions"]["regions"] if r["name"] == "sort"][0]
        return j, region, compares


def main(argv):
    if len(argv) not in (2, 4):
        print(__doc__)
        return 2
    ipcc, prog = argv[:2]
    small, large = (int(argv[2]), int(argv[3])) if len(argv) == 4 else (20000, 200000)
    cases = [(small, "random", "branch"), (small, "random", "select"),
             (large, "random", "branch"), (large, "random", "select"),
             (large, "sorted", "branch")]
    print(f"{'records':>8} {'values':6} {'form':6} {'native':>7} {'model':>7} {'error':>7} "
          f"{'mispredicts':>11} {'their cycles':>12} {'L2, LLC, memory':>15}")
    for n, order, form in cases:
        # rounds: about a million compares, natively; the model's first round (cold) is apart
        rounds = max(3, 5_000_000 // (n * max(1, n.bit_length())))
        native = None
        for _ in range(3):
            j, r, compares = stat(ipcc, [prog, str(n), order, form, str(rounds)], "time")
            c = r["counters"]["elapsed_ns"]["min"] * j["core_khz"] / 1e6 / compares
            native = c if native is None else min(native, c)
        model_rounds = 2 if n >= 100000 else 4
        j, r, compares = stat(ipcc, [prog, str(n), order, form, str(model_rounds)], "model")
        m = r["model"]
        per = (model_rounds - 1) * compares
        # the region's figures hold every round: the first (its cold misses) is taken out
        # by the difference with a run of one round
        j1, r1, _ = stat(ipcc, [prog, str(n), order, form, "1"], "model")
        m1 = r1["model"]
        cycles = (m["cycles"]["total"] - m1["cycles"]["total"]) / per
        misp = (m["mispredicts"] - m1["mispredicts"]) / per
        misp_cycles = (m["cycles"]["mispredicts"] - m1["cycles"]["mispredicts"]) / per
        mem = sum(m["cycles"][k] - m1["cycles"][k] for k in ("l2_hits", "llc_hits", "memory")) / per
        print(f"{n:8} {order:6} {form:6} {native:7.2f} {cycles:7.2f} "
              f"{100 * (cycles / native - 1):+6.1f}% {misp:11.3f} {misp_cycles:12.2f} {mem:15.2f}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""bench/branch_patterns.py IPCC PROG [NATIVE MODEL]: the model backend's branch predictors
against this machine's, on one branch that repeats a random pattern (PROG:
bench/branch_patterns).

Per period: cycles an iteration natively (ipcc stat, time backend: user time times the core
frequency, the fewest of three runs of 30 million iterations) and under the model backend
(ipcc stat --backend model, 2 million iterations), and the model's mispredicts an
iteration. Natively the period where the cycles jump is where the core's predictor runs out;
under the model, where its predictors do (src/backend/model/predictor.h). The pattern is
the same bytes in both (a fixed seed); the model learns it over fewer repetitions.
NATIVE and MODEL set the two iteration counts (a quick check: small ones).

Then how many branches the predictors hold at once (x86-64: PROG many): SITES branches in a
row, each on a random pattern of period 4 or 8 of its own, cycles a branch natively (the
same way, 30 million branches) and under the model (the difference of two runs, so that
neither the start nor the learning counts), and the model's mispredicts a branch. Natively
the number where the cycles climb is what the core holds; the profile's tage_entries size
the model's.
"""
import json
import os
import subprocess
import sys
import tempfile

def stat(ipcc, args, backend):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([ipcc, "stat", "--backend", backend, "--format", "json", "-o", out.name,
                        "--"] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True)
        return json.load(open(out.name))


def main(argv):
    if len(argv) not in (2, 4):
        print(__doc__)
        return 2
    ipcc, prog = argv[:2]
    native_iters, model_iters = (int(argv[2]), int(argv[3])) if len(argv) == 4 else \
        (30_000_000, 2_000_000)
    print(f"{'branch':9} {'period':>7} {'native':>8} {'model':>8} {'mispredicts':>12}")
    for kind, periods in (("cond", (64, 1024, 4096, 8192, 16384, 65536)),
                          ("indirect", (64, 512, 1024, 2048, 4096, 65536))):
        for p in periods:
            native = min(j["user_ns"] * j["core_khz"] / 1e6 / native_iters
                         for j in (stat(ipcc, [prog, kind, str(p), str(native_iters)], "time")
                                   for _ in range(3)))
            m = stat(ipcc, [prog, kind, str(p), str(model_iters)], "model")
            print(f"{kind:9} {p:7} {native:8.2f} {m['counters']['cycles'] / model_iters:8.2f} "
                  f"{m['model']['counts']['mispredicts'] / model_iters:12.3f}", flush=True)
    if os.uname().machine != "x86_64":
        return 0
    print(f"\n{'sites':>7} {'period':>7} {'native':>8} {'model':>8} {'mispredicts':>12}")
    for period, counts in ((4, (1024, 4096, 8192, 12288, 16384, 24576)),
                           (8, (2048, 4096, 8192, 16384))):
        for n in counts:
            it = max(native_iters // n, 20)
            native = min(j["user_ns"] * j["core_khz"] / 1e6 / (it * n)
                         for j in (stat(ipcc, [prog, "many", str(n), str(period), str(it)], "time")
                                   for _ in range(3)))
            a = max(model_iters // 10 // n, 30)
            m1, m3 = (stat(ipcc, [prog, "many", str(n), str(period), str(k)], "model")
                      for k in (a, 3 * a))
            d = 2 * a * n
            cyc = (m3["counters"]["cycles"] - m1["counters"]["cycles"]) / d
            mis = (m3["model"]["counts"]["mispredicts"] - m1["model"]["counts"]["mispredicts"]) / d
            print(f"{n:7} {period:7} {native:8.2f} {cyc:8.2f} {mis:12.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

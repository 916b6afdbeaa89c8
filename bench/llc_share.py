#!/usr/bin/env python3
"""bench/llc_share.py IPCC DRIVER [--profile P] [--shares S,S,...]: the LLC share this host
leaves a program, fitted on a pointer chase.

On a shared host the LLC a guest's sysfs names is not all the program's: other tenants'
lines take it too, and a line the program left is the likelier gone the longer it waited.
This measures `ipcc bench latency` (a chase over a random cycle of lines) from 4 to 128 MiB
natively, three sweeps spaced apart, the fewest cycles a load of each size; then runs the
same chase under the model backend (DRIVER: the build's tests/cli/model_kernels) with the
profile P (default auto) and each share S in MiB (llc_share_mib; 0, none), and prints the
model's cycles a load beside the machine's. The share whose mean error from 8 to 64 MiB is
least is the fit: put `llc_share_mib = S` in a profile file (base = P) for --profile.
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import time

SIZES_MIB = [4, 8, 16, 32, 64, 128]
FIT_MIB = [8, 16, 32, 64]


def native(ipcc):
    best = {}
    for r in range(3):
        if r:
            time.sleep(10)
        out = subprocess.run([ipcc, "bench", "latency", "--sweep", "4M:128M", "--format", "csv"],
                             capture_output=True, text=True, check=True).stdout
        for row in csv.DictReader(io.StringIO(out)):
            mib = int(row["size_bytes"]) >> 20
            cyc = float(row["cycles_per_iter"]) / float(row["ns_per_iter"]) * float(row["value"])
            best[mib] = min(best.get(mib, cyc), cyc)
    return best


def modelled(ipcc, driver, profile, share, mib, d):
    """Cycles a load of the chase over MIB under the model: the difference of two runs, one
    and two laps over every line past the first lap, so that the set-up cancels."""
    prof = os.path.join(d, f"share{share}.profile")
    with open(prof, "w") as f:
        f.write(f"base = {profile}\nname = share{share}\nllc_share_mib = {share}\n")
    lines = (mib << 20) // 64
    iters = [lines // 8, 2 * lines // 8]  # 8 loads an iteration
    cycles = []
    for n in iters:
        out = os.path.join(d, "m.json")
        subprocess.run([ipcc, "stat", "--backend", "model", "--profile", prof, "--format", "json",
                        "-o", out, "--", driver, "latency", str(n), str(mib << 20)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        with open(out) as f:
            cycles.append(json.load(f)["counters"]["cycles"])
    return (cycles[1] - cycles[0]) / (8 * (iters[1] - iters[0]))


def main():
    argv = sys.argv[1:]
    profile, shares = "auto", [0, 16, 24, 32, 48, 64]
    for opt in ("--profile", "--shares"):
        if opt in argv:
            i = argv.index(opt)
            if opt == "--profile":
                profile = argv[i + 1]
            else:
                shares = [int(s) for s in argv[i + 1].split(",")]
            del argv[i:i + 2]
    if len(argv) != 2:
        print(__doc__)
        return 2
    ipcc, driver = argv
    nat = native(ipcc)
    print("size MiB      " + "".join(f"{m:>8}" for m in SIZES_MIB))
    print("measured      " + "".join(f"{nat[m]:8.1f}" for m in SIZES_MIB))
    fits = []
    with tempfile.TemporaryDirectory() as d:
        for s in shares:
            row = {m: modelled(ipcc, driver, profile, s, m, d) for m in SIZES_MIB}
            err = sum(abs(row[m] - nat[m]) / nat[m] for m in FIT_MIB) / len(FIT_MIB)
            fits.append((err, s))
            print(f"share {s:4d} MiB " + "".join(f"{row[m]:8.1f}" for m in SIZES_MIB)
                  + f"   {100 * err:5.1f}% from 8 to 64 MiB", flush=True)
    err, s = min(fits)
    print(f"fit: llc_share_mib = {s} ({100 * err:.1f}% mean error from 8 to 64 MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

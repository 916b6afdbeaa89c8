#!/usr/bin/env python3
"""bench/model_steady.py [--json FILE] [--profile P] IPCC [NAME...]: the model backend's
steady state against the machine's, with no start, no page fault and no tick in it.

Each program does its work once, and three times in one process (perl and python3 loop over
bench/model_backend.py's scripts, the compressors take one file and then three copies of
it, gcc compiles 120 functions and then 360). After the first time most of them take no
new page faults (bzip2's, python3's and gcc's grow: their kernel cycles are counted on both
sides, and both sides' faults are printed), so the difference between the two, divided by
two, is the steady state's cycles: natively, the fewest elapsed cycles of each form (ipcc
stat, time backend, pinned to each CPU in turn, the two forms' runs alternating, in two
rounds); modelled, ipcc stat --backend model's cycles and kernel cycles.
bench/model_backend.py compares whole runs, where the start, the faults and the split
between user and system time come in; this is the user-mode model's own error, and where
its cycles go (the model's parts, each a repetition).

The inputs are bench/model_backend.py's, made the same way. Prints a table; --json FILE
writes every figure.
"""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_backend as mb  # noqa: E402  (its inputs, its runs, its setup and options)

PARTS = ("pipeline", "l2_hits", "llc_hits", "memory", "tlb", "icache", "btb", "mispredicts")


def forms(d):
    """(name, the command once, the command three times): the work three times in one
    process, on the same input."""
    text = os.path.join(d, "text.txt")
    copies = []
    for i in (2, 3):
        c = os.path.join(d, f"text{i}.txt")
        shutil.copyfile(text, c)
        copies.append(c)
    py = shutil.which("python3.11", path="/usr/bin") or "/usr/bin/python3"
    with open(os.path.join(d, "prog.py")) as f:
        body = f.read()
    with open(os.path.join(d, "steady.py"), "w") as f:
        f.write("import sys\nfor _ in range(int(sys.argv[1])):\n" +
                "".join("    " + line + "\n" for line in body.splitlines()))
    with open(os.path.join(d, "prog.pl")) as f:
        body = f.read()
    with open(os.path.join(d, "steady.pl"), "w") as f:
        f.write("for my $rep (1 .. $ARGV[0]) {\n" + body + "}\n")
    with open(os.path.join(d, "unit.c")) as f:
        unit = f.read()
    # 360 functions: the 120 of unit.c and 240 more of the same form, named apart
    with open(os.path.join(d, "unit3.c"), "w") as f:
        f.write(unit)
        for k in (1, 2):
            f.write(unit.replace("int f", f"int g{k}_"))
    zstd = ["zstd", "-15", "-q", "--single-thread", "--no-asyncio", "-c"]
    gcc = ["gcc", "-O2", "-pipe", "-c", "-o", os.path.join(d, "unit.o")]
    return [
        ("xz", ["xz", "-6", "-c", text], ["xz", "-6", "-c", text] + copies),
        ("gzip", ["gzip", "-9", "-c", text], ["gzip", "-9", "-c", text] + copies),
        ("bzip2", ["bzip2", "-9", "-c", text], ["bzip2", "-9", "-c", text] + copies),
        ("zstd", zstd + [text], zstd + [text] + copies),
        ("python3", [py, os.path.join(d, "steady.py"), "1"],
         [py, os.path.join(d, "steady.py"), "3"]),
        ("perl", ["perl", os.path.join(d, "steady.pl"), "1"],
         ["perl", os.path.join(d, "steady.pl"), "3"]),
        ("gcc", gcc + [os.path.join(d, "unit.c")], gcc + [os.path.join(d, "unit3.c")]),
    ]


def fewest(ipcc, forms, rounds=2):
    """For each command of forms, the fewest elapsed cycles of its native runs and the page
    faults of that run. The forms' runs alternate, so that a host that slows down or speeds
    up between them moves both alike (the difference is the figure)."""
    best = [None] * len(forms)
    for _ in range(rounds):
        for cpu in sorted(os.sched_getaffinity(0)):
            for _ in range(3):
                for k, args in enumerate(forms):
                    j, _wall = mb.stat_json(ipcc, args, ["--backend", "time"], cpu)
                    e = j["elapsed_ns"]
                    e = e["median"] if isinstance(e, dict) else e
                    c = e * j["core_khz"] / 1e6
                    if best[k] is None or c < best[k][0]:
                        best[k] = (c, j["counters"].get("page_faults"))
    return best


def modelled(ipcc, args, extra):
    j, _wall = mb.stat_json(ipcc, args, ["--backend", "model"] + extra)
    cyc = j["model"]["counts"]["cycles"]
    return {"cycles": j["counters"]["cycles"], "kernel": j["counters"].get("cycles_kernel") or 0,
            "faults": j["model"]["kernel"]["page_faults"],
            "instructions": j["counters"]["instructions"],
            "parts": {p: cyc.get(p, 0) for p in PARTS}}


def main():
    mb.setup()
    argv = sys.argv[1:]
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    jpath = mb.take(argv, "--json")
    profile = mb.take(argv, "--profile")
    extra = ["--profile", profile] if profile is not None else []
    asked = mb.positional(argv, __doc__)
    if asked is None:
        return 2
    ipcc, names = asked
    rows = []
    with tempfile.TemporaryDirectory() as d:
        mb.make_inputs(d)
        for name, once, thrice in forms(d):
            if names and name not in names:
                continue
            if not shutil.which(once[0]):
                print(f"{name}: {once[0]} is not installed; left out")
                continue
            (n1, f1), (n3, f3) = fewest(ipcc, [once, thrice])
            m1, m3 = modelled(ipcc, once, extra), modelled(ipcc, thrice, extra)
            native = (n3 - n1) / 2
            model = (m3["cycles"] + m3["kernel"] - m1["cycles"] - m1["kernel"]) / 2
            row = dict(program=name, native_once=n1, native_thrice=n3, native_faults=[f1, f3],
                       native_per_rep=native, model_once=m1, model_thrice=m3,
                       model_per_rep=model, error=model / native - 1 if native > 0 else None,
                       parts_per_rep={p: (m3["parts"][p] - m1["parts"][p]) / 2 for p in PARTS})
            rows.append(row)
            parts = ", ".join(f"{p} {v / 1e6:.1f}" for p, v in row["parts_per_rep"].items()
                              if abs(v) >= 0.05e6)
            err = f"{100 * row['error']:+6.1f}%" if row["error"] is not None else "   n/a"
            print(f"{name:8} a repetition: native {native / 1e6:8.1f} Mcycles, model "
                  f"{model / 1e6:8.1f} ({err}; instructions "
                  f"{(m3['instructions'] - m1['instructions']) / 2e6:.1f} M; faults natively "
                  f"{f1} and {f3}, modelled {m1['faults']} and {m3['faults']}; kernel "
                  f"{(m3['kernel'] - m1['kernel']) / 2e6:.1f}); the model's parts: {parts}",
                  flush=True)
    errs = [abs(r["error"]) for r in rows if r["error"] is not None]
    if errs:
        print(f"\nmean |error| of a repetition: {100 * sum(errs) / len(errs):.1f}% over "
              f"{len(errs)} programs")
    if jpath:
        with open(jpath, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

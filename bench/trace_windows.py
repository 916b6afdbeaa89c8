#!/usr/bin/env python3
"""bench/trace_windows.py [--every N] [--len N] [--profile P] BUILD -- CMD [ARGS...]: the
pipeline model over windows of a command's real order of segments, beside each segment alone
as a loop, as the model backend models it (docs/internals/model-backend.md, stop 69).

Runs CMD to its end under ipcc's Valgrind tool (BUILD/valgrind, as ipcc stat --backend model
does, following its children) with --ipcc-trace: each process writes its segments and the
order they ran in, a window of --len instructions (default 10,000) every --every (default
20,000,000) of the thread running. Then BUILD/bench/trace_windows runs each process's windows
through the pipeline model with profile P (default auto) and prints, a process a line, the
cycles an instruction of the real order and of the segments alone, their ratio and the taken
branches an instruction. A diagnostic of the model, not a figure of the machine: in the real
order the dataflow of gcc's cc1 and of python3 runs at 8.3-8.8 instructions a cycle, half
the cycles of the same segments alone.
"""
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    argv = sys.argv[1:]
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    opts = {"--every": "20000000", "--len": "10000", "--profile": "auto"}
    while argv and argv[0] in opts:
        if len(argv) < 2:
            print(f"trace_windows.py: {argv[0]} needs a value", file=sys.stderr)
            return 2
        opts[argv[0]] = argv[1]
        argv = argv[2:]
    if len(argv) < 3 or argv[1] != "--":
        print("usage: trace_windows.py [--every N] [--len N] [--profile P] BUILD -- CMD [ARGS...]",
              file=sys.stderr)
        return 2
    build, cmd = argv[0], argv[2:]
    for n in ("--every", "--len"):
        if not opts[n].isdigit() or int(opts[n]) < 1:
            print(f"trace_windows.py: {n} wants a whole number, not '{opts[n]}'", file=sys.stderr)
            return 2
    lib = os.path.join(build, "valgrind")
    prog = os.path.join(build, "bench", "trace_windows")
    if not os.path.exists(os.path.join(lib, "ipcc-amd64-linux")) or not os.path.exists(prog):
        print(f"trace_windows.py: no ipcc tool or bench/trace_windows in {build}", file=sys.stderr)
        return 2
    if not shutil.which("valgrind"):
        print("trace_windows.py: no valgrind ('make deps' installs it)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as d:
        run = subprocess.run(
            ["valgrind", "--tool=ipcc", "-q", "--trace-children=yes",
             f"--ipcc-out={d}/ipcc-vg.%p", f"--ipcc-trace={d}/ipcc-trace.%p",
             f"--ipcc-trace-every={opts['--every']}", f"--ipcc-trace-len={opts['--len']}"] + cmd,
            env=dict(os.environ, VALGRIND_LIB=lib), stdout=subprocess.DEVNULL)
        if run.returncode:
            print(f"trace_windows.py: {' '.join(cmd)} exited {run.returncode}", file=sys.stderr)
            return 1
        pids = sorted(int(f.split(".")[1]) for f in os.listdir(d)
                      if f.startswith("ipcc-trace.") and f.count(".") == 1)
        for pid in pids:
            counts, trace = f"{d}/ipcc-vg.{pid}", f"{d}/ipcc-trace.{pid}"
            if not os.path.exists(counts) or not os.path.getsize(trace):
                continue
            out = subprocess.run([prog, "--profile", opts["--profile"], counts, trace],
                                 capture_output=True, text=True)
            if out.returncode:
                print(f"trace_windows.py: process {pid}: {out.stderr.strip()}", file=sys.stderr)
                return 1
            lines = out.stdout.splitlines()
            exe = next((l.split(" ", 1)[1].strip() for l in open(counts) if l.startswith("exe ")), "?")
            print(f"process {pid} ({exe}): {lines[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

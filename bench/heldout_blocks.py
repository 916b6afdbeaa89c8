#!/usr/bin/env python3
"""heldout_blocks.py [--linear] [N] [SEED] > blocks.txt

Basic blocks from programs the model was never fitted on: Debian's own builds of liblzma,
zlib, bzip2, zstd, SQLite, PCRE2, GMP, expat and OpenSSL's libcrypto, as this machine has
them. objdump disassembles each library's .text; a block is a run of instructions that
starts after a branch (or at a branch target) and ends before the next branch or target,
as BHive cuts them (the branch itself left out). Blocks of 2 to 40 instructions, each once,
N of them drawn at random (default 2000, seed 1), one a line as HEX,LIBRARY.

Only code that can run is taken: after a jmp, ret, ud2, hlt or int3 nothing starts a block
until a branch's or call's target or a symbol (objdump's sweep otherwise reads the padding
and the tables OpenSSL's assembly keeps in .text as instructions: fsubrp st(5), st; mov bh,
0x82). --linear takes every run, as the sets drawn before 2026-11-29's evening were.

bench/blocks.sh runs `ipcc bench --blocks` on them beside the BHive sample.
"""
import os
import random
import re
import subprocess
import sys

LIBS = ["liblzma.so.5", "libz.so.1", "libbz2.so.1", "libzstd.so.1", "libsqlite3.so.0",
        "libpcre2-8.so.0", "libgmp.so.10", "libexpat.so.1", "libcrypto.so.3"]
DIRS = ["/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu"]
LINE = re.compile(r"^\s*([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\t?(\S*)\s*(.*)$")
BRANCH = re.compile(r"^(j[a-z]+|call|ret|loop[a-z]*|jmp|syscall|ud2|hlt|int3?|bnd)$")


END = re.compile(r"^(jmp|ret|ud2|hlt|int3)$")  # nothing falls through these


def blocks(path, linear=False):
    out = subprocess.run(["objdump", "-d", "-w", path],
                         capture_output=True, text=True, check=True).stdout
    insns, targets = [], set()
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            if line.endswith(">:"):  # a function's start
                insns.append(None)
            continue
        addr, raw, mnem, ops = int(m.group(1), 16), m.group(2).split(), m.group(3), m.group(4)
        if mnem in ("bnd", "notrack") and ops:  # prefixes objdump prints as words
            mnem = ops.split()[0]
        insns.append((addr, "".join(raw), mnem))
        if mnem.startswith("j") or mnem == "call":
            t = re.search(r"\b([0-9a-f]+) <", ops)
            if t:
                targets.add(int(t.group(1), 16))
    cur, live = [], True
    for ins in insns:
        if ins is None or BRANCH.match(ins[2]) or ins[0] in targets or ins[2] == "(bad)":
            if 2 <= len(cur) <= 40 and (live or linear):
                yield "".join(h for _, h, _ in cur)
            cur = []
            if ins is None:
                live = True
                continue
            if ins[0] in targets:
                live = True
            if BRANCH.match(ins[2]) or ins[2] == "(bad)":
                live = live and not END.match(ins[2]) and ins[2] != "(bad)"
                continue
        cur.append(ins)


def main():
    args = sys.argv[1:]
    if args and args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return
    linear = "--linear" in args
    args = [a for a in args if a != "--linear"]
    try:
        n = int(args[0]) if args else 2000
        seed = int(args[1]) if len(args) > 1 else 1
    except ValueError:
        print("heldout_blocks: N and SEED are whole numbers (see --help)", file=sys.stderr)
        sys.exit(2)
    if len(args) > 2 or n < 1:
        print("usage: heldout_blocks.py [--linear] [N] [SEED] (see --help)", file=sys.stderr)
        sys.exit(2)
    seen, pool = set(), []
    for lib in LIBS:
        path = next((os.path.join(d, lib) for d in DIRS if os.path.exists(os.path.join(d, lib))),
                    None)
        if not path:
            print(f"heldout_blocks: no {lib} here", file=sys.stderr)
            continue
        name = lib.split(".so")[0]
        for b in blocks(path, linear):
            if b not in seen:
                seen.add(b)
                pool.append(f"{b},{name}")
    random.seed(seed)
    for line in random.sample(pool, min(n, len(pool))):
        print(line)
    print(f"heldout_blocks: {min(n, len(pool))} of {len(pool)} blocks", file=sys.stderr)


if __name__ == "__main__":
    main()

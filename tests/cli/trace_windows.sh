#!/bin/sh
# trace_windows.sh SRC BUILD MODEL_COUNTS: bench/trace_windows.py (the pipeline model over
# windows of a command's real order of segments, beside each segment alone) on a loop of one
# segment, model_counts' counted(): four instructions, an add chain through a register. Each
# window's real order is that segment's own loop, so the two ways agree (the ratio 0.95 to
# 1.05, a cycle a pass: 0.25 an instruction), with a taken branch every four instructions
# and a fetch block of four a cycle either way (at the width and at the decoders' four), in
# a window every 100,000 instructions of the 4,000,000. Bad arguments exit 2.
set -eu
src=$1 build=$2 prog=$3
command -v valgrind >/dev/null || { echo "SKIP: no valgrind (make deps installs it)"; exit 77; }
[ -x "$build/valgrind/ipcc-amd64-linux" ] || { echo "SKIP: no ipcc Valgrind tool built"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
out=$(python3 "$src/bench/trace_windows.py" --every 100000 --len 2000 --profile zen5 "$build" \
    -- "$prog" 1000000) || fail "trace_windows.py: $out"
echo "$out"
echo "$out" | awk '/model_counts/ {
    for (i = 1; i <= NF; i++) {
        if ($i == "windows,") w = $(i - 1)
        if ($i == "order") real = $(i + 1)
        if ($i == "ratio") { r = $(i + 1); sub(/;/, "", r) }
        if ($i == "branches") taken = $(i + 1)
        if ($i == "at" && $(i + 2) == "a" && $(i + 1) != 4) { wide = $(i + 4); sub(/,/, "", wide) }
        if ($i == "at" && $(i + 1) == 4) dec = $(i + 4)
    }
    found = 1
}
END { exit !(found && w >= 30 && r >= 0.95 && r <= 1.05 && real >= 0.2 && real <= 0.3 &&
             taken >= 0.23 && taken <= 0.26 && wide >= 0.23 && wide <= 0.26 &&
             dec >= 0.23 && dec <= 0.26) }' ||
    fail "counted()'s loop: not its own loop's figures, a taken branch and a fetch block a cycle every four instructions"
st=0
python3 "$src/bench/trace_windows.py" --len x "$build" -- true 2>/dev/null || st=$?
[ "$st" = 2 ] || fail "--len x: exit $st, not 2"
st=0
python3 "$src/bench/trace_windows.py" "$build/no-such-dir" -- true 2>/dev/null || st=$?
[ "$st" = 2 ] || fail "a build folder without the tool: exit $st, not 2"
st=0
"$build/bench/trace_windows" 2>/dev/null || st=$?
[ "$st" = 2 ] || fail "trace_windows without files: exit $st, not 2"
echo "ok: a loop of one segment is its own real order; bad arguments exit 2"

#!/bin/sh
# model_traces.sh IPCC PROG: a hot segment in a loop of more segments than a short walk
# finds (model_traces.c: ten never-taken branches and a call to a function whose last
# segment ends as glibc's memcmp does, tzcnt rax, rax; movzx eax, byte [rsi + rax]; ret).
# Alone as a loop, that segment carries rax into its next pass: 15.5 cycles an iteration
# under goldencove when the walk stopped at 8 segments. In its loop, 8.5; natively 6.75 on
# a Granite Rapids-class guest. Runs for N and 2N iterations; the difference is N
# iterations, so the start-up cancels.
set -u
ipcc=$1
prog=$2
fail() { echo "FAIL: $*"; exit 1; }
command -v valgrind >/dev/null || { echo "SKIP: no valgrind (make deps installs it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=100000
for i in $n $((2 * n)); do
    "$ipcc" stat --backend model --profile goldencove --format json -o "$tmp/$i.json" \
        -- "$prog" $i 2>"$tmp/err" >/dev/null || fail "$i iterations: $(cat "$tmp/err")"
done
c=$(jq -n --slurpfile a "$tmp/$n.json" --slurpfile b "$tmp/$((2 * n)).json" --argjson n $n \
    '($b[0].counters.cycles - $a[0].counters.cycles) / $n')
awk -v c="$c" 'BEGIN { exit !(c > 4 && c < 11) }' ||
    fail "$c cycles an iteration: the tail segment modelled alone (15.5), not in its loop"
echo "ok: the loop of 13 segments at $c cycles an iteration"

#!/bin/sh
# annotate_loops.sh IPCC NESTED: ipcc annotate --loops finds the loop nest of a program that
# spends nearly all its time in one inner loop: the chosen loops are in its function and hold
# at least 90% of the samples; the inner loop is shown indented under its parent. Shares of
# samples only, never times. With --model, the outer loop (chosen: its inner loop holds under
# 95% of its samples) names its inner loop.
set -u
ipcc=$1 prog=$2
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$ipcc" record -o "$tmp/p" -- "$prog" >/dev/null 2>"$tmp/err"; then
    grep -q 'cannot sample .* (permission denied)' "$tmp/err" && { cat "$tmp/err"; exit 77; }
    fail "record: $(cat "$tmp/err")"
fi
"$ipcc" annotate -i "$tmp/p" --loops 3 >"$tmp/out" 2>&1 || fail "annotate --loops: $(cat "$tmp/out")"
cat "$tmp/out"
share=$(sed -n 's/.*functions: \([0-9.]*\)% of the samples.*/\1/p' "$tmp/out")
[ -n "$share" ] || fail "no covered share"
awk -v s="$share" 'BEGIN { exit !(s >= 90) }' || fail "the chosen loops hold $share%, want >= 90%"
# Every loop shown is work()'s, and the hottest holds most of the samples.
awk 'NR > 3 && $NF != "(nested_loops)" { bad = 1 } END { exit bad }' "$tmp/out" ||
    fail "a loop outside the program"
awk 'NR > 3 && $0 !~ /work/ { bad = 1 } END { exit bad }' "$tmp/out" ||
    fail "a loop outside work()"
awk 'NR == 4 { exit !($2 + 0 >= 80) }' "$tmp/out" || fail "the hottest loop holds under 80%"
"$ipcc" annotate -i "$tmp/p" --model --profile zen4 --loops 5 --cover 1 --format json \
    >"$tmp/model.json" 2>"$tmp/err" || fail "annotate --model: $(cat "$tmp/err")"
jq -e '[.loops[] | select((.function | test("^work")) and .inner_loops > 0)]
       | length > 0 and all(.inner_loops == 1 and (.inner | length == 1) and
                            .inner[0].samples > 0 and .inner[0].samples < .samples)' \
    "$tmp/model.json" \
    >/dev/null || fail "--model: no outer loop of work() names its inner loop: $(cat "$tmp/model.json")"
"$ipcc" annotate -i "$tmp/p" --model --profile zen4 --loops 5 --cover 1 >"$tmp/out" 2>&1 ||
    fail "annotate --model: $(cat "$tmp/out")"
grep -q '^  inner loop work[^ ]*+0x[0-9a-f]*-0x[0-9a-f]*, [0-9]* samples$' "$tmp/out" ||
    fail "--model: no inner loop line: $(cat "$tmp/out")"
exit 0

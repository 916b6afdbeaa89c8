#!/bin/sh
# stat_model_regions.sh IPCC PROGRAM: ipcc stat --backend model --regions on model_regions.c,
# whose regions hold known work: "inner" K calls of counted(n) (4n + 3 instructions each),
# "outer" around them, one more call outside. The regions' instructions and loads grow
# exactly as n does; each region holds what runs inside it; calls are counted; two runs
# agree; text, JSON and the report page show them; without --regions there are none. Skips (77) only where
# Valgrind cannot be installed.
set -u
ipcc=$1
prog=$2
fail() { echo "FAIL: $*"; exit 1; }
command -v valgrind >/dev/null || { echo "SKIP: no valgrind (make deps installs it)"; exit 77; }
command -v jq >/dev/null || fail "jq is needed (scripts/install-deps installs it)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export IPCC_CACHE_DIR="$tmp/cache"
k=3
n1=100000
n2=150000

run() { # run N OUT
    "$ipcc" stat --backend model --regions --format json -o "$2" -- "$prog" "$1" $k \
        2>"$2.err" || fail "n=$1: exit $? $(cat "$2.err")"
}
run $n1 "$tmp/a.json"
# ipcc's own TCFREQ is in the boot cache now; the program under Valgrind must not replace it
# (its CPU is Valgrind's: a calibration there differs run to run, and so did ref_cycles).
cp "$tmp/cache/tcfreq" "$tmp/tcfreq" 2>/dev/null || fail "no TCFREQ in the boot cache"
run $n2 "$tmp/b.json"
run $n2 "$tmp/c.json"
cmp -s "$tmp/cache/tcfreq" "$tmp/tcfreq" ||
    fail "the model's runs replaced the boot cache's TCFREQ: $(cat "$tmp/cache/tcfreq")"
reg() { jq -c --arg r "$2" '.regions.regions[] | select(.name == $r)' "$1"; }
get() { reg "$1" "$2" | jq "$3"; }

jq -e '.regions.backend == "model" and (.regions.regions | length) == 2' "$tmp/a.json" \
    >/dev/null || fail "not the model's two regions: $(jq -c .regions "$tmp/a.json")"
[ "$(get "$tmp/a.json" inner .calls)" = $k ] || fail "inner: calls $(get "$tmp/a.json" inner .calls)"
[ "$(get "$tmp/a.json" outer .calls)" = 1 ] || fail "outer: calls $(get "$tmp/a.json" outer .calls)"
# Exact: n grows by n2 - n1, so each region's instructions grow by K x 4 x (n2 - n1), its
# loads and stores by K x (n2 - n1); the region calls' own instructions cancel out.
for r in inner outer; do
    for f in "counters.instructions.total:4" "model.loads:1" "model.stores:1"; do
        path=${f%:*} per=${f#*:}
        a=$(get "$tmp/a.json" $r ".$path") b=$(get "$tmp/b.json" $r ".$path")
        [ $((b - a)) = $((k * per * (n2 - n1))) ] ||
            fail "$r: .$path grew by $((b - a)), not $((k * per * (n2 - n1)))"
    done
done
# Each region holds what runs inside it: outer = inner + the loop and the region calls
# (a few hundred instructions); the whole run = outer + the call outside + start-up.
jq -e --arg n $n2 '
    (.regions.regions | map({(.name): .counters.instructions.total}) | add) as $r |
    ($r.outer - $r.inner) as $d | $d > 0 and $d < 2000 and
    .counters.instructions - $r.outer >= 4 * ($n | tonumber) + 3' "$tmp/b.json" >/dev/null ||
    fail "nesting: $(jq -c '[.counters.instructions, (.regions.regions[] | .counters.instructions.total)]' "$tmp/b.json")"
# The inner region's cycles: counted's loop, 1 to 12 cycles an iteration on any core; its
# slots split four ways.
jq -e --arg n $n2 --arg k $k '.regions.regions[] | select(.name == "inner") | .counters |
    (.cycles.total / ($n | tonumber) / ($k | tonumber)) as $c | $c >= 1 and $c <= 12 and
    .slots_total.total > 0 and .slots_retired.total <= .slots_issued.total and
    .slots_issued.total <= .slots_filled.total and .slots_filled.total <= .slots_total.total' \
    "$tmp/b.json" >/dev/null || fail "inner's cycles or slots: $(reg "$tmp/b.json" inner)"
# The kernel's part, each region's: with 100 pages mapped, written and unmapped in each
# inner call, inner and outer have K x 100 page faults and 2K system calls more than
# without, and kernel cycles more; the whole run as many more.
"$ipcc" stat --backend model --regions --format json -o "$tmp/p.json" -- "$prog" $n2 $k 100 \
    2>"$tmp/p.err" || fail "pages: $(cat "$tmp/p.err")"
for r in inner outer; do
    jq -n --arg r $r --arg k $k --slurpfile a "$tmp/b.json" --slurpfile b "$tmp/p.json" '
        def g($j): $j.regions.regions[] | select(.name == $r) | .counters;
        (g($b[0]).page_faults.total - g($a[0]).page_faults.total) == 100 * ($k | tonumber) and
        (g($b[0]).cycles_kernel.total > g($a[0]).cycles_kernel.total) and
        ([$a[0], $b[0]] | map(.regions.regions[] | select(.name == $r) | .model.kernel.syscalls) |
            .[1] - .[0]) == 2 * ($k | tonumber) and
        ($b[0].model.kernel.syscalls - $a[0].model.kernel.syscalls) == 2 * ($k | tonumber) and
        ($b[0].counters.page_faults - $a[0].counters.page_faults) == 100 * ($k | tonumber)' \
        >/dev/null || fail "$r: the kernel's part: $(reg "$tmp/b.json" $r | jq -c '.counters | [.page_faults, .cycles_kernel]') without pages, $(reg "$tmp/p.json" $r | jq -c '.counters | [.page_faults, .cycles_kernel]') with"
done
# Deterministic.
[ "$(jq -c .regions "$tmp/b.json")" = "$(jq -c .regions "$tmp/c.json")" ] ||
    { jq .regions "$tmp/b.json" >"$tmp/b.r"; jq .regions "$tmp/c.json" >"$tmp/c.r"
      diff "$tmp/b.r" "$tmp/c.r" | head -20; fail "two runs give different regions"; }
# The report page shows them, modelled, over all threads, with the profile named.
"$ipcc" report --stat "$tmp/b.json" -o "$tmp/page.html" 2>/dev/null || fail "ipcc report"
grep -q "all threads · $k calls" "$tmp/page.html" || fail "report: no model region"
grep -q '<th>model profile</th><td>' "$tmp/page.html" || fail "report: no model profile"
# Text: the table, a row a region.
"$ipcc" stat --backend model --regions -- "$prog" 1000 2 2>"$tmp/text" || fail "text run"
grep -q '^  regions (all threads' "$tmp/text" || fail "text: no regions table"
grep -Eq '^  inner +2 ' "$tmp/text" || fail "text: no row for inner: $(grep -A4 regions "$tmp/text")"
# Without --regions: none.
"$ipcc" stat --backend model --format json -o "$tmp/d.json" -- "$prog" 1000 2 2>/dev/null ||
    fail "run without --regions"
jq -e 'has("regions") | not' "$tmp/d.json" >/dev/null || fail "regions without --regions"
echo "ok: regions' counts exact in n, nested, counted, deterministic, in text and JSON"

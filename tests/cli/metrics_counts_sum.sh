#!/bin/sh
# metrics_counts_sum.sh IPCC DATA: ipcc metrics --counts with several files (repeated, or
# the words after it) sums their counts, averages rates (kHz), leaves a count that one file
# lacks unknown, and says on stderr how many files it read.
set -eu
ipcc=$1 data=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/m.xml" <<'XML'
<metric name="instructions" unit="count"><event alias="i">instructions</event><formula>i</formula></metric>
<metric name="cycles" unit="count"><event alias="c">cycles</event><formula>c</formula></metric>
<metric name="tcfreq" unit="kHz"><event alias="f">tcfreq_khz</event><formula>f</formula></metric>
<metric name="smt" unit="count"><event alias="s">slots_smt</event><formula>s</formula></metric>
<metric name="extra" unit="count"><event alias="e">only_in_a</event><formula>e</formula></metric>
XML
s=$data/counts/ipcc-stat.json
jq '.counters.instructions = 1000 | .counters.cycles = 10 | .tcfreq_khz = 1000000 |
    .extra = {"only_in_a": 5}' "$s" >"$dir/a.json"
jq '.counters.instructions = 2000 | .counters.cycles = 20 | .tcfreq_khz = 3000000' "$s" >"$dir/b.json"
jq '.counters.instructions = 4000 | .counters.cycles = 40 | .tcfreq_khz = 2000000' "$s" >"$dir/c.json"
check() { # what, then the ipcc metrics arguments
    what=$1; shift
    "$ipcc" metrics -m "$dir/m.xml" --format json "$@" >"$dir/out" 2>"$dir/err"
    grep -qx 'ipcc metrics: the sum of the counts of 3 files' "$dir/err" ||
        { echo "$what: no line saying 3 files:"; cat "$dir/err"; exit 1; }
    jq -e '[.metrics[] | {(.name): .value}] | add |
        .instructions == 7000 and .cycles == 70 and .tcfreq == 2000000 and
        .smt == null and .extra == null' "$dir/out" >/dev/null ||
        { echo "$what: wrong sums:"; jq -c '[.metrics[] | {(.name): .value}] | add' "$dir/out"; exit 1; }
}
check "repeated --counts" --counts "$dir/a.json" --counts "$dir/b.json" --counts "$dir/c.json"
check "--counts A B C" --counts "$dir/a.json" "$dir/b.json" "$dir/c.json"
# One file: as before, no line about files.
"$ipcc" metrics -m "$dir/m.xml" --counts "$dir/a.json" >/dev/null 2>"$dir/err"
[ ! -s "$dir/err" ] || { echo "one file: unexpected stderr:"; cat "$dir/err"; exit 1; }
# A bad file among several: named, exit 2.
echo '{' >"$dir/bad.json"
"$ipcc" metrics -m "$dir/m.xml" --counts "$dir/a.json" "$dir/bad.json" >/dev/null 2>"$dir/err" && st=0 || st=$?
[ "$st" = 2 ] && grep -q "bad.json" "$dir/err" || { echo "bad file: exit $st:"; cat "$dir/err"; exit 1; }
echo "ok: metrics --counts sums several files"

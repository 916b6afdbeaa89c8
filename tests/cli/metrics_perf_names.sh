#!/bin/sh
# metrics_perf_names.sh IPCC SOURCE_DIR: for every recipe, counts that perf stat -x, wrote
# with perf's own event names (tests/data/counts/perf-names-<recipe>.csv: its JSON names,
# generic names, sysfs topdown names, cpu_atom/EVENT/, raw rNNN) give every metric of
# metrics/topdown-<recipe>.xml a value, and the four fractions sum to 1.
set -u
ipcc=$1 src=$2
status=0 n=0
cd "$src" || exit 1
for f in tests/data/counts/perf-names-*.csv; do
    r=$(sed -n 's/^# recipe: //p' "$f")
    set_args=$(sed -n 's/^# set: /--set /p' "$f")
    # shellcheck disable=SC2086
    out=$("$ipcc" metrics -m "metrics/topdown-$r.xml" --counts "$f" --format csv $set_args) || {
        echo "$f: ipcc metrics failed"; status=1; continue; }
    # name,value,unit,parent,cycles,share_of_parent,share_of_total,missing,flags
    bad=$(printf '%s\n' "$out" | awk -F, 'NR > 1 && ($2 == "" || $(NF-1) != "\"\"") { print }')
    if [ -n "$bad" ]; then
        echo "$f: metrics without a value (recipe $r):"; printf '%s\n' "$bad"; status=1
    fi
    sum=$(printf '%s\n' "$out" | awk -F, '$4 == "\"slots\"" && $1 != "\"of which SMT contention\"" { s += $2 } END { printf "%.9f", s }')
    [ "$sum" = "1.000000000" ] || { echo "$f: fractions sum to $sum, not 1"; status=1; }
    n=$((n + 1))
done
[ $n -ge 16 ] || { echo "only $n perf-names files"; status=1; }
[ $status = 0 ] && echo "ok: $n recipes read perf's event names"
exit $status

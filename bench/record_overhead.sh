#!/bin/sh
# record_overhead.sh IPCC HOT_LOOP [RUNS] [HZ]: the wall time of a CPU-bound program alone,
# under `ipcc record` and under `perf record` (when it can sample here) at the same rate on
# the same software event (task-clock), in turn, RUNS times (7); prints the medians and the
# ratios to the plain run, measured side by side.
set -eu
ipcc=$1 hot=$2 runs=${3:-7} hz=${4:-4000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s%N; }
have_perf=0
perf record -e task-clock -F "$hz" -o "$tmp/perf.data" -q -- true >/dev/null 2>&1 && have_perf=1
plain= ipcc_t= perf_t= ipcc_0= perf_0=
i=0
while [ $i -lt "$runs" ]; do
    a=$(now); "$hot" || true; b=$(now); plain="$plain $((b - a))"
    a=$(now); "$ipcc" record -F "$hz" -o "$tmp/p" -- "$hot" 2>/dev/null; b=$(now)
    ipcc_t="$ipcc_t $((b - a))"
    if [ $have_perf = 1 ]; then
        a=$(now); perf record -e task-clock -F "$hz" -o "$tmp/perf.data" -q -- "$hot" 2>/dev/null || true
        b=$(now); perf_t="$perf_t $((b - a))"
    fi
    # Each tool's fixed cost: recording `true`, which runs for about a millisecond.
    a=$(now); "$ipcc" record -F "$hz" -o "$tmp/p" -- true 2>/dev/null; b=$(now)
    ipcc_0="$ipcc_0 $((b - a))"
    if [ $have_perf = 1 ]; then
        a=$(now); perf record -e task-clock -F "$hz" -o "$tmp/perf.data" -q -- true 2>/dev/null
        b=$(now); perf_0="$perf_0 $((b - a))"
    fi
    i=$((i + 1))
done
median() { printf '%s\n' $1 | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
p=$(median "$plain") q=$(median "$ipcc_t")
echo "wall time of $(basename "$hot") sampled at $hz Hz on task-clock, median of $runs runs"
echo "  alone          $((p / 1000)) us"
awk -v t="$q" -v p="$p" -v z="$(median "$ipcc_0")" 'BEGIN {
    printf "  ipcc record    %d us   %.3fx alone; recording `true` takes %d us\n", t / 1000, t / p, z / 1000 }'
if [ $have_perf = 1 ]; then
    r=$(median "$perf_t")
    awk -v t="$r" -v p="$p" -v q="$q" -v z="$(median "$perf_0")" 'BEGIN {
        printf "  perf record    %d us   %.3fx alone; recording `true` takes %d us\n", t / 1000, t / p, z / 1000
        printf "  ipcc record / perf record = %.3f (goal <= 1)\n", q / t }'
else
    echo "  perf record    n/a (perf is not installed or cannot sample here)"
fi

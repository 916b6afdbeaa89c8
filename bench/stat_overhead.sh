#!/bin/sh
# stat_overhead.sh IPCC [RUNS]: the wall time ipcc stat adds to a 1-second command, beside
# what perf stat (when installed) adds in the same runs. Runs `sleep 1` alone, under
# `ipcc stat` and under `perf stat` with the same software events, in turn, RUNS times (7),
# and prints the medians of the differences (date's ns clock around each command).
set -eu
ipcc=$1 runs=${2:-7}
now() { date +%s%N; }
have_perf=0
perf stat -e task-clock -o /dev/null -- true >/dev/null 2>&1 && have_perf=1
ipcc_add= perf_add=
i=0
while [ $i -lt "$runs" ]; do
    a=$(now); sleep 1; b=$(now); plain=$((b - a))
    a=$(now); "$ipcc" stat -o /dev/null -- sleep 1; b=$(now); ipcc_add="$ipcc_add $((b - a - plain))"
    if [ $have_perf = 1 ]; then
        a=$(now)
        perf stat -e task-clock,context-switches,cpu-migrations,page-faults -o /dev/null -- sleep 1
        b=$(now); perf_add="$perf_add $((b - a - plain))"
    fi
    i=$((i + 1))
done
median() { printf '%s\n' $1 | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
range() { printf '%s\n' $1 | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%d to %d us", lo / 1000, hi / 1000 }'; }
echo "wall time added to sleep 1, median of $runs runs (range)"
echo "  ipcc stat    $(( $(median "$ipcc_add") / 1000 )) us   ($(range "$ipcc_add"))   goal < 1000 us"
if [ $have_perf = 1 ]; then
    echo "  perf stat    $(( $(median "$perf_add") / 1000 )) us   ($(range "$perf_add"))"
else
    echo "  perf stat    n/a (perf is not installed or cannot count here)"
fi

#!/bin/sh
# stat_overhead.sh IPCC [RUNS]: what `ipcc stat` adds to a command's wall time, measured side
# by side. In turn, RUNS times (21): `sleep 0.05` alone, under `ipcc stat -o /dev/null`, and
# under `perf stat` with the same software events (when perf can count here); then `true`
# alone and under `ipcc stat`. Prints the medians and the ratios to the plain runs: the goal
# is ipcc stat / plain <= 1.02 on sleep 0.05, i.e. < 1 ms added. The first ipcc run of a boot
# calibrates TCFREQ; one run before the loop keeps that out of the figures (see ipcc(1)).
set -eu
ipcc=$1 runs=${2:-21}
now() { date +%s%N; }
have_perf=0
perf stat -e task-clock -o /dev/null -- true >/dev/null 2>&1 && have_perf=1
"$ipcc" stat -o /dev/null -- true
plain= under= perf= tplain= tunder=
i=0
while [ $i -lt "$runs" ]; do
    a=$(now); sleep 0.05; b=$(now); plain="$plain $((b - a))"
    a=$(now); "$ipcc" stat -o /dev/null -- sleep 0.05; b=$(now); under="$under $((b - a))"
    if [ $have_perf = 1 ]; then
        a=$(now)
        perf stat -e task-clock,context-switches,cpu-migrations,page-faults -o /dev/null -- sleep 0.05
        b=$(now); perf="$perf $((b - a))"
    fi
    a=$(now); true; b=$(now); tplain="$tplain $((b - a))"
    a=$(now); "$ipcc" stat -o /dev/null -- true; b=$(now); tunder="$tunder $((b - a))"
    i=$((i + 1))
done
median() { printf '%s\n' $1 | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
us() { echo $(( $1 / 1000 )); }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
mp=$(median "$plain") mu=$(median "$under") tp=$(median "$tplain") tu=$(median "$tunder")
echo "wall time, median of $runs runs each, side by side"
echo "  sleep 0.05               $(us "$mp") us"
echo "  ipcc stat -- sleep 0.05  $(us "$mu") us   ratio $(ratio "$mu" "$mp")   goal <= 1.02"
if [ $have_perf = 1 ]; then
    mf=$(median "$perf")
    echo "  perf stat -- sleep 0.05  $(us "$mf") us   ratio $(ratio "$mf" "$mp")"
else
    echo "  perf stat -- sleep 0.05  n/a (perf is not installed or cannot count here)"
fi
echo "  true (the shell's builtin: fork only)        $(us "$tp") us"
echo "  ipcc stat -- true (fork, exec, counters)     $(us "$tu") us   added $(us $((tu - tp))) us"

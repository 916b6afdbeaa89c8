#!/bin/sh
# stat_overhead.sh IPCC [RUNS]: what `ipcc stat` adds to a command's wall time, measured side
# by side. In turn, RUNS times (21): `sleep 0.05` alone, under `ipcc stat -o /dev/null`, under
# `timeout 60` (the floor for any tool that starts a command and waits for it: one more exec
# and one more process) and under `perf stat` with the same software events (when perf can
# count here); then `/bin/true` alone and under `ipcc stat`. Prints the medians and the ratios to the plain runs: the goal
# is ipcc stat / plain <= 1.02 on sleep 0.05, i.e. < 1 ms added. The first ipcc run of a boot
# calibrates TCFREQ; one run before the loop keeps that out of the figures (see ipcc(1)).
set -eu
ipcc=$1 runs=${2:-21}
now() { date +%s%N; }
have_perf=0
perf stat -e task-clock -o /dev/null -- true >/dev/null 2>&1 && have_perf=1
"$ipcc" stat -o /dev/null -- true
plain= under= floor= perf= tplain= tunder=
i=0
while [ $i -lt "$runs" ]; do
    a=$(now); sleep 0.05; b=$(now); plain="$plain $((b - a))"
    a=$(now); "$ipcc" stat -o /dev/null -- sleep 0.05; b=$(now); under="$under $((b - a))"
    a=$(now); timeout 60 sleep 0.05; b=$(now); floor="$floor $((b - a))"
    if [ $have_perf = 1 ]; then
        a=$(now)
        perf stat -e task-clock,context-switches,cpu-migrations,page-faults -o /dev/null -- sleep 0.05
        b=$(now); perf="$perf $((b - a))"
    fi
    a=$(now); /bin/true; b=$(now); tplain="$tplain $((b - a))"
    a=$(now); "$ipcc" stat -o /dev/null -- /bin/true; b=$(now); tunder="$tunder $((b - a))"
    i=$((i + 1))
done
median() { printf '%s\n' $1 | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
us() { echo $(( $1 / 1000 )); }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
mp=$(median "$plain") mu=$(median "$under") mf0=$(median "$floor")
tp=$(median "$tplain") tu=$(median "$tunder")
echo "wall time, median of $runs runs each, side by side"
echo "  sleep 0.05               $(us "$mp") us"
echo "  ipcc stat -- sleep 0.05  $(us "$mu") us   ratio $(ratio "$mu" "$mp")   goal <= 1.02"
echo "  timeout 60 sleep 0.05    $(us "$mf0") us   ratio $(ratio "$mf0" "$mp")   (the floor: exec + spawn + wait)"
echo "  ipcc stat beyond the floor: $(us $((mu - mf0))) us"
if [ $have_perf = 1 ]; then
    mf=$(median "$perf")
    echo "  perf stat -- sleep 0.05  $(us "$mf") us   ratio $(ratio "$mf" "$mp")"
else
    echo "  perf stat -- sleep 0.05  n/a (perf is not installed or cannot count here)"
fi
echo "  /bin/true                  $(us "$tp") us"
echo "  ipcc stat -- /bin/true     $(us "$tu") us   added $(us $((tu - tp))) us"

#!/bin/sh
# stat_overhead.sh IPCC: the wall time ipcc stat adds to a 1-second command. Runs `sleep 1`
# alone and under `ipcc stat`, alternately, 7 times each, and prints the medians and their
# difference (both measured the same way, with date's ns clock around the command).
set -eu
ipcc=$1 runs=${2:-7}
now() { date +%s%N; }
plain= stat=
i=0
while [ $i -lt "$runs" ]; do
    a=$(now); sleep 1; b=$(now); plain="$plain $((b - a))"
    a=$(now); "$ipcc" stat -o /dev/null -- sleep 1; b=$(now); stat="$stat $((b - a))"
    i=$((i + 1))
done
median() { printf '%s\n' $1 | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
p=$(median "$plain") s=$(median "$stat")
echo "sleep 1 alone            median $p ns"
echo "ipcc stat -- sleep 1     median $s ns"
echo "added by ipcc stat       $(( (s - p) / 1000 )) us   (goal < 1000 us)"

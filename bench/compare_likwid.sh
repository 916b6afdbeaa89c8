#!/bin/sh
# compare_likwid.sh IPCC [RUNS]: ipcc's triad (a = b + s*c) beside likwid-bench's `stream`
# kernel (the same three streams, counted the same way: 2 reads + 1 write, no write-allocate
# traffic), 96 MB working set, one thread, run in turn RUNS times (5); prints the medians.
set -eu
ipcc=$1 runs=${2:-5}
command -v likwid-bench >/dev/null || { echo "likwid-bench not installed (apt-get install likwid)"; exit 0; }
i=0 l= p=
while [ $i -lt "$runs" ]; do
    l="$l $(likwid-bench -t stream -w S0:96MB:1 2>/dev/null | awk '/^MByte\/s/ { print $2 / 1000 }')"
    p="$p $("$ipcc" bench bandwidth.triad --threads 1 --size 96M --format csv | awk -F, 'NR == 2 { print $6 }')"
    i=$((i + 1))
done
median() { printf '%s\n' $1 | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ml=$(median "$l") mp=$(median "$p")
echo "triad, 96 MB, 1 thread, median of $runs runs taken in turn"
echo "  likwid-bench -t stream   $ml GB/s   (runs:$l)"
echo "  ipcc bench triad         $mp GB/s   (runs:$p)"
awk -v a="$mp" -v b="$ml" 'BEGIN { printf "  ipcc / likwid            %.3f\n", a / b }'

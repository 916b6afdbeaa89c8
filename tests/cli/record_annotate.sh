#!/bin/sh
# record_annotate.sh IPCC HOT_LOOP: ipcc record samples a CPU-bound program (task-clock: no
# PMU needed) and >= 95% of its samples land in its hot function; annotate shows it per
# function, per instruction (with disassembly), folded and as a footprint; a command that
# cannot run is an error that leaves no profile behind.
set -eu
ipcc=$1 hot=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$ipcc" record -F 1000 -o "$tmp/p" -- "$hot" 2>"$tmp/err"; then
    grep -q 'cannot sample .* (permission denied)' "$tmp/err" && { cat "$tmp/err"; exit 77; }
    cat "$tmp/err"; exit 1
fi
grep -q "samples (task-clock, freq 1000 Hz), 0 lost" "$tmp/err" ||
    { echo "no summary:"; cat "$tmp/err"; exit 1; }
"$ipcc" annotate -i "$tmp/p" --folded >"$tmp/folded"
awk '{ n = $NF; total += n; if ($1 ~ /;hot_loop$/) hot += n }
     END { if (total < 50 || hot < 0.95 * total) {
               printf "hot_loop has %d of %d samples\n", hot, total; exit 1 }
           printf "hot_loop: %d of %d samples\n", hot, total }' "$tmp/folded"
"$ipcc" annotate -i "$tmp/p" --top 1 | grep -q 'hot_loop' || { echo "top 1 is not hot_loop"; exit 1; }
"$ipcc" annotate -i "$tmp/p" --symbol hot_loop >"$tmp/sym"
grep -q 'imul' "$tmp/sym" || { echo "no disassembly:"; cat "$tmp/sym"; exit 1; }
[ "$("$ipcc" annotate -i "$tmp/p" --footprint --svg "$tmp/f.svg" | grep -c '%')" = 4 ] ||
    { echo "footprint needs four rows"; exit 1; }
grep -q '<polyline' "$tmp/f.svg" || { echo "no footprint curve"; exit 1; }
if "$ipcc" record -o "$tmp/q" -- /nonexistent/program 2>"$tmp/err"; then
    echo "recording a missing program succeeded"; exit 1
fi
grep -q "cannot run '/nonexistent/program'" "$tmp/err" && [ ! -e "$tmp/q" ] ||
    { echo "bad error or a profile left behind:"; cat "$tmp/err"; exit 1; }
echo "ok: record and annotate"

#!/bin/sh
# openmetrics_promtool.sh IPCC: ipcc stat and ipcc bench --format openmetrics pass Prometheus's
# own linter (promtool check metrics, Debian package prometheus); label values are escaped;
# an absent counter is left out (its reason in ipcc_absent_info), never 0.
set -eu
ipcc=$1
command -v promtool >/dev/null 2>&1 ||
    { echo "skipped: no promtool (apt-get install prometheus)"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# A command whose words need escaping: a double quote, a backslash and a newline.
nl='
'
"$ipcc" stat --format openmetrics -o "$dir/stat.prom" -- sh -c 'exit 3' "a\"b\\c${nl}d" && st=0 || st=$?
[ "$st" = 3 ] || { echo "stat exited $st, not the command's 3"; exit 1; }
promtool check metrics <"$dir/stat.prom" || { echo "promtool rejects stat's output:"; cat "$dir/stat.prom"; exit 1; }
tail -n 1 "$dir/stat.prom" | grep -qx '# EOF' || { echo "stat: no '# EOF' at the end"; exit 1; }
grep -qF 'command="sh -c exit 3 a\"b\\c\nd"' "$dir/stat.prom" ||
    { echo "the command label is not escaped:"; grep -m1 command= "$dir/stat.prom"; exit 1; }
grep -q '^ipcc_exit_status{.*} 3$' "$dir/stat.prom" || { echo "no ipcc_exit_status 3"; exit 1; }
for m in ipcc_elapsed_seconds ipcc_tcfreq_hertz ipcc_task_clock_seconds_total; do
    grep -q "^$m{.*cpu_model=\".*recipe=\".*backend=\"" "$dir/stat.prom" ||
        { echo "no $m with cpu_model, recipe and backend labels"; exit 1; }
done
grep -q '^# UNIT ipcc_elapsed_seconds seconds$' "$dir/stat.prom" || { echo "no UNIT line"; exit 1; }
# Each absent counter has a reason and no value.
for c in $(sed -n 's/^ipcc_absent_info{.*,counter="\([a-z_]*\)",reason=".\+"} 1$/\1/p' "$dir/stat.prom"); do
    if grep -q "^ipcc_count_total{.*counter=\"$c\"}" "$dir/stat.prom"; then
        echo "absent counter $c has a value"; exit 1
    fi
done
# With or without a PMU, something is counted.
grep -q '^ipcc_count_total{.*counter="page_faults"} [0-9]' "$dir/stat.prom" ||
    { echo "no page_faults count"; exit 1; }

"$ipcc" bench chain.add --repeat 3 --format openmetrics >"$dir/bench.prom"
promtool check metrics <"$dir/bench.prom" || { echo "promtool rejects bench's output:"; cat "$dir/bench.prom"; exit 1; }
grep -q '^ipcc_bench_iteration_seconds{.*kernel="chain.add",threads="1",size_bytes="0"} [0-9]' \
    "$dir/bench.prom" || { echo "no ipcc_bench_iteration_seconds for chain.add"; exit 1; }
tail -n 1 "$dir/bench.prom" | grep -qx '# EOF' || { echo "bench: no '# EOF' at the end"; exit 1; }
echo "ok: promtool accepts stat's and bench's OpenMetrics"

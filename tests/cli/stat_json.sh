#!/bin/sh
# stat_json.sh IPCC: `ipcc stat --format json` has every documented key; absent counters are
# null with a reason, never 0; on the time backend every hardware counter is absent.
set -eu
ipcc=$1
out=$("$ipcc" stat --format json -- true 2>&1 >/dev/null)
echo "$out" | jq -e '
    (.backend | IN("perf","time")) and
    (.elapsed_ns > 0) and (.tcfreq_khz > 0) and
    (.counters | has("instructions") and has("slots_total") and has("task_clock_ns")) and
    ([.counters | to_entries[] | select(.value == null) | .key] as $null
        | [.absent | keys[]] as $why | ($null - $why) == []) and
    (.breakdown == null or ([.breakdown.frontend, .breakdown.backend, .breakdown.speculation,
        .breakdown.retiring] | add | . > 0.999 and . < 1.001)) and
    (.exit_status == 0) and (.command == ["true"]) and
    (if .backend == "time" then
        .counters.instructions == null and .ipcc == null and .breakdown == null and
        (.absent.instructions | length > 0)
     else true end) and
    (.counters.task_clock_ns > 0)
' >/dev/null || { echo "unexpected JSON:"; echo "$out"; exit 1; }

# -r: median, min and max
out=$("$ipcc" stat --format json -r 3 -- true 2>&1 >/dev/null)
echo "$out" | jq -e '.runs == 3 and .min.elapsed_ns <= .elapsed_ns and .elapsed_ns <= .max.elapsed_ns' \
    >/dev/null || { echo "bad -r JSON:"; echo "$out"; exit 1; }

# CSV: a header and one row per figure, absent ones with a quoted reason
out=$("$ipcc" stat --format csv --backend time -- true 2>&1 >/dev/null)
echo "$out" | head -1 | grep -qx 'name,value,unit,min,max,coverage,absent'
echo "$out" | grep -q '^instructions,,count,,,,"the time backend counts no hardware events"$'
echo "ok: stat json, repeat and csv"

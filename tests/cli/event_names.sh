#!/bin/sh
# event_names.sh IPCC: an -e name that no table knows is bad usage (exit 2, the nearest names,
# nothing run); a real event this machine cannot count runs and is listed as absent.
set -u
ipcc=$1
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$ipcc" stat -e nonexistent_event -- touch "$tmp/ran" 2>"$tmp/err"
[ $? = 2 ] || fail "stat: a typo did not exit 2: $(cat "$tmp/err")"
grep -q "no event 'nonexistent_event' in libpfm4's .* table.*; nearest: " "$tmp/err" ||
    fail "stat: no nearest names: $(cat "$tmp/err")"
[ ! -e "$tmp/ran" ] || fail "stat ran the command after a bad -e"
"$ipcc" record -e nonexistent_event -o "$tmp/p" -- true 2>"$tmp/err"
[ $? = 2 ] || fail "record: a typo did not exit 2"
[ ! -e "$tmp/p" ] || fail "record wrote a profile after a bad -e"

# perf's generic name is an event everywhere: counted, or absent with its reason.
"$ipcc" stat --format json -e perf::PERF_COUNT_HW_CPU_CYCLES -- true >"$tmp/out" 2>&1 ||
    fail "stat with a real event failed: $(cat "$tmp/out")"
jq -e '(.extra["perf::PERF_COUNT_HW_CPU_CYCLES"] != null) or
       (.absent["perf::PERF_COUNT_HW_CPU_CYCLES"] | type == "string")' "$tmp/out" >/dev/null ||
    fail "a real event is neither counted nor absent with a reason: $(cat "$tmp/out")"
exit 0

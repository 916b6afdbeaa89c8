#!/bin/sh
# skid_json.sh IPCC: ipcc skid's JSON has the documented keys per kernel; the measured and
# predicted shares each sum to 1 over the loop (within the rounding of 112 shares printed to
# six digits: 1.3e-6 was seen); the fitted retire width is the one with the
# smallest distance; the run is pinned and split in halves (no verdict only when the halves
# differ more than the model does); the text form has a row per loop instruction; what the
# JSON holds reads back with --measured and gives the same distances.
set -eu
ipcc=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$ipcc" skid --seconds 0.2 --profile zen3 --format json adds load_nops >"$tmp/out.json" \
    2>"$tmp/err"; then
    # Sampling refused (perf_event_paranoid 3): skipped; any other failure fails.
    grep -q '(permission denied)' "$tmp/err" && { cat "$tmp/err"; exit 77; }
    cat "$tmp/err"; exit 1
fi
jq -e '
    (.kernels | length) == 2 and
    ([.kernels[].name] == ["skid.adds", "skid.load_nops"]) and
    ([.kernels[].rows | length] == [42, 112]) and
    (.kernels | all(
        .profile == "zen3" and .samples >= 100 and
        (.distance >= 0 and .distance <= 1) and
        (.verdict | IN("matches", "same-places", "partly", "differs", null)) and
        (.verdict != null or .repeat_distance > .distance) and
        (.cpu | type == "number") and .pinned == true and
        (.repeat_distance == null or (.repeat_distance >= 0 and .repeat_distance <= 1)) and
        (.rows | all(.half[0] + .half[1] == .samples)) and
        (([.rows[].measured] | add) - 1 | fabs < 1e-4) and
        (([.rows[].predicted] | add) - 1 | fabs < 1e-4) and
        (.rows | all(has("offset") and has("text") and has("selected"))) and
        (.distance_by_retire_width | length == 8) and
        ([.distance_by_retire_width[] | select(. != null)] | min) ==
            .distance_by_retire_width[.best_retire_width - 1]))
' "$tmp/out.json" >/dev/null || { echo "unexpected JSON:"; cat "$tmp/out.json"; exit 1; }
"$ipcc" skid --seconds 0.1 --profile zen3 adds >"$tmp/out.txt"
[ "$(grep -c '^ *[0-9][0-9]*  ' "$tmp/out.txt")" = 42 ] ||
    { echo "expected 42 rows:"; cat "$tmp/out.txt"; exit 1; }
grep -q 'best retire width' "$tmp/out.txt" || { echo "no summary line"; exit 1; }
grep -q 'pinned to CPU [0-9]' "$tmp/out.txt" || { echo "not pinned"; cat "$tmp/out.txt"; exit 1; }
"$ipcc" skid --measured "$tmp/out.json" --profile zen3 --format json >"$tmp/again.json"
jq -e --slurpfile a "$tmp/out.json" '
    ([.kernels[].distance] | map(. * 1e6 | round)) ==
    ([$a[0].kernels[].distance] | map(. * 1e6 | round)) and
    (.measured | type == "string")' "$tmp/again.json" >/dev/null ||
    { echo "--measured gave other distances:"; cat "$tmp/again.json"; exit 1; }
echo "ok: skid json and text"

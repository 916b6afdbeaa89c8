#!/bin/sh
# stat_regions.sh IPCC EXAMPLE: ipcc stat --regions collects the example's regions.
set -eu
ipcc=$1 example=$2
# A temporary folder of its own (ipcc stat keeps the regions file in $TMPDIR), so that another
# suite running at the same time cannot look like a file left behind.
TMPDIR=$(mktemp -d)
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
out=$("$ipcc" stat --regions --format json -- "$example" 2>&1 >/dev/null)
echo "$out" | jq -e '
    .exit_status == 0 and
    ([.regions.regions[].name] | sort | unique) == ["fill","lookup","sort","total"] and
    ([.regions.regions[] | select(.name == "lookup")] | length) == 2 and
    ([.regions.regions[] | .calls == 1 and .counters.elapsed_ns.total > 0] | all) and
    (.regions.overhead_ns > 0)
' >/dev/null || { echo "unexpected regions:"; echo "$out" | jq .regions; exit 1; }
text=$("$ipcc" stat --regions -- "$example" 2>&1 >/dev/null)
echo "$text" | grep -q '^regions$' || { echo "no regions table"; exit 1; }
echo "$text" | grep -q 'read overhead subtracted' || { echo "no overhead line"; exit 1; }
# Without regions in the command, the table says so rather than showing nothing.
"$ipcc" stat --regions -- true 2>&1 | grep -q 'wrote no regions' || { echo "no 'none' line"; exit 1; }
ls "$TMPDIR"/ipcc-regions-* 2>/dev/null && { echo "temporary regions file left behind"; exit 1; }
echo "ok: stat --regions"

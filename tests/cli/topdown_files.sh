#!/bin/sh
# topdown_files.sh IPCC SOURCE_DIR: every shipped metrics/topdown-<recipe>.xml is exactly
# what the recipe table generates (`ipcc metrics --topdown-xml <recipe>`), so the formulas
# a user evaluates over raw counts are the ones ipcc stat uses.
set -u
ipcc=$1 src=$2
status=0 n=0
for f in "$src"/metrics/topdown-*.xml; do
    r=$(basename "$f" .xml)
    r=${r#topdown-}
    "$ipcc" metrics --topdown-xml "$r" | diff -u "$f" - || { echo "stale: $f"; status=1; }
    n=$((n + 1))
done
[ $n -ge 11 ] || { echo "only $n topdown files"; status=1; }
[ $status = 0 ] && echo "ok: $n topdown files match the recipes"
exit $status

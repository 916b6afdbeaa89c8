#!/bin/sh
# regions_dir.sh IPCC EXAMPLE: IPCC_OUTPUT naming a folder: 20 processes at once write 20
# files, HOST-PID.json, each whole JSON, no temporary file left; an existing folder named
# without the '/' works the same.
set -eu
ipcc=$1 example=$2
dir=$(mktemp -d)
pids=
trap 'for p in $pids; do kill "$p" 2>/dev/null || :; wait "$p" 2>/dev/null || :; done; rm -rf "$dir"' EXIT

# A path ending in '/', not there yet: made by the processes.
i=0
while [ $i -lt 20 ]; do
    IPCC_OUTPUT=$dir/out/ "$example" 1000 >/dev/null &
    pids="$pids $!"
    i=$((i + 1))
done
for p in $pids; do wait "$p" || { echo "a process failed"; exit 1; }; done
expect=
for p in $pids; do expect="$expect $(hostname)-$p.json"; done
pids=
n=$(ls "$dir/out" | wc -l)
[ "$n" = 20 ] || { echo "$n files, not 20:"; ls "$dir/out"; exit 1; }
for f in $expect; do
    [ -f "$dir/out/$f" ] || { echo "no $f:"; ls "$dir/out"; exit 1; }
    jq -e '.regions | length > 0' "$dir/out/$f" >/dev/null || { echo "$f: not whole JSON"; exit 1; }
done

# An existing folder, named without the '/'.
mkdir "$dir/existing"
IPCC_OUTPUT=$dir/existing "$example" 1000 >/dev/null
ls "$dir/existing" | grep -qE '^.+-[0-9]+\.json$' || { echo "no HOST-PID.json in an existing folder"; exit 1; }
# And a file, as before: whole, with no temporary file beside it.
IPCC_OUTPUT=$dir/one.json "$example" 1000 >/dev/null
jq -e '.regions | length > 0' "$dir/one.json" >/dev/null || { echo "one.json: not whole JSON"; exit 1; }
ls "$dir" | grep -q tmp && { echo "temporary file left"; ls "$dir"; exit 1; }
echo "ok: IPCC_OUTPUT as a folder"

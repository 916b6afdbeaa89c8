#!/bin/sh
# metrics_command.sh IPCC METRICS_DIR: ipcc metrics -- command measures the command with
# ipcc stat, passes its exit status on, and reports each metric it cannot evaluate as null
# with the missing events' names, never as 0.
set -u
ipcc=$1 dir=$2
out=$("$ipcc" metrics -m "$dir/topdown.xml" -m "$dir/mccalpin.xml" --format json -- sh -c 'exit 0')
[ $? = 0 ] || { echo "exit status not 0"; exit 1; }
echo "$out" | jq -e '
    (.metrics | length) == 11 and
    ([.metrics[] | select(.value == null) | (.missing | length) > 0] | all) and
    ([.metrics[] | select(.name == "slots") | .value == null or .value > 0] | all)
' >/dev/null || { echo "unexpected JSON:"; echo "$out"; exit 1; }
"$ipcc" metrics -m "$dir/topdown.xml" -- sh -c 'exit 3' >/dev/null
[ $? = 3 ] || { echo "the command's exit status was not passed on"; exit 1; }
"$ipcc" metrics -m "$dir/topdown.xml" -- ipcc-no-such-command >/dev/null 2>&1
[ $? = 127 ] || { echo "a missing command did not give 127"; exit 1; }
echo "ok: metrics -- command"

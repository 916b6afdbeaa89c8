#!/bin/sh
# sim_json.sh IPCC EXAMPLE: ipcc sim's JSON has the documented keys, the worked example's
# cycles, and a trace row per dynamic instruction; standard input works.
set -eu
ipcc=$1 example=$2
out=$("$ipcc" sim --profile test --iterations 1 --format json "$example")
echo "$out" | jq -e '
    .profile.name == "test" and .profile.width == 4 and .profile.alu_ports == 0 and
    (.profile | has("placement") and has("sample_retire") and has("fold_imm")) and
    (.instructions | all(.issued >= .ready and .complete >= .issued)) and
    ([.instructions[] | [.scheduled, .ready, .complete, .retired]] ==
        [[0,0,5,5],[0,0,0,5],[0,0,0,5],[0,0,0,5],[1,1,1,6],[1,1,1,6],[1,5,6,6],[1,6,11,11]]) and
    ([.instructions[] | select(.selected) | .index] == [0, 4, 7]) and
    (.summary.cycles == 11 and .summary.slots.total == 44 and .summary.slots.retired == 8) and
    ([.summary.breakdown[]] | add | . > 0.999 and . < 1.001)
' >/dev/null || { echo "unexpected JSON:"; echo "$out"; exit 1; }
n=$("$ipcc" sim --profile test --iterations 3 --trace --format json - <"$example" |
    jq '.instructions | length')
[ "$n" = 24 ] || { echo "trace has $n rows, not 24"; exit 1; }
"$ipcc" sim --profile test --iterations 2 --format csv "$example" | head -1 |
    grep -qx 'index,iteration,text,scheduled,ready,complete,retired,selected,weight,share'
echo "ok: sim json, trace, csv, stdin"

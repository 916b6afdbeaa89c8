#!/bin/sh
# sim_elf.sh IPCC SOURCE: ipcc sim --elf models loops of a program compiled here at -O2 (by
# gcc and by clang, those installed): the FP chain s = s * a + b takes at least the FP
# latency per iteration, the pointer chase p = *p at least the load latency; every
# instruction of both loops is in the model's table; --address gives the loop --symbol
# found; a missing function, a function without a loop and a non-ELF file are refused.
set -u
ipcc=$1 src=$2
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ran=0
for cc in gcc clang; do
    command -v $cc >/dev/null 2>&1 || continue
    prog=$tmp/loops-$cc
    $cc -O2 -o "$prog" "$src" || fail "$cc cannot compile $src"
    ran=1
    for profile in skylake zen3; do
        "$ipcc" sim --profile $profile --elf "$prog" --symbol chain --format json >"$tmp/chain" ||
            fail "$cc, $profile: sim --elf chain"
        "$ipcc" sim --profile $profile --elf "$prog" --symbol chase --format json >"$tmp/chase" ||
            fail "$cc, $profile: sim --elf chase"
        # the FP add's latency: 4 on skylake, 3 on zen3
        fp=4; [ $profile = zen3 ] && fp=3
        jq -e --argjson fp $fp '.summary.cycles_per_iteration >= $fp and
            .approximated.count == 0 and .lifted.function == "chain"' "$tmp/chain" >/dev/null ||
            fail "$cc, $profile: the FP chain: $(jq -c '[.summary, .approximated]' "$tmp/chain")"
        jq -e '.summary.cycles_per_iteration >= .profile.load_latency and
            .approximated.count == 0' "$tmp/chase" >/dev/null ||
            fail "$cc, $profile: the pointer chase: $(jq -c '[.summary, .approximated]' "$tmp/chase")"
    done
    # --address: the same loop, the same prediction
    range=$(jq -r '"\(.lifted.start)-\(.lifted.end)"' "$tmp/chain")
    "$ipcc" sim --profile zen3 --elf "$prog" --address "$range" --format json >"$tmp/range" ||
        fail "$cc: sim --elf --address $range"
    [ "$(jq '.summary.cycles_per_iteration' "$tmp/range")" = \
      "$(jq '.summary.cycles_per_iteration' "$tmp/chain")" ] ||
        fail "$cc: --address $range and --symbol chain disagree"
    "$ipcc" sim --elf "$prog" --symbol chain | grep -q '^lifted: the innermost loop of chain' ||
        fail "$cc: no 'lifted:' line"
    "$ipcc" sim --elf "$prog" --symbol nosuch 2>"$tmp/err"; [ $? = 2 ] ||
        fail "$cc: a missing function is not refused"
    grep -q "no function 'nosuch'" "$tmp/err" || fail "$cc: $(cat "$tmp/err")"
    "$ipcc" sim --elf "$prog" --symbol noloop 2>"$tmp/err"; [ $? = 2 ] ||
        fail "$cc: a function without a loop is not refused"
    grep -q "has no loop" "$tmp/err" || fail "$cc: $(cat "$tmp/err")"
done
[ $ran = 1 ] || { echo "no C compiler: skipped"; exit 77; }
"$ipcc" sim --elf "$src" --symbol chain 2>"$tmp/err"; [ $? = 2 ] || fail "a C file is not refused"
grep -q "not an ELF file" "$tmp/err" || fail "$(cat "$tmp/err")"
echo "ok: sim --elf"

#!/bin/sh
# bench_fit_profile.sh IPCC SIMFILE: ipcc bench --fit-profile BASE -o FILE writes a profile
# that ipcc sim --profile FILE reads, with every parameter it measured; bad usage is exit 2.
set -u
ipcc=$1 sim=$2
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$ipcc" bench --fit-profile zen3 -o "$tmp/fit.profile" >"$tmp/out" 2>&1 || fail "$(cat "$tmp/out")"
# Each parameter measured, or said why not (a penalty from two kernels' best runs can come
# out below zero when other work shares the core): at least four of the six measured.
measured=0
for key in load_latency mul_latency lock_latency recovery fold_imm alu_ports; do
    if grep -q "^$key  *[a-z._]*  *[0-9.]" "$tmp/out"; then
        measured=$((measured + 1))
    else
        grep -q "^$key .*not \(fitted\|measured\): " "$tmp/out" || fail "$key: $(cat "$tmp/out")"
    fi
done
[ $measured -ge 4 ] || fail "only $measured parameters measured: $(cat "$tmp/out")"
grep -q '^name = zen3-fit$' "$tmp/fit.profile" || fail "profile: $(cat "$tmp/fit.profile")"
"$ipcc" sim --profile "$tmp/fit.profile" "$sim" >"$tmp/sim" 2>&1 || fail "sim: $(cat "$tmp/sim")"
grep -q 'profile zen3-fit' "$tmp/sim" || fail "sim did not use the fitted profile: $(head -2 "$tmp/sim")"

"$ipcc" bench -o "$tmp/x" 2>/dev/null; [ $? = 2 ] || fail "-o without --fit-profile is not bad usage"
"$ipcc" bench --fit-profile no-such-profile 2>/dev/null; [ $? = 2 ] || fail "an unknown base is not bad usage"
"$ipcc" bench --fit-profile zen3 chain.add 2>/dev/null; [ $? = 2 ] || fail "kernels beside --fit-profile"
[ ! -e "$tmp/x" ] || fail "a file was written after bad usage"
exit 0

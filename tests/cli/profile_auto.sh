#!/bin/sh
# profile_auto.sh IPCC MEASURED: --profile auto names the profile it chose and the CPU it chose
# it for, and says when that profile approximates the core (CPUs described by a written
# /proc/cpuinfo through IPCC_PROC_CPUINFO).
set -u
ipcc=$1 measured=$2
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
note() { # VENDOR FAMILY MODEL: ipcc skid's line about the auto profile
    printf 'vendor_id\t: %s\ncpu family\t: %s\nmodel\t\t: %s\n' "$1" "$2" "$3" >"$tmp/cpuinfo"
    IPCC_PROC_CPUINFO="$tmp/cpuinfo" "$ipcc" skid --measured "$measured" --profile auto 2>&1 >/dev/null |
        grep 'profile auto'
}
want() { [ "$1" = "$2" ] || fail "got '$1', want '$2'"; }
want "$(note GenuineIntel 6 207)" \
    "ipcc skid: profile auto is raptorcove, for Intel family 0x6 model 0xcf (Emerald Rapids (Raptor Cove))"
want "$(note GenuineIntel 6 173)" \
    "ipcc skid: profile auto is goldencove, for Intel family 0x6 model 0xad (Granite Rapids (Redwood Cove)); an approximation: Redwood Cove modelled as Golden Cove"
want "$(note AuthenticAMD 26 2)" "ipcc skid: profile auto is zen5, for AMD family 0x1a model 0x2 (Zen 5)"
want "$(note AuthenticAMD 23 49)" \
    "ipcc skid: profile auto is zen3, for AMD family 0x17 model 0x31 (Zen 2); an approximation: Zen 2 modelled as Zen 3"
printf 'vendor_id\t: HygonGenuine\ncpu family\t: 24\nmodel\t\t: 0\n' >"$tmp/cpuinfo"
IPCC_PROC_CPUINFO="$tmp/cpuinfo" "$ipcc" sim --profile auto /dev/null 2>"$tmp/err"
[ $? = 2 ] || fail "an unknown CPU's auto profile is not bad usage"
grep -q "no built-in profile for unknown vendor family 0x18 model 0 (\|no built-in profile for" "$tmp/err" || fail "$(cat "$tmp/err")"
exit 0

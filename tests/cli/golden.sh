#!/bin/sh
# golden.sh [--shape] GOLDEN EXIT COMMAND [ARGS...]
#
# Runs COMMAND and compares, in whole, its stdout with GOLDEN.out, its stderr with GOLDEN.err
# (empty when that file does not exist) and its exit status with EXIT. With --shape, every
# number is replaced by N and runs of spaces by one space before comparing, for outputs
# whose layout is fixed but whose figures are measured; where a frequency figure came from
# (calibrated here, CPUID or the PMU elsewhere) is masked too, and when the core frequency was
# measured (after the run only where TCFREQ had to be calibrated first) and the verdict of its
# cross-check, with ipcc stat's line that reports a disagreement (test_clock checks the
# cross-check, best of several tries; a loaded machine can disturb every pair of one run). IPCC_UPDATE_GOLDEN=1 rewrites
# the golden files instead of comparing.
set -u
shape=0
if [ "$1" = "--shape" ]; then shape=1; shift; fi
golden=$1 want=$2
shift 2

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$@" >"$tmp/out" 2>"$tmp/err"
got=$?

if [ $shape = 1 ]; then
    for f in out err; do
        sed -E 's/[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g' "$tmp/$f" |
            sed -E 's/ppm .* \(took/ppm SOURCE (took/; s/kHz [a-z0-9-]+,/kHz SOURCE,/' |
            sed -E 's/measured (while the command ran|after the run)/measured WHEN/' |
            sed -E 's/: (agrees|DISAGREES [^,]*), N% apart/: VERDICT, N% apart/' |
            sed -E '/imul chain: DISAGREES/d' >"$tmp/$f.n" &&
            mv "$tmp/$f.n" "$tmp/$f"
    done
fi

if [ "${IPCC_UPDATE_GOLDEN:-}" = 1 ]; then
    cp "$tmp/out" "$golden.out"
    if [ -s "$tmp/err" ]; then cp "$tmp/err" "$golden.err"; else rm -f "$golden.err"; fi
    echo "updated $golden.out (exit $got)"
    [ "$got" = "$want" ] || echo "warning: exit $got, the test expects $want"
    exit 0
fi

status=0
if [ "$got" != "$want" ]; then
    echo "exit status $got, expected $want"
    status=1
fi
: >"$tmp/no-err"
errfile=$golden.err
[ -f "$errfile" ] || errfile=$tmp/no-err
diff -u "$golden.out" "$tmp/out" || status=1
diff -u "$errfile" "$tmp/err" || status=1
[ $status = 0 ] && echo "ok: $*"
exit $status

#!/bin/sh
# clock_cache.sh IPCC: a TCFREQ that had to be calibrated is kept for the boot. The first run
# calibrates and writes the cache; the next reads it ("cached", the same figure); ipcc
# calibrate measures afresh; a corrupt or foreign line is replaced; IPCC_CACHE_DIR=off keeps
# nothing. Skipped where an exact source (CPUID, the perf page) gives TCFREQ: no calibration.
set -u
ipcc=$1
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src() { IPCC_CACHE_DIR=$1 "$ipcc" stat --format json -- true 2>&1 | jq -r "$2"; }

first=$(src "$tmp/c" .tcfreq_source)
case $first in
calibrated) ;;
*) echo "TCFREQ comes from '$first' here: nothing to cache"; exit 77 ;;
esac
[ -f "$tmp/c/tcfreq" ] || fail "no cache file after calibrating"
grep -q "^ipcc-tcfreq-1 .* hz=[0-9.]* ppm=[0-9.]*$" "$tmp/c/tcfreq" || fail "cache line: $(cat "$tmp/c/tcfreq")"
[ "$(src "$tmp/c" .tcfreq_source)" = cached ] || fail "second run did not read the cache"
khz=$(src "$tmp/c" .tcfreq_khz)
hz=$(sed 's/.* hz=\([0-9]*\).*/\1/' "$tmp/c/tcfreq")
[ "$khz" = "$(( (hz + 500) / 1000 ))" ] || fail "cached $hz Hz read back as $khz kHz"

# ipcc calibrate never reads the cache.
[ "$(IPCC_CACHE_DIR="$tmp/c" "$ipcc" calibrate --format json --handoffs 0 | jq -r .tcfreq_source)" = calibrated ] ||
    fail "ipcc calibrate used the cache"

# Garbage, another boot's line, an absurd figure: each is recalibrated and replaced.
for bad in "garbage" \
    "ipcc-tcfreq-1 00000000-0000-0000-0000-000000000000 $(cut -d' ' -f3 "$tmp/c/tcfreq") hz=2000000000.000 ppm=5.000" \
    "$(sed 's/hz=[0-9.]*/hz=5.000/' "$tmp/c/tcfreq")"; do
    echo "$bad" >"$tmp/c/tcfreq"
    [ "$(src "$tmp/c" .tcfreq_source)" = calibrated ] || fail "used a bad line: $bad"
    [ "$(src "$tmp/c" .tcfreq_source)" = cached ] || fail "bad line not replaced: $bad"
done

# Off: nothing written anywhere.
[ "$(IPCC_CACHE_DIR=off HOME="$tmp/home" XDG_CACHE_HOME= "$ipcc" stat --format json -- true 2>&1 |
    jq -r .tcfreq_source)" = calibrated ] || fail "IPCC_CACHE_DIR=off still cached"
[ ! -e "$tmp/home" ] || fail "IPCC_CACHE_DIR=off wrote $(find "$tmp/home")"
# The default place: $XDG_CACHE_HOME/ipcc, made if missing.
env -u IPCC_CACHE_DIR XDG_CACHE_HOME="$tmp/xdg" "$ipcc" stat -o /dev/null -- true
[ -f "$tmp/xdg/ipcc/tcfreq" ] || fail "no cache under XDG_CACHE_HOME"
ls -A "$tmp/c" | grep -q '^\.tcfreq-' && fail "a temporary file was left behind"
exit 0

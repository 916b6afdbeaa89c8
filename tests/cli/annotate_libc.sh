#!/bin/sh
# annotate_libc.sh IPCC COPY_LOOP: the stripped libc's local memmove variants are named from
# its separate debug file (Debian's libc6-dbg) where one is installed: COPY_LOOP's samples in
# libc.so.6 fall in a __memmove_*/__memcpy_* function, not in libc.so.6+0xADDR rows. Skipped
# where libc has a .symtab of its own or no debug file is installed.
set -eu
ipcc=$1 prog=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libc=$(ldd "$prog" | awk '$1 ~ /^libc\.so/ { print $3 }')
[ -n "$libc" ] || { echo "no libc in ldd $prog"; exit 77; }
libc=$(readlink -f "$libc")
readelf -SW "$libc" | grep -q '\.symtab' && { echo "$libc is not stripped"; exit 77; }
id=$(readelf -nW "$libc" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
root=${IPCC_DEBUG_ROOT:-/usr/lib/debug}
debug=$root/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
[ -n "$id" ] && [ -f "$debug" ] || { echo "no debug file for $libc (libc6-dbg)"; exit 77; }
if ! "$ipcc" record -F 1000 -o "$tmp/p" -- "$prog" 2>"$tmp/err"; then
    grep -q 'cannot sample .* (permission denied)' "$tmp/err" && { cat "$tmp/err"; exit 77; }
    cat "$tmp/err"; exit 1
fi
"$ipcc" annotate -i "$tmp/p" --folded >"$tmp/out"
awk '{ n = $NF; total += n; if ($1 ~ /^libc\.so[^;]*;__mem(move|cpy)_/) hit += n }
     END { if (total < 50 || hit < 0.8 * total) {
               printf "memmove has %d of %d samples\n", hit, total; exit 1 }
           printf "memmove: %d of %d samples\n", hit, total }' "$tmp/out" ||
    { cat "$tmp/out"; exit 1; }
echo "ok: libc's memmove named from its debug file"

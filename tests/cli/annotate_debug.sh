#!/bin/sh
# annotate_debug.sh IPCC DRIVER LIB: a copy of the shared library LIB is stripped (its
# debug information split off with objcopy --only-keep-debug, a .gnu_debuglink added) and
# sampled while DRIVER runs it. Without a debug file, annotate shows its code as
# libspin.so+0xADDR rows (or 64-byte lines with --unknown line, which --symbol takes back);
# with the debug file in a build-ID tree under $IPCC_DEBUG_ROOT, or found by its
# .gnu_debuglink, it names the library's local function and its C++ one, demangled unless
# --no-demangle. Bounds are shares of the samples, never times.
set -eu
ipcc=$1 driver=$2 lib=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for tool in objcopy strip readelf; do
    command -v $tool >/dev/null 2>&1 || { echo "no $tool (binutils)"; exit 77; }
done
mkdir -p "$tmp/lib" "$tmp/none"
cp "$lib" "$tmp/lib/libspin.so"
objcopy --only-keep-debug "$tmp/lib/libspin.so" "$tmp/libspin.debug"
strip --strip-all "$tmp/lib/libspin.so"
objcopy --add-gnu-debuglink="$tmp/libspin.debug" "$tmp/lib/libspin.so"
if readelf -SW "$tmp/lib/libspin.so" | grep -q '\.symtab'; then
    echo "strip left a .symtab"; exit 1
fi
id=$(readelf -nW "$tmp/lib/libspin.so" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || { echo "the library has no build ID"; exit 1; }

if ! "$ipcc" record -F 1000 -o "$tmp/p" -- "$driver" "$tmp/lib/libspin.so" 2>"$tmp/err"; then
    grep -q 'cannot sample .* (permission denied)' "$tmp/err" && { cat "$tmp/err"; exit 77; }
    cat "$tmp/err"; exit 1
fi
annotate() { # ROOT ARGS...: annotate with IPCC_DEBUG_ROOT=ROOT
    root=$1; shift
    IPCC_DEBUG_ROOT=$root "$ipcc" annotate -i "$tmp/p" "$@"
}
# share FILE PATTERN: the percentage of the samples on folded lines whose name matches.
share() {
    awk -v pat="$2" '{ n = $NF; total += n; sub(/ [0-9]+$/, ""); if ($0 ~ pat) hit += n }
        END { printf "%d\n", total ? 100 * hit / total : 0 }' "$1"
}
need() { # WHAT GOT MIN
    [ "$2" -ge "$3" ] || { echo "$1: $2% of the samples, want at least $3%"; cat "$tmp/out"; exit 1; }
    echo "$1: $2%"
}

# No debug file where ipcc looks: addresses in the library's own addresses.
annotate "$tmp/none" --folded >"$tmp/out"
need "no debug file: libspin.so+0xADDR rows" "$(share "$tmp/out" '^libspin\.so;libspin\.so\+0x[0-9a-f]+$')" 90
if grep -q 'local_spin\|ns::spin' "$tmp/out"; then echo "named without a debug file"; exit 1; fi
annotate "$tmp/none" --unknown line --top 1 >"$tmp/out"
row=$(awk '$3 ~ /^libspin\.so\+0x[0-9a-f]+-0x[0-9a-f]+$/ { print $1, $3 }' "$tmp/out")
[ -n "$row" ] || { echo "no 64-byte line row:"; cat "$tmp/out"; exit 1; }
count=${row%% *} range=${row#* }
# The row's range, with the file named by the start of its name, gives the same samples.
annotate "$tmp/none" --symbol "libspin+${range#libspin.so+}" >"$tmp/out"
grep -q "^libspin+${range#libspin.so+} (libspin.so): $count samples" "$tmp/out" ||
    { echo "--symbol $range does not hold the row's $count samples:"; cat "$tmp/out"; exit 1; }
grep -q 'imul' "$tmp/out" || { echo "no disassembly:"; cat "$tmp/out"; exit 1; }

# The debug file by build ID, under the root.
mkdir -p "$tmp/root/.build-id/$(echo "$id" | cut -c1-2)"
cp "$tmp/libspin.debug" "$tmp/root/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
annotate "$tmp/root" --folded >"$tmp/out"
need "build ID: local_spin" "$(share "$tmp/out" '^libspin\.so;local_spin$')" 25
need "build ID: ns::spin(unsigned long)" "$(share "$tmp/out" '^libspin\.so;ns::spin\(unsigned long\)$')" 25
annotate "$tmp/root" --folded --no-demangle >"$tmp/out"
need "--no-demangle: _ZN2ns4spinEm" "$(share "$tmp/out" '^libspin\.so;_ZN2ns4spinEm$')" 25
for name in 'ns::spin(unsigned long)' _ZN2ns4spinEm; do
    annotate "$tmp/root" --symbol "$name" >"$tmp/out"
    grep -q 'imul' "$tmp/out" || { echo "--symbol $name: no disassembly:"; cat "$tmp/out"; exit 1; }
done
grep -q '^ns::spin(unsigned long) (libspin.so)' "$tmp/out" || { echo "--symbol not demangled:"; cat "$tmp/out"; exit 1; }
annotate "$tmp/root" --symbol _ZN2ns4spinEm --no-demangle >"$tmp/out"
grep -q '^_ZN2ns4spinEm (libspin.so)' "$tmp/out" || { echo "--no-demangle demangled:"; cat "$tmp/out"; exit 1; }

# The debug file by .gnu_debuglink, in the library's .debug folder.
mkdir "$tmp/lib/.debug"
mv "$tmp/libspin.debug" "$tmp/lib/.debug/"
annotate "$tmp/none" --folded >"$tmp/out"
need ".gnu_debuglink: local_spin" "$(share "$tmp/out" '^libspin\.so;local_spin$')" 25
echo "ok: annotate with and without debug files"

#!/bin/sh
# report_browser.sh IPCC NESTED_LOOPS REGIONS BENCH_REPORT SRC OUT: ipcc report's page, opened
# in a real browser (Debian's chromium, headless).
# - inputs: a recording of NESTED_LOOPS (or, where this machine cannot sample, one written by
#   bench/report), ipcc stat --regions of REGIONS, the hand-made model-backend fixture, ipcc
#   metrics over tests/data/counts/ipcc-stat.json, a short ipcc bench; --model;
# - the file: one self-contained page (no address to fetch anything from), under 2 MB;
# - in the browser: no console message at all (the page logs nothing: any is an error); the
#   DOM (--dump-dom) holds the split (modelled from the fixture; this machine's own stat either
#   drawn or absent with the reason its JSON gives), the functions table with the sampled
#   function, the explained loops with their bound, the cycle tree, the benchmarks, and the
#   footprint that ipcc annotate --footprint prints;
# - its script, driven by report_selftest.js: sorts the table, zooms the flame graph and back,
#   collapses and expands the cycle tree;
# - a screenshot: OUT/report.png, beside the page, OUT/report.html, for a person to look at.
# Skipped (77) only when chromium is not installed and cannot be installed.
set -u
ipcc=$1 prog=$2 regions=$3 benchrep=$4 src=$5 out=$6
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

browser=$(command -v chromium || true)
if [ -z "$browser" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "chromium is not installed: apt-get install chromium"
    DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -q --no-install-recommends \
        chromium >"$tmp/apt" 2>&1 || tail -n 3 "$tmp/apt"
    browser=$(command -v chromium || true)
fi
if [ -z "$browser" ]; then
    echo "SKIP: chromium is not installed and could not be installed here (scripts/install-deps" \
        "installs it; as root: apt-get install chromium)"
    exit 77
fi

# chromium ARGS...: headless, a throw-away profile, nothing fetched, its log in $tmp/log.
run_browser() {
    profile=$(mktemp -d)
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --disable-extensions --user-data-dir="$profile" --enable-logging=stderr --v=0 "$@" \
        2>"$tmp/log"
    rc=$?
    rm -rf "$profile"
    [ $rc = 0 ] || { tail -n 20 "$tmp/log"; fail "chromium $* exited with $rc"; }
    # The page writes nothing to the console: a message is an error (an uncaught exception, a
    # resource that failed to load, a violation).
    if grep -E 'CONSOLE|Uncaught|net::ERR_' "$tmp/log"; then
        fail "chromium's console has messages for $*"
    fi
}

# The inputs.
loopfn=work
if ! "$ipcc" record -o "$tmp/rec" -- "$prog" >/dev/null 2>"$tmp/err"; then
    grep -q 'cannot sample' "$tmp/err" || fail "record: $(cat "$tmp/err")"
    echo "note: this machine cannot sample ($(head -n 1 "$tmp/err")): a recording written by" \
        "bench/report instead"
    "$benchrep" --write "$tmp/rec" 20000 || fail "bench/report --write"
    loopfn=report_loop_0
fi
"$ipcc" stat --format json -o "$tmp/stat.json" --regions -- "$regions" >/dev/null 2>"$tmp/err" ||
    fail "stat: $(cat "$tmp/err")"
"$ipcc" metrics -m "$src/metrics/topdown.xml" -m "$src/metrics/mccalpin.xml" --format json \
    --counts "$src/tests/data/counts/ipcc-stat.json" >"$tmp/metrics.json" || fail "metrics"
"$ipcc" bench chain.add latency --sweep 4K:16K --repeat 3 --format json >"$tmp/bench.json" \
    2>"$tmp/err" || fail "bench: $(cat "$tmp/err")"
mkdir -p "$out" || fail "cannot make $out"
page=$out/report.html
"$ipcc" report -i "$tmp/rec" --model --profile zen4 --stat "$tmp/stat.json" \
    --stat "$src/tests/data/report/stat-model-fixture.json" --metrics "$tmp/metrics.json" \
    --bench "$tmp/bench.json" -o "$page" >"$tmp/out" 2>&1 || fail "report: $(cat "$tmp/out")"
grep -q "^ipcc report: wrote $page ([0-9]* KiB)$" "$tmp/out" || fail "report said: $(cat "$tmp/out")"

# One self-contained file, under 2 MB.
size=$(wc -c <"$page")
[ "$size" -lt 2097152 ] || fail "the page is $size bytes"
if grep -Eo '(https?:|ftp:)//[^" ]*|<link|<iframe|<img|<script src|@import|url\([^#]' "$page"; then
    fail "the page refers to something outside itself"
fi

# The DOM, as the browser built it.
run_browser --dump-dom "file://$page" >"$tmp/dom.html"
dom=$tmp/dom.html
has() { grep -qF -- "$1" "$dom" || fail "the DOM has no $2"; }
count() { grep -oF -- "$1" "$dom" | wc -l; }
has '<section id="split">' "split section"
[ "$(count '<svg class="split"')" -ge 3 ] || fail "fewer than 3 split bars (the fixture's run and regions)"
has '<span class="tag modelled">modelled</span>' "modelled split"
has 'back end 55.0%' "split of the fixture's region triad"
why=$(jq -r '.absent.slots_total // empty' "$tmp/stat.json")
if [ -n "$why" ]; then
    has "$why" "reason for this machine's absent split ($why)"
else
    [ "$(count '<span class="tag measured">measured</span>')" -ge 1 ] || fail "no measured split"
fi
has '<table class="sortable" id="functions-table">' "functions table"
grep -qE "<td class=\"mono\">$loopfn[^<]*</td>" "$dom" || fail "the functions table has no $loopfn"
[ "$(count '<article class="loop"')" -ge 1 ] || fail "no explained loop"
has 'Bound: ' "loop bound"
has 'cycles an iteration' "predicted cycles"
has '<section id="cycles">' "cycle tree"
has '<span class="nm">slots</span>' "cycle tree root"
has '<svg class="flame"' "flame graph"
has 'id="footprint-curve"' "footprint curve"
has '>chain.add<' "benchmark figures"
# The footprint as ipcc annotate --footprint counts it.
"$ipcc" annotate -i "$tmp/rec" --footprint | awk '$1 ~ /%$/ { print $1, $2, $3, $4 }' >"$tmp/want"
sed -n '/id="footprint-table"/,/<\/table>/p' "$dom" | grep -o '<td class="n">[^<]*</td>' |
    sed 's/<[^>]*>//g' | paste -d' ' - - - - >"$tmp/got"
cmp -s "$tmp/want" "$tmp/got" || fail "footprint: page $(cat "$tmp/got"), annotate $(cat "$tmp/want")"
echo "DOM: split, $(count '<svg class="split"') bars; functions table; $(count '<article class="loop"') loops; cycle tree; footprint; benchmarks"

# The script: sorting, zooming, expanding, as a person clicks.
awk -v js="$(dirname "$0")/report_selftest.js" \
    '/<\/body>/ { print "<script>"; while ((getline l < js) > 0) print l; print "</script>" } { print }' \
    "$page" >"$tmp/selftest.html"
run_browser --dump-dom "file://$tmp/selftest.html" >"$tmp/dom.html"
result=$(sed -n 's/.*data-selftest="\([^"]*\)".*/\1/p' "$tmp/dom.html")
[ "$result" = "sort-text-ok sort-num-ok zoom-ok unzoom-ok collapse-ok expand-ok" ] ||
    fail "the page's script: '$result'"
echo "script: $result"

# A screenshot, for a person to look at.
rm -f "$out/report.png"
run_browser --screenshot="$out/report.png" --window-size=1280,2000 --hide-scrollbars "file://$page" \
    >/dev/null
[ "$(head -c 8 "$out/report.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] ||
    fail "no PNG screenshot"
[ "$(wc -c <"$out/report.png")" -gt 20000 ] || fail "the screenshot is nearly empty"
echo "ok: $page ($size bytes) in $("$browser" --version 2>/dev/null | head -n 1); screenshot $out/report.png"

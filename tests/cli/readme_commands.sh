#!/bin/sh
# readme_commands.sh SRC BUILD: every command the README and the Makefile name can run.
# - every program a Makefile recipe runs from the build (./$(BUILD)/...) is built there, every
#   script it runs (./bench/..., ./scripts/...) is executable, every fuzz target it builds is
#   one CMakeLists.txt defines, and .ci/run runs make check;
# - every ipcc subcommand the README's table names has help;
# - plain `make` on a machine without the packages says in one line which are missing;
# - the benchmarks `make bench` runs, each with a small size, end with exit 0.
set -u
src=$1 build=$2
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mk=$src/Makefile

for p in $(grep -o '\./$(BUILD)/[A-Za-z0-9_/.-]*' "$mk" | sed 's|\./$(BUILD)/||' | sort -u); do
    [ -x "$build/$p" ] || fail "the Makefile runs ./\$(BUILD)/$p, which the build does not make"
done
for p in $(grep -oE '\./(bench|scripts)/[A-Za-z0-9_.-]+' "$mk" | sort -u); do
    [ -x "$src/$p" ] || fail "the Makefile runs $p, which is not an executable file"
done
fuzzers=$(sed -n 's/^set(IPCC_FUZZERS \(.*\))$/\1/p' "$src/CMakeLists.txt")
for t in $(grep -oE -- '--target [a-z_ ]+' "$mk" | sed 's/--target//'); do
    case " $fuzzers " in *" ${t#fuzz_} "*) ;; *) fail "make fuzz builds $t, which no target is" ;; esac
done
grep -qx 'make check' "$src/.ci/run" || fail ".ci/run does not run make check"

for cmd in $(grep -oE '^\| `ipcc [a-z]+' "$src/README.md" | sed 's/.*ipcc //'); do
    "$build/ipcc" help "$cmd" >/dev/null 2>&1 || fail "the README names 'ipcc $cmd', which has no help"
done

# Plain make without the packages: one line naming them (a dpkg-query that lacks two).
mkdir "$tmp/bin"
printf '#!/bin/sh\ncase "$*" in *libpfm4-dev*|*libcapstone-dev*) exit 1;; esac\nprintf "install ok installed"\n' \
    >"$tmp/bin/dpkg-query"
chmod +x "$tmp/bin/dpkg-query"
PATH="$tmp/bin:$PATH" "$src/scripts/install-deps" --check 2>"$tmp/err" && fail "--check passed with packages missing"
[ "$(wc -l <"$tmp/err")" = 1 ] || fail "--check said more than one line: $(cat "$tmp/err")"
grep -q "missing packages: libpfm4-dev libcapstone-dev; 'make deps' (or 'make demo') installs them" "$tmp/err" ||
    fail "--check: $(cat "$tmp/err")"

# make bench's programs, small.
"$build/bench/counters" 11 >"$tmp/out" 2>&1 || fail "bench/counters: $(cat "$tmp/out")"
"$build/bench/model" 2000 >"$tmp/out" 2>&1 || fail "bench/model: $(cat "$tmp/out")"
"$build/bench/explain" 2000 >"$tmp/out" 2>&1 || fail "bench/explain: $(cat "$tmp/out")"
"$build/bench/report" "$build/ipcc" 2000 >"$tmp/out" 2>&1 || fail "bench/report: $(cat "$tmp/out")"
grep -q "page written in .* KiB" "$tmp/out" || fail "bench/report printed no figures: $(cat "$tmp/out")"
if [ -x "$build/bench/skid_layout" ]; then # x86-64 only
    "$build/bench/skid_layout" 0.02 >"$tmp/out" 2>&1 || fail "bench/skid_layout: $(cat "$tmp/out")"
    # a header, the column names and a row for each of the ten loops, each with samples
    [ "$(awk 'NR > 2 && $(NF) ~ /:/' "$tmp/out" | wc -l)" = 10 ] &&
        [ "$(wc -l <"$tmp/out")" = 12 ] || fail "bench/skid_layout: $(cat "$tmp/out")"
fi
# bench/front_end, small: a row for each of its fourteen loops (x86-64: a line else).
"$build/bench/front_end" 0.01 >"$tmp/out" 2>&1 || fail "bench/front_end: $(cat "$tmp/out")"
[ "$(grep -c '^\(jz\|jmp[0-9]\|calls\)\.' "$tmp/out")" = 14 ] || grep -q 'x86-64 only' "$tmp/out" ||
    fail "bench/front_end: $(cat "$tmp/out")"
# bench/lone_miss, small and within the LLC: a row for each of its three chains.
"$build/bench/lone_miss" 0.02 4 >"$tmp/out" 2>&1 || fail "bench/lone_miss: $(cat "$tmp/out")"
[ "$(grep -c '^ *\(0\|8\|48\) ' "$tmp/out")" = 3 ] || grep -q 'x86-64 only' "$tmp/out" ||
    fail "bench/lone_miss: $(cat "$tmp/out")"
# bench/blocks: ipcc's model beside llvm-mca's on a few measured blocks (llvm-19 may be
# missing: it says so and exits 0); heldout_blocks.py cuts blocks from Debian's libraries.
head -n 8 "$src/tests/data/bhive/sample.txt" >"$tmp/b.txt"
"$build/ipcc" bench --blocks "$tmp/b.txt" --passes 1 --model --format json >"$tmp/b.json" \
    2>"$tmp/err" || fail "bench --blocks: $(cat "$tmp/err")"
"$build/bench/blocks" "$tmp/b.json" llvm-mca-19 native >"$tmp/out" 2>&1 ||
    fail "bench/blocks: $(cat "$tmp/out")"
grep -q "ipcc's model\|is not installed" "$tmp/out" || fail "bench/blocks: $(cat "$tmp/out")"
if command -v python3 >/dev/null && command -v objdump >/dev/null; then
    python3 "$src/bench/heldout_blocks.py" 20 >"$tmp/h.txt" 2>"$tmp/err" ||
        fail "heldout_blocks.py: $(cat "$tmp/err")"
    [ "$(grep -c '^[0-9a-f]*,lib' "$tmp/h.txt")" = 20 ] || fail "heldout_blocks.py: $(cat "$tmp/h.txt")"
    # only code that can run: fewer blocks than objdump's linear sweep gives (--linear)
    reach=$(sed -n 's/.* of \([0-9]*\) blocks$/\1/p' "$tmp/err")
    python3 "$src/bench/heldout_blocks.py" --linear 20 >"$tmp/h.txt" 2>"$tmp/err" ||
        fail "heldout_blocks.py --linear: $(cat "$tmp/err")"
    all=$(sed -n 's/.* of \([0-9]*\) blocks$/\1/p' "$tmp/err")
    [ -n "$reach" ] && [ -n "$all" ] && [ "$reach" -le "$all" ] ||
        fail "heldout_blocks.py: $reach reachable blocks of $all"
fi
if command -v valgrind >/dev/null && command -v gzip >/dev/null; then
    python3 "$src/bench/model_backend.py" "$build/ipcc" gzip >"$tmp/out" 2>&1 ||
        fail "model_backend.py: $(cat "$tmp/out")"
    grep -q "cachegrind formula" "$tmp/out" || fail "model_backend.py: $(cat "$tmp/out")"
    python3 "$src/bench/model_backend.py" --held-out "$build/ipcc" sort >"$tmp/out" 2>&1 ||
        fail "model_backend.py --held-out: $(cat "$tmp/out")"
    grep -q "^sort .*deterministic" "$tmp/out" || fail "model_backend.py --held-out: $(cat "$tmp/out")"
    # bench/model_steady.py on gzip: its premise holds (three files in one process take the
    # faults one takes, natively and modelled) and both sides give a repetition's cycles.
    python3 "$src/bench/model_steady.py" --json "$tmp/steady.json" "$build/ipcc" gzip \
        >"$tmp/out" 2>&1 || fail "model_steady.py: $(cat "$tmp/out")"
    grep -q "^gzip  *a repetition: native  *[0-9.]* Mcycles, model  *[0-9.]* (" "$tmp/out" &&
        jq -e '.[0] | (.native_faults[1] - .native_faults[0] | fabs) <= 5 and
            .model_once.faults == .model_thrice.faults and .native_per_rep > 0 and
            .model_per_rep > 0' "$tmp/steady.json" >/dev/null ||
        fail "model_steady.py: $(cat "$tmp/out")"
fi
# bench/branch_patterns.py, small: a row for each of its twelve patterns (Valgrind cannot run
# the sanitizer build's program: there it is left out).
if command -v valgrind >/dev/null && ! nm "$build/bench/branch_patterns" 2>/dev/null | grep -q __asan_init; then
    python3 "$src/bench/branch_patterns.py" "$build/ipcc" "$build/bench/branch_patterns" 20000 20000 \
        >"$tmp/out" 2>&1 || fail "branch_patterns.py: $(cat "$tmp/out")"
    [ "$(grep -c '^\(cond\|indirect\) ' "$tmp/out")" = 12 ] || fail "branch_patterns.py: $(cat "$tmp/out")"
    # and on x86-64 a row for each of its ten sets of many branches
    [ "$(uname -m)" != x86_64 ] || [ "$(grep -c '^ *[0-9][0-9]* *[48] ' "$tmp/out")" = 10 ] ||
        fail "branch_patterns.py, many: $(cat "$tmp/out")"
fi
# bench/mispredict_sites.py, one small row: a native and a modelled figure (left out where
# Valgrind cannot run the sanitizer build's program; a line, not a row, off x86-64).
if command -v valgrind >/dev/null && ! nm "$build/bench/mispredict_sites" 2>/dev/null | grep -q __asan_init; then
    python3 "$src/bench/mispredict_sites.py" --quick "$build/ipcc" "$build/bench/mispredict_sites" 64:1 \
        >"$tmp/out" 2>&1 || fail "mispredict_sites.py: $(cat "$tmp/out")"
    grep -q '^ *64  *1  *64 | *-\{0,1\}[0-9.]*  *-\{0,1\}[0-9.]*  *-\{0,1\}[0-9.]* | *[0-9.]*  *[0-9.]*  *0\.[0-9]*  *[0-9.]*$' "$tmp/out" ||
        grep -q 'x86-64 only' "$tmp/out" || fail "mispredict_sites.py: $(cat "$tmp/out")"
fi
# bench/op_cache.py, two small rows: a native and a modelled figure (left out where Valgrind
# cannot run the sanitizer build's program; a line, not a row, off x86-64). A native figure
# is a difference of two timings, which a loaded host can make negative. The second row's
# blocks of eight ops, each a fetch of its own: one cycle a block under zen5's op cache in
# entries, as natively (1.5 when each segment's start was lifted as a fetch of its own, or
# a jmp's target inside one as none). The op cache's capacity, zen5's 1,024 entries: 1,024
# blocks of four ops (64 KiB of code, past L1i) one cycle a block, as natively, for L1i's
# misses are free while the op cache holds the lines (2.5 when each line came from L2);
# 2,048 blocks of eight, past it, through the decoders two cycles a block at the least; 448
# blocks of 13 (three entries each, past it) four cycles a block, each fetch block's
# ceil(13 / 4) though VEX puts two in a segment (3.5 charged once a segment).
if command -v valgrind >/dev/null && ! nm "$build/bench/op_cache" 2>/dev/null | grep -q __asan_init; then
    python3 "$src/bench/op_cache.py" --quick --profile zen5 "$build/ipcc" "$build/bench/op_cache" \
        64:4 64:7m 1024:3m 2048:7m 448:12m \
        >"$tmp/out" 2>&1 || fail "op_cache.py: $(cat "$tmp/out")"
    if ! grep -q 'x86-64 only' "$tmp/out"; then
        grep -q '^ *64  *4  *320  *4 | *-\{0,1\}[0-9.]* | *[0-9.]*  *[0-9.]*$' "$tmp/out" ||
            fail "op_cache.py: $(cat "$tmp/out")"
        # modelled N K LO HI WHAT: the model's cycles a block for N blocks of K within LO-HI
        modelled() {
            m=$(awk -v n="$1" -v k="$2" '$1 == n && $2 == k { print $8 }' "$tmp/out")
            awk -v m="$m" -v lo="$3" -v hi="$4" 'BEGIN { exit !(m >= lo && m <= hi) }' ||
                fail "op_cache.py: $1 blocks of $2 at $m cycles a block under the model, not $5: $(cat "$tmp/out")"
        }
        modelled 64 7m 0.9 1.2 "1.0"
        modelled 1024 3m 0.9 1.3 "1.0 (the op cache holds them)"
        modelled 2048 7m 1.9 3.5 "2 or more (past the op cache)"
        modelled 448 12m 3.8 4.3 "4 (the decoders, a fetch block each)"
    fi
fi
# bench/merge_sort.py, small: a row for each of its five cases, each with a native and a
# modelled figure (left out where Valgrind cannot run the sanitizer build's program).
if command -v valgrind >/dev/null && ! nm "$build/bench/merge_sort" 2>/dev/null | grep -q __asan_init; then
    python3 "$src/bench/merge_sort.py" "$build/ipcc" "$build/bench/merge_sort" 2000 4000 \
        >"$tmp/out" 2>&1 || fail "merge_sort.py: $(cat "$tmp/out")"
    [ "$(grep -c '^ *[24]000 \(random\|sorted\) \(branch\|select\)  *[0-9][0-9.]*  *[0-9][0-9.]* ' "$tmp/out")" = 5 ] ||
        fail "merge_sort.py: $(cat "$tmp/out")"
fi
# bench/code_footprint.py, small: a row for each of two sizes, a native and a modelled figure
# (or why not: x86-64 only).
if command -v valgrind >/dev/null; then
    python3 "$src/bench/code_footprint.py" --sizes 64,128 --rounds 1 --calls 20000 \
        --model-calls 2048 "$build" >"$tmp/out" 2>&1 || fail "code_footprint.py: $(cat "$tmp/out")"
    [ "$(grep -c '^ *\(64\|128\)  *[0-9][0-9]*  *[0-9][0-9.]*  *[0-9.]*%  *[0-9][0-9.]*  *[-+][0-9.]*%' "$tmp/out")" = 2 ] ||
        grep -q 'x86-64 only' "$tmp/out" || fail "code_footprint.py: $(cat "$tmp/out")"
fi
# bench/llc_time.py, quick: a row for each of its four points and a fit (or why there is
# none: memory no slower than the LLC, or not x86-64).
python3 "$src/bench/llc_time.py" "$build/bench/llc_time" --quick >"$tmp/out" 2>&1 ||
    fail "llc_time.py: $(cat "$tmp/out")"
[ "$(grep -c '^ *[48]  *[06]0* ' "$tmp/out")" = 4 ] && grep -q '^fit: llc_share_mib = ' "$tmp/out" ||
    grep -q 'no share to fit\|x86-64 only' "$tmp/out" || fail "llc_time.py: $(cat "$tmp/out")"
# bench/kernel_costs, one round: its eleven figures, each a positive number (nine, and the
# process's n/a, where its x86-64 program cannot run).
"$build/bench/kernel_costs" --rounds 1 >"$tmp/out" 2>&1 || fail "kernel_costs: $(cat "$tmp/out")"
figures=$(grep -c ' [0-9][0-9.]* ns  *[0-9][0-9.]* ' "$tmp/out")
{ [ "$figures" = 11 ] || { [ "$figures" = 9 ] && grep -q '^  a process: .* n/a' "$tmp/out"; }; } &&
    ! grep -q ' -[0-9]\| 0 ns' "$tmp/out" || fail "kernel_costs: $(cat "$tmp/out")"
"$src/bench/stat_overhead.sh" "$build/ipcc" 1 >"$tmp/out" 2>&1 || fail "stat_overhead.sh: $(cat "$tmp/out")"
grep -q "ratio" "$tmp/out" || fail "stat_overhead.sh printed no ratio: $(cat "$tmp/out")"
"$src/bench/record_overhead.sh" "$build/ipcc" "$build/tests/cli/hot_loop" 1 >"$tmp/out" 2>&1 ||
    fail "record_overhead.sh: $(cat "$tmp/out")"
exit 0

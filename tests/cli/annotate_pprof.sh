#!/bin/sh
# annotate_pprof.sh IPCC HOT_LOOP: ipcc annotate --format pprof writes a profile that Go's
# pprof reads, naming the hot function with the samples and share ipcc annotate gives it
# (both read the same samples); to stdout when it is not a terminal; through a symbolic
# link, its target written whole; a bad -o path is an error that leaves no file. Skipped (77) without Go (Debian: golang-go) or without sampling.
set -eu
ipcc=$1 hot=$2
command -v go >/dev/null 2>&1 || { echo "skipped: no 'go' (apt-get install golang-go)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# pprof keeps nothing for -top, but give Go a home and a cache of its own all the same.
export HOME="$tmp" GOCACHE="$tmp/gocache" PPROF_TMPDIR="$tmp"
if ! "$ipcc" record -F 1000 -o "$tmp/p" -- "$hot" 2>"$tmp/err"; then
    grep -q 'cannot sample .* (permission denied)' "$tmp/err" && { cat "$tmp/err"; exit 77; }
    cat "$tmp/err"; exit 1
fi
"$ipcc" annotate -i "$tmp/p" --top 1 >"$tmp/top"
set -- $(awk '$3 == "hot_loop" { sub("%", "", $2); print $1, $2 }' "$tmp/top")
[ $# = 2 ] || { echo "ipcc annotate: hot_loop is not the hottest:"; cat "$tmp/top"; exit 1; }
samples=$1 share=$2

"$ipcc" annotate -i "$tmp/p" --format pprof -o "$tmp/p.pb.gz"
go tool pprof -top "$tmp/p.pb.gz" >"$tmp/pprof" 2>"$tmp/pprof.err" ||
    { echo "go tool pprof failed:"; cat "$tmp/pprof.err"; exit 1; }
go tool pprof -top -sample_index=samples "$tmp/p.pb.gz" >"$tmp/count" 2>>"$tmp/pprof.err"
cat "$tmp/top" "$tmp/pprof"
# The share of the CPU time (the default value) and the count of samples.
pshare=$(awk '$NF == "hot_loop" && $2 ~ /%$/ { sub("%", "", $2); print $2 }' "$tmp/pprof")
pcount=$(awk '$NF == "hot_loop" && $2 ~ /%$/ { print $1 }' "$tmp/count")
[ -n "$pshare" ] && awk -v a="$share" -v b="$pshare" 'BEGIN { d = a - b; exit !(d <= 1 && d >= -1) }' ||
    { echo "pprof gives hot_loop ${pshare:-no}% of the time, ipcc annotate $share%"; exit 1; }
[ "$pcount" = "$samples" ] ||
    { echo "pprof counts ${pcount:-no} samples in hot_loop, ipcc annotate $samples"; cat "$tmp/count"; exit 1; }
grep -q '^Type: cpu$' "$tmp/pprof" && grep -q 'task-clock, freq 1000 Hz' "$tmp/pprof" ||
    { echo "pprof shows no type or no summary comment"; exit 1; }

# To stdout where it is not a terminal: the same profile.
"$ipcc" annotate -i "$tmp/p" --format pprof >"$tmp/stdout.pb.gz"
cmp -s "$tmp/stdout.pb.gz" "$tmp/p.pb.gz" || { echo "stdout and -o differ"; exit 1; }
# Through a symbolic link to a longer file: the link stays, its target is the profile whole
# (truncated, no old tail after it).
head -c 1000000 /dev/urandom >"$tmp/long"
ln -s long "$tmp/link.pb.gz"
"$ipcc" annotate -i "$tmp/p" --format pprof -o "$tmp/link.pb.gz"
[ -L "$tmp/link.pb.gz" ] && cmp -s "$tmp/long" "$tmp/p.pb.gz" ||
    { echo "-o through a link: replaced, or not the profile"; ls -l "$tmp"; exit 1; }
# To a terminal: refused (exit 2), where script(1) can give it one.
if command -v script >/dev/null 2>&1; then
    script -qec "'$ipcc' annotate -i '$tmp/p' --format pprof; echo \"exit \$?\"" /dev/null \
        </dev/null >"$tmp/tty" 2>&1 || true
    grep -q 'binary data' "$tmp/tty" && grep -q 'exit 2' "$tmp/tty" ||
        { echo "--format pprof to a terminal was not refused:"; head -c 400 "$tmp/tty"; exit 1; }
fi

# A path that cannot be written: exit 1, a message, and no file (nor a temporary one).
mkdir "$tmp/empty"
if "$ipcc" annotate -i "$tmp/p" --format pprof -o "$tmp/empty/no/p.pb.gz" 2>"$tmp/err"; then
    echo "writing to a missing folder succeeded"; exit 1
else
    [ $? = 1 ] || { echo "a bad -o path is not exit 1"; exit 1; }
fi
grep -q "cannot write $tmp/empty/no/p.pb.gz" "$tmp/err" && [ -z "$(ls -A "$tmp/empty")" ] ||
    { echo "bad error or a file left behind:"; cat "$tmp/err"; ls -A "$tmp/empty"; exit 1; }
chmod 555 "$tmp/empty"
if [ "$(id -u)" != 0 ]; then
    if "$ipcc" annotate -i "$tmp/p" --format pprof -o "$tmp/empty/p.pb.gz" 2>"$tmp/err"; then
        echo "writing to a read-only folder succeeded"; exit 1
    fi
    [ -z "$(ls -A "$tmp/empty")" ] || { echo "a file left behind"; exit 1; }
fi
echo "ok: go tool pprof gives hot_loop $pshare% ($pcount samples), ipcc annotate $share% ($samples)"

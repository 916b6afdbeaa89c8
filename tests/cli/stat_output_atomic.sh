#!/bin/sh
# stat_output_atomic.sh IPCC: ipcc stat -o FILE replaces FILE whole (FILE.tmp.PID, fsync,
# rename): a reader that reads it while writers replace it over and over sees only whole
# files; no temporary file is left; a command that cannot run leaves the old file as it was;
# a path that cannot be written fails before the command runs; a FIFO, a device or a symbolic
# link is written straight to, never replaced by a regular file (as root a rename onto
# /dev/null would turn the machine's /dev/null into a file that every later `>/dev/null`
# writes to).
set -eu
ipcc=$1
dir=$(mktemp -d)
pids=
trap 'for p in $pids; do kill "$p" 2>/dev/null || :; wait "$p" 2>/dev/null || :; done; rm -rf "$dir"' EXIT
f=$dir/ipcc.prom

"$ipcc" stat --format openmetrics -o "$f" -- true
# Writers replace the file while a reader checks each version it sees ends in '# EOF'.
for w in 1 2 3; do
    ( i=0; while [ $i -lt 15 ]; do
          "$ipcc" stat --format openmetrics -o "$f" -- true || exit 1; i=$((i + 1)); done
      touch "$dir/done.$w" ) &
    pids="$pids $!"
done
reads=0 bad=0
while [ ! -e "$dir/done.1" ] || [ ! -e "$dir/done.2" ] || [ ! -e "$dir/done.3" ]; do
    # cat reads the one file it opened, whatever replaces the name meanwhile; cp refuses a
    # file renamed over while it copies ("replaced while being copied") and would fail here.
    cat "$f" >"$dir/seen"
    reads=$((reads + 1))
    head -n 1 "$dir/seen" | grep -q '^# TYPE ' && tail -n 1 "$dir/seen" | grep -qx '# EOF' ||
        { bad=$((bad + 1)); cp "$dir/seen" "$dir/bad.$bad"; }
done
for p in $pids; do wait "$p" || { echo "a writer failed"; exit 1; }; done
pids=
[ $bad = 0 ] || { echo "$bad of $reads reads saw a partial file:"; cat "$dir/bad.1"; exit 1; }
ls "$dir" | grep -q 'tmp' && { echo "temporary file left behind:"; ls "$dir"; exit 1; }
tail -n 1 "$f" | grep -qx '# EOF' || { echo "the last file is not whole"; exit 1; }

# A command that cannot run: the old file stays.
echo old >"$f"
"$ipcc" stat --format openmetrics -o "$f" -- ipcc-no-such-command 2>/dev/null && st=0 || st=$?
[ "$st" = 127 ] || { echo "exit $st for a missing command, not 127"; exit 1; }
[ "$(cat "$f")" = old ] || { echo "the old file was replaced by a failed run"; exit 1; }
ls "$dir" | grep -q 'tmp' && { echo "temporary file left after a failed run"; exit 1; }

# A folder that does not exist: an error before the command runs.
"$ipcc" stat -o "$dir/no/such/dir/x.prom" -- touch "$dir/ran" 2>"$dir/err" && st=0 || st=$?
[ "$st" = 1 ] && grep -q "cannot write" "$dir/err" || { echo "exit $st:"; cat "$dir/err"; exit 1; }
[ ! -e "$dir/ran" ] || { echo "the command ran although -o could not be written"; exit 1; }
# A FIFO: its reader gets the whole result, and it stays a FIFO.
mkfifo "$dir/fifo"
cat "$dir/fifo" >"$dir/from-fifo" &
pids=$!
"$ipcc" stat --format openmetrics -o "$dir/fifo" -- true
wait "$pids"
pids=
[ -p "$dir/fifo" ] || { echo "the FIFO was replaced:"; ls -l "$dir/fifo"; exit 1; }
tail -n 1 "$dir/from-fifo" | grep -qx '# EOF' || { echo "the FIFO's reader got:"; cat "$dir/from-fifo"; exit 1; }
# A symbolic link: its target is written, and it stays a link.
echo old >"$dir/target.prom"
ln -s target.prom "$dir/link.prom"
"$ipcc" stat --format openmetrics -o "$dir/link.prom" -- true
[ -L "$dir/link.prom" ] || { echo "the link was replaced by a file"; exit 1; }
tail -n 1 "$dir/target.prom" | grep -qx '# EOF' || { echo "the link's target:"; cat "$dir/target.prom"; exit 1; }
# /dev/null: still the device afterwards (the test runs as root in CI).
if [ -c /dev/null ]; then
    "$ipcc" stat -o /dev/null -- true
    [ -c /dev/null ] || { echo "ipcc stat -o /dev/null replaced the device:"; ls -l /dev/null; exit 1; }
fi
ls "$dir" | grep -q 'tmp' && { echo "temporary file left beside a FIFO or a link:"; ls "$dir"; exit 1; }
echo "ok: -o replaced atomically ($reads reads, none partial); a FIFO, a link and /dev/null written as they are"

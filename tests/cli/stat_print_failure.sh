#!/bin/sh
# stat_print_failure.sh STAT_PRINT_FAILS: when ipcc stat's printer fails after it has written
# part of the result (an error the output stream does not see), the existing -o file stays as
# it was, no temporary file is left, and the exit status is 1 with the error on stderr.
# STAT_PRINT_FAILS is cmd_stat.c with a printer that fails halfway (stat_print_fails.c).
set -eu
stat=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
f=$dir/out.prom
echo old >"$f"
"$stat" stat --format openmetrics -o "$f" -- true 2>"$dir/err" && st=0 || st=$?
[ "$st" = 1 ] || { echo "exit $st, not 1"; cat "$dir/err"; exit 1; }
grep -q "the printer failed halfway" "$dir/err" || { echo "no error said:"; cat "$dir/err"; exit 1; }
[ "$(cat "$f")" = old ] || { echo "the old file was replaced by a partial one:"; cat "$f"; exit 1; }
ls "$dir" | grep -q tmp && { echo "temporary file left behind:"; ls "$dir"; exit 1; }
# Without -o the partial result goes to stderr (there is no file to protect), still exit 1.
"$stat" stat -- true 2>"$dir/err2" && st=0 || st=$?
[ "$st" = 1 ] || { echo "exit $st without -o, not 1"; exit 1; }
echo "ok: a failed printer leaves -o's file as it was"

#!/bin/sh
# stat_exit_status.sh IPCC: ipcc stat exits with the command's status, 128+N for a signal,
# passes SIGINT on and still prints the counts, writes -o files, and leaks no fd into the
# command.
set -u
ipcc=$1
fail() { echo "FAIL: $*"; exit 1; }

"$ipcc" stat -- sh -c 'exit 3' 2>/dev/null; [ $? = 3 ] || fail "exit 3 not passed on"
"$ipcc" stat -- sh -c 'kill -TERM $$' 2>/dev/null; [ $? = 143 ] || fail "SIGTERM not 143"

# SIGINT to ipcc goes on to the command; the partial counts are printed.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ipcc" stat -- sleep 10 2>"$tmp/int" &
pid=$!
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ] || fail "SIGINT: exit $rc, not 130"
grep -q 'interrupted by signal 2' "$tmp/int" || fail "no partial counts after SIGINT"
grep -q 'elapsed' "$tmp/int" || fail "no elapsed after SIGINT"

# -o: the result in the file, nothing of ipcc's on stderr
"$ipcc" stat -o "$tmp/out.json" --format json -- true 2>"$tmp/err" || fail "-o run failed"
[ -s "$tmp/err" ] && fail "-o still wrote to stderr: $(cat "$tmp/err")"
jq -e '.exit_status == 0' "$tmp/out.json" >/dev/null || fail "-o file is not the JSON result"

# The command inherits no fd of ipcc's: the same fds as when run without it.
want=$(ls /proc/self/fd | tr '\n' ' ')
fds=$("$ipcc" stat -- ls /proc/self/fd 2>/dev/null | tr '\n' ' ')
[ "$fds" = "$want" ] || fail "fds leaked into the command: $fds (without ipcc: $want)"

# Many runs leave no child behind.
"$ipcc" stat -r 20 -- true 2>/dev/null || fail "-r 20 failed"
echo "ok: exit statuses, SIGINT, -o, no leaked fds"

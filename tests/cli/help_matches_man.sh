#!/bin/sh
# help_matches_man.sh IPCC DOCS: every command has a man page that ipcc(1) refers to, and
# every long option that a command's --help lists appears in its man page, and the other way
# round.
set -u
ipcc=$1 docs=$2
status=0
for cmd in $("$ipcc" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }'); do
    [ "$cmd" = help ] && continue
    man=$docs/ipcc-$cmd.1
    sed 's/\\-/-/g' "$docs/ipcc.1" | grep -q "ipcc-$cmd" ||
        { echo "ipcc.1 does not refer to ipcc-$cmd"; status=1; }
    if [ ! -f "$man" ]; then
        echo "no man page $man for '$cmd'"; status=1; continue
    fi
    help_opts=$("$ipcc" help "$cmd" | grep -oE -- '--[a-z][a-z-]+' | sort -u)
    man_opts=$(sed 's/\\-/-/g' "$man" | grep -oE -- '--[a-z][a-z-]+' | sort -u)
    if [ "$help_opts" != "$man_opts" ]; then
        echo "ipcc $cmd: --help and $man disagree:"
        printf '%s\n' "$help_opts" >/tmp/ipcc-help.$$; printf '%s\n' "$man_opts" >/tmp/ipcc-man.$$
        diff /tmp/ipcc-help.$$ /tmp/ipcc-man.$$; rm -f /tmp/ipcc-help.$$ /tmp/ipcc-man.$$
        status=1
    fi
done
[ $status = 0 ] && echo "ok: --help and man pages agree"
exit $status

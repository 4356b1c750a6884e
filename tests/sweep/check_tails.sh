#!/bin/sh
# tests/sweep/check_tails.sh PROGRAM FROM:TO...: checks with objdump that the tail calls the
# sweep is about were compiled to jumps: function FROM jumps to function TO, for every pair.
# Exit 1 with a message otherwise.
prog=$1
shift
dis=$(objdump -d --no-show-raw-insn "$prog") || exit 1
status=0
for pair in "$@"; do
    from=${pair%%:*} to=${pair#*:}
    if ! printf '%s\n' "$dis" | awk -v f="<$from>:" '$2 == f { on = 1; next } /^$/ { on = 0 } on' |
            grep -Eq "j[a-z]+ +[0-9a-f]+ <$to>"; then
        echo "check_tails: $prog: $from does not jump to $to (no tail call)" >&2
        status=1
    fi
done
exit $status

#!/bin/sh
# tests/sweep/check_tails.sh PROGRAM: checks with objdump that the tail calls of
# sweep_prog.c were compiled to jumps (the sweep is about them): tail jmp leaf, t1 jmp t2,
# t2 jmp leaf2, a1 jmp b1 and b2, b1 and b2 jmp final.  Exit 1 with a message otherwise.
prog=$1
dis=$(objdump -d --no-show-raw-insn "$prog") || exit 1
status=0
for pair in tail:leaf t1:t2 t2:leaf2 a1:b1 a1:b2 b1:final b2:final; do
    from=${pair%%:*} to=${pair#*:}
    if ! printf '%s\n' "$dis" | awk -v f="<$from>:" '$2 == f { on = 1; next } /^$/ { on = 0 } on' |
            grep -Eq "j[a-z]+ +[0-9a-f]+ <$to>"; then
        echo "check_tails: $prog: $from does not jump to $to (no tail call)" >&2
        status=1
    fi
done
exit $status

#!/bin/bash
# capstone loaded when the CLI first decodes (coredump/capstone_lazy.h): corestack is not
# linked with it, a walk that needs instruction analysis still gets it, and without a usable
# library the walk goes on without it and the shell's disassemble says which file could not
# be loaded.  The core: tests/progs/leaf.c's fp build stopped at leaf's first instruction,
# where only the decoded code tells that leaf's caller is middle ([recovered caller]).
# Prints PASS/FAIL/SKIP lines for tests/run.sh; always exits 0.
. "$(dirname "$0")/lib/common.sh" || exit 1
BIN=$B/corestack
PROG=$T/leaf-fp

[ -x "$BIN" ] || { skip capstone "$BIN not built (make)"; exit 0; }
[ -x "$PROG" ] || { skip capstone "$PROG not built (make test-progs)"; exit 0; }

if readelf -d "$BIN" | grep -q 'NEEDED.*libcapstone'; then
	fail capstone-not-linked "$(readelf -d "$BIN" | grep 'NEEDED.*libcapstone')"
else
	pass capstone-not-linked
fi

C=$W/leaf.core
if ! python3 tests/lib/mkcore.py stop "$C" "$PROG" leaf entry 2>"$W/mkcore.err"; then
	fail capstone-core "$(cat "$W/mkcore.err")"
	exit 0
fi

"$CS" "$C" > "$W/ok.txt" 2>"$W/ok.err"; rc=$?
if [ $rc = 0 ] && grep -q '^#1 .* in middle () .*\[recovered caller\]$' "$W/ok.txt"; then
	pass capstone-loaded-on-decode
else
	fail capstone-loaded-on-decode "exit $rc: $(grep '^#1' "$W/ok.txt") $(head -1 "$W/ok.err")"
fi

# a library of capstone's file name without its functions, found first
mkdir -p "$W/fakecs"
echo 'int not_capstone;' > "$W/fakecs/f.c"
if ! cc -shared -fPIC -o "$W/fakecs/libcapstone.so.4" "$W/fakecs/f.c" 2>"$W/cc.err"; then
	fail capstone-fake-lib "$(head -1 "$W/cc.err")"
	exit 0
fi
cp "$W/fakecs/libcapstone.so.4" "$W/fakecs/libcapstone.so.5"
LD_LIBRARY_PATH=$W/fakecs "$CS" "$C" > "$W/bad.txt" 2>"$W/bad.err"; rc=$?
if [ $rc -le 1 ] && grep -q '^#0 .* in leaf ()' "$W/bad.txt" && grep -q '^#1 .* in middle ()' "$W/bad.txt"; then
	pass capstone-missing-walk
else
	fail capstone-missing-walk "exit $rc: $(grep '^#' "$W/bad.txt" | head -2) $(head -1 "$W/bad.err")"
fi
printf 'disassemble\nquit\n' | LD_LIBRARY_PATH=$W/fakecs "$BIN" -i "$C" > "$W/shell.txt" 2>&1; rc=$?
if [ $rc -lt 2 ] && grep -q '^capstone: the capstone library (libcapstone\.so\.[0-9]*) could not be loaded$' "$W/shell.txt"; then
	pass capstone-missing-shell
else
	fail capstone-missing-shell "exit $rc: $(tail -2 "$W/shell.txt")"
fi
printf 'disassemble\nquit\n' | "$BIN" -i "$C" > "$W/shell-ok.txt" 2>&1; rc=$?
if [ $rc -lt 2 ] && grep -q '^=> 0x[0-9a-f]* <+0>:' "$W/shell-ok.txt"; then
	pass capstone-shell-disassemble
else
	fail capstone-shell-disassemble "exit $rc: $(head -3 "$W/shell-ok.txt")"
fi
exit 0

#!/bin/bash
# capstone loaded when the CLI first decodes (coredump/capstone_lazy.h): corestack is not
# linked with it and a run that decodes nothing does not load it; a walk that needs
# instruction analysis still gets it; without a usable library the walk goes on without it,
# one line on stderr says so, and the shell's disassemble says which file could not be
# loaded.  The core: tests/progs/leaf.c's fp build stopped at leaf's first instruction,
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
# the dynamic linker's own account of the files it loads (ld.so(8), LD_DEBUG=files)
if LD_DEBUG=files "$BIN" --version 2>&1 >/dev/null | grep -q 'file=libcapstone'; then
	fail capstone-deferred "corestack --version loaded libcapstone"
else
	pass capstone-deferred
fi

C=$W/leaf.core
if ! python3 tests/lib/mkcore.py stop "$C" "$PROG" leaf entry 2>"$W/mkcore.err"; then
	fail capstone-core "$(cat "$W/mkcore.err")"
	exit 0
fi

"$CS" "$C" > "$W/ok.txt" 2>"$W/ok.err"; rc=$?
if [ $rc = 0 ] && grep -q '^#1 .* in middle () .*\[recovered caller\]$' "$W/ok.txt" && [ ! -s "$W/ok.err" ] &&
   LD_DEBUG=files "$BIN" "$C" 2>&1 >/dev/null | grep -q 'file=libcapstone'; then
	pass capstone-loaded-on-decode
else
	fail capstone-loaded-on-decode "exit $rc: $(grep '^#1' "$W/ok.txt") $(head -1 "$W/ok.err")"
fi

# a library of capstone's file name (libcapstone.so.<API major>, the major of capstone's
# pkg-config version) without its functions, found first
SONAME=libcapstone.so.$(pkg-config --modversion capstone 2>/dev/null | cut -d. -f1)
mkdir -p "$W/fakecs"
echo 'int not_capstone;' > "$W/fakecs/f.c"
if ! command -v "${CC:-cc}" >/dev/null; then
	skip capstone-missing "no C compiler (${CC:-cc}) to make a library without capstone's functions"
	exit 0
fi
if ! "${CC:-cc}" -shared -fPIC -o "$W/fakecs/$SONAME" "$W/fakecs/f.c" 2>"$W/cc.err"; then
	fail capstone-fake-lib "$(head -1 "$W/cc.err")"
	exit 0
fi
LD_LIBRARY_PATH=$W/fakecs "$CS" "$C" > "$W/bad.txt" 2>"$W/bad.err"; rc=$?
want="corestack: $SONAME: could not be loaded ($W/fakecs/$SONAME: undefined symbol: cs_open); the walks go on without decoding code"
if [ $rc = 0 ] && grep -q '^#0 .* in leaf ()' "$W/bad.txt" && grep -q '^#1 .* in middle ()' "$W/bad.txt" &&
   [ "$(cat "$W/bad.err")" = "$want" ]; then
	pass capstone-missing-walk
else
	fail capstone-missing-walk "exit $rc: $(grep '^#' "$W/bad.txt" | head -2) / $(cat "$W/bad.err")"
fi
printf 'disassemble\nquit\n' | LD_LIBRARY_PATH=$W/fakecs "$BIN" -i "$C" > "$W/shell.txt" 2>&1; rc=$?
if [ $rc -lt 2 ] && grep -qF "capstone: the capstone library ($SONAME) could not be loaded: $W/fakecs/$SONAME: undefined symbol: cs_open" "$W/shell.txt"; then
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

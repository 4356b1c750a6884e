#!/bin/bash
# The symbol index (common/symindex.c) against libdwfl's own nearest-symbol lookup, which it
# replaces for speed: tests/symindex/check_symindex probes symbol starts, middles, ends and
# spread addresses of the test programs (every build), of libraries with many aliases
# (glibc, with its debug file when libc6-dbg is installed; libdw; capstone) and of the
# SPARC cross glibc (big-endian, 64- and 32-bit).  Prints PASS/FAIL/SKIP lines; exits 0.
. "$(dirname "$0")/lib/common.sh" || exit 1
CHECK=$T/check_symindex
[ -x "$CHECK" ] || { skip symindex "no $CHECK (make check builds it)"; exit 0; }

run() {        # run NAME FILE...
	local name=$1
	shift
	local out rc
	out=$("$CHECK" "$@" 2>&1)
	rc=$?
	local total
	total=$(echo "$out" | awk '/addresses/ { n += $2 } END { print n + 0 }')
	if [ $rc -eq 0 ] && [ "$total" -gt 0 ]; then
		pass "symindex-$name ($total addresses agree)"
	elif [ $rc -eq 0 ]; then
		fail "symindex-$name" "no address probed"
	else
		fail "symindex-$name" "$(echo "$out" | grep -v ' 0 differ' | head -3 | tr '\n' '|')"
	fi
}

progs=()
for f in "$T"/*-g "$T"/*-cfi "$T"/*-fp "$T"/*-fpnoleaf; do
	[ -x "$f" ] && progs+=("$f")
done
if [ ${#progs[@]} -gt 0 ]; then run test-programs "${progs[@]}"; else skip symindex-test-programs "no test programs"; fi

for lib in /usr/lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libdw.so.1 \
	   /usr/lib/x86_64-linux-gnu/libcapstone.so.4 /usr/sparc64-linux-gnu/lib/libc.so.6 \
	   /usr/sparc64-linux-gnu/lib32/libc.so.6; do
	name=$(echo "$lib" | sed 's|^/usr/||; s|/|-|g')
	if [ -f "$lib" ]; then run "$name" "$lib"; else skip "symindex-$name" "$lib is not installed"; fi
done
exit 0

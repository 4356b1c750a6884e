#!/bin/bash
# The "cfa" of each frame in --json, checked against the core's memory (the return address
# at CFA-8 is the caller's pc, tests/lib/check_cfa.py) on cores of the test programs: CFI,
# frame-pointer, frameless and -g (inlined) builds, tail calls, threads.
# Prints PASS/FAIL/SKIP lines for tests/run.sh; always exits 0.
. "$(dirname "$0")/lib/common.sh" || exit 1
for spec in "tail-cfi crash" "tail-fp crash" "tail-fpnoleaf crash" "threads-cfi" "threads-g" "segv-g" "libcfp-fp qsort"; do
	set -- $spec
	prog=$1; shift
	if [ ! -x "$T/$prog" ]; then skip "cfa-$prog" "no $T/$prog (make test-progs)"; continue; fi
	if python3 tests/lib/mkcore.py crash "$W/$prog.core" "$T/$prog" "$@" >/dev/null 2>"$W/err"; then
		python3 tests/lib/check_cfa.py "$CS" "$W/$prog.core"
	else
		fail "cfa-$prog" "no core: $(head -1 "$W/err")"
	fi
done
exit 0

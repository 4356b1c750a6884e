#!/bin/bash
# The "cfa" of each frame in --json, checked against the core's memory (the return address
# at CFA-8 is the caller's pc, tests/lib/check_cfa.py) on cores of the test programs: CFI,
# frame-pointer, frameless and -g (inlined) builds, tail calls, threads.
# Prints PASS/FAIL/SKIP lines for tests/run.sh; always exits 0.
cd "$(dirname "$0")/.." || exit 0
BUILD=${BUILD:-build}
case $BUILD in /*) CS=$BUILD/corestack ;; *) CS=$(pwd)/$BUILD/corestack ;; esac
T=$BUILD/tests
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
for spec in "tail-cfi crash" "tail-fp crash" "tail-fpnoleaf crash" "threads-cfi" "threads-g" "segv-g" "libcfp-fp qsort"; do
	set -- $spec
	prog=$1; shift
	if [ ! -x "$T/$prog" ]; then echo "SKIP cfa-$prog: no $T/$prog (make test-progs)"; continue; fi
	if python3 tests/lib/mkcore.py crash "$W/$prog.core" "$T/$prog" "$@" >/dev/null 2>"$W/err"; then
		python3 tests/lib/check_cfa.py "$CS" "$W/$prog.core"
	else
		echo "FAIL cfa-$prog: no core: $(head -1 "$W/err")"
	fi
done
exit 0

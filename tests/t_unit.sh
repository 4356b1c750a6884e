#!/bin/bash
# The C unit tests of common/ (tests/unit/, built by `make unit-tests`): each program
# $BUILD/tests/unit/test_NAME prints its own PASS/FAIL lines; it is run from the top folder
# with $BUILD/tests/unit as its argument (where the assembled inputs it reads are).  A
# program that crashes or exits non-zero without a FAIL line is a failure of its own.
# Prints PASS/FAIL/SKIP lines; exits 0.
. "$(dirname "$0")/lib/common.sh" || exit 1
DIR=$T/unit
ls "$DIR"/test_* >/dev/null 2>&1 || { skip unit "no $DIR/test_* (make unit-tests builds them)"; exit 0; }

for t in "$DIR"/test_*; do
	case "$t" in *.o | *.d) continue ;; esac
	[ -x "$t" ] || continue
	relay "unit-$(basename "$t")" "$t" "$DIR"
done
exit 0

#!/bin/bash
# The C unit tests of common/ (tests/unit/, built by `make unit-tests`): each program
# $BUILD/tests/unit/test_NAME prints its own PASS/FAIL lines; it is run from the top folder
# with $BUILD/tests/unit as its argument (where the assembled inputs it reads are).  A
# program that crashes or exits non-zero without a FAIL line is a failure of its own.
# Prints PASS/FAIL/SKIP lines; exits 0.
cd "$(dirname "$0")/.." || exit 0
BUILD=${BUILD:-build}
DIR=$BUILD/tests/unit
ls "$DIR"/test_* >/dev/null 2>&1 || { echo "SKIP unit: no $DIR/test_* (make unit-tests builds them)"; exit 0; }

for t in "$DIR"/test_*; do
	case "$t" in *.o | *.d) continue ;; esac
	[ -x "$t" ] || continue
	name=$(basename "$t")
	out=$("$t" "$DIR" 2>&1)
	rc=$?
	echo "$out" | grep -E '^(PASS|FAIL|SKIP) '
	if ! echo "$out" | grep -qE '^(PASS|FAIL) '; then
		echo "FAIL unit-$name: no result line (exit status $rc): $(echo "$out" | head -3 | tr '\n' '|')"
	elif [ $rc != 0 ] && ! echo "$out" | grep -q '^FAIL '; then
		echo "FAIL unit-$name: exit status $rc: $(echo "$out" | grep -vE '^(PASS|SKIP) ' | head -3 | tr '\n' '|')"
	fi
done
exit 0

#!/bin/bash
# The x86-64 instruction analysis at joins (common/arch/x86_64/analysis.c over
# common/unwind/dataflow.c): tests/analysis/check_analysis runs it on hand-assembled
# functions in an in-memory target and prints its own PASS/FAIL lines.  Exits 0.
cd "$(dirname "$0")/.." || exit 0
BUILD=${BUILD:-build}
CHECK=$BUILD/tests/check_analysis
[ -x "$CHECK" ] || { echo "SKIP analysis: no $CHECK (make check builds it)"; exit 0; }
out=$("$CHECK" 2>&1); rc=$?
echo "$out"
if [ $rc != 0 ] && ! grep -q '^FAIL' <<< "$out"; then
    echo "FAIL analysis: $CHECK exited with status $rc"
fi
exit 0

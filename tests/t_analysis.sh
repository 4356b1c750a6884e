#!/bin/bash
# The x86-64 instruction analysis at joins (common/arch/x86_64/analysis.c over
# common/unwind/dataflow.c): tests/analysis/check_analysis runs it on hand-assembled
# functions in an in-memory target and prints its own PASS/FAIL lines.  Exits 0.
. "$(dirname "$0")/lib/common.sh" || exit 1
CHECK=$T/check_analysis
[ -x "$CHECK" ] || { skip analysis "no $CHECK (make check builds it)"; exit 0; }
relay analysis "$CHECK"
exit 0

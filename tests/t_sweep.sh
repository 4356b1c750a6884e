#!/bin/bash
# tests/t_sweep.sh: the accuracy sweep (tests/sweep/), run by tests/run.sh.  Prints a
# PASS/FAIL/SKIP line per build of tests/sweep/sweep_prog.c; needs `make sweep-progs`.
# (run_sweep.sh, also run alone, sources tests/lib/common.sh itself.)
exec bash "$(dirname "$0")/sweep/run_sweep.sh"

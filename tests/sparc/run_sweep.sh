#!/bin/bash
# tests/sparc/run_sweep.sh: the SPARC accuracy sweep (tests/sparc/sweep.py) on the committed
# builds of tests/sparc/progs/seeds.c and frames.c (case "all": every call structure in
# turn; frames-O2, frames-O3 (-O3 -ffunction-sections) and their stripped twins: "every",
# with the function-pointer cases), one test-protocol line per build (PROG-O2s, PROG-O3s:
# corestack reads PROG-O2 or PROG-O3 stripped, held to the
# same truth with --stripped):
#   PASS sparc-sweep-BUILD: N/M (100%)     every instruction unwound exactly
#   FAIL sparc-sweep-BUILD: N/M (P%)       followed by the first mismatches, indented
#   SKIP sparc-sweep-BUILD: reason
# Needs qemu-user and $BUILD/corestack; the stderr of each run is kept in
# $BUILD/tests/sparc/sweep-BUILD.log.  Always exits 0.  Env: BUILD (default build).
cd "$(dirname "$0")/../.." || exit 0
BUILD=${BUILD:-build}
F=tests/sparc/fixtures
mkdir -p "$BUILD/tests/sparc"
for b in seeds-O2 seeds-O2nr seeds-O2g seeds-O0 seeds-pie seeds-m32 seeds-m32g \
         frames-O2 frames-O2g frames-O0 frames-m32 frames-O2s seeds-O2s frames-O3 frames-O3s; do
    if [ ! -x "$BUILD/corestack" ]; then
        echo "SKIP sparc-sweep-$b: $BUILD/corestack not built"; continue
    fi
    if ! command -v qemu-sparc64 > /dev/null; then
        echo "SKIP sparc-sweep-$b: no qemu-sparc64 (make fixtures-deps)"; continue
    fi
    log=$BUILD/tests/sparc/sweep-$b.log
    case $b in
    *-O2s|*-O3s) run=(--stripped "$F/$b" "$b" "$F/${b%s}") ;;
    *) run=("$b" "$F/$b") ;;
    esac
    case $b in frames-O2*|frames-O3*) case_=every ;; *) case_=all ;; esac
    out=$(python3 tests/sparc/sweep.py --corestack "$BUILD/corestack" "${run[@]}" "$case_" 2> "$log")
    rc=$?
    counts=$(sed -n 's/^sweep [^:]*: \([0-9]*\/[0-9]*\) instructions exact (\([0-9.]*%\))$/\1 (\2)/p' <<< "$out")
    if [ $rc = 0 ] && [ "${counts#* }" = "(100%)" ]; then
        echo "PASS sparc-sweep-$b: $counts"
    else
        echo "FAIL sparc-sweep-$b: ${counts:-no result (exit status $rc)}"
        head -n 16 "$log" | sed 's/^/    /'
    fi
done
exit 0

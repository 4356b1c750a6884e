#!/bin/bash
# tests/sweep/run_sweep.sh: runs the accuracy sweep (tests/sweep/sweep.c) on every build of
# tests/sweep/sweep_prog.c and prints one test-protocol line per build:
#   PASS sweep-BUILD: N/M (100%)      every instruction unwound exactly
#   FAIL sweep-BUILD: N/M (P%)        followed by the first mismatches, indented
#   SKIP sweep-BUILD: reason          the stepper or the program is not built
# Builds nothing: `make sweep-progs` does.  The stderr of each run is kept in
# $BUILD/tests/sweep/BUILD.log.  Always exits 0 (tests/run.sh counts the lines).
# Env: BUILD (default build).
. "$(dirname "$0")/../lib/common.sh" || exit 1
D=$T/sweep
SWEEP=$D/sweep

for v in fp fpnoleaf fpcfi cfi g fpO3 fp-stripped cfi-stripped fpO3-stripped; do
    prog=$D/prog.$v
    syms=$D/prog.${v%-stripped}          # the unstripped twin gives the truth its functions
    if [ ! -x "$SWEEP" ]; then
        skip "sweep-$v" "$SWEEP not built (make sweep-progs)"; continue
    fi
    if [ ! -x "$prog" ] || [ ! -e "$syms" ]; then
        skip "sweep-$v" "$prog not built (make sweep-progs)"; continue
    fi
    log=$D/$v.log
    out=$("$SWEEP" "$v" "$prog" "$syms" 2> "$log"); rc=$?
    # out: "sweep BUILD: N/M instructions exact (P%)"
    counts=$(sed -n 's/^sweep [^:]*: \([0-9]*\/[0-9]*\) instructions exact (\([0-9.]*%\))$/\1 (\2)/p' <<< "$out")
    if [ $rc = 0 ] && [ "${counts#* }" = "(100%)" ]; then
        pass "sweep-$v: $counts"
    else
        fail "sweep-$v" "${counts:-no result (exit status $rc)}"
        grep -v '^sweep [^:]*: [0-9]* frames compared' "$log" | head -n 16 | sed 's/^/    /'
    fi
done
exit 0

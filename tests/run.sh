#!/bin/bash
# tests/run.sh: run the corestack test suite.
# For each case in the table below: make a core from a test program
# ($BUILD/tests/PROG-VARIANT, built by `make test-progs`) with
# tests/lib/mkcore.py, then compare one thread's frames from
# `$BUILD/corestack --json` with tests/expected/EXPECTED using
# tests/lib/check_frames.py.  Then run every executable tests/t_*.sh; such a
# script prints its own result lines, and every line of its stdout that
# starts with "PASS", "FAIL" or "SKIP" is counted (other lines are shown as
# they are).  A script also FAILs when it exits with a status other than 0,
# writes a Python traceback or a bash error (on stdout or stderr) or prints no
# result line (judge_script in tests/lib/common.sh); its stderr is shown,
# indented, after a failure.  Prints one line per case, PASS name / FAIL name:
# reason / SKIP name: reason (details of a failure follow, indented), and at the end
# "N passed, N failed, N skipped".  Exit status 1 if any case failed.
# Usage: [CORESTACK=binary] BUILD=build bash tests/run.sh [NAME-GLOB]   (a glob runs only the
# matching table cases, e.g. 'leaf_*-fp', and no t_*.sh scripts)
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
export BUILD
T=$BUILD/tests
ONLY=${1:-*}
CST_LIB_ONLY=1 . tests/lib/common.sh || exit 2   # pass, fail, skip, judge_script

# Cases: NAME VARIANTS EXPECTED [CHECK-OPTIONS...] -- CORE-SPEC
# VARIANTS is a comma list; each variant is a case NAME-VARIANT.
# CORE-SPEC is "crash PROG [ARGS]" or "stop PROG FUNC WHERE [ARGS]" (see
# tests/lib/mkcore.py); PROG means $BUILD/tests/PROG-VARIANT.  In
# CHECK-OPTIONS, {T} stands for $BUILD/tests.
# Variants where the stopped function has a frame record: *_fp expected.
CASES='
leaf_entry     fp,fpnoleaf,fpcfi,cfi,g leaf_nofp        -- stop leaf leaf entry
leaf_afterpush fp,fpcfi,g              leaf_nofp        -- stop leaf leaf afterpush
leaf_body      fp,fpcfi,g              leaf_fp          -- stop leaf leaf body
leaf_body      fpnoleaf,cfi            leaf_nofp        -- stop leaf leaf body
leaf_ret       fp,fpnoleaf,fpcfi,cfi,g leaf_nofp        -- stop leaf leaf ret
leaf0_body     fp,fpnoleaf,fpcfi,cfi,g leaf0_nofp       -- stop leaf leaf0 body
tail_crash     fp,fpcfi,g              tail_fp          -- crash tail crash
tail_crash     fpnoleaf,cfi            tail_nofp        -- crash tail crash
tail_entry     fp,fpnoleaf,fpcfi,cfi,g tail_nofp        -- stop tail leaf2 entry
tail_body      fp,fpcfi,g              tail_fp          -- stop tail leaf2 body
tail_body      fpnoleaf,cfi            tail_nofp        -- stop tail leaf2 body
tchain_crash   fp,fpcfi,g              tchain_fp        -- crash tailchain uniq crash
tchain_crash   fpnoleaf,cfi            tchain_nofp      -- crash tailchain uniq crash
tchain_entry   fp,fpnoleaf,fpcfi,cfi,g tchain_nofp      -- stop tailchain target entry uniq
tambig_crash   fp,fpcfi,g              tambig_fp        -- crash tailchain ambig crash
tambig_crash   fpnoleaf,cfi            tambig_nofp      -- crash tailchain ambig crash
tambig_entry   fp,fpnoleaf,fpcfi,cfi,g tambig_nofp      -- stop tailchain final entry ambig
cold_abort     fp,fpnoleaf,fpcfi,cfi   cold             -- crash cold
cold_abort     g                       cold_g           -- crash cold
libc_abort     fp,fpnoleaf,fpcfi,cfi,g libc_abort       -- crash libcfp abort
libc_qsort     fp,fpcfi,g              libc_qsort_fp    -- crash libcfp qsort
libc_qsort     fpnoleaf,cfi            libc_qsort_nofp  -- crash libcfp qsort
segv           fp,fpcfi,g              segv_fp          -- crash segv
segv           fpnoleaf,cfi            segv_nofp        -- crash segv
stripped       fp-stripped             stripped_fp      -- crash segv
stripped       cfi-stripped            stripped_nofp    -- crash segv
stripped_abort fp-stripped,cfi-stripped stripped_abort  -- crash libcfp abort
stripped_exe   fp-stripped             segv_fp --exe {T}/segv-fp -- crash segv
stripped_exe   cfi-stripped            segv_nofp --exe {T}/segv-cfi -- crash segv
threads_crash  fp,fpnoleaf,fpcfi,g     threads_crash_fp  -- crash threads
threads_crash  cfi                     threads_crash_nofp -- crash threads
threads_a      fp,fpnoleaf,fpcfi,cfi,g threads_a --thread-with block_a -- crash threads
threads_b      fp,fpcfi,g              threads_b_fp --thread-with spin_b -- crash threads
threads_b      fpnoleaf,cfi            threads_b_nofp --thread-with spin_b -- crash threads
threads_main   fp,fpnoleaf,fpcfi,cfi,g threads_main --thread-with main -- crash threads
gostack_morestack   fp,fpnoleaf,fpcfi,cfi,g gostack_morestack   -- crash gostack morestack
gostack_systemstack fp,fpnoleaf,fpcfi,cfi,g gostack_systemstack -- crash gostack systemstack
gostack_asmcgocall  fp,fpnoleaf,fpcfi,cfi,g gostack_asmcgocall  -- crash gostack asmcgocall
gostack_mcall_entry fp,fpnoleaf,fpcfi,cfi,g gostack_mcall_entry -- crash gostack mcall-entry
'

# Each run gets its own work directory (runs may overlap); it is removed when
# every case passed and kept (for the cores) otherwise.  Old ones are pruned.
mkdir -p "$T/work" || exit 2
find "$T/work" -mindepth 1 -maxdepth 1 -name 'run.*' -mmin +120 -exec rm -rf {} +
WORK=$(mktemp -d "$T/work/run.XXXXXX") || exit 2
mkdir -p "$WORK/cores"
# corestack's cache of decompressed debug files (README) goes to the work directory, never
# to ~/.cache (an absolute path: a relative XDG_CACHE_HOME is ignored, as the XDG spec says)
XDG_CACHE_HOME=$(cd "$WORK" && pwd)/xdg-cache || exit 2
export XDG_CACHE_HOME
export CORESTACK_TEST_CORES=$WORK/cores   # tests/t_plugin.sh loads each of them in gdb
CORESTACK=${CORESTACK:-$BUILD/corestack}    # the binary under test
export CORESTACK
have_cs=1
[ -x "$CORESTACK" ] || have_cs=0
# Every JSON document of the run is parsed by json-c too: tests/lib/jsoncheck.c runs in place of
# corestack (for the table cases and every script) and logs each check.
JSONCHECK_LOG=
if [ $have_cs = 1 ] && [ -z "${CST_JSONCHECK_CORESTACK:-}" ] && [ -x "$T/jsoncheck" ]; then
    JSONCHECK_LOG=$(cd "$WORK" && pwd)/jsoncheck.log
    export CST_JSONCHECK_CORESTACK=$(cd "$(dirname "$CORESTACK")" && pwd)/$(basename "$CORESTACK")
    export CST_JSONCHECK_LOG=$JSONCHECK_LOG
    CORESTACK=$(cd "$T" && pwd)/jsoncheck
fi

# core_for VARIANT SPEC...: make (once per run) the core for SPEC, print its path.
core_for() {
    local variant=$1 mode=$2 prog=$3; shift 3
    local key core
    key=$(echo "$variant $mode $prog $*" | tr -c 'A-Za-z0-9_\n-' '_')
    core=$WORK/cores/$key.core
    if [ ! -e "$core" ] && [ ! -e "$core.err" ]; then
        python3 tests/lib/mkcore.py "$mode" "$core" "$T/$prog-$variant" "$@" \
            2> "$core.err" >/dev/null
    fi
    [ -e "$core" ] && echo "$core"
}

while read -r name variants expected rest; do
    [ -n "$name" ] || continue
    opts=${rest%%-- *}
    spec=${rest#*-- }
    opts=${opts//\{T\}/$T}
    set -- $spec
    for v in ${variants//,/ }; do
        case "$name-$v" in $ONLY) ;; *) continue ;; esac
        if [ ! -x "$T/$2-$v" ]; then
            skip "$name-$v" "$T/$2-$v not built (make test-progs)"; continue
        fi
        if [ $have_cs = 0 ]; then
            skip "$name-$v" "$CORESTACK not built"; continue
        fi
        core=$(core_for "$v" "$@")
        if [ -z "$core" ]; then
            key=$(echo "$v $*" | tr -c 'A-Za-z0-9_\n-' '_')
            fail "$name-$v" "no core: $(head -c 300 "$WORK/cores/$key.core.err")"
            continue
        fi
        out=$(python3 tests/lib/check_frames.py $opts "tests/expected/$expected" "$core" 2>&1)
        rc=$?
        if grep -q -E -- "$CST_CRASH_RE" <<< "$out"; then
            fail "$name-$v" "tests/lib/check_frames.py crashed (exit $rc) [core $core]"
            echo "$out" | sed 's/^/    /'
        elif [ $rc = 0 ]; then
            pass "$name-$v"
        else
            fail "$name-$v" "$(echo "$out" | head -1) [core $core]"
            echo "$out" | tail -n +2 | sed 's/^/    /'
        fi
    done
done <<< "$CASES"

# Scripts tests/t_*.sh report their own PASS/FAIL/SKIP lines on stdout.
for t in tests/t_*.sh; do
    [ -x "$t" ] || continue
    [ "$ONLY" = '*' ] || continue
    base=$(basename "$t" .sh)
    "$t" > "$WORK/$base.out" 2> "$WORK/$base.err" 3>&-
    rc=$?
    judge_script "$base.sh" $rc "$WORK/$base.out" "$WORK/$base.err"
done

if [ -n "$JSONCHECK_LOG" ] && [ "$ONLY" = '*' ] && [ ! -s "$JSONCHECK_LOG" ]; then
    fail jsoncheck "no JSON document was checked ($JSONCHECK_LOG empty)"
fi
[ -n "$JSONCHECK_LOG" ] && jsoncheck_judge "$JSONCHECK_LOG"
if [ $NFAIL = 0 ]; then rm -rf "$WORK"; else echo "    (cores and the scripts' output kept in $WORK)"; fi
echo "$NPASS passed, $NFAIL failed, $NSKIP skipped"
[ $NFAIL = 0 ]

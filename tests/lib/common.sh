# tests/lib/common.sh: the shared part of every tests/t_*.sh (and of tests/run.sh).
# A script starts with
#     . "$(dirname "$0")/lib/common.sh" || exit 1
# and then has, in the repository top (the working directory):
#   TOP        the repository top, an absolute path
#   BUILD      the build directory as given (default build); B the same, absolute
#   T          $B/tests, where `make test-progs` puts the test programs
#   CORESTACK  the binary under test (default $B/corestack), absolute and exported; CS the same;
#              both are $T/jsoncheck, which runs it, when that is built (tests/lib/jsoncheck.c:
#              JSON output is parsed by json-c; the real binary is $CST_JSONCHECK_CORESTACK)
#   W          a fresh work directory (mktemp -d), removed at exit; KEEP=1 keeps it and names
#              it on stderr
#   XDG_CACHE_HOME  exported: run.sh's (under its work directory) or, for a script run alone,
#              $W/xdg-cache, so that no test writes to ~/.cache
# and these functions:
#   pass NAME, fail NAME REASON, skip NAME REASON
#              print a result line "PASS NAME", "FAIL NAME: REASON", "SKIP NAME: REASON" on
#              the script's original standard output (file descriptor 3, kept even when a
#              script sends its stdout to stderr) and count it in NPASS, NFAIL, NSKIP.
#              NAME gets the prefix $TEST_PREFIX (default none).  When the script defines
#              on_fail, fail calls it with NAME and REASON after the line (for details, which
#              go to stderr).
#   check NAME COMMAND...
#              PASS when COMMAND succeeds, else FAIL with the first 3 lines of its output
#   relay NAME COMMAND...
#              runs COMMAND, a test program that prints its own result lines ("PASS N",
#              "FAIL N: REASON", "SKIP N: REASON"), and passes each on through pass, fail
#              and skip (its other lines are printed as they are); FAIL NAME when it prints
#              no PASS or FAIL line, or exits with a status other than 0 and no FAIL line
#   at_exit COMMAND
#              run the shell COMMAND at exit, before the work directory is removed (kill a
#              process the script started, stop a server)
#   judge_script NAME STATUS OUT ERR
#              how tests/run.sh judges a script from its exit STATUS, its standard output
#              (file OUT) and error (file ERR); see there.
# With CST_LIB_ONLY=1 set before sourcing, only the functions are defined (no cd, no work
# directory, no environment): tests/run.sh and tests/t_checker.sh use that.
# A script prints at least one result line and exits 0; tests/run.sh counts its lines.

NPASS=0 NFAIL=0 NSKIP=0
TEST_PREFIX=${TEST_PREFIX:-}

pass() { echo "PASS $TEST_PREFIX$1" >&3; NPASS=$((NPASS + 1)); }
skip() { echo "SKIP $TEST_PREFIX$1: $2" >&3; NSKIP=$((NSKIP + 1)); }
fail() {
    echo "FAIL $TEST_PREFIX$1: $2" >&3
    NFAIL=$((NFAIL + 1))
    if declare -F on_fail >/dev/null; then on_fail "$@"; fi
    return 0
}
check() {
    local n=$1 out
    shift
    if out=$("$@" 2>&1); then pass "$n"; else fail "$n" "$(echo "$out" | head -3 | tr '\n' ' ')"; fi
}
relay() {
    local n=$1 out rc line got=0 failed=0
    shift
    out=$("$@" 2>&1)
    rc=$?
    while IFS= read -r line; do
        case "$line" in
            "PASS "*) pass "${line#PASS }"; got=1 ;;
            "FAIL "*": "*) line=${line#FAIL }; fail "${line%%: *}" "${line#*: }"; got=1; failed=1 ;;
            "FAIL "*) fail "${line#FAIL }" "(no reason given)"; got=1; failed=1 ;;
            "SKIP "*": "*) line=${line#SKIP }; skip "${line%%: *}" "${line#*: }" ;;
            "SKIP "*) skip "${line#SKIP }" "(no reason given)" ;;
            *) echo "$line" ;;
        esac
    done <<< "$out"
    if [ $got = 0 ]; then
        fail "$n" "no result line (exit status $rc): $(echo "$out" | head -3 | tr '\n' '|')"
    elif [ $rc != 0 ] && [ $failed = 0 ]; then
        fail "$n" "exit status $rc: $(echo "$out" | grep -vE '^(PASS|SKIP) ' | head -3 | tr '\n' '|')"
    fi
}

# What a script must never write, on stdout or stderr: a Python traceback, or an error of
# bash itself (bash words these "FILE: line N: ...").
CST_CRASH_RE='Traceback \(most recent call last\)|line [0-9]+: .*(command not found|syntax error|unbound variable|bad substitution|ambiguous redirect)'

# judge_script NAME STATUS OUT ERR: the result lines of script NAME (its stdout in file OUT)
# are printed and counted; other lines of OUT are shown indented.  The script itself FAILs
# (one more line) when it exited with a STATUS other than 0, when OUT or ERR holds a Python
# traceback or a bash error (CST_CRASH_RE), or when it printed no result line.  After a
# FAIL line (its own or this one), the end of ERR is shown indented.
judge_script() {
    local name=$1 rc=$2 out=$3 err=$4 line got=0 failed=0 crash why=
    while IFS= read -r line; do
        case "$line" in
            PASS*) NPASS=$((NPASS + 1)); got=1 ;;
            FAIL*) NFAIL=$((NFAIL + 1)); got=1; failed=1 ;;
            SKIP*) NSKIP=$((NSKIP + 1)); got=1 ;;
            "") continue ;;
            *) line="    $line" ;;
        esac
        echo "$line"
    done < "$out"
    crash=$(grep -h -m 1 -E -- "$CST_CRASH_RE" "$out" "$err" 2>/dev/null | head -n 1)
    if [ -n "$crash" ]; then
        why="crashed: $(echo "$crash" | cut -c1-200)"
        [ "$rc" = 0 ] || why="$why (exit status $rc)"
    elif [ "$rc" != 0 ]; then
        why="exited with status $rc"
    elif [ $got = 0 ]; then
        why="printed no PASS/FAIL/SKIP line"
    fi
    if [ -n "$why" ]; then
        echo "FAIL $name: $why"
        NFAIL=$((NFAIL + 1))
        failed=1
    fi
    if [ $failed = 1 ] && [ -s "$err" ]; then
        echo "    --- stderr of $name (last 40 lines):"
        tail -n 40 "$err" | sed 's/^/    | /'
    fi
}

# jsoncheck_judge LOG: a FAIL line for each document tests/lib/jsoncheck.c could not parse,
# else one PASS line with the number of runs whose JSON it parsed (none: nothing printed).
jsoncheck_judge() {
    local n
    [ -s "$1" ] || return 0
    if grep -q '^FAIL' "$1"; then
        grep '^FAIL' "$1" | head -5 | while IFS= read -r line; do fail jsoncheck "${line#FAIL }"; done
    else
        n=$(grep -c '^ok' "$1")
        pass "jsoncheck-$n-runs"
    fi
}

exec 3>&1

[ "${CST_LIB_ONLY:-}" = 1 ] && return 0

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
TOP=$(pwd)
BUILD=${BUILD:-build}
export BUILD
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
T=$B/tests
CORESTACK=${CORESTACK:-$B/corestack}
case $CORESTACK in /*) ;; *) CORESTACK=$TOP/$CORESTACK ;; esac
export CORESTACK
CS=$CORESTACK

W=$(mktemp -d "${TMPDIR:-/tmp}/cst-test.XXXXXX") || exit 1
[ -n "${KEEP:-}" ] && echo "work dir $W" >&2
CST_AT_EXIT=
at_exit() { CST_AT_EXIT="$CST_AT_EXIT$1"$'\n'; }
cst_cleanup() {
    eval "$CST_AT_EXIT"
    [ -n "${KEEP:-}" ] || { chmod -R u+w "$W" 2>/dev/null; rm -rf "$W"; }
}
trap cst_cleanup EXIT
if [ -z "${XDG_CACHE_HOME:-}" ]; then
    XDG_CACHE_HOME=$W/xdg-cache
fi
export XDG_CACHE_HOME
# Every JSON document the script's corestack writes is parsed by json-c (tests/lib/jsoncheck.c);
# under tests/run.sh that is set up already, and run.sh reads the log.
if [ -z "${CST_JSONCHECK_CORESTACK:-}" ] && [ -x "$T/jsoncheck" ] && [ -x "$CORESTACK" ]; then
    export CST_JSONCHECK_CORESTACK=$CORESTACK CST_JSONCHECK_LOG=$W/jsoncheck.log
    CORESTACK=$T/jsoncheck CS=$T/jsoncheck
    at_exit 'jsoncheck_judge "$CST_JSONCHECK_LOG"'
fi

#!/bin/bash
# The checkers bite: a corestack whose walks stop right after main must fail them, and a
# script or checker that crashes must fail the suite.
#   * tests/lib/truncating_corestack.py (the real corestack, every thread's frames after main
#     dropped, the walk marked incomplete, exit 1): check_frames.py FAILs real expected files
#     on real cores with it (and PASSes them with the real corestack), check_cfa.py FAILs;
#     an expected file that says "!partial: ..." PASSes with it and FAILs with the real,
#     complete walk; an expected file that ends in "..." is refused.
#   * tests/run.sh run on a small tests directory of its own: a script that prints only PASS
#     lines but exits 1, one whose Python checker raises, one that runs a command that does
#     not exist, one that prints no result line, are each a FAIL (with the script's stderr
#     shown); a good script is not; and a check_frames.py that raises fails a table case,
#     with its traceback shown.
# Prints PASS/FAIL/SKIP lines for tests/run.sh; always exits 0.
. "$(dirname "$0")/lib/common.sh" || exit 1
TRUNC=$TOP/tests/lib/truncating_corestack.py
export CST_REAL_CORESTACK=$CS

[ -x "$CS" ] || { skip checker "$CS not built"; exit 0; }
for p in segv-fp segv-cfi tail-fpnoleaf libcfp-cfi threads-fp leaf-fp; do
	[ -x "$T/$p" ] || { skip checker "no $T/$p (make test-progs)"; exit 0; }
done

# --- check_frames.py against the truncating corestack, on real expected files
mk() {   # mk NAME MKCORE-ARGS...: $W/NAME.core
	local n=$1; shift
	python3 tests/lib/mkcore.py "$@" >/dev/null 2>"$W/mk.err" ||
		{ fail "checker-core-$n" "$(head -3 "$W/mk.err" | tr '\n' ' ')"; return 1; }
}
# frames CASE EXPECTED CORE [OPTION...]: check_frames.py passes with the real corestack and
# fails with the truncating one, saying why
frames() {
	local n=$1 exp=tests/expected/$2 core=$3 out
	shift 3
	if ! out=$(python3 tests/lib/check_frames.py --corestack "$CS" "$@" "$exp" "$core" 2>&1); then
		fail "checker-$n-real" "$(echo "$out" | head -1)"
	else
		pass "checker-$n-real"
	fi
	out=$(python3 tests/lib/check_frames.py --corestack "$TRUNC" "$@" "$exp" "$core" 2>&1)
	if [ $? = 1 ] && grep -q -E '^(frames differ|the walk is not complete|corestack exited with status 1)' <<< "$out" &&
			! grep -q -E -- "$CST_CRASH_RE" <<< "$out"; then
		pass "checker-$n-truncated-fails"
	else
		fail "checker-$n-truncated-fails" "check_frames.py did not fail: $(echo "$out" | head -2 | tr '\n' ' ')"
	fi
}
mk segv-fp crash "$W/segv-fp.core" "$T/segv-fp" && frames segv-fp segv_fp "$W/segv-fp.core"
mk segv-cfi crash "$W/segv-cfi.core" "$T/segv-cfi" && frames segv-cfi segv_nofp "$W/segv-cfi.core"
mk tail crash "$W/tail.core" "$T/tail-fpnoleaf" crash && frames tail tail_nofp "$W/tail.core"
mk abort crash "$W/abort.core" "$T/libcfp-cfi" abort && frames abort libc_abort "$W/abort.core"
mk leaf stop "$W/leaf.core" "$T/leaf-fp" leaf body && frames leaf leaf_fp "$W/leaf.core"
if mk threads crash "$W/threads.core" "$T/threads-fp"; then
	frames threads-main threads_main "$W/threads.core" --thread-with main
	# a worker thread has no main: only the exit status and "complete" tell
	frames threads-crash threads_crash_fp "$W/threads.core"
fi

# an expected file that declares the walk partial: the truncated walk passes, the real one
# (complete, exit 0) does not
if [ -f "$W/segv-fp.core" ]; then
	{ echo "!partial: the walk is cut after main"; grep -v '^#' tests/expected/segv_fp | sed '/^main$/q'; } > "$W/partial"
	check checker-partial-truncated python3 tests/lib/check_frames.py --corestack "$TRUNC" "$W/partial" "$W/segv-fp.core"
	out=$(python3 tests/lib/check_frames.py --corestack "$CS" "$W/partial" "$W/segv-fp.core" 2>&1)
	[ $? = 1 ] && grep -q 'the walk is complete, but the expected file says partial' <<< "$out" &&
		pass checker-partial-real-fails || fail checker-partial-real-fails "$(echo "$out" | head -1)"
	# a trailing "..." (any further frames) is refused without !partial
	{ cat tests/expected/segv_fp; echo "..."; } > "$W/dots"
	out=$(python3 tests/lib/check_frames.py --corestack "$CS" "$W/dots" "$W/segv-fp.core" 2>&1)
	[ $? = 1 ] && grep -q 'ends in "..."' <<< "$out" && pass checker-trailing-dots-refused ||
		fail checker-trailing-dots-refused "$(echo "$out" | head -1)"
	# check_cfa.py (tests/t_cfa.sh) with the truncating corestack
	out=$(python3 tests/lib/check_cfa.py "$TRUNC" "$W/segv-fp.core" 2>&1)
	case "$out" in
	"FAIL cfa-segv-fp.core: "*"exited 1"*) pass checker-cfa-truncated-fails ;;
	*) fail checker-cfa-truncated-fails "check_cfa.py printed: $(echo "$out" | head -2 | tr '\n' ' ')" ;;
	esac
fi

# --- tests/run.sh on a tests directory of its own
F=$W/fake
mkdir -p "$F/tests/lib" "$F/tests/expected" "$F/build/tests"
cp tests/run.sh "$F/tests/"
cp tests/lib/common.sh tests/lib/mkcore.py "$F/tests/lib/"
script() {   # script NAME BODY: an executable $F/tests/t_NAME.sh sourcing common.sh
	printf '#!/bin/bash\n. "$(dirname "$0")/lib/common.sh" || exit 1\n%s\n' "$2" > "$F/tests/t_$1.sh"
	chmod +x "$F/tests/t_$1.sh"
}
script good 'pass good-a; skip good-b "not here"; exit 0'
script status 'pass status-a; echo "status: details on stderr" >&2; exit 1'
script python 'pass python-a; python3 -c "raise ValueError(\"checker broke\")"; exit 0'
script python_out 'pass python-out-a; python3 -c "raise ValueError(\"checker broke\")" 2>&1; exit 0'
script command 'pass command-a; no_such_command_cst --x; exit 0'
script unbound 'pass unbound-a; ( set -u; echo "$no_such_variable_cst" ); exit 0'
script silent 'echo "a line that is not a result"; exit 0'
out=$(cd "$F" && KEEP= BUILD=build CORESTACK=$CS bash tests/run.sh 2>&1); rc=$?
echo "$out" > "$W/run.out"
want_fail() {   # want_fail SCRIPT REGEX: run.sh printed "FAIL t_SCRIPT.sh: ..." matching REGEX
	if grep -q -E -- "^FAIL t_$1\.sh: $2" "$W/run.out"; then pass "checker-run-$1"
	else fail "checker-run-$1" "no 'FAIL t_$1.sh: $2' line: $(grep "t_$1" "$W/run.out" | head -2 | tr '\n' ' ')"; fi
}
want_fail status 'exited with status 1'
grep -q '^    | status: details on stderr' "$W/run.out" && pass checker-run-stderr-shown ||
	fail checker-run-stderr-shown "the stderr of t_status.sh is not shown"
want_fail python 'crashed: Traceback'
want_fail python_out 'crashed: Traceback'
want_fail command 'crashed: .*command not found'
want_fail unbound 'crashed: .*unbound variable'
want_fail silent 'printed no PASS/FAIL/SKIP line'
if grep -q '^FAIL t_good' "$W/run.out" || ! grep -q '^PASS good-a$' "$W/run.out"; then
	fail checker-run-good "$(grep good "$W/run.out" | tr '\n' ' ')"
else
	pass checker-run-good
fi
# a PASS line from each script but t_silent.sh, 6 script failures (the table cases are
# SKIPped: no test program is built there)
last=$(tail -1 "$W/run.out")
[ $rc = 1 ] && [ "${last% skipped}" != "$last" ] && [ "${last%, * skipped}" = "6 passed, 6 failed" ] &&
	pass checker-run-counts ||
	fail checker-run-counts "exit $rc, last line: $last"

# a table case whose check_frames.py raises: FAIL, with the traceback shown
ln -s "$T/segv-fp" "$F/build/tests/segv-fp"
cp tests/expected/segv_fp "$F/tests/expected/"
printf 'raise RuntimeError("check_frames broke")\n' > "$F/tests/lib/check_frames.py"
out=$(cd "$F" && KEEP= BUILD=build CORESTACK=$CS bash tests/run.sh 'segv-fp' 2>&1); rc=$?
if [ $rc = 1 ] && grep -q '^FAIL segv-fp: tests/lib/check_frames.py crashed' <<< "$out" &&
		grep -q '^    RuntimeError: check_frames broke' <<< "$out"; then
	pass checker-run-table-traceback
else
	fail checker-run-table-traceback "exit $rc: $(echo "$out" | grep segv-fp | head -2 | tr '\n' ' ')"
fi
exit 0

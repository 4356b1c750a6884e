#!/bin/bash
# Frame limits: corestack -n N (text and --json), the shell's `bt N` and the gdb plugin's
# `fpbt N` all print N frames, counted as printed (a function inlined into another and a
# lost tail call are frames), on a core of libcfp-g stopped in qsort's comparison function
# (glibc's msort has functions inlined into each other and qsort tail-calls qsort_r).  The
# frames printed are the first N of the unlimited walk (-n 0), and the stop reason says the
# limit was reached only when frames follow.  Prints PASS/FAIL/SKIP lines for tests/run.sh;
# always exits 0.
. "$(dirname "$0")/lib/common.sh" || exit 1
PROG=$T/libcfp-g
mkdir -p "$W/tmp"

[ -x "$CS" ] || { skip limits "$CS not built (make)"; exit 0; }
[ -x "$PROG" ] || { skip limits "$PROG not built (make test-progs)"; exit 0; }
C=$W/qsort.core
if ! python3 tests/lib/mkcore.py crash "$C" "$PROG" qsort 2>"$W/mkcore.err"; then
	fail limits-core "$(cat "$W/mkcore.err")"
	exit 0
fi

# the unlimited walk: its frames, and where the inlined and lost-tail-call frames are
"$CS" --json -n 0 "$C" > "$W/all.json" 2>"$W/all.err"; rc=$?
total=$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["threads"][0]
f = t["frames"]
inl = [i for i, x in enumerate(f) if x["inlined"]]
tail = [i for i, x in enumerate(f) if x["marker"] == "lost tail call"]
if t["stop_reason"] != "outermost frame" or not inl or not tail or max(inl[0], tail[0]) >= 7:
    sys.exit("want an outermost frame, an inlined frame and a lost tail call among the first 7, got %s %s %s"
             % (t["stop_reason"], inl, tail))
print(len(f))' "$W/all.json" 2>&1)
if [ $rc != 0 ] || ! [ "$total" -gt 8 ] 2>/dev/null; then
	fail limits-unlimited "exit $rc: $total $(head -1 "$W/all.err")"
	exit 0
fi
pass limits-unlimited
"$CS" -n 0 "$C" > "$W/all.txt" 2>/dev/null
grep '^#' "$W/all.txt" > "$W/all.frames"
[ "$(wc -l < "$W/all.frames")" = "$total" ] && ! grep -q 'walk stopped' "$W/all.txt" &&
	pass limits-unlimited-text || fail limits-unlimited-text "$(wc -l < "$W/all.frames") frames, want $total"

# checks one `-n N` run in text and JSON: N frames printed (fewer when the thread has fewer),
# the first of the unlimited walk, and a stop reason and exit status to match
limit() {
	local n=$1 want=$1 reason="frame limit ($1) reached" status=1
	if [ "$n" -ge "$total" ]; then
		want=$total reason="outermost frame" status=0
	fi
	"$CS" -n "$n" "$C" > "$W/n.txt" 2>"$W/n.err"; rc=$?
	local got
	got=$(grep -c '^#' "$W/n.txt")
	if [ $rc != $status ] || [ "$got" != "$want" ] ||
	   ! diff -q <(grep '^#' "$W/n.txt") <(head -n "$want" "$W/all.frames") >/dev/null; then
		fail "limits-n$n-text" "exit $rc (want $status), $got frames (want the first $want of -n 0)"
	elif [ $status = 1 ] && ! { grep -qxF "(walk stopped: $reason)" "$W/n.txt" &&
				 grep -qF "walk stopped early: $reason" "$W/n.err"; }; then
		fail "limits-n$n-text" "no \"$reason\": $(tail -1 "$W/n.txt") / $(cat "$W/n.err")"
	elif [ $status = 0 ] && grep -q 'walk stopped' "$W/n.txt" "$W/n.err"; then
		fail "limits-n$n-text" "a stop reason after a walk to the outermost frame"
	else
		pass "limits-n$n-text"
	fi
	"$CS" --json --max-frames "$n" "$C" > "$W/n.json" 2>/dev/null; rc=$?
	local r
	if r=$(python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["threads"][0]
b = json.load(open(sys.argv[2]))["threads"][0]
want = int(sys.argv[3])
if len(b["frames"]) != want or b["frames"] != a["frames"][:want]:
    sys.exit("%d frames, want the first %d of -n 0" % (len(b["frames"]), want))
if b["stop_reason"] != sys.argv[4]:
    sys.exit("stop_reason %r, want %r" % (b["stop_reason"], sys.argv[4]))' \
		"$W/all.json" "$W/n.json" "$want" "$reason" 2>&1) && [ $rc = $status ]; then
		pass "limits-n$n-json"
	else
		fail "limits-n$n-json" "exit $rc (want $status) $r"
	fi
}
# 1 and 2: before any inlined frame; 3: among a frame's inlined functions; 6: a frame
# followed by a lost tail call; 7: the lost tail call last; then the whole thread
for n in 1 2 3 6 7 "$total" $((total + 1)); do
	limit "$n"
done
"$CS" "$C" > "$W/default.txt" 2>/dev/null
diff -q "$W/default.txt" "$W/all.txt" >/dev/null && pass limits-default ||
	fail limits-default "the output without -n differs from -n 0's"
for bad in -1 x 1000001; do
	"$CS" -n "$bad" "$C" >/dev/null 2>"$W/bad.err"; rc=$?
	[ $rc = 64 ] && grep -q 'not a frame count' "$W/bad.err" && pass "limits-usage$bad" ||
		fail "limits-usage$bad" "exit $rc: $(cat "$W/bad.err")"
done

# check_first NAME FILE WANT LAST: FILE's frame lines are the first WANT of -n 0's, and its
# last line is LAST
check_first() {
	local got
	got=$(grep -c '^#' "$2")
	if [ "$got" != "$3" ] || ! diff -q <(grep '^#' "$2") <(head -n "$3" "$W/all.frames") >/dev/null; then
		fail "$1" "$got frames, want the first $3: $(tr '\n' ' ' < "$2" | head -c 300)"
	elif [ "$(tail -1 "$2")" != "$4" ]; then
		fail "$1" "last line $(tail -1 "$2"), want $4"
	else
		pass "$1"
	fi
}

# the shell: `bt N` prints the thread's header, N frames and gdb's "(More stack frames
# follow...)"; with -n the walk itself is limited
shell_bt() {
	local name=$1 cmd=$2 want=$3 last=$4
	shift 4
	printf '%s\nquit\n' "$cmd" | "$CS" "$@" -i "$C" > "$W/sh.out" 2>&1
	# the session's prompt and `quit` print nothing after the backtrace
	sed -n '/^Thread /,$p' "$W/sh.out" > "$W/sh.bt"
	check_first "limits-shell-$name" "$W/sh.bt" "$want" "$last"
}
shell_bt bt2 'bt 2' 2 '(More stack frames follow...)'
shell_bt bt3 'bt 3' 3 '(More stack frames follow...)'
shell_bt bt0 'bt 0' 0 '(More stack frames follow...)'
shell_bt n3-bt12 'bt 12' 3 '(walk stopped: frame limit (3) reached)' -n 3

# the gdb plugin: `fpbt N` prints the lines corestack prints, N of them
if ! command -v gdb >/dev/null || [ ! -f "$B/corestack-gdb.so" ] || [ ! -f "$B/corestack.gdb" ]; then
	skip limits-fpbt "gdb or the plugin is missing"
	exit 0
fi
TMPDIR=$W/tmp timeout 120 gdb -batch -nx -x "$B/corestack.gdb" \
	-ex 'echo @@2\n' -ex 'fpbt 2' -ex 'echo @@0\n' -ex 'fpbt 0' -ex 'echo @@7\n' -ex 'fpbt 7' \
	-ex 'echo @@all\n' -ex 'fpbt' -ex 'echo @@end\n' "$PROG" "$C" > "$W/gdb.out" 2>&1 < /dev/null
for n in 2 0 7 all; do
	sed -n "/^@@$n\$/,/^@@/p" "$W/gdb.out" | grep -v '^@@\|^warning:' > "$W/fpbt.out"
	want=$n last='(More stack frames follow...)'
	[ "$n" = all ] && want=$total last=$(tail -1 "$W/all.frames")
	check_first "limits-fpbt$n" "$W/fpbt.out" "$want" "$last"
done
exit 0

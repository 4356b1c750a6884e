#!/bin/bash
# Worker processes (--jobs, coredump/workers.c): a core's threads walked by several processes
# print, byte for byte, what one process prints: standard output, standard error, the two
# written to one file, and the exit status; on a core of 300 threads (bench/manythreads.c),
# one of 5, the checked-in 2-thread fixture core, and a cut copy of the 300-thread core whose later
# walks stop early (a worker gives its chunk back to the parent); with the chunks claimed as
# the processes get to them (the default), dealt in turns, and walked by the parent whenever a
# worker's is not ready (CORESTACK_WORKERS_DEAL).  CORESTACK_WORKERS_LOG (doc/testing.md)
# shows that workers did walk, and CORESTACK_WORKERS_SLOT that text too long for a slot goes
# through the socket.  Prints PASS/FAIL/SKIP lines for tests/run.sh; always
# exits 0.
. "$(dirname "$0")/lib/common.sh" || exit 1

[ -x "$CS" ] || { skip jobs "$CS not built (make)"; exit 0; }
PROG=$W/manythreads
if ! cc -O2 -fno-omit-frame-pointer -pthread -o "$PROG" bench/manythreads.c 2>"$W/cc.err"; then
	fail jobs-build "$(head -3 "$W/cc.err")"
	exit 0
fi
C=$W/mt300.core
if ! python3 tests/lib/mkcore.py crash "$C" "$PROG" 300 2>"$W/mkcore.err"; then
	fail jobs-core "$(cat "$W/mkcore.err")"
	exit 0
fi
LOG=$W/workers.log

# the binary itself for the run whose stdout and stderr go to one file: tests/lib/jsoncheck.c,
# which may stand in for it, relays stdout through a pipe, after stderr's lines or before
REAL=${CST_JSONCHECK_CORESTACK:-$CS}

# run NAME ARGS...: corestack ARGS into $W/NAME.{out,err,both,rc}
run() {
	local n=$1; shift
	"$CS" "$@" > "$W/$n.out" 2> "$W/$n.err"; echo $? > "$W/$n.rc"
	"$REAL" "$@" > "$W/$n.both" 2>&1
}

# same NAME REF OTHER: the two runs printed the same bytes and exited alike
same() {
	local k
	for k in out err both rc; do
		cmp -s "$W/$2.$k" "$W/$3.$k" || { fail "$1" "$k differs ($2 against $3)"; return 1; }
	done
	[ -s "$W/$2.out" ] || { fail "$1" "no output"; return 1; }
	pass "$1"
}

# the log's last line with ARGS run once more, under CORESTACK_WORKERS_LOG
logged() {
	: > "$LOG"
	CORESTACK_WORKERS_LOG=$LOG "$CS" "$@" > /dev/null 2>&1
	tail -n 1 "$LOG"
}

for mode in text json json-lines verbose n3 color; do
	case $mode in
	text) o=() ;; json) o=(--json) ;; json-lines) o=(--json-lines) ;; verbose) o=(-v) ;;
	n3) o=(-n 3) ;; color) o=(--color always) ;;
	esac
	run "s-$mode" "${o[@]}" --jobs 1 "$C"
	run "p-$mode" "${o[@]}" "$C"
	same "jobs-auto-$mode" "s-$mode" "p-$mode"
	for j in 2 3; do
		run "p$j-$mode" "${o[@]}" --jobs $j "$C"
		same "jobs-$j-$mode" "s-$mode" "p$j-$mode"
		for deal in turns late; do
			CORESTACK_WORKERS_DEAL=$deal run "p$j$deal-$mode" "${o[@]}" --jobs $j "$C"
			same "jobs-$j-$deal-$mode" "s-$mode" "p$j$deal-$mode"
		done
	done
done
grep -q '"tid"' "$W/s-json.out" && [ "$(grep -c '"tid"' "$W/s-json.out")" = 301 ] \
	&& pass jobs-json-threads || fail jobs-json-threads "want 301 threads in the document"

# in turns a worker's chunks are its own: some of the text is the worker's
export CORESTACK_WORKERS_DEAL=turns
l=$(logged --jobs 2 "$C")
case $l in
"processes 2 chunks "*" taken 0 "*) fail jobs-workers-walk "log: '$l'" ;;
"processes 2 chunks "*" given-back 0 through-socket 0 failed 0") pass jobs-workers-walk ;;
*) fail jobs-workers-walk "log: '$l'" ;;
esac
unset CORESTACK_WORKERS_DEAL
l=$(logged --jobs 3 "$C")
case $l in "processes 3 chunks "*" given-back 0 through-socket 0 failed 0") pass jobs-claimed-walk ;;
*) fail jobs-claimed-walk "log: '$l'" ;; esac
# the CPUs this process may run on, which --jobs' default counts (taskset -c 0 leaves one)
n=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
if [ "$n" -ge 2 ]; then
	l=$(logged "$C")
	case $l in "processes "[2-4]" chunks "*" given-back 0 "*" failed 0") pass jobs-auto-walk ;;
	*) fail jobs-auto-walk "log: '$l' with $n CPUs" ;; esac
else
	skip jobs-auto-walk "one CPU to run on"
fi
l=$(logged --jobs 2 --group "$C")
[ -z "$l" ] && pass jobs-group-alone || fail jobs-group-alone "--group walked with workers: '$l'"

# a slot of 4 KiB: each chunk's text goes through the socket (dropped there when late)
export CORESTACK_WORKERS_SLOT=4096
run sock-json --json --jobs 2 "$C"
same jobs-socket-json s-json sock-json
CORESTACK_WORKERS_DEAL=late run sock-late-json --json --jobs 3 "$C"
same jobs-socket-late-json s-json sock-late-json
l=$(CORESTACK_WORKERS_DEAL=turns logged --json --jobs 2 "$C")
case $l in *" through-socket 0") fail jobs-socket-used "log: '$l'" ;;
"processes 2 "*" failed 0") pass jobs-socket-used ;; *) fail jobs-socket-used "log: '$l'" ;; esac
# a worker killed after a chunk's header, before any of its text (tests/lib/die_before_text.c):
# nothing of that chunk went out, so the parent walks it and the rest, as --jobs 1 prints
if cc -shared -fPIC -o "$W/die_before_text.so" tests/lib/die_before_text.c -ldl 2> "$W/cc-die.err"; then
	for deal in turns default; do
		(
			[ $deal = turns ] && export CORESTACK_WORKERS_DEAL=turns
			export LD_PRELOAD=$W/die_before_text.so
			export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
			run "die-$deal" --jobs 2 "$C"
		)
		same "jobs-died-before-text-$deal" s-text "die-$deal"
	done
else
	fail jobs-died-before-text "$(head -3 "$W/cc-die.err")"
fi
unset CORESTACK_WORKERS_SLOT

# no memory to share with workers (tests/lib/no_shared_mmap.c): the threads are walked in one
# process, and the exit status still counts the walk of the range's first thread (thread 1,
# walked before the workers would fork), here the only one that stops early
T1=$("$CS" --jobs 1 "$C" 2> /dev/null | grep '^Thread ' | sed -n '2s/^Thread \([0-9]*\).*/\1/p')
if ! python3 tests/lib/mkbad.py regs-garbage "$C" "$W/t1bad.core" "$T1" 2> "$W/mkbad.err"; then
	fail jobs-no-shared-memory "$(cat "$W/mkbad.err")"
elif cc -shared -fPIC -o "$W/no_shared_mmap.so" tests/lib/no_shared_mmap.c -ldl 2> "$W/cc-nomap.err"; then
	for j in 1 2; do
		(
			export LD_PRELOAD=$W/no_shared_mmap.so
			export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
			run "nomap-$j" --jobs $j "$W/t1bad.core"
		)
	done
	if [ "$(cat "$W/nomap-1.rc")" != 1 ] || [ "$(grep -c 'walk stopped early' "$W/nomap-1.err")" != 1 ]; then
		fail jobs-no-shared-memory "want thread $T1 alone stopped early, exit 1: $(head -2 "$W/nomap-1.err")"
	else
		same jobs-no-shared-memory nomap-1 nomap-2
	fi
else
	fail jobs-no-shared-memory "$(head -3 "$W/cc-nomap.err")"
fi

# the checked-in fixture core of two threads
F=tests/fixtures/x86_64
run fx-s --jobs 1 -e $F/thread-fp $F/thread-fp.core
run fx-p --jobs 3 -e $F/thread-fp $F/thread-fp.core
same jobs-fixture fx-s fx-p

# a core of 5 threads: after the crashed one and the second, three chunks of one thread, none
# of them LEAD (3) past the parent's first, where a worker claims its first: no worker is
# forked (a walk with workers logs a line), and the output is --jobs 1's; dealt in turns
# (which LEAD does not limit) a worker walks one of them
C5=$W/mt5.core
if python3 tests/lib/mkcore.py crash "$C5" "$PROG" 4 2>"$W/mkcore5.err"; then
	run c5-s --jobs 1 "$C5"
	run c5-p --jobs 2 "$C5"
	same jobs-few-chunks c5-s c5-p
	l=$(logged --jobs 2 "$C5")
	[ -z "$l" ] && pass jobs-few-chunks-alone || fail jobs-few-chunks-alone "a worker forked: '$l'"
	l=$(CORESTACK_WORKERS_DEAL=turns logged --jobs 2 "$C5")
	case $l in "processes 2 chunks 3 "*" taken 1 "*) pass jobs-few-chunks-turns ;;
	*) fail jobs-few-chunks-turns "dealt in turns: '$l'" ;; esac
else
	fail jobs-few-chunks "$(cat "$W/mkcore5.err")"
fi

# the 300-thread core cut short: the walks of the threads whose stacks were cut off stop
# early, with warnings; a worker gives its chunk back and the parent walks on alone
size=$(stat -c %s "$C")
head -c $((size * 3 / 4)) "$C" > "$W/cut.core"
for mode in text json; do
	[ $mode = json ] && o=(--json) || o=()
	run "cut-s-$mode" "${o[@]}" --jobs 1 "$W/cut.core"
	run "cut-p-$mode" "${o[@]}" --jobs 2 "$W/cut.core"
	same "jobs-cut-$mode" "cut-s-$mode" "cut-p-$mode"
	CORESTACK_WORKERS_DEAL=turns run "cut-t-$mode" "${o[@]}" --jobs 2 "$W/cut.core"
	same "jobs-cut-turns-$mode" "cut-s-$mode" "cut-t-$mode"
done
[ "$(cat "$W/cut-s-text.rc")" = 1 ] && grep -q "walk stopped early" "$W/cut-s-text.err" \
	&& pass jobs-cut-stops || fail jobs-cut-stops "want walks stopped early, exit 1: $(head -2 "$W/cut-s-text.err")"
l=$(CORESTACK_WORKERS_DEAL=turns logged --jobs 2 "$W/cut.core")
case $l in *" given-back 0 "*) fail jobs-given-back "log: '$l'" ;;
"processes 2 "*" failed 0") pass jobs-given-back ;; *) fail jobs-given-back "log: '$l'" ;; esac

# the notes past the second thread's read by a child process while the first thread is walked
# (common/target/core.c; CORESTACK_NOTES_BESIDE=always: whatever the core's size, fail: a child
# that fails, whose notes the parent then reads itself): the same bytes and exit status as
# --jobs 1, which reads them all itself; on the 300-thread core, its cut copy (walks that stop
# early, with warnings) and a copy whose last note is cut (a warning from the child's notes)
python3 tests/lib/mkbad.py note-cut "$C" "$W/notecut.core" last 2> /dev/null
for core in "$C" "$W/cut.core" "$W/notecut.core"; do
	k=$(basename "$core" .core)
	for mode in text json; do
		[ $mode = json ] && o=(--json) || o=()
		run "nb-s-$k-$mode" "${o[@]}" --jobs 1 "$core"
		for h in always fail; do
			CORESTACK_NOTES_BESIDE=$h run "nb-$h-$k-$mode" "${o[@]}" "$core"
			same "notes-beside-$h-$k-$mode" "nb-s-$k-$mode" "nb-$h-$k-$mode"
		done
	done
done
grep -q 'malformed note' "$W/nb-s-notecut-text.err" && pass notes-beside-child-warning \
	|| fail notes-beside-child-warning "no warning of the cut note: $(head -2 "$W/nb-s-notecut-text.err")"
# CORESTACK_NOTES_LOG says who read them: the child, the parent after the child failed, or
# (--jobs 1) the parent alone
for h in always fail jobs1; do
	: > "$W/notes.log"
	[ $h = jobs1 ] && o=(--jobs 1) || o=()
	CORESTACK_NOTES_BESIDE=${h/jobs1/always} CORESTACK_NOTES_LOG=$W/notes.log "$CS" "${o[@]}" "$C" > /dev/null 2>&1
	case $h in always) want="notes read child" ;; fail) want="notes read child failed" ;; *) want="notes read here" ;; esac
	[ "$(cat "$W/notes.log")" = "$want" ] && pass "notes-beside-log-$h" \
		|| fail "notes-beside-log-$h" "log: '$(cat "$W/notes.log")', want '$want'"
done

# the child's results file and pipe stay off descriptors 0-2: with standard error closed and
# the core decompressed (its own descriptor gone), a message meant for stderr would land in
# the results file, and the child's work would be thrown away (3 runs, each read by the child)
if command -v zstd > /dev/null; then
	zstd -q -f "$C" -o "$W/mt300.zst"
	"$CS" --jobs 1 "$W/mt300.zst" > "$W/nb-zst-s.out" 2> /dev/null
	: > "$W/notes.log"
	for i in 1 2 3; do
		CORESTACK_NOTES_BESIDE=always CORESTACK_NOTES_LOG=$W/notes.log "$CS" --perf-map /nonexistent/map \
			"$W/mt300.zst" > "$W/nb-zst-$i.out" 2>&-
		cmp -s "$W/nb-zst-s.out" "$W/nb-zst-$i.out" || echo "run $i: output differs" >> "$W/notes.log"
	done
	want=$(printf 'notes read child\nnotes read child\nnotes read child')
	[ "$(cat "$W/notes.log")" = "$want" ] && pass notes-beside-stderr-closed \
		|| fail notes-beside-stderr-closed "log: '$(tr '\n' ';' < "$W/notes.log")'"
else
	skip notes-beside-stderr-closed "no zstd (make deps installs it)"
fi
# under a file-size limit (8 KiB; the output goes through a pipe, which it does not bound)
# the child's writes fail with EFBIG, not with SIGXFSZ's death and core dump; the parent reads
# the notes, and prints what --jobs 1 prints
: > "$W/notes-fsize.log"
{ ( ulimit -f 8 && CORESTACK_NOTES_BESIDE=always CORESTACK_NOTES_LOG=$W/notes-fsize.log \
	exec "$CS" "$C" 2> /dev/null ); echo $? > "$W/nb-fsize.rc"; } | cat > "$W/nb-fsize.out"
cmp -s "$W/nb-s-mt300-text.out" "$W/nb-fsize.out" && cmp -s "$W/nb-s-mt300-text.rc" "$W/nb-fsize.rc" \
	&& pass notes-beside-fsize-limit || fail notes-beside-fsize-limit "output or status differ from --jobs 1's"
grep -qx 'notes read child failed' "$W/notes-fsize.log" && pass notes-beside-fsize-log \
	|| fail notes-beside-fsize-log "log: '$(cat "$W/notes-fsize.log")', want 'notes read child failed'"

# fewer workers than asked for (too few descriptors for the others' sockets): in turns the
# chunks of those that did not start are the parent's, and the ones that did walk theirs to
# the end
fewer=
for nfd in $(seq 8 48); do
	: > "$LOG"
	( ulimit -n $nfd && CORESTACK_WORKERS_DEAL=turns CORESTACK_WORKERS_LOG=$LOG exec "$REAL" --jobs 7 "$C" \
		> "$W/fewer.out" 2> "$W/fewer.err" )
	l=$(tail -n 1 "$LOG")
	case $l in "processes "[2-6]" "*) fewer=$l; break ;; esac
done
if [ -z "$fewer" ]; then
	skip jobs-fewer-started "no descriptor limit left 2 to 6 processes"
elif ! cmp -s "$W/fewer.out" "$W/s-text.out" || ! cmp -s "$W/fewer.err" "$W/s-text.err"; then
	fail jobs-fewer-started "output differs from --jobs 1 (log: '$fewer')"
else
	case $fewer in *" given-back 0 "*" failed 0") pass jobs-fewer-started ;;
	*) fail jobs-fewer-started "log: '$fewer'" ;; esac
fi

# the end of a run (coredump/teardown.c): the parent's memory is torn down by a child it leaves
# behind (CORESTACK_TEARDOWN_LOG names it), which must close what it inherited (a reader of
# the output sees its end, the exit status is the parent's) and be gone soon after the
# parent, as the workers must; under AddressSanitizer no child is made
TLOG=$W/teardown.log
: > "$TLOG"
cp "$REAL" "$W/cs-exit"
CORESTACK_TEARDOWN_LOG=$TLOG "$W/cs-exit" "$C" 2> "$W/exit.err" | cat > "$W/exit.out"; rc=${PIPESTATUS[0]}
child=$(sed -n 's/^child \([0-9][0-9]*\)$/\1/p' "$TLOG")
# gone: no process of the copy's binary left (a zombie has none), the child's pid too
left=
for i in $(seq 50); do
	left=
	for e in /proc/[0-9]*/exe; do
		[ "$(readlink "$e" 2>/dev/null)" = "$W/cs-exit" ] && left="$left ${e//[^0-9]/}"
	done
	[ -z "$left" ] && break
	sleep 0.1
done
if ldd "$REAL" 2>/dev/null | grep -q libasan; then
	want="none: sanitizer"
else
	want=child
fi
case $(cat "$TLOG") in
"none: traced"|"none: valgrind"|"none: clone: "*) why=$(cat "$TLOG") ;;   # this machine's doing
*) why= ;;
esac
if [ -n "$why" ] && [ "$want" = child ]; then
	skip jobs-exit-nothing-left "no teardown child here ($why)"
elif [ "$want" = child ] && [ -z "$child" ]; then
	fail jobs-exit-nothing-left "no teardown child: log '$(cat "$TLOG")'"
elif [ "$want" != child ] && [ "$(cat "$TLOG")" != "$want" ]; then
	fail jobs-exit-nothing-left "want '$want' under AddressSanitizer: log '$(cat "$TLOG")'"
elif [ -n "$left" ]; then
	fail jobs-exit-nothing-left "processes of the run still there 5 s after it ended:$left"
elif [ "$rc" != "$(cat "$W/s-text.rc")" ] || ! cmp -s "$W/exit.out" "$W/s-text.out" ||
     ! cmp -s "$W/exit.err" "$W/s-text.err"; then
	fail jobs-exit-nothing-left "through a pipe: exit $rc, output differs from --jobs 1"
else
	pass jobs-exit-nothing-left
fi

# the option's range
for bad in 0 65 x; do
	"$CS" --jobs $bad "$C" > /dev/null 2> "$W/bad.err"; rc=$?
	[ $rc = 64 ] && grep -q "^corestack: --jobs: '$bad' is not a number of processes" "$W/bad.err" \
		&& pass "jobs-usage-$bad" || fail "jobs-usage-$bad" "exit $rc: $(head -1 "$W/bad.err")"
done
exit 0

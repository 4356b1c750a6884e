#!/bin/bash
# The process image the CLI, the shell and the gdb plugin share (common/process/): the
# shell names a core's signal in the core's own numbering as the CLI does (a SPARC core
# whose signal is 10, SIGBUS there, SIGUSR1 in the generic Linux numbers), and -p PID names
# a JIT frame from the process's perf map (/tmp/perf-PID.map, and --perf-map FILE) as it
# does for a core; -p PID on a process whose threads come and go skips the threads that exit
# while it attaches.  Prints PASS/FAIL/SKIP lines for tests/run.sh; always exits 0.
. "$(dirname "$0")/lib/common.sh" || exit 1
pid=
at_exit 'if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -f "/tmp/perf-$pid.map"; fi'

# ---- signal names in the core's numbering, in the CLI and in the shell -------------------
# SPARC's signal 10 is SIGBUS (arch/sparc/include/uapi/asm/signal.h); 10 is SIGUSR1 in the
# generic numbers
fixture=tests/sparc/fixtures/c1-O2.core
if ! python3 tests/lib/setsig.py "$fixture" "$W/sig10.core" 10 2>"$W/e"; then
	fail process-sparc-sigbus-core "$(cat "$W/e")"
else
	"$CS" "$W/sig10.core" > "$W/cli.out" 2>/dev/null
	if grep -q '^signal: SIGBUS (Bus error)' "$W/cli.out" && grep -q '^Thread .*(crashed: SIGBUS)' "$W/cli.out"; then
		pass process-sparc-sigbus-cli
	else
		fail process-sparc-sigbus-cli "$(head -4 "$W/cli.out")"
	fi
	printf 'threads\nbt 1\n' | "$CS" -i "$W/sig10.core" > "$W/shell.out" 2>/dev/null
	if grep -q '^signal: SIGBUS (Bus error)' "$W/shell.out" && grep -q '(crashed: SIGBUS)' "$W/shell.out" \
	   && ! grep -q SIGUSR1 "$W/shell.out"; then
		pass process-sparc-sigbus-shell
	else
		fail process-sparc-sigbus-shell "$(head -8 "$W/shell.out")"
	fi
	"$CS" --json "$W/sig10.core" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
sys.exit(0 if d["signal"]["name"] == "SIGBUS" else 1)' && pass process-sparc-sigbus-json \
		|| fail process-sparc-sigbus-json "JSON signal name is not SIGBUS"
fi

# ---- -p PID: a JIT frame named from the process's perf map --------------------------------
if [ "$(uname -m)" != x86_64 ]; then
	skip process-live-perfmap "the JIT test program is x86-64 code"
	exit 0
fi
gcc -O2 -g -fno-omit-frame-pointer -o "$W/jitlive" tests/lang/jit.c || { fail process-live-build gcc; exit 0; }
"$W/jitlive" "/tmp/perf-%d.map" "$W/ready" & pid=$!
for _ in $(seq 100); do [ -s "$W/ready" ] && break; sleep 0.1; done
if [ ! -s "$W/ready" ]; then
	fail process-live-perfmap "the test program did not start"
	exit 0
fi
# the frame after crash_in_c is the JIT code, named only by the map
jit_line() { grep -A1 'in crash_in_c ()' "$1" | tail -1; }
"$CS" -p "$pid" > "$W/live.out" 2> "$W/live.err"; rc=$?
line=$(jit_line "$W/live.out")
case "$line" in
*" in JS:inner () [JIT] from /tmp/perf-$pid.map")
	if grep -q ' in main () ' "$W/live.out" && [ $rc = 0 ]; then pass process-live-perfmap
	else fail process-live-perfmap "exit $rc, no main after the JIT frame: $(cat "$W/live.out" "$W/live.err")"; fi ;;
*) fail process-live-perfmap "exit $rc: ${line:-no frame after crash_in_c}: $(cat "$W/live.err")" ;;
esac
# --perf-map FILE replaces the default map
sed 's/JS:inner/named_by_option/' "/tmp/perf-$pid.map" > "$W/other.map"
"$CS" --perf-map "$W/other.map" -p "$pid" > "$W/opt.out" 2> "$W/opt.err"; rc=$?
line=$(jit_line "$W/opt.out")
case "$line" in
*" in named_by_option () [JIT] from $W/other.map") pass process-live-perfmap-option ;;
*) fail process-live-perfmap-option "exit $rc: ${line:-no frame after crash_in_c}: $(cat "$W/opt.err")" ;;
esac
# JSON names the map too
"$CS" --json -p "$pid" 2>/dev/null | python3 -c '
import json, sys
fr = json.load(sys.stdin)["threads"][0]["frames"]
sys.exit(0 if any(f["function"] == "JS:inner" and f.get("jit_map") == sys.argv[1] for f in fr) else 1)' \
	"/tmp/perf-$pid.map" && pass process-live-perfmap-json || fail process-live-perfmap-json "no JS:inner frame with its map"
# a --perf-map that cannot be read is said, and the run exits 1
"$CS" --perf-map "$W/missing.map" -p "$pid" > /dev/null 2> "$W/miss.err"; rc=$?
[ $rc = 1 ] && grep -q "^corestack: process $pid: perf map $W/missing.map: " "$W/miss.err" \
	&& pass process-live-perfmap-missing || fail process-live-perfmap-missing "exit $rc: $(cat "$W/miss.err")"

# ---- -p PID on a process whose threads come and go ----------------------------------------
# A thread that exits while corestack attaches is skipped with a note, not taken for a
# ptrace permission problem: every run exits 0 or 1 (1 when a thread was skipped, said on
# stderr) and walks the main thread.  Twenty runs, each bounded in time.
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -f "/tmp/perf-$pid.map"; pid=
gcc -O0 -g -fno-omit-frame-pointer -pthread -o "$W/churn" tests/process/churn.c || { fail process-live-churn-build gcc; exit 0; }
"$W/churn" "$W/churn-ready" & pid=$!
for _ in $(seq 100); do [ -s "$W/churn-ready" ] && break; sleep 0.1; done
if [ ! -s "$W/churn-ready" ]; then
	fail process-live-churn "the test program did not start"
	exit 0
fi
bad=
for i in $(seq 20); do
	timeout -k 5 60 "$CS" -p "$pid" > "$W/churn.out" 2> "$W/churn.err"; rc=$?
	# the main thread's block: from its "Thread PID" line to the next blank line
	main=$(sed -n "/^Thread $pid\$/,/^\$/p" "$W/churn.out")
	if [ $rc -gt 1 ] || ! echo "$main" | grep -q ' in main_waits () '; then
		bad="run $i: exit $rc: $(head -c 300 "$W/churn.err") $(echo "$main" | head -3)"
		break
	fi
	# a thread skipped is said, and makes the run exit 1
	if grep -q ' exited while being attached, skipped' "$W/churn.err" && [ $rc != 1 ]; then
		bad="run $i: exit $rc after skipping a thread: $(head -c 300 "$W/churn.err")"
		break
	fi
done
[ -z "$bad" ] && pass process-live-churn || fail process-live-churn "$bad"

# ---- -p PID on a zombie and on a kernel thread --------------------------------------------
# Neither has a stack to walk: said as what it is (exit 2), not blamed on ptrace permissions.
( sleep 0 & echo $! > "$W/zombie"; exec sleep 60 ) & zparent=$!
for _ in $(seq 50); do
	z=$(cat "$W/zombie" 2>/dev/null)
	[ -n "$z" ] && grep -q '^[^)]*) Z ' "/proc/$z/stat" 2>/dev/null && break
	sleep 0.1
done
"$CS" -p "$z" > /dev/null 2> "$W/z.err"; rc=$?
[ $rc = 2 ] && [ "$(cat "$W/z.err")" = "corestack: process $z: the process is a zombie: it has exited and its parent has not reaped it; there is no stack to walk" ] \
	&& pass process-live-zombie || fail process-live-zombie "exit $rc: $(cat "$W/z.err")"
kill "$zparent" 2>/dev/null; wait "$zparent" 2>/dev/null
if [ "$(cat /proc/2/comm 2>/dev/null)" = kthreadd ]; then
	"$CS" -p 2 > /dev/null 2> "$W/k.err"; rc=$?
	[ $rc = 2 ] && [ "$(cat "$W/k.err")" = "corestack: process 2: the process is a kernel thread: it has no user-space stack to walk" ] \
		&& pass process-live-kernel-thread || fail process-live-kernel-thread "exit $rc: $(cat "$W/k.err")"
else
	skip process-live-kernel-thread "no kthreadd at pid 2 (a PID namespace)"
fi

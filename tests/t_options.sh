#!/bin/bash
# Option tests: -p PID (a live process), -e EXE (a moved executable), --sysroot DIR (a core
# read against a copy of its files), a build-id mismatch, -n, and --help/--version.
# Prints PASS/FAIL/SKIP lines for tests/run.sh; always exits 0.
. "$(dirname "$0")/lib/common.sh" || exit 1
pid=
at_exit 'kill $pid 2>/dev/null'

# functions of thread N (0-based) in corestack --json output, one per line
funcs() { python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
t = d["threads"][int(sys.argv[2])]
# one write: a reader that stops early (head) never meets a second one (no broken pipe)
sys.stdout.write("".join((f["function"] or "??") + "\n" for f in t["frames"]))' "$@"; }

gcc -O2 -fno-omit-frame-pointer -pthread -o "$W/waiter" tests/options/waiter.c || { fail options-build "gcc"; exit 0; }

# --- -p: a live process with two threads, each asleep in a known chain
"$W/waiter" & pid=$!
sleep 0.5
"$CS" --json -p "$pid" > "$W/live.json" 2> "$W/live.err"; rc=$?
if [ $rc -gt 1 ]; then
	fail live-pid "exit $rc: $(head -1 "$W/live.err")"
else
	main=$(funcs "$W/live.json" 0 | tr '\n' ' ')
	other=$(funcs "$W/live.json" 1 | tr '\n' ' ')
	# both walks reach the thread's outermost frame: exit 0
	[ $rc = 0 ] && pass live-complete || fail live-complete "exit $rc: $(head -1 "$W/live.err")"
	case "$main" in *"wait_main main __libc_start_call_main __libc_start_main _start ") pass live-main-thread ;; *) fail live-main-thread "got: $main" ;; esac
	case "$other" in *"wait_worker worker start_thread __clone3 ") pass live-worker-thread ;; *) fail live-worker-thread "got: $other" ;; esac
	# the process must be left running (detached), not killed or stopped
	if kill -0 "$pid" 2>/dev/null && ! grep -q '^State:.*[tT]' /proc/$pid/status; then
		pass live-detached
	else
		fail live-detached "process not running after corestack -p"
	fi
fi
kill $pid 2>/dev/null; wait $pid 2>/dev/null; pid=

# --- -p errors
"$CS" -p 999999999 >/dev/null 2>"$W/err"; rc=$?
[ $rc = 2 ] && grep -q 'process 999999999' "$W/err" && pass live-no-such-process || fail live-no-such-process "exit $rc: $(cat "$W/err")"

# --- a crash core, for -e, --sysroot and the build-id check
mkdir -p "$W/run"
( cd "$W/run" && ulimit -c unlimited && "$W/waiter" crash >/dev/null 2>&1 )
core=$W/run/core
if [ ! -f "$core" ]; then
	gdb -batch -nx -ex 'run crash' -ex "gcore $core" "$W/waiter" >/dev/null 2>&1
fi
if [ ! -f "$core" ]; then
	fail options-core "no core"
	exit 0
fi
"$CS" --json "$core" > "$W/base.json" 2>/dev/null; rc=$?
[ "$(funcs "$W/base.json" 0 | tr '\n' ' ')" = "crash_here main __libc_start_call_main __libc_start_main _start " ] && [ $rc = 0 ] &&
	pass core-baseline || fail core-baseline "exit $rc: $(funcs "$W/base.json" 0 | tr '\n' ' ')"

# -e: the executable moved away; without -e its frames have no names, with -e they do
mv "$W/waiter" "$W/moved"
"$CS" --json "$core" > "$W/noexe.json" 2>"$W/noexe.err"
f0=$(funcs "$W/noexe.json" 0 | head -1)
[ "$f0" != crash_here ] && pass exe-missing-unnamed || fail exe-missing-unnamed "frame 0 still named $f0"
grep -q "$W/waiter" "$W/noexe.err" && pass exe-missing-warned || fail exe-missing-warned "no warning naming the missing file: $(cat "$W/noexe.err")"
"$CS" --json -e "$W/moved" "$core" > "$W/exe.json" 2>/dev/null
[ "$(funcs "$W/exe.json" 0 | head -2 | tr '\n' ' ')" = "crash_here main " ] && pass exe-option || fail exe-option "$(funcs "$W/exe.json" 0 | tr '\n' ' ')"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["executable"]!=sys.argv[2])' "$W/exe.json" "$W/moved" \
	&& pass exe-in-json || fail exe-in-json "executable key is not the -e path"

# --sysroot: the executable under DIR at the path the core recorded
mkdir -p "$W/root$W"
cp "$W/moved" "$W/root$W/waiter"
"$CS" --json --sysroot "$W/root" "$core" > "$W/sys.json" 2>/dev/null
[ "$(funcs "$W/sys.json" 0 | head -2 | tr '\n' ' ')" = "crash_here main " ] && pass sysroot || fail sysroot "$(funcs "$W/sys.json" 0 | tr '\n' ' ')"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not any(f["module"] and f["module"].startswith(sys.argv[2]) for f in d["threads"][0]["frames"]))' "$W/sys.json" "$W/root" \
	&& pass sysroot-module-path || fail sysroot-module-path "no module path under the sysroot"

# --sysroot confines the core: a recorded path with ".." (NT_FILE renamed by mkbad) and an
# absolute symbolic link inside DIR both lead to the host's C library; neither may be opened:
# no frame gets a name from it (the baseline names __libc_start_call_main from it)
inside() { python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
bad = sorted({f["function"] for t in d["threads"] for f in t["frames"]
              if (f["function"] or "").startswith("__libc_start")})
print(" ".join(bad)); sys.exit(1 if bad else 0)' "$1"; }
funcs "$W/base.json" 0 | grep '^__libc_start_call_main$' >/dev/null || fail sysroot-confined-baseline "no __libc_start_call_main in the baseline"
libc=$(python3 -c 'import json,sys; print(next(m["name"] for m in json.load(open(sys.argv[1]))["modules"] if "/libc.so" in m["name"]))' "$W/base.json" 2>/dev/null)
if [ -n "$libc" ] && python3 tests/lib/mkbad.py ntfile-rename "$core" "$W/dotdot.core" "$libc" "/../../../../../..$libc" 2>/dev/null; then
	"$CS" --json --sysroot "$W/root" "$W/dotdot.core" > "$W/dd.json" 2>/dev/null
	out=$(inside "$W/dd.json") && pass sysroot-dotdot-confined || fail sysroot-dotdot-confined "opened outside the sysroot: $out"
	mkdir -p "$W/root2$W" "$W/root2$(dirname "$libc")"
	cp "$W/moved" "$W/root2$W/waiter"
	ln -s "$libc" "$W/root2$libc"
	"$CS" --json --sysroot "$W/root2" "$core" > "$W/ln.json" 2>/dev/null
	out=$(inside "$W/ln.json") && pass sysroot-symlink-confined || fail sysroot-symlink-confined "opened outside the sysroot: $out"
	[ "$(funcs "$W/ln.json" 0 | head -2 | tr '\n' ' ')" = "crash_here main " ] && pass sysroot-symlink-walk \
		|| fail sysroot-symlink-walk "$(funcs "$W/ln.json" 0 | tr '\n' ' ')"
else
	fail sysroot-confined "no C library in the core's modules, or mkbad failed"
fi
# -e naming a file that is not ELF (a text file, an empty file): said, exit 1, the file named
: > "$W/empty"
for f in /etc/passwd "$W/empty"; do
	"$CS" --json -e "$f" "$core" > /dev/null 2>"$W/err"; rc=$?
	[ $rc = 1 ] && grep "mapped file $f is not an ELF file" "$W/err" >/dev/null \
		&& pass "exe-not-elf-$(basename "$f")" || fail "exe-not-elf-$(basename "$f")" "exit $rc: $(cat "$W/err")"
done
# a missing --sysroot or -e is a usage error, said at once in one line
for opt in --sysroot -e; do
	"$CS" $opt "$W/nonexistent" "$core" > /dev/null 2>"$W/err"; rc=$?
	[ $rc = 64 ] && [ "$(cat "$W/err")" = "corestack: $opt $W/nonexistent: No such file or directory" ] \
		&& pass "missing$opt" || fail "missing$opt" "exit $rc: $(cat "$W/err")"
done

# build-id mismatch: another program at the recorded path
gcc -O0 -pthread -DOTHER -o "$W/waiter" tests/options/waiter.c
"$CS" --json "$core" > "$W/mm.json" 2>"$W/mm.err"; rc=$?
[ $rc = 1 ] && pass mismatch-exit || fail mismatch-exit "exit $rc, want 1"
grep -qi 'build-id' "$W/mm.err" && pass mismatch-reported || fail mismatch-reported "$(cat "$W/mm.err")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not any(f["build_id_mismatch"] for f in d["threads"][0]["frames"]))' "$W/mm.json" \
	&& pass mismatch-flagged || fail mismatch-flagged "no frame flagged build_id_mismatch"

# -e naming another program (the OTHER build) while the path the core records holds the
# right one: the warning names the -e file and both build-ids, and the core's own file is
# used, said so; the frames get their names from it.  With no right file at that path, the
# -e file is still named, and the frames are flagged as mismatching.
bid() { readelf -n "$1" | awk '/Build ID:/ { print $3; exit }'; }
mv "$W/waiter" "$W/other"
cp "$W/moved" "$W/waiter"
want=$(bid "$W/moved") have=$(bid "$W/other")
"$CS" --json -e "$W/other" "$core" > "$W/eo.json" 2>"$W/eo.err"; rc=$?
[ -n "$want" ] && [ -n "$have" ] && [ "$want" != "$have" ] || fail exe-wrong-build-ids "readelf gave '$want' '$have'"
grep -qF -- "-e $W/other is not the executable of this core: its build-id is $have, the core records $want" "$W/eo.err" \
	&& pass exe-wrong-named || fail exe-wrong-named "$(cat "$W/eo.err")"
grep -qF "using $W/waiter, the executable the core names" "$W/eo.err" \
	&& pass exe-wrong-fallback-said || fail exe-wrong-fallback-said "$(cat "$W/eo.err")"
# those two lines and nothing more (under SANITIZE=1 a leak report of the -e file's handle
# would follow them)
[ "$(grep -c '' "$W/eo.err")" = 2 ] && pass exe-wrong-only-said || fail exe-wrong-only-said "$(cat "$W/eo.err")"
[ $rc = 1 ] && [ "$(funcs "$W/eo.json" 0 | head -2 | tr '\n' ' ')" = "crash_here main " ] \
	&& pass exe-wrong-fallback || fail exe-wrong-fallback "exit $rc: $(funcs "$W/eo.json" 0 | tr '\n' ' ')"
# the executable named before the frames is the file used, in the JSON and in the text header
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["executable"]!=sys.argv[2])' "$W/eo.json" "$W/waiter" \
	&& pass exe-wrong-fallback-json || fail exe-wrong-fallback-json "executable $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["executable"])' "$W/eo.json")"
"$CS" -e "$W/other" "$core" > "$W/eo.txt" 2>/dev/null
head -1 "$W/eo.txt" | grep -qF "  executable $W/waiter  (" \
	&& pass exe-wrong-fallback-header || fail exe-wrong-fallback-header "$(head -1 "$W/eo.txt")"
rm "$W/waiter"
"$CS" --json -e "$W/other" "$core" > "$W/eo.json" 2>"$W/eo.err"; rc=$?
grep -qF -- "-e $W/other is not the executable of this core: its build-id is $have, the core records $want" "$W/eo.err" \
	&& ! grep -q 'using ' "$W/eo.err" && [ $rc = 1 ] \
	&& python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not d["threads"][0]["frames"][0]["build_id_mismatch"])' "$W/eo.json" \
	&& pass exe-wrong-no-fallback || fail exe-wrong-no-fallback "exit $rc: $(cat "$W/eo.err")"
mv "$W/other" "$W/waiter"

# -n: frame limit ends the walk early with exit 1 and a stated reason (tests/t_limits.sh
# checks the count of frames)
"$CS" --json -n 1 -e "$W/moved" "$core" > "$W/n.json" 2>/dev/null; rc=$?
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t=d["threads"][0]; sys.exit(not (len(t["frames"])==1 and "limit" in t["stop_reason"]))' "$W/n.json" && [ $rc = 1 ] \
	&& pass frame-limit || fail frame-limit "exit $rc"

# --json is written thread by thread; the document equals --json-lines' (written whole),
# with and without the members added after the threads (--group)
for g in "" --group; do
	"$CS" --json $g -e "$W/moved" "$core" > "$W/s.json" 2>/dev/null
	"$CS" --json-lines $g -e "$W/moved" "$core" > "$W/w.json" 2>/dev/null
	python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
sys.exit(not (a == b and list(a) == list(b) and len(a["threads"]) >= 1 and "signature" in a))' "$W/s.json" "$W/w.json" \
		&& pass "json-streamed${g:+-group}" || fail "json-streamed${g:+-group}" "$(head -c 300 "$W/s.json")"
done

# the executable deleted after the crash, in a program without frame pointers: no CFI, so the
# walk stops in its first frame.  The cause comes first on stderr (the missing file, then the
# stop line), and the stop reason is that file, not the read at an address guessed without
# CFI that failed after it ("cannot read memory at 0x9").
gcc -O2 -fomit-frame-pointer -o "$W/nofp" tests/progs/segv.c &&
	python3 tests/lib/mkcore.py crash "$W/nofp.core" "$W/nofp" >/dev/null 2>&1 && rm "$W/nofp"
if [ -f "$W/nofp.core" ] && [ ! -e "$W/nofp" ]; then
	"$CS" "$W/nofp.core" > "$W/del.out" 2>"$W/del.err"; rc=$?
	cause=$(grep -n "cannot open mapped file $W/nofp: No such file" "$W/del.err" | head -1 | cut -d: -f1)
	stopl=$(grep -n "walk stopped early" "$W/del.err" | head -1 | cut -d: -f1)
	[ $rc = 1 ] && [ -n "$cause" ] && [ -n "$stopl" ] && [ "$cause" -lt "$stopl" ] \
		&& pass exe-deleted-cause-first || fail exe-deleted-cause-first "exit $rc: $(cat "$W/del.err")"
	! grep -q "cannot read memory" "$W/del.out" "$W/del.err" \
		&& grep -qF "walk stopped early: no unwind information for frame #0: its file $W/nofp could not be read" "$W/del.err" \
		&& grep -qF "(walk stopped: no unwind information for frame #0: its file $W/nofp could not be read)" "$W/del.out" \
		&& pass exe-deleted-reason || fail exe-deleted-reason "$(cat "$W/del.out" "$W/del.err")"
else
	fail exe-deleted "no core of $W/nofp, or it was not deleted"
fi

# --help, --version, usage
"$CS" --help | grep -q -- '--sysroot' && pass help || fail help "no --sysroot in --help"
"$CS" --version | grep -q '^corestack ' && pass version || fail version "bad --version"
"$CS" -n -1 "$core" >/dev/null 2>&1; [ $? = 64 ] && pass usage-bad-n || fail usage-bad-n "-n -1 did not exit 64"
exit 0

#!/bin/bash
# The gdb plugin: gdb -batch sessions, in gdb and in gdb-minimal (built without Python), on
# the test programs, live and on cores.  For each stop:
#   fpbt      the frames, pcs and markers `corestack --json` finds for the same stop
#             (live: a gcore taken in the same session), in every thread;
#   bt        with the plugin never worse than gdb's own, and equal to it where gdb was right
#             (pcs compared with corestack's real frames);
#   finish    after fpbt returns to the real caller, `next` then steps in it.
# Then: loading twice, unloading and loading again, an i386 process and core, unreadable
# memory, a core without its executable, function names gdb's printf and command lines would
# misread, a function name of megabytes, an error naming a core file with control characters,
# a second inferior with its own core, and every core (plus hostile variants) with `bt` and `fpbt` on every thread: gdb
# must never abort.
# Prints PASS/FAIL/SKIP lines for tests/run.sh; always exits 0.
. "$(dirname "$0")/lib/common.sh" || exit 1
SCRIPT=$B/corestack.gdb
CHECK=$TOP/tests/plugin/check_gdb.py
# the plugin makes its fpbt directory under TMPDIR: every gdb here must remove its own
mkdir -p "$W/tmp"
export TMPDIR=$W/tmp

if [ ! -f "$B/corestack-gdb.so" ] || [ ! -f "$SCRIPT" ] || [ ! -x "$CS" ]; then
	skip plugin "$B/corestack-gdb.so, $SCRIPT or $CS not built (make)"
	exit 0
fi
if ! command -v gdb >/dev/null; then
	skip plugin "gdb is not installed (make deps)"
	exit 0
fi

# the debuggers: gdb, and gdb-minimal unpacked by `make gdb-minimal`
GDBS="gdb"
GDB_gdb=gdb
GDB_minimal=$B/gdb-minimal/usr/bin/gdb
if [ -x "$GDB_minimal" ] && "$GDB_minimal" -batch -nx -ex 'python print(1)' 2>&1 |
		grep -q 'Python scripting is not supported'; then
	GDBS="gdb minimal"
else
	skip plugin-gdb-minimal "$GDB_minimal is missing or has Python (make gdb-minimal)"
fi

# helpers every session sources: a bracketed bt and fpbt for check_gdb.py
cat > "$W/helpers.gdb" <<'EOF'
set pagination off
set confirm off
define tfp
  echo @@fpbt\n
  fpbt
  echo @@end\n
end
define tbt
  printf "@@pc %#lx\n", $pc
  echo @@bt\n
  bt
  echo @@end\n
end
EOF

# gdb died or gave up: an internal error, a fatal signal, or a session cut short
broken() { grep -qE 'internal-error|Fatal signal|A fatal error internal to GDB' "$1" ||
	! grep -q '@@done' "$1"; }

# runtime address of FUNC WHERE in PROG (gdb runs PIE programs at 0x555555554000)
stop_addr() {
	python3 - "$@" <<'EOF'
import subprocess, sys
sys.path.insert(0, "tests/lib")
import mkcore
prog, func, where = sys.argv[1:4]
pie = b"DYN" in subprocess.run(["readelf", "-h", prog], capture_output=True).stdout
print(hex((0x555555554000 if pie else 0) + mkcore.stop_address(prog, func, where)))
EOF
}

# pc of the first real caller (no lost tail call) of thread 0, then the functions of the
# real callers, outward
caller_of() {
	python3 -c '
import json, re, sys
fs = json.load(open(sys.argv[1]))["threads"][0]["frames"]
c = [f for f in fs[1:] if f["marker"] != "lost tail call" and not f["inlined"]]
print(c[0]["pc"], "|".join(re.escape(f["function"] or "??") for f in c))' "$1"
}

# check_bt NAME OUT_WITH_PLUGIN OUT_OWN JSON: bt never worse than gdb's own
check_bt() {
	local name=$1 mine own
	mine=$(python3 "$CHECK" bt "$2" "$4" 2>&1) || { fail "$name" "$mine"; return; }
	own=$(python3 "$CHECK" bt "$3" "$4" 2>&1) || { fail "$name" "gdb's own: $own"; return; }
	if [ "${mine%% *}" -lt "${own%% *}" ]; then
		fail "$name" "bt with the plugin right for ${mine%% *} frames, gdb's own for ${own%% *} ($mine)"
	elif [[ $own == *complete && $mine != *complete ]]; then
		fail "$name" "gdb's own bt was right, with the plugin: $mine"
	else
		pass "$name (gdb's own right for ${own%% *} frames, with the plugin ${mine%% *})"
	fi
}

# live NAME PROG FUNC WHERE [UNSTRIPPED]: a live stop at FUNC WHERE (found in UNSTRIPPED, the
# same program with its symbols, when PROG is stripped)
live() {
	local name=$1 prog=$2 func=$3 where=$4 addr g out own json caller cfn
	[ -x "$prog" ] || { skip "plugin-live-$name" "$prog not built (make test-progs)"; return; }
	addr=$(stop_addr "${5:-$prog}" "$func" "$where") || { skip "plugin-live-$name" "no $func $where"; return; }
	for g in $GDBS; do
		local G=GDB_$g
		out=$W/live-$name-$g.out own=$W/live-$name-$g.own json=$W/live-$name-$g.json
		timeout 120 "${!G}" -batch -nx -x "$W/helpers.gdb" -x "$SCRIPT" -ex starti \
			-ex "break *$addr" -ex continue -ex tbt -ex tfp -ex 'thread apply all tfp' \
			-ex 'info frame' -ex up -ex 'info frame' -ex down -ex 'frame 1' -ex 'frame 0' \
			-ex "gcore $W/live-$name-$g.core" -ex finish -ex 'printf "@@finish %#lx\n", $pc' \
			-ex next -ex 'info symbol $pc' -ex 'echo @@done\n' "$prog" > "$out" 2>&1 < /dev/null
		own=$W/live-$name-gdb.own     # gdb's own bt: once, with gdb
		[ -s "$own" ] || timeout 120 gdb -batch -nx -x "$W/helpers.gdb" -ex starti -ex "break *$addr" \
			-ex continue -ex tbt -ex 'info frame' -ex up -ex 'info frame' -ex 'echo @@done\n' \
			"$prog" > "$own" 2>&1 < /dev/null
		if broken "$out"; then
			fail "plugin-live-$name-$g" "gdb died: $(grep -E 'error|Fatal|Abort' "$out" | head -2)"
			continue
		fi
		"$CS" --json "$W/live-$name-$g.core" > "$json" 2>/dev/null
		local r
		r=$(python3 "$CHECK" fpbt "$out" "$json" 2>&1) && pass "plugin-live-$name-$g-fpbt" ||
			fail "plugin-live-$name-$g-fpbt" "$r"
		check_bt "plugin-live-$name-$g-bt" "$out" "$own" "$json"
		# frame ids: gdb's own (the CFA) wherever gdb's own bt was right
		local ids_own ids_mine
		ids_own=$(grep -oE '^Stack level [01], frame at 0x[0-9a-f]+' "$own")
		ids_mine=$(grep -oE '^Stack level [01], frame at 0x[0-9a-f]+' "$out")
		if [ "$(echo "$ids_mine" | wc -l)" != 2 ]; then
			fail "plugin-live-$name-$g-frame-ids" "info frame/up/down: $(echo $ids_mine)"
		elif [[ $(python3 "$CHECK" bt "$own" "$json" 2>&1) == *complete ]] && [ "$ids_own" != "$ids_mine" ]; then
			fail "plugin-live-$name-$g-frame-ids" "gdb's own: $(echo $ids_own); with the plugin: $(echo $ids_mine)"
		else
			pass "plugin-live-$name-$g-frame-ids"
		fi
		read -r caller cfn < <(caller_of "$json")
		if grep -q "^@@finish $caller\$" "$out"; then
			pass "plugin-live-$name-$g-finish"
		else
			fail "plugin-live-$name-$g-finish" "want $caller, $(grep '^@@finish' "$out")"
		fi
		# next in a caller without line information runs to the caller's caller
		if grep -qE "^($cfn) \+ [0-9]+ in section" "$out" ||
		   { [[ $cfn == '\?\?'* ]] && grep -q '^No symbol matches' "$out"; }; then
			pass "plugin-live-$name-$g-next"
		else
			fail "plugin-live-$name-$g-next" "want a stop in $cfn: $(sed -n '/^@@finish/,$p' "$out" | tr '\n' ' ')"
		fi
	done
}

# live_crash NAME PROG: a live process stopped by its fatal signal (threads)
live_crash() {
	local name=$1 prog=$2 g out own json
	[ -x "$prog" ] || { skip "plugin-live-$name" "$prog not built (make test-progs)"; return; }
	for g in $GDBS; do
		local G=GDB_$g
		out=$W/live-$name-$g.out own=$W/live-$name-$g.own json=$W/live-$name-$g.json
		timeout 120 "${!G}" -batch -nx -x "$W/helpers.gdb" -x "$SCRIPT" -ex run -ex tbt \
			-ex 'thread apply all tfp' -ex "gcore $W/live-$name-$g.core" \
			-ex 'echo @@done\n' "$prog" > "$out" 2>&1 < /dev/null
		own=$W/live-$name-gdb.own
		[ -s "$own" ] || timeout 120 gdb -batch -nx -x "$W/helpers.gdb" -ex run -ex tbt \
			-ex 'echo @@done\n' "$prog" > "$own" 2>&1 < /dev/null
		if broken "$out"; then
			fail "plugin-live-$name-$g" "gdb died: $(grep -E 'error|Fatal|Abort' "$out" | head -2)"
			continue
		fi
		"$CS" --json "$W/live-$name-$g.core" > "$json" 2>/dev/null
		local r n
		r=$(python3 "$CHECK" fpbt "$out" "$json" 2>&1) && pass "plugin-live-$name-$g-fpbt" ||
			fail "plugin-live-$name-$g-fpbt" "$r"
		n=$(grep -c '^@@fpbt' "$out")
		[ "$n" -ge 4 ] && pass "plugin-live-$name-$g-all-threads" ||
			fail "plugin-live-$name-$g-all-threads" "fpbt ran for $n threads"
		check_bt "plugin-live-$name-$g-bt" "$out" "$own" "$json"
	done
}

# on_core NAME PROG CORE: the same checks on a core file
on_core() {
	local name=$1 prog=$2 core=$3 g out own json=$W/core-$name.json
	"$CS" --json "$core" > "$json" 2>/dev/null
	for g in $GDBS; do
		local G=GDB_$g
		out=$W/core-$name-$g.out own=$W/core-$name-$g.own
		timeout 120 "${!G}" -batch -nx -x "$W/helpers.gdb" -x "$SCRIPT" -ex tbt \
			-ex 'thread apply all tfp' -ex 'echo @@done\n' "$prog" "$core" > "$out" 2>&1 < /dev/null
		own=$W/core-$name-gdb.own
		[ -s "$own" ] || timeout 120 gdb -batch -nx -x "$W/helpers.gdb" -ex tbt -ex 'echo @@done\n' \
			"$prog" "$core" > "$own" 2>&1 < /dev/null
		if broken "$out"; then
			fail "plugin-core-$name-$g" "gdb died: $(grep -E 'error|Fatal|Abort' "$out" | head -2)"
			continue
		fi
		local r
		r=$(python3 "$CHECK" fpbt "$out" "$json" 2>&1) && pass "plugin-core-$name-$g-fpbt" ||
			fail "plugin-core-$name-$g-fpbt" "$r"
		check_bt "plugin-core-$name-$g-bt" "$out" "$own" "$json"
	done
}

# core_stop NAME VARIANT PROG FUNC WHERE / core_crash NAME VARIANT PROG
core_stop() {
	local p=$T/$3-$2 c=$W/cores/$1-$2.core
	[ -x "$p" ] || { skip "plugin-core-$1-$2" "$p not built"; return; }
	python3 tests/lib/mkcore.py stop "$c" "$p" "$4" "$5" 2> "$c.err" >/dev/null ||
		{ fail "plugin-core-$1-$2" "no core: $(head -1 "$c.err")"; return; }
	on_core "$1-$2" "$p" "$c"
}
core_crash() {
	local p=$T/$3-$2 c=$W/cores/$1-$2.core
	[ -x "$p" ] || { skip "plugin-core-$1-$2" "$p not built"; return; }
	python3 tests/lib/mkcore.py crash "$c" "$p" 2> "$c.err" >/dev/null ||
		{ fail "plugin-core-$1-$2" "no core: $(head -1 "$c.err")"; return; }
	on_core "$1-$2" "$p" "$c"
}
mkdir -p "$W/cores"

# --- live stops: entry, after push, body, ret, a frameless leaf, after a tail call, threads
for v in fp cfi; do
	live "leaf-entry-$v" "$T/leaf-$v" leaf entry
	live "leaf-ret-$v" "$T/leaf-$v" leaf ret
	live "tail-body-$v" "$T/tail-$v" leaf2 body
done
live "leaf0-body-fp" "$T/leaf-fp" leaf0 body
live "leaf-afterpush-fp" "$T/leaf-fp" leaf afterpush
live "leaf-body-fpnoleaf" "$T/leaf-fpnoleaf" leaf body
live_crash "threads-fp" "$T/threads-fp"
# without symbols gdb's own unwinder cannot find the function's entry and follows %rbp too soon
live "leaf-entry-fp-stripped" "$T/leaf-fp-stripped" leaf entry "$T/leaf-fp"
live "leaf0-body-fp-stripped" "$T/leaf-fp-stripped" leaf0 body "$T/leaf-fp"

# --- the same stops on cores
core_stop leaf-entry fp leaf leaf entry
core_stop leaf-afterpush fp leaf leaf afterpush
core_stop leaf-ret fpnoleaf leaf leaf ret
core_stop leaf0-body cfi leaf leaf0 body
core_stop tail-body fp tail leaf2 body
core_stop tail-body cfi tail leaf2 body
core_crash threads cfi threads
core_crash segv fp-stripped segv
# -g: inlined functions are frames of their own in fpbt
core_stop leaf-body g leaf leaf body
core_crash cold g cold
# JIT code (tests/lang/jit.c, `make lang-progs`): fpbt walks on through code no file backs, as
# corestack does (the core's own segments say which memory holds code)
if [ ! -x "$T/lang/jit" ]; then
	skip plugin-core-jit "$T/lang/jit not built (make lang-progs)"
elif python3 tests/lib/mkcore.py crash "$W/cores/jit.core" "$T/lang/jit" "" 2> "$W/cores/jit.err" >/dev/null; then
	on_core jit "$T/lang/jit" "$W/cores/jit.core"
else
	fail plugin-core-jit "no core: $(head -1 "$W/cores/jit.err")"
fi
# the same program live, waiting in JIT code's callee: gdb attached (the maps say which
# memory holds code)
if [ -x "$T/lang/jit" ]; then
	rm -f "$W/jit.ready"
	"$T/lang/jit" "" "$W/jit.ready" > /dev/null 2>&1 & jpid=$!
	for _ in $(seq 100); do [ -s "$W/jit.ready" ] && break; sleep 0.1; done
	if [ ! -s "$W/jit.ready" ]; then
		fail plugin-live-jit "the test program did not start"
	else
		"$CS" --json -p "$jpid" > "$W/live-jit.json" 2>/dev/null
		for g in $GDBS; do
			G=GDB_$g
			timeout 120 "${!G}" -batch -nx -x "$W/helpers.gdb" -x "$SCRIPT" -p "$jpid" -ex tfp \
				-ex 'echo @@done\n' > "$W/live-jit-$g.out" 2>&1 < /dev/null
			r=$(python3 "$CHECK" fpbt "$W/live-jit-$g.out" "$W/live-jit.json" 2>&1) &&
				pass "plugin-live-jit-$g-fpbt" || fail "plugin-live-jit-$g-fpbt" "$r"
		done
	fi
	kill "$jpid" 2>/dev/null; wait "$jpid" 2>/dev/null
fi
for c in leaf-entry-fp-stripped leaf0-body-fp-stripped; do
	[ -f "$W/live-$c-gdb.core" ] && on_core "$c" "$T/leaf-fp-stripped" "$W/live-$c-gdb.core"
done

# --- loading twice, unloading, loading again
p=$T/leaf-fp
if [ -x "$p" ]; then
	out=$W/reload.out
	addr=$(stop_addr "$p" leaf body)
	timeout 120 gdb -batch -nx -x "$W/helpers.gdb" -x "$SCRIPT" -ex 'jit-reader-load '"$B/corestack-gdb.so" \
		-ex starti -ex "break *$addr" -ex continue -ex 'echo @@first\n' -ex fpbt -ex jit-reader-unload -ex 'echo @@unloaded\n' -ex bt \
		-ex 'jit-reader-load '"$B/corestack-gdb.so" -ex 'echo @@again\n' -ex fpbt -ex 'echo @@done\n' \
		"$p" > "$out" 2>&1 < /dev/null
	if broken "$out"; then
		fail plugin-load-twice "gdb died: $(tail -3 "$out" | tr '\n' ' ')"
	elif ! grep -q 'already loaded' "$out"; then
		fail plugin-load-twice "no error for a second jit-reader-load: $(head -5 "$out" | tr '\n' ' ')"
	elif [ "$(sed -n '/^@@first/,/^@@unloaded/p' "$out" | grep -c '^#')" -lt 3 ] ||
	     [ "$(sed -n '/^@@again/,/^@@done/p' "$out" | grep -c '^#')" -lt 3 ] ||
	     ! sed -n '/^@@unloaded/,/^@@again/p' "$out" | grep -q '^#0 '; then
		fail plugin-load-twice "fpbt or bt missing around unload/reload: $(tr '\n' ' ' < "$out" | tail -c 400)"
	else
		pass plugin-load-twice
	fi
else
	skip plugin-load-twice "$p not built"
fi

# --- an i386 process and its core: the plugin must not touch an i386 register
cat > "$W/i386.s" <<'EOF2'
	.text
	.globl _start
_start:	call f
	movl $1, %eax
	xorl %ebx, %ebx
	int $0x80
f:	pushl %ebp
	movl %esp, %ebp
	call g
	popl %ebp
	ret
g:	int3
	ret
EOF2
if as --32 -o "$W/i386.o" "$W/i386.s" 2>/dev/null && ld -m elf_i386 -o "$W/i386" "$W/i386.o" 2>/dev/null; then
	for g in $GDBS; do
		G=GDB_$g out=$W/i386-$g.out
		timeout 120 "${!G}" -batch -nx -x "$W/helpers.gdb" -x "$SCRIPT" -ex run -ex bt -ex fpbt \
			-ex "gcore $W/i386-$g.core" -ex kill -ex "core-file $W/i386-$g.core" -ex bt -ex fpbt \
			-ex 'echo @@done\n' "$W/i386" > "$out" 2>&1 < /dev/null
		if broken "$out"; then
			fail "plugin-i386-$g" "gdb died: $(grep -E 'error|Fatal' "$out" | head -2)"
		elif [ "$(grep -c '^#1 .* in f ()' "$out")" != 2 ] || [ "$(grep -c 'corestack: .*architecture' "$out")" != 2 ]; then
			fail "plugin-i386-$g" "want gdb's bt and fpbt's refusal, live and core: $(tr '\n' ' ' < "$out" | tail -c 400)"
		else
			pass "plugin-i386-$g"
		fi
	done
else
	skip plugin-i386 "as --32 / ld -m elf_i386 cannot build an i386 program"
fi

# --- unreadable memory: a stack pointer that points nowhere
p=$T/leaf-fp
if [ -x "$p" ]; then
	addr=$(stop_addr "$p" leaf body)
	out=$W/badsp.out
	timeout 120 gdb -batch -nx -x "$W/helpers.gdb" -x "$SCRIPT" -ex starti -ex "break *$addr" -ex continue \
		-ex 'set $rsp = 0x10' -ex 'set $rbp = 0x20' -ex bt -ex fpbt -ex 'set $rsp = 0' -ex 'set $pc = 0x40' \
		-ex bt -ex fpbt -ex 'echo @@done\n' "$p" > "$out" 2>&1 < /dev/null
	if broken "$out"; then
		fail plugin-unreadable-memory "gdb died: $(tail -3 "$out" | tr '\n' ' ')"
	elif [ "$(grep -c '^#0 ' "$out")" -lt 4 ]; then
		fail plugin-unreadable-memory "want bt and fpbt frame 0 twice: $(tr '\n' ' ' < "$out" | tail -c 400)"
	else
		pass plugin-unreadable-memory
	fi
fi

# --- a core without its executable
if [ -x "$T/segv-fp" ]; then
	cp "$T/segv-fp" "$W/gone"
	if python3 tests/lib/mkcore.py crash "$W/gone.core" "$W/gone" 2>/dev/null >/dev/null; then
		rm -f "$W/gone"
		out=$W/gone.out
		timeout 120 gdb -batch -nx -x "$W/helpers.gdb" -x "$SCRIPT" -ex "core-file $W/gone.core" \
			-ex bt -ex fpbt -ex 'echo @@done\n' > "$out" 2>&1 < /dev/null
		if broken "$out"; then
			fail plugin-core-no-executable "gdb died: $(tail -3 "$out" | tr '\n' ' ')"
		elif [ "$(grep -c '^#0 ' "$out")" -lt 2 ]; then
			fail plugin-core-no-executable "want bt and fpbt: $(tr '\n' ' ' < "$out" | tail -c 400)"
		else
			pass plugin-core-no-executable
		fi
	else
		skip plugin-core-no-executable "no core"
	fi
fi

# --- names that gdb's printf formats and command lines would misread: fpbt prints them as
# corestack does (escaped), the first time (the plugin teaches gdb the lines) and the second
# (gdb runs the commands taught); and an answer whose script never ran (fpbt cut short after
# the plugin answered) is not relied on by the next fpbt
cat > "$W/names.c" <<'EOF'
#include <stdlib.h>
#define NOINLINE __attribute__((noinline, noipa))
static volatile int sink;
NOINLINE void n1(void) { abort(); }
NOINLINE void n2(void) { n1(); sink++; }
NOINLINE void n3(void) { n2(); sink++; }
NOINLINE void n4(void) { n3(); sink++; }
NOINLINE void n5(void) { n4(); sink++; }
NOINLINE void n6(void) { n5(); sink++; }
NOINLINE void n7(void) { n6(); sink++; }
NOINLINE void n8(void) { n7(); sink++; }
int main(void) { n8(); return sink; }
EOF
if cc -O1 -fno-omit-frame-pointer -c "$W/names.c" -o "$W/names.o" 2>/dev/null &&
	objcopy --redefine-sym n1='pct%d%s%%n%' --redefine-sym n2='quote"end"' \
		--redefine-sym n3='back\slash\' --redefine-sym n4='dollar$arg0$argc$arg1x$' \
		--redefine-sym n5="$(printf 'nl\nend\nctl\001\033[31m')" --redefine-sym n6='utf8é €' \
		--redefine-sym n7='  spaced  ' --redefine-sym n8='echo #0 x' "$W/names.o" &&
	cc -o "$W/names" "$W/names.o" &&
	python3 tests/lib/mkcore.py crash "$W/names.core" "$W/names" 2>/dev/null >/dev/null; then
	"$CS" "$W/names.core" | grep '^#' > "$W/names.want"
	# tcut: an `fpbt 5` cut short after the plugin answered (and taught commands for the
	# lines of `fpbt 5`), before its script is sourced
	fd=$(sed -n 's|.*/proc/self/fd/\([0-9]*\)/request.*|\1|p' "$SCRIPT" | head -1)
	{
		echo 'define tcut'
		echo '  set $_corestack_seq = $_corestack_seq + 1'
		echo "  eval \"dump binary value /proc/self/fd/$fd/request \\\"%d %d 5\\\"\", \$_corestack_seq, \$_corestack_ack"
		echo '  maintenance flush register-cache'
		echo '  frame apply level 0 -q -s echo'
		echo 'end'
	} > "$W/cut.gdb"
	for g in $GDBS; do
		G=GDB_$g
		out=$W/names-$g.out
		timeout 120 "${!G}" -batch -nx -x "$W/helpers.gdb" -x "$SCRIPT" -x "$W/cut.gdb" \
			-ex 'echo @@1\n' -ex fpbt -ex 'echo @@2\n' -ex fpbt -ex tcut \
			-ex 'echo @@3\n' -ex 'fpbt 5' -ex 'echo @@4\n' -ex fpbt -ex 'echo @@done\n' \
			"$W/names" "$W/names.core" > "$out" 2>&1 < /dev/null
		bad=
		for n in 1 2 3 4; do
			sed -n "/^@@$n\$/,/^@@/p" "$out" | grep -v '^@@\|^warning:' > "$W/names.got"
			want=$W/names.want
			if [ $n = 3 ]; then
				{ head -n 5 "$W/names.want"; echo '(More stack frames follow...)'; } > "$W/names.want3"
				want=$W/names.want3
			fi
			cmp -s "$W/names.got" "$want" || bad="$bad @@$n: $(diff "$W/names.got" "$want" | head -4 | tr '\n' ' ')"
		done
		if broken "$out"; then
			fail "plugin-hostile-names-$g" "gdb died: $(tail -3 "$out" | tr '\n' ' ')"
		elif [ "$(wc -l < "$W/names.want")" -lt 15 ] || ! grep -q 'dollar\$arg0' "$W/names.want"; then
			fail "plugin-hostile-names-$g" "corestack's own frames: $(tr '\n' ' ' < "$W/names.want")"
		elif [ -n "$bad" ]; then
			fail "plugin-hostile-names-$g" "fpbt differs from corestack:$bad"
		else
			pass "plugin-hostile-names-$g"
		fi
	done
else
	skip plugin-hostile-names "cc, objcopy or mkcore.py could not make the program or its core"
fi

# --- a function name of megabytes: gdb copies a printf format onto its stack, so fpbt must
# print such a line in pieces; gdb's stack is limited to 2 MiB here, so that a name of 3 MiB
# is beyond it (a default stack of 8 MiB meets a name of 9 MiB the same way)
if cc -O1 -fno-omit-frame-pointer -c "$W/names.c" -o "$W/long.o" 2>/dev/null &&
	python3 -c "print('n2 ' + 'L' * (3 << 20))" > "$W/long.syms" &&
	objcopy --redefine-syms="$W/long.syms" "$W/long.o" && cc -o "$W/long" "$W/long.o" &&
	python3 tests/lib/mkcore.py crash "$W/long.core" "$W/long" 2>/dev/null >/dev/null; then
	"$CS" "$W/long.core" | grep '^#' > "$W/long.want"
	for g in $GDBS; do
		G=GDB_$g
		out=$W/long-$g.out
		(ulimit -s 2048; timeout 300 "${!G}" -batch -nx -x "$W/helpers.gdb" -x "$SCRIPT" \
			-ex 'echo @@1\n' -ex fpbt -ex 'echo @@done\n' "$W/long" "$W/long.core" > "$out" 2>&1 < /dev/null)
		sed -n '/^@@1$/,/^@@/p' "$out" | grep -v '^@@\|^warning:' > "$W/long.got"
		if broken "$out"; then
			fail "plugin-long-name-$g" "gdb died: $(tail -3 "$out" | cut -c1-100 | tr '\n' ' ')"
		elif ! grep -q 'LLLLLLLL' "$W/long.want"; then
			fail "plugin-long-name-$g" "corestack's own frames lack the long name"
		elif ! cmp -s "$W/long.got" "$W/long.want"; then
			fail "plugin-long-name-$g" "fpbt differs from corestack: $(diff "$W/long.got" "$W/long.want" | head -4 | cut -c1-100 | tr '\n' ' ')"
		else
			pass "plugin-long-name-$g"
		fi
	done
	rm -f "$W/long.syms" "$W/long.o"
else
	skip plugin-long-name "cc, objcopy or mkcore.py could not make the program or its core"
fi

# --- an error naming a core whose file name has control characters (ESC, a newline), cut at
# 255 bytes on a backslash: fpbt prints it escaped, on one line, and nothing else
pad=$(printf '%*s' $((235 - ${#W})) '' | tr ' ' A)
evil=$'e\e[31m\n'"$pad"'\tail.core'
if [ -s "$W/names.core" ] && python3 tests/lib/mkbad.py prstatus-missing "$W/names.core" "$W/$evil" >/dev/null 2>&1; then
	for g in $GDBS; do
		G=GDB_$g
		out=$W/evilname-$g.out
		timeout 120 "${!G}" -batch -nx -x "$W/helpers.gdb" -x "$SCRIPT" -ex 'echo @@1\n' -ex fpbt \
			-ex 'echo @@done\n' "$W/names" "$W/$evil" > "$out" 2>&1 < /dev/null
		sed -n '/^@@1$/,/^@@/p' "$out" | grep -v '^@@\|^warning:' > "$W/evilname.got"
		if broken "$out"; then
			fail "plugin-error-escaped-$g" "gdb died: $(tail -3 "$out" | tr '\n' ' ')"
		elif grep -q $'\e' "$W/evilname.got" || [ "$(wc -l < "$W/evilname.got")" != 1 ] ||
			! grep -qF 'corestack: '"$W"'/e\x1b[31m\nAAAA' "$W/evilname.got"; then
			fail "plugin-error-escaped-$g" "want one escaped error line: $(cat -v "$W/evilname.got" | cut -c1-60 | tr '\n' ' ')"
		else
			pass "plugin-error-escaped-$g"
		fi
	done
	rm -f "$W/$evil"
else
	skip plugin-error-escaped "no core of names, or mkbad.py could not damage it"
fi

# --- a second inferior with its own core (add-inferior, core-file): fpbt and bt there walk
# its core, and fpbt back in the first inferior the first core
c2=$W/cores/tail-body-fp.core
if [ -s "$W/names.core" ] && [ -s "$c2" ]; then
	"$CS" "$c2" | grep '^#' > "$W/inf2.want"
	# gdb's bt of the second core with the plugin, in a session of its own
	timeout 120 gdb -batch -nx -x "$W/helpers.gdb" -x "$SCRIPT" -ex 'echo @@bt\n' -ex bt -ex 'echo @@done\n' \
		"$T/tail-fp" "$c2" > "$W/inf2-alone.out" 2>&1 < /dev/null
	sed -n '/^@@bt$/,/^@@/p' "$W/inf2-alone.out" | grep '^#' > "$W/inf2-bt.want"
	# gdb 13's add-inferior shares the core's connection unless told not to, and its `file`
	# then crashes gdb itself
	timeout 120 gdb -batch -nx -x "$W/helpers.gdb" -x "$SCRIPT" -ex 'echo @@1\n' -ex fpbt -ex 'echo @@e\n' \
		-ex 'add-inferior -no-connection' -ex 'inferior 2' -ex "file $T/tail-fp" -ex "core-file $c2" \
		-ex 'echo @@2\n' -ex fpbt -ex 'echo @@bt\n' -ex bt -ex 'echo @@e\n' -ex 'inferior 1' \
		-ex 'echo @@3\n' -ex fpbt -ex 'echo @@done\n' "$W/names" "$W/names.core" > "$W/inf2.out" 2>&1 < /dev/null
	bad=
	for n in 1 2 bt 3; do
		sed -n "/^@@$n\$/,/^@@/p" "$W/inf2.out" | grep -v '^@@\|^warning:' > "$W/inf2.got"
		case $n in
		2) want=$W/inf2.want ;;
		bt) want=$W/inf2-bt.want; grep '^#' "$W/inf2.got" > "$W/inf2.got.bt"; mv "$W/inf2.got.bt" "$W/inf2.got" ;;
		*) want=$W/names.want ;;
		esac
		cmp -s "$W/inf2.got" "$want" || bad="$bad @@$n: $(diff "$W/inf2.got" "$want" | head -4 | tr '\n' ' ')"
	done
	if broken "$W/inf2.out"; then
		fail plugin-second-inferior "gdb died: $(tail -3 "$W/inf2.out" | tr '\n' ' ')"
	elif [ ! -s "$W/inf2-bt.want" ] || [ ! -s "$W/inf2.want" ]; then
		fail plugin-second-inferior "no frames for $c2 alone"
	elif [ -n "$bad" ]; then
		fail plugin-second-inferior "not the current inferior's core:$bad"
	else
		pass plugin-second-inferior
	fi
else
	skip plugin-second-inferior "no core of names or of tail-body-fp"
fi

# --- every core made here, and hostile variants of one, in one session with the plugin:
# bt and fpbt on every thread; gdb must reach the end
base=$(ls "$W"/cores/segv-fp-stripped.core "$W"/cores/*.core 2>/dev/null | head -1)
if [ -n "$base" ]; then
	mkdir -p "$W/bad"
	for m in $(python3 tests/lib/mkbad.py list 2>&1 | awk '{print $1}'); do
		# the mutations that scale (threads, NT_FILE entries) at a size gdb itself walks in
		# seconds: 100,000 threads are t_badinput.sh's test of corestack, not of gdb
		case $m in threads) margs=(200 copy) ;; ntfile-many) margs=(20000) ;; *) margs=() ;; esac
		python3 tests/lib/mkbad.py "$m" "$base" "$W/bad/$m.core" "${margs[@]}" >/dev/null 2>&1 || rm -f "$W/bad/$m.core"
	done
	# with tests/run.sh: its table's cores too
	cores=$(ls "$W"/cores/*.core "$W"/live-*.core "$W"/i386-*.core "$W"/bad/*.core \
		${CORESTACK_TEST_CORES:+"$CORESTACK_TEST_CORES"/*.core} 2>/dev/null)
	args=()
	for c in $cores; do
		args+=(-ex "echo @@core $c\\n" -ex "core-file $c" -ex 'thread apply all bt 20' -ex 'thread apply all fpbt 20')
	done
	out=$W/allcores.out
	timeout 600 gdb -batch -nx -x "$W/helpers.gdb" -x "$SCRIPT" "${args[@]}" -ex 'echo @@done\n' > "$out" 2>&1 < /dev/null
	n=$(grep -c '^@@core' "$out")
	if broken "$out"; then
		fail plugin-every-core "gdb died after $(grep '^@@core' "$out" | tail -1)"
	else
		pass "plugin-every-core ($n cores, $(ls "$W"/bad/*.core 2>/dev/null | wc -l) of them hostile)"
	fi
else
	skip plugin-every-core "no cores were made"
fi

# --- corestack.gdb stops gdb's worker threads while the plugin loads (a descriptor table
# shared by threads grows only after an RCU grace period) and gives the user's setting back
for g in $GDBS; do
	G=GDB_$g
	out=$W/workers-$g.out
	timeout 120 "${!G}" -batch -nx -ex 'maint set worker-threads 1' -x "$SCRIPT" \
		-ex 'maint show worker-threads' -ex 'echo @@done\n' > "$out" 2>&1 < /dev/null
	if broken "$out"; then
		fail "plugin-worker-threads-$g" "gdb died: $(tail -3 "$out" | tr '\n' ' ')"
	elif grep -q 'can use is 1\b' "$out" && ! grep -qi 'error\|undefined' "$out"; then
		pass "plugin-worker-threads-$g"
	else
		fail "plugin-worker-threads-$g" "want the setting 1 back: $(grep -i 'worker\|error' "$out" | head -2 | tr '\n' ' ')"
	fi
done

left=$(ls -d "$W"/tmp/corestack-gdb.* 2>/dev/null | wc -l)
[ "$left" = 0 ] && pass plugin-no-leftover-directories ||
	fail plugin-no-leftover-directories "$left fpbt directories left after gdb exited"

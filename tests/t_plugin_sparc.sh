#!/bin/bash
# The gdb plugin on SPARC: gdb-multiarch debugging a sparc64 test program live through
# qemu-sparc64's gdbstub (a remote target: no process or core file on this machine).
# For each stop (the committed fixture binary, stopped where the matching fixture core was
# made, see tests/sparc/fixtures.list):
#   fpbt      the frames, pcs and markers `corestack --json` finds on the fixture core
#             (which was made from the same binary at the same stop under qemu);
#   fpbt -v   the same frames;
#   bt        after fpbt (whose window flush puts the callers' windows on the stack) gdb's
#             frames agree with corestack's real frames; gdb never dies;
#   continue  after the breakpoint is deleted the program exits normally: the flush left
#             its pc, npc and registers as they were.
# Prints PASS/FAIL/SKIP lines for tests/run.sh; always exits 0.
. "$(dirname "$0")/lib/common.sh" || exit 1
SCRIPT=$B/corestack.gdb
CHECK=$TOP/tests/plugin/check_gdb.py
FIX=$TOP/tests/sparc/fixtures
SYSROOT=/usr/sparc64-linux-gnu
QPID=
at_exit '[ -n "$QPID" ] && kill "$QPID" 2>/dev/null; wait 2>/dev/null'
mkdir -p "$W/tmp"
export TMPDIR=$W/tmp

if [ ! -f "$B/corestack-gdb.so" ] || [ ! -f "$SCRIPT" ] || [ ! -x "$CS" ]; then
	skip plugin-sparc "$B/corestack-gdb.so, $SCRIPT or $CS not built (make)"; exit 0
fi
for tool in gdb-multiarch qemu-sparc64; do
	command -v $tool >/dev/null || { skip plugin-sparc "$tool is not installed (make deps)"; exit 0; }
done
[ -f $SYSROOT/lib/libc.so.6 ] || { skip plugin-sparc "no sparc64 C library in $SYSROOT (libc6-sparc64-cross)"; exit 0; }

cat > "$W/helpers.gdb" <<'GDB'
set pagination off
set confirm off
define tfp
  echo @@fpbt\n
  fpbt
  echo @@end\n
end
define tfpv
  echo @@fpbt\n
  fpbt -v
  echo @@end\n
end
define tbt
  printf "@@pc %#lx\n", $pc
  echo @@bt\n
  bt
  echo @@end\n
end
GDB

# stop address of STOP (stops.py syntax) in the non-PIE BINARY
stop_addr() {
	python3 -c '
import sys
sys.path.insert(0, "tests/sparc")
import elfsyms, stops
print(hex(stops.Stop(sys.argv[2]).address(elfsyms.Elf(sys.argv[1]), 0)))' "$@"
}

# a free TCP port, and waiting until qemu listens on it (/proc/net/tcp, state 0A = LISTEN)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
listening() { grep -qiE "^ *[0-9]+: [0-9A-F]+:$(printf %04X "$1") [0-9A-F:]+ 0A " /proc/net/tcp /proc/net/tcp6 2>/dev/null; }

# sparc NAME BINARY STOP ARG CORE: a live stop under qemu-sparc64 against fixture CORE
sparc() {
	local name=plugin-sparc-$1 prog=$FIX/$2 stop=$3 arg=$4 core=$FIX/$5.core addr port out json r i
	[ -f "$prog" ] && [ -f "$core" ] || { skip "$name" "$prog or $core missing"; return; }
	addr=$(stop_addr "$prog" "$stop") || { skip "$name" "no stop $stop in $prog"; return; }
	json=$W/$1.json out=$W/$1.out
	"$CS" --json --sysroot $SYSROOT -e "$prog" "$core" > "$json" 2>/dev/null
	[ -s "$json" ] || { fail "$name" "corestack could not read $core"; return; }
	port=$(free_port)
	qemu-sparc64 -L $SYSROOT -g "$port" "$prog" "$arg" > "$W/$1.qemu" 2>&1 &
	QPID=$!
	for i in $(seq 50); do listening "$port" && break; sleep 0.1; done
	timeout 120 gdb-multiarch -batch -nx -x "$W/helpers.gdb" -ex "set sysroot $SYSROOT" \
		-x "$SCRIPT" -ex "target remote :$port" -ex "break *$addr" -ex continue \
		-ex tfp -ex tfpv -ex tbt -ex 'info frame' -ex up -ex down -ex delete -ex continue \
		-ex 'echo @@done\n' "$prog" > "$out" 2>&1 < /dev/null
	kill "$QPID" 2>/dev/null; wait "$QPID" 2>/dev/null; QPID=
	if grep -qE 'internal-error|Fatal signal|A fatal error internal to GDB' "$out" || ! grep -q '@@done' "$out"; then
		fail "$name" "gdb died: $(grep -E 'error|Fatal|Abort' "$out" | head -2)"; return
	fi
	r=$(python3 "$CHECK" fpbt "$out" "$json" 2>&1) && pass "$name-fpbt ($r)" || fail "$name-fpbt" "$r"
	r=$(python3 "$CHECK" bt "$out" "$json" 2>&1)
	[[ $r == *complete ]] && pass "$name-bt ($r)" || fail "$name-bt" "$r"
	grep -q 'exited normally' "$out" && pass "$name-continue" ||
		fail "$name-continue" "$(grep -E '^\[Inferior|signal' "$out" | head -2)"
}

# a function after its save (seeds.c case 1), a leaf at its entry (case 3: the caller only
# in %o7), a chain of leaf tail calls (case 4), a tail jump's delay slot
sparc s1 seeds-O2 bar1@call 1 s1-O2
sparc leafentry seeds-O2 leaf3 3 leafentry-O2
sparc s4 seeds-O2 leaf4+8 4 s4-O2
sparc taildelay seeds-O2 tail4a@b+4 4 taildelay-O2
exit 0

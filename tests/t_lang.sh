#!/bin/bash
# C++, Rust and Go programs (tests/lang/, built by tests/lang/lang.mk with Debian's g++, rustc
# and golang-go): their cores' crashing threads frame by frame, names demangled
# (tests/lang/expected/, gdb's frames in each file's comments), and with -r mangled; the JSON
# "symbol" member; the signature (the machinery skipped, " [clone .cold]" cut); the shell's
# disassemble of a C++ name typed without its parameter list; Go's signal restorer crossed;
# JIT code in a core and live (-p); a Node.js core walked through V8's compiled code to main;
# Debian's python3.11 with its inline frames.
# Prints PASS/FAIL/SKIP lines for tests/run.sh; always exits 0.
. "$(dirname "$0")/lib/common.sh" || exit 1
L=$T/lang
E=tests/lang/expected
pid=
at_exit '[ -z "$pid" ] || kill "$pid" 2>/dev/null'

[ -x "$CS" ] || { skip lang "$CS not built"; exit 0; }

# core NAME PROG ARG: $W/NAME.core from PROG ARG (a copy kept for tests/t_plugin.sh)
core() {
	RUST_BACKTRACE=0 python3 tests/lib/mkcore.py crash "$W/$1.core" "$2" "$3" >/dev/null 2>"$W/$1.err" &&
		{ [ -z "$CORESTACK_TEST_CORES" ] || cp "$W/$1.core" "$CORESTACK_TEST_CORES/lang_$1.core"; }
}

if [ -x "$L/app" ]; then
	for m in segv abort; do
		if core "cpp_$m" "$L/app" "$m"; then
			check "lang-cpp-$m" python3 tests/lib/check_frames.py --corestack "$CS" "$E/cpp_$m" "$W/cpp_$m.core"
		else
			fail "lang-cpp-$m" "no core: $(head -c 300 "$W/cpp_$m.err")"
		fi
	done
	if [ -e "$W/cpp_segv.core" ]; then
		check lang-cpp-raw python3 tests/lib/check_frames.py --raw --corestack "$CS" "$E/cpp_segv_raw" "$W/cpp_segv.core"
		# JSON: the readable name beside the mangled symbol
		check lang-cpp-json-symbol python3 -c '
import json, subprocess, sys
d = json.loads(subprocess.run([sys.argv[1], "--json", sys.argv[2]], capture_output=True, text=True).stdout)
f = d["threads"][0]["frames"]
assert (f[0]["function"], f[0]["symbol"]) == ("app::crash_null(int*)", "_ZN3app10crash_nullEPi"), f[0]
assert f[6]["symbol"] == "_ZNK3app3BoxIiE5applyERKSt8functionIFiiEE.isra.0", f[6]
assert all("symbol" in x for x in f)' "$CS" "$W/cpp_segv.core"
		# the shell: a C++ name without its parameter list, as gdb takes it
		printf 'disassemble app::crash_null\ninfo frame\n' | "$CS" -i "$W/cpp_segv.core" > "$W/shell.out" 2>&1
		check lang-shell-disassemble grep -qF 'Dump of assembler code for function app::crash_null(int*):' "$W/shell.out"
	fi
	# the shell in a terminal: Tab completes a C++ name typed with its namespace, and lists
	# the names under app::
	if [ -e "$W/cpp_segv.core" ] && command -v tmux >/dev/null; then
		SOCK=cst-lang-$$
		screen() { tmux -L "$SOCK" capture-pane -p -S -200 -t lang 2>/dev/null; }
		wait_for() {
			for _ in $(seq 50); do screen | grep -qE -- "$1" && return 0; sleep 0.2; done
			return 1
		}
		mkdir -p "$W/home"
		tmux -L "$SOCK" new-session -d -s lang -x 200 -y 50 \
			"env -u XDG_STATE_HOME -u CORESTACK_HISTORY HOME='$W/home' TERM=xterm '$CS' -i '$W/cpp_segv.core'; sleep 30"
		if ! wait_for '^\(corestack\) ?$'; then
			fail lang-shell-complete "no prompt: $(screen | tail -3)"
		else
			tmux -L "$SOCK" send-keys -t lang -l 'disas app::crash_n'
			tmux -L "$SOCK" send-keys -t lang Tab
			if wait_for '^\(corestack\) disas app::crash_null'; then pass lang-shell-complete
			else fail lang-shell-complete "$(screen | grep -v '^$' | tail -3)"; fi
			tmux -L "$SOCK" send-keys -t lang C-u
			tmux -L "$SOCK" send-keys -t lang -l 'disas app::'
			tmux -L "$SOCK" send-keys -t lang Tab Tab
			if wait_for 'app::Derived::run\(int\)' && screen | grep -q 'app::crash_null'; then
				pass lang-shell-complete-list
			else
				fail lang-shell-complete-list "$(screen | grep -v '^$' | tail -3)"
			fi
		fi
		tmux -L "$SOCK" kill-server 2>/dev/null
	fi
	if [ -e "$W/cpp_abort.core" ]; then
		"$CS" --signature "$W/cpp_abort.core" > "$W/sig.out" 2>&1
		check lang-cpp-signature grep -qF ' app::fail(char const*) | app::Derived::run(int) | main' "$W/sig.out"
		# -r shows names mangled, but the signature is the same
		"$CS" -r --signature "$W/cpp_abort.core" > "$W/sig-raw.out" 2>&1
		check lang-cpp-signature-raw cmp "$W/sig.out" "$W/sig-raw.out"
		# a skip pattern matches the demangled name and the mangled one
		"$CS" --signature --skip 'app::fail(*' "$W/cpp_abort.core" > "$W/sig1.out" 2>&1
		"$CS" --signature --skip '_ZN3app4failEPKc' "$W/cpp_abort.core" > "$W/sig2.out" 2>&1
		check lang-cpp-signature-skip grep -q ' app::Derived::run(int) | main$' "$W/sig1.out" "$W/sig2.out"
		check lang-cpp-signature-skip-mangled grep -q ' app::Derived::run(int) | main$' "$W/sig2.out"
	fi
else
	skip lang-cpp "$L/app not built (make lang-progs)"
fi

for v in legacy v0; do
	if [ ! -x "$L/r-$v" ]; then
		skip "lang-rust-$v" "$L/r-$v not built (make lang-progs)"
		continue
	fi
	for m in segv panic; do
		if core "rust_${v}_$m" "$L/r-$v" "$m"; then
			check "lang-rust-$v-$m" python3 tests/lib/check_frames.py --corestack "$CS" "$E/rust_$m" "$W/rust_${v}_$m.core"
		else
			fail "lang-rust-$v-$m" "no core: $(head -c 300 "$W/rust_${v}_$m.err")"
		fi
	done
done
# Go: a nil dereference under GOTRACEBACK=crash; the walk crosses the runtime's own signal
# restorer (runtime.sigreturn) to the faulting method and on to runtime.goexit; file:line
# from Go's DWARF, which has no .debug_aranges
if [ -x "$L/store" ]; then
	if GOTRACEBACK=crash core go_segv "$L/store" nil; then
		check lang-go-segv python3 tests/lib/check_frames.py --corestack "$CS" "$E/go_segv" "$W/go_segv.core"
		# the restorer's frame gives the interrupted registers (signal-frame), and -v says where
		"$CS" -v "$W/go_segv.core" > "$W/go.out" 2>&1
		check lang-go-signal-frame grep -qE 'found by: signal-frame .*registers from the signal frame.s ucontext at 0x' "$W/go.out"
		# Go's ".abi0" suffix is dropped from names, kept by -r and in the JSON symbol
		"$CS" -r "$W/go_segv.core" > "$W/go-raw.out" 2>&1
		check lang-go-abi0-raw grep -qE '^#0  0x[0-9a-f]+ in runtime\.raise\.abi0 \(\)' "$W/go-raw.out"
		check lang-go-abi0-symbol python3 -c '
import json, subprocess, sys
d = json.loads(subprocess.run([sys.argv[1], "--json", sys.argv[2]], capture_output=True, text=True).stdout)
f = d["threads"][0]["frames"][0]
assert (f["function"], f["symbol"]) == ("runtime.raise", "runtime.raise.abi0"), f' "$CS" "$W/go_segv.core"
		# the signature takes the names the text shows, with -r too
		"$CS" --signature "$W/go_segv.core" > "$W/go-sig.out" 2>&1
		"$CS" -r --signature "$W/go_segv.core" > "$W/go-sig-raw.out" 2>&1
		check lang-go-signature grep -qE ': runtime\.raise \| [^|]+ \| runtime\.sigfwdgo \| runtime\.sigtrampgo \| runtime\.sigtramp$' "$W/go-sig.out"
		check lang-go-signature-raw cmp "$W/go-sig.out" "$W/go-sig-raw.out"
	else
		fail lang-go-segv "no core: $(head -c 300 "$W/go_segv.err")"
	fi
else
	skip lang-go "$L/store not built (make lang-progs)"
fi

# JIT code: return addresses in an anonymous executable mapping (no file, no module) are
# walked by the frame-pointer chain, shown as anonymous memory, or named from a perf map
if [ -x "$L/jit" ]; then
	if core jit_anon "$L/jit" ""; then
		check lang-jit-anon python3 tests/lib/check_frames.py --corestack "$CS" "$E/jit_anon" "$W/jit_anon.core"
		"$CS" "$W/jit_anon.core" > "$W/jit.out" 2>&1
		check lang-jit-anon-text grep -qE '^#2  0x[0-9a-f]+ in \?\? \(\) \[JIT\] from anonymous memory$' "$W/jit.out"
	else
		fail lang-jit-anon "no core: $(head -c 300 "$W/jit_anon.err")"
	fi
	if core jit_perfmap "$L/jit" "$W/jit.map"; then
		check lang-jit-perfmap python3 tests/lib/check_frames.py --corestack "$CS" --perf-map "$W/jit.map" \
			"$E/jit_perfmap" "$W/jit_perfmap.core"
	else
		fail lang-jit-perfmap "no core: $(head -c 300 "$W/jit_perfmap.err")"
	fi
	# live (-p): the anonymous rwx mapping of /proc/PID/maps is code of no module, its
	# functions named from /tmp/perf-PID.map when the process wrote one
	for m in anon perfmap; do
		[ $m = anon ] && map= || map=/tmp/perf-%d.map
		rm -f "$W/ready"
		"$L/jit" "$map" "$W/ready" & pid=$!
		for _ in $(seq 100); do [ -s "$W/ready" ] && break; sleep 0.1; done
		if [ ! -s "$W/ready" ]; then
			fail "lang-jit-live-$m" "the test program did not start"
		else
			check "lang-jit-live-$m" python3 tests/lib/check_frames.py --corestack "$CS" --pid \
				"$E/jit_live_$m" "$pid"
			if [ $m = perfmap ]; then
				"$CS" -p "$pid" > "$W/live.out" 2>&1
				check lang-jit-live-perfmap-text grep -qE \
					"^#3  0x[0-9a-f]+ in JS:inner \(\) \[JIT\] from /tmp/perf-$pid\.map\$" "$W/live.out"
			fi
		fi
		kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -f "/tmp/perf-$pid.map"
	done
else
	skip lang-jit "$L/jit not built (make lang-progs)"
fi

# Node.js: hot code V8 compiled calls a native function that raises SIGABRT; the walk goes
# through the compiled code (named from the perf map node --perf-basic-prof writes) and V8's
# builtins (some run from the copy of node's text V8 maps near its code) to
# Builtins_JSEntryTrampoline and main.  JIT frames vary between runs: the structure is checked.
NODE=$(command -v node || command -v nodejs)
if [ -z "$NODE" ]; then
	skip lang-node "no node or nodejs on PATH (make deps installs nodejs)"
elif ! "$NODE" -e 0 >/dev/null 2>&1; then
	skip lang-node "$NODE cannot run: $("$NODE" -e 0 2>&1 | head -1)"
elif python3 tests/lib/mkcore.py crash "$W/node.core" "$NODE" --perf-basic-prof "$(pwd)/tests/lang/hot.js" \
		>/dev/null 2>"$W/node.err"; then
	check lang-node python3 -c '
import json, os, subprocess, sys
p = subprocess.run([sys.argv[1], "--json", sys.argv[2]], capture_output=True, text=True)
d = json.loads(p.stdout)
os.unlink("/tmp/perf-%d.map" % d["pid"]) if os.path.exists("/tmp/perf-%d.map" % d["pid"]) else None
t = [t for t in d["threads"] if t.get("crashed")][0]
names = [f.get("function") or "??" for f in t["frames"]]
def first(pred):
    return next((i for i, f in enumerate(t["frames"]) if pred(f)), None)
jit = first(lambda f: f.get("jit_map") and (f.get("function") or "").startswith("JS:"))
entry = first(lambda f: f.get("function") == "Builtins_JSEntryTrampoline")
main = first(lambda f: f.get("function") in ("main", "node::Start(int, char**)"))
assert jit is not None, "no JIT frame named from a perf map: %s" % names
assert entry is not None and entry > jit, "no Builtins_JSEntryTrampoline after the JIT frames: %s" % names
assert main is not None and main > entry, "no main after Builtins_JSEntryTrampoline: %s" % names
assert t["complete"] and names[-1] == "_start", "walk incomplete (%s): %s" % (t.get("stop_reason"), names)' \
		"$CS" "$W/node.core"
else
	fail lang-node "no core: $(head -c 300 "$W/node.err")"
fi

# Debian's python3.11 (LTO) with python3.11-dbg: a SIGSEGV in the eval loop; the inline
# frames gdb shows (the LTO units' inlined subroutines name DIEs of other units)
PY=/usr/bin/python3.11
pybid=$( [ -x "$PY" ] && readelf -n "$PY" 2>/dev/null | awk '/Build ID:/ { print $3 }')
if [ ! -x "$PY" ]; then
	skip lang-python "no $PY (Debian's python3.11)"
elif [ -z "$pybid" ] || [ ! -e "/usr/lib/debug/.build-id/${pybid:0:2}/${pybid:2}.debug" ]; then
	skip lang-python "no debug file for $PY's build-id (make deps installs python3.11-dbg)"
elif core python_segv "$PY" "$(pwd)/tests/lang/crash.py"; then
	check lang-python python3 tests/lib/check_frames.py --corestack "$CS" "$E/python_segv" "$W/python_segv.core"
	# an LTO clone is shown by its DWARF name; the JSON symbol and -r keep the clone's
	check lang-python-clone-symbol python3 -c '
import json, subprocess, sys
d = json.loads(subprocess.run([sys.argv[1], "--json", sys.argv[2]], capture_output=True, text=True).stdout)
f = [f for t in d["threads"] if t.get("crashed") for f in t["frames"] if f.get("symbol") == "run_mod.lto_priv.0"]
assert f and f[0]["function"] == "run_mod", f' "$CS" "$W/python_segv.core"
	"$CS" -r "$W/python_segv.core" > "$W/py-raw.out" 2>&1
	check lang-python-clone-raw grep -qE ' in run_mod\.lto_priv\.0 \(\)' "$W/py-raw.out"
else
	fail lang-python "no core: $(head -c 300 "$W/python_segv.err")"
fi

# the mangled forms, as -r shows them
if [ -e "$W/rust_legacy_segv.core" ]; then
	"$CS" -r "$W/rust_legacy_segv.core" > "$W/rl.out" 2>&1
	check lang-rust-legacy-raw grep -qE ' in _ZN1r6engine4step17h[0-9a-f]{16}E \(\)' "$W/rl.out"
fi
if [ -e "$W/rust_v0_segv.core" ]; then
	"$CS" -r "$W/rust_v0_segv.core" > "$W/rv.out" 2>&1
	check lang-rust-v0-raw grep -qE ' in _RNvNtCs[0-9A-Za-z_]+_1r6engine4step \(\)' "$W/rv.out"
fi
exit 0

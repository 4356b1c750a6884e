#!/bin/bash
# Finding the files a core needs: compressed cores (zstd, xz, lz4) and cores on standard
# input, package metadata notes, --debug-dir and .gnu_debuglink, debuginfod (a real server
# on 127.0.0.1), and JIT frames named from perf maps (a real node core).  Hostile variants
# of each: corrupt and truncated streams, bogus package notes, malformed perf maps.
# Prints PASS/FAIL/SKIP lines for tests/run.sh; always exits 0.  KEEP=1 keeps (and names) the
# work directory.
. "$(dirname "$0")/lib/common.sh" || exit 1
SRC=$TOP
dpid=
nodemap=
at_exit 'if [ -n "$dpid" ]; then kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null; fi
[ -n "$nodemap" ] && rm -f "$nodemap"'
# no test may reach a debuginfod server it did not start
unset DEBUGINFOD_URLS
export DEBUGINFOD_CACHE_PATH=$W/debuginfod-cache

# "function file:line" of thread 0's frames in corestack --json output, one per line
frames() { python3 -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("no JSON: %s" % e); sys.exit(0)
for f in d["threads"][0]["frames"]:
    loc = "%s:%s" % (f["file"].rsplit("/", 1)[-1], f["line"]) if f["file"] else "-"
    print(f["function"] or "??", loc)' "$1" 2>/dev/null; }
# the first N function names, space-separated
funcs() { frames "$1" | head -"${2:-3}" | awk '{printf "%s ", $1}'; }
# one-line error check: exit status WANT, exactly one stderr line naming NAME and PATTERN
err_line() {   # name want rc errfile corename pattern
	local n=$1 want=$2 rc=$3 f=$4 core=$5 pat=$6
	if [ "$rc" != "$want" ]; then fail "$n" "exit $rc, want $want: $(head -2 "$f")"
	elif [ "$(wc -l < "$f")" != 1 ]; then fail "$n" "not one line: $(cat "$f")"
	elif ! grep -q "^corestack: $core: .*$pat" "$f"; then fail "$n" "message: $(cat "$f")"
	else pass "$n"; fi
}

gcc -O2 -g -fno-omit-frame-pointer -o "$W/segv" tests/progs/segv.c || { fail files-build gcc; exit 0; }
python3 tests/lib/mkcore.py crash "$W/core" "$W/segv" 2>"$W/mk.err" || { fail files-core "$(cat "$W/mk.err")"; exit 0; }
"$CS" --json "$W/core" > "$W/plain.json" 2>/dev/null; rc=$?
want=$(funcs "$W/plain.json")
[ "$want" = "crasher middle main " ] && [ $rc = 0 ] && pass files-plain-core || { fail files-plain-core "exit $rc: $want"; exit 0; }

# ---- compressed cores, read directly and on standard input -----------------------------
for fmt in zst xz lz4; do
	case $fmt in
	zst) tool=zstd; compress() { zstd -q -c "$1"; } ;;
	xz) tool=xz; compress() { xz -c "$1"; } ;;
	lz4) tool=lz4; compress() { lz4 -q -c "$1"; } ;;
	esac
	if ! command -v $tool >/dev/null; then skip "compressed-$fmt" "$tool not installed"; continue; fi
	compress "$W/core" > "$W/core.$fmt"
	"$CS" --json "$W/core.$fmt" > "$W/c.json" 2>"$W/c.err"; rc=$?
	[ $rc = 0 ] && [ "$(funcs "$W/c.json")" = "$want" ] && pass "compressed-$fmt" \
		|| fail "compressed-$fmt" "exit $rc: $(funcs "$W/c.json") $(head -1 "$W/c.err")"
	# the magic decides, not the name
	cp "$W/core.$fmt" "$W/unnamed-$fmt"
	"$CS" --json "$W/unnamed-$fmt" > "$W/c.json" 2>/dev/null
	[ "$(funcs "$W/c.json")" = "$want" ] && pass "compressed-$fmt-by-magic" \
		|| fail "compressed-$fmt-by-magic" "$(funcs "$W/c.json")"
	# a compressed core through a pipe
	cat "$W/core.$fmt" | "$CS" --json - > "$W/c.json" 2>"$W/c.err"; rc=$?
	[ $rc = 0 ] && [ "$(funcs "$W/c.json")" = "$want" ] && pass "stdin-$fmt" \
		|| fail "stdin-$fmt" "exit $rc: $(funcs "$W/c.json") $(head -1 "$W/c.err")"
	# truncated: half the stream
	size=$(stat -c %s "$W/core.$fmt")
	head -c $((size / 2)) "$W/core.$fmt" > "$W/cut.$fmt"
	"$CS" "$W/cut.$fmt" > /dev/null 2>"$W/e"; rc=$?
	err_line "truncated-$fmt" 2 $rc "$W/e" "$W/cut.$fmt" "truncated $tool stream"
	head -c $((size / 2)) "$W/core.$fmt" | "$CS" - > /dev/null 2>"$W/e"; rc=$?
	err_line "truncated-$fmt-stdin" 2 $rc "$W/e" "-" "truncated $tool stream"
	# corrupt: bytes flipped after the header
	python3 -c '
import sys
b = bytearray(open(sys.argv[1], "rb").read())
for i in range(64, len(b) - 64, 211): b[i] ^= 0x5a
open(sys.argv[2], "wb").write(b)' "$W/core.$fmt" "$W/bad.$fmt"
	"$CS" "$W/bad.$fmt" > /dev/null 2>"$W/e"; rc=$?
	err_line "corrupt-$fmt" 2 $rc "$W/e" "$W/bad.$fmt" "corrupt $tool data"
done
# the shell reads a compressed core too; its commands come from standard input, not its core
if [ -f "$W/core.zst" ]; then
	sh_funcs=$(printf 'bt\n' | "$CS" -i "$W/core.zst" 2>&1 | sed -n 's/^#[0-9]* .* in \([^ ]*\) ().*/\1/p' | sort -u | head -c 2000)
	case "$sh_funcs" in *crasher*) pass shell-compressed ;; *) fail shell-compressed "$sh_funcs" ;; esac
	"$CS" -i - < "$W/core" > /dev/null 2>"$W/e"; rc=$?
	[ $rc = 64 ] && grep -q "give the core as a file" "$W/e" && pass shell-stdin-core \
		|| fail shell-stdin-core "exit $rc: $(cat "$W/e")"
fi
# a stream that is only a magic number
printf '\x28\xb5\x2f\xfd' > "$W/magic.zst"
"$CS" "$W/magic.zst" > /dev/null 2>"$W/e"; rc=$?
err_line magic-only-zst 2 $rc "$W/e" "$W/magic.zst" "truncated zstd stream"
# a plain core on standard input (a regular file, and a pipe)
"$CS" --json - < "$W/core" > "$W/c.json" 2>/dev/null
[ "$(funcs "$W/c.json")" = "$want" ] && pass stdin-plain-file || fail stdin-plain-file "$(funcs "$W/c.json")"
cat "$W/core" | "$CS" --json - > "$W/c.json" 2>/dev/null
[ "$(funcs "$W/c.json")" = "$want" ] && pass stdin-plain-pipe || fail stdin-plain-pipe "$(funcs "$W/c.json")"
"$CS" - < /dev/null > /dev/null 2>"$W/e"; rc=$?
err_line stdin-empty 2 $rc "$W/e" "-" "not an ELF file"
# an endless pipe that is neither ELF nor compressed is refused at its first bytes, and so is a
# compressed stream whose content is not ELF: nothing is spooled to TMPDIR first (the timeout
# only keeps a regression from hanging the suite)
mkdir -p "$W/spool"
cat /dev/zero | TMPDIR=$W/spool timeout 60 "$CS" - > /dev/null 2>"$W/e"; rc=$?
err_line stdin-zeros 2 $rc "$W/e" "-" "standard input begins with 00 00 00 00"
if command -v zstd >/dev/null; then
	head -c 1000000 /dev/zero | zstd -q > "$W/zeros.zst"
	TMPDIR=$W/spool "$CS" "$W/zeros.zst" > /dev/null 2>"$W/e"; rc=$?
	err_line zst-of-zeros 2 $rc "$W/e" "$W/zeros.zst" "the decompressed core begins with 00 00 00 00"
fi
# the size bound
if command -v zstd >/dev/null; then
	"$CS" --max-core-size 64K "$W/core.zst" > /dev/null 2>"$W/e"; rc=$?
	err_line size-bound 2 $rc "$W/e" "$W/core.zst" "larger than the size bound of 65536 bytes"
	"$CS" --max-core-size 12Q "$W/core.zst" > /dev/null 2>&1; rc=$?
	[ $rc = 64 ] && pass size-bound-usage || fail size-bound-usage "exit $rc, want 64"
fi

# A core far bigger than the memory used to read it compressed: 256 MiB of heap, read
# from zstd with a peak resident size under 64 MiB.
if command -v zstd >/dev/null; then
	gcc -O1 -o "$W/bigmem" tests/files/bigmem.c
	if python3 tests/lib/mkcore.py crash "$W/big" "$W/bigmem" 256 2>/dev/null; then
		zstd -q -1 --rm "$W/big" -o "$W/big.zst"
		out=$(python3 -c '
import resource, subprocess, sys
r = subprocess.run([sys.argv[1], "--json", sys.argv[2]], capture_output=True)
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' "$CS" "$W/big.zst")
		set -- $out
		[ "$1" -le 1 ] && [ "$2" -lt 64 ] && pass "big-core-streamed" \
			|| fail big-core-streamed "exit $1, peak RSS $2 MiB for a 256 MiB core"
		rm -f "$W/big.zst"
	else
		skip big-core-streamed "no core from bigmem"
	fi
fi

# ---- package metadata notes ------------------------------------------------------------
meta='{"type":"deb","name":"corestack-test","version":"1.2.3-1","architecture":"amd64","os":"debian","osVersion":"12"}'
if gcc -O2 -g -fno-omit-frame-pointer -Xlinker "--package-metadata=$meta" -o "$W/pkg" tests/progs/segv.c 2>/dev/null; then
	python3 tests/lib/mkcore.py crash "$W/pkg.core" "$W/pkg" 2>/dev/null
	"$CS" "$W/pkg.core" > "$W/p.txt" 2>/dev/null
	grep -q '^package: pkg: corestack-test 1.2.3-1 (type=deb, architecture=amd64, os=debian, osVersion=12)$' "$W/p.txt" \
		&& pass package-note-text || fail package-note-text "$(grep -m1 '^package' "$W/p.txt")"
	"$CS" --json "$W/pkg.core" > "$W/p.json" 2>/dev/null
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = [x for x in d["modules"] if x["name"] == sys.argv[2]][0]
assert m["package"] == json.loads(sys.argv[3]), m
assert all(x["package"] is None for x in d["modules"] if "libc.so" in x["name"])' "$W/p.json" "$W/pkg" "$meta" \
		&& pass package-note-json || fail package-note-json "modules: $(head -c 300 "$W/p.json")"
	# the note comes from the core's memory: shown with the executable gone
	mv "$W/pkg" "$W/pkg.gone"
	"$CS" "$W/pkg.core" > "$W/p.txt" 2>/dev/null
	grep -q '^package: pkg: corestack-test 1.2.3-1 ' "$W/p.txt" && pass package-note-from-core \
		|| fail package-note-from-core "not shown without the file: $(grep -m1 '^package' "$W/p.txt")"
	mv "$W/pkg.gone" "$W/pkg"
else
	skip package-note-text "the linker has no --package-metadata"
fi
# check_note NAME KIND RC CORE FILE MODULE: corestack's output ($W/n.txt, $W/n.err, exit
# RC) for a core whose module MODULE (basename) has note KIND, read from FILE
check_note() {
	local n=$1 kind=$2 rc=$3 core=$4 file=$5 mod=$6
	case $kind in
	good)
		grep -q "^package: $mod: corestack-note 4.5.6-7 (type=deb, os=debian)\$" "$W/n.txt" \
			&& pass "$n" || fail "$n" "$(grep -m1 '^package' "$W/n.txt")" ;;
	control)
		if grep -q $'\033' "$W/n.txt"; then fail "$n" "escape sequence reached the output"
		elif grep -q "^package: $mod: evil?\[31mred 1?\$" "$W/n.txt"; then pass "$n"
		else fail "$n" "$(grep -m1 '^package' "$W/n.txt")"; fi ;;
	lying)
		if [ "$rc" -le 1 ] && ! grep -q '^package' "$W/n.txt" && grep -q 'crasher' "$W/n.txt"; then pass "$n"
		else fail "$n" "exit $rc $(head -1 "$W/n.err")"; fi ;;
	*)
		if [ "$rc" -gt 1 ]; then fail "$n" "exit $rc"
		elif grep -q '^package' "$W/n.txt"; then fail "$n" "a bad note was shown"
		elif ! grep -q "^corestack: $core: $file: package note" "$W/n.err"; then fail "$n" "no warning: $(cat "$W/n.err")"
		elif ! grep -q 'crasher' "$W/n.txt"; then fail "$n" "backtrace lost"
		else pass "$n"; fi ;;
	esac
}
# notes linked into the program (in its first page, so in the core's memory)
for kind in badjson nonul control deep lying; do
	python3 tests/files/mknote.py "$W/note.$kind" $kind
	printf '\t.section .note.package,"a",@note\n\t.balign 4\n\t.incbin "%s"\n' "$W/note.$kind" > "$W/note-$kind.S"
	gcc -O2 -fno-omit-frame-pointer -o "$W/linked-$kind" tests/progs/segv.c "$W/note-$kind.S" 2>"$W/e" \
		|| { fail "package-note-linked-$kind" "gcc: $(head -1 "$W/e")"; continue; }
	python3 tests/lib/mkcore.py crash "$W/linked-$kind.core" "$W/linked-$kind" 2>/dev/null
	"$CS" "$W/linked-$kind.core" > "$W/n.txt" 2>"$W/n.err"
	check_note "package-note-linked-$kind" $kind $? "$W/linked-$kind.core" "$W/linked-$kind" "linked-$kind"
	rm -f "$W/linked-$kind.core"
done
# a note past the executable's first page (the core holds that page only: the rest is read
# from the mapped file) while -e names another build with another note: -e is rejected, the
# file the core names is used, and the note shown is that file's
for kind in far farother; do
	python3 tests/files/mknote.py "$W/note.$kind" $kind
	printf '\t.section .note.package,"a",@note\n\t.balign 4\n\t.incbin "%s"\n' "$W/note.$kind" > "$W/note-$kind.S"
	gcc -O2 -fno-omit-frame-pointer -o "$W/$kind" tests/progs/segv.c "$W/note-$kind.S" 2>/dev/null
done
if [ -x "$W/far" ] && [ -x "$W/farother" ] && python3 tests/lib/mkcore.py crash "$W/far.core" "$W/far" 2>/dev/null; then
	"$CS" -e "$W/farother" "$W/far.core" > "$W/n.txt" 2>"$W/n.err"
	if ! grep -qF "using $W/far, the executable the core names" "$W/n.err"; then
		fail package-note-far-exe-rejected "-e not rejected: $(head -2 "$W/n.err")"
	else
		check_note package-note-far-exe-rejected good 0 "$W/far.core" "$W/far" far
	fi
	rm -f "$W/far.core"
else
	fail package-note-far-exe-rejected "cannot build the programs or the core"
fi
# notes added with objcopy to a copy of the crashed executable (same build-id; not loaded,
# so read from the file, given with -e)
for kind in good badjson nonul array control deep lying; do
	python3 tests/files/mknote.py "$W/note.$kind" $kind
	objcopy --add-section .note.package="$W/note.$kind" --set-section-flags .note.package=noload,readonly \
		"$W/segv" "$W/segv.$kind" 2>"$W/e" || { fail "package-note-$kind" "objcopy: $(cat "$W/e")"; continue; }
	"$CS" -e "$W/segv.$kind" "$W/core" > "$W/n.txt" 2>"$W/n.err"
	check_note "package-note-$kind" $kind $? "$W/core" "$W/segv.$kind" segv
done

# ---- separate debug files: .gnu_debuglink, --debug-dir ---------------------------------
mkdir -p "$W/dbg/bin" "$W/dbg/store"
B=$W/dbg/bin
cp "$W/segv" "$B/prog"
objcopy --only-keep-debug "$B/prog" "$W/dbg/store/prog.debug"
strip "$B/prog"
(cd "$B" && objcopy --add-gnu-debuglink="$W/dbg/store/prog.debug" prog)
python3 tests/lib/mkcore.py crash "$W/dbg/core" "$B/prog" 2>/dev/null
top() { "$CS" --json "$@" > "$W/d.json" 2>/dev/null; frames "$W/d.json" | head -1; }
id=$(readelf -n "$B/prog" | awk '/Build ID/ {print $3}')
t=$(top "$W/dbg/core")
[ "$t" = "?? -" ] && pass debug-none || fail debug-none "frame 0 is '$t' with no debug file in reach"
cp "$W/dbg/store/prog.debug" "$B/prog.debug"
t=$(top "$W/dbg/core")
[ "$t" = "crasher segv.c:19" ] && pass debuglink-next-to-binary || fail debuglink-next-to-binary "'$t'"
rm "$B/prog.debug"
mkdir -p "$B/.debug" && cp "$W/dbg/store/prog.debug" "$B/.debug/"
t=$(top "$W/dbg/core")
[ "$t" = "crasher segv.c:19" ] && pass debuglink-dot-debug || fail debuglink-dot-debug "'$t'"
rm -r "$B/.debug"
mkdir -p "$W/dd1/.build-id/${id:0:2}" && cp "$W/dbg/store/prog.debug" "$W/dd1/.build-id/${id:0:2}/${id:2}.debug"
t=$(top --debug-dir "$W/dd1" "$W/dbg/core")
[ "$t" = "crasher segv.c:19" ] && pass debug-dir-build-id || fail debug-dir-build-id "'$t'"
mkdir -p "$W/dd2$B" && cp "$W/dbg/store/prog.debug" "$W/dd2$B/"
t=$(top --debug-dir "$W/dd2" "$W/dbg/core")
[ "$t" = "crasher segv.c:19" ] && pass debug-dir-debuglink || fail debug-dir-debuglink "'$t'"
# a debug file with another build-id is not used
mkdir -p "$W/dd3/.build-id/${id:0:2}"
gcc -O0 -g -o "$W/other" tests/progs/segv.c && objcopy --only-keep-debug "$W/other" "$W/dd3/.build-id/${id:0:2}/${id:2}.debug"
t=$(top --debug-dir "$W/dd3" "$W/dbg/core")
[ "$t" = "?? -" ] && pass debug-dir-wrong-build-id || fail debug-dir-wrong-build-id "'$t'"
"$CS" --debug-dir "$W/nonexistent" "$W/dbg/core" > /dev/null 2>"$W/e"; rc=$?
[ $rc = 64 ] && grep -q -- "--debug-dir: $W/nonexistent" "$W/e" && pass debug-dir-missing \
	|| fail debug-dir-missing "exit $rc: $(cat "$W/e")"

# ---- debuginfod: a real server on 127.0.0.1 serving the separated debug file ------------
if ! command -v debuginfod >/dev/null; then
	skip debuginfod "debuginfod is not installed"
else
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	mkdir -p "$W/served"
	cp "$W/dbg/store/prog.debug" "$B/prog" "$W/served/"
	debuginfod -p "$port" -d "$W/debuginfod.sqlite" -F "$W/served" -t 0 -g 0 > "$W/debuginfod.log" 2>&1 &
	dpid=$!
	url=http://127.0.0.1:$port
	ready=no
	for i in $(seq 100); do
		python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' \
			"$url/buildid/$id/debuginfo" 2>/dev/null && { ready=yes; break; }
		kill -0 $dpid 2>/dev/null || break
		sleep 0.2
	done
	if [ $ready = no ]; then
		fail debuginfod-server "the server did not serve $id: $(tail -3 "$W/debuginfod.log")"
	else
		rm -rf "$DEBUGINFOD_CACHE_PATH"
		t=$(top "$W/dbg/core")
		[ "$t" = "?? -" ] && pass debuginfod-off || fail debuginfod-off "'$t' without DEBUGINFOD_URLS"
		t=$(DEBUGINFOD_URLS=$url top "$W/dbg/core")
		[ "$t" = "crasher segv.c:19" ] && pass debuginfod-debuginfo || fail debuginfod-debuginfo "'$t'"
		grep -q "GET /buildid/$id/debuginfo 200" "$W/debuginfod.log" && [ -f "$DEBUGINFOD_CACHE_PATH/$id/debuginfo" ] \
			&& pass debuginfod-fetched || fail debuginfod-fetched "no request for $id in the server's log"
		# the executable itself missing: fetched by build-id too
		rm -rf "$DEBUGINFOD_CACHE_PATH"
		mv "$B/prog" "$B/prog.gone"
		t=$(top "$W/dbg/core")
		[ "$t" = "?? -" ] && pass debuginfod-exe-off || fail debuginfod-exe-off "'$t'"
		t=$(DEBUGINFOD_URLS=$url top "$W/dbg/core")
		[ "$t" = "crasher segv.c:19" ] && grep -q "GET /buildid/$id/executable 200" "$W/debuginfod.log" \
			&& pass debuginfod-executable || fail debuginfod-executable "'$t'"
		mv "$B/prog.gone" "$B/prog"
	fi
	kill $dpid 2>/dev/null; wait $dpid 2>/dev/null; dpid=
fi

# ---- perf maps -------------------------------------------------------------------------
# a map with more lines than are kept: read up to the bound, with a warning
python3 -c '
import sys
with open(sys.argv[1], "w") as f:
    f.write("1 1 x\n" * 4000100)' "$W/huge.map"
"$CS" --perf-map "$W/huge.map" "$W/core" > /dev/null 2>"$W/e"; rc=$?
[ $rc -le 1 ] && grep -q "perf map $W/huge.map: read only its first 4000000 entries" "$W/e" \
	&& pass perf-map-huge || fail perf-map-huge "exit $rc: $(cat "$W/e")"
rm -f "$W/huge.map"
# one line without a newline in a 2 GiB (sparse) file: read up to the 256 MiB bound, not to its
# end (reading the whole file takes several times the timeout; the bound, about a second)
printf '1000 10 x' > "$W/endless.map" && truncate -s 2G "$W/endless.map"
timeout 20 "$CS" --perf-map "$W/endless.map" "$W/core" > /dev/null 2>"$W/e"; rc=$?
[ $rc -le 1 ] && grep -q "perf map $W/endless.map: read only its first 0 entries (size bound: 256 MiB" "$W/e" \
	&& pass perf-map-endless-line || fail perf-map-endless-line "exit $rc: $(cat "$W/e")"
rm -f "$W/endless.map"

# JIT frames: a real node core
NODE=$(command -v node || command -v nodejs)
if [ -z "$NODE" ] || ! "$NODE" --v8-options 2>/dev/null | grep -q -- '--perf-basic-prof '; then
	skip perf-map-node "no node with --perf-basic-prof"
else
	python3 tests/lib/mkcore.py crash "$W/node.core" "$NODE" --perf-basic-prof --no-opt --always-sparkplug \
		"$SRC/tests/files/hot.js" 2>"$W/mk.err"
	npid=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["pid"])' \
		<("$CS" --json --perf-map /dev/null "$W/node.core" 2>/dev/null) 2>/dev/null)
	nodemap=/tmp/perf-$npid.map
	if [ ! -f "$W/node.core" ] || [ ! -f "$nodemap" ]; then
		skip perf-map-node "no node core or no $nodemap: $(cat "$W/mk.err")"
	else
		jit() { python3 -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError as e:
    print("no JSON: %s" % e); sys.exit(1)
fs = d["threads"][0]["frames"]
hot = [i for i, f in enumerate(fs) if (f["function"] or "").startswith("JS:^hotLoop ")]
if not hot: print("no hotLoop frame"); sys.exit(1)
f = fs[hot[0]]
if f["jit_map"] != sys.argv[2] or f["module"] is not None: print("jit_map %s module %s" % (f["jit_map"], f["module"])); sys.exit(1)
after = [g["function"] for g in fs[hot[0] + 1:]]
if "Builtins_JSEntry" not in after or "__libc_start_main" not in after: print("walk stopped: %s" % d["threads"][0]["stop_reason"]); sys.exit(1)' "$@"; }
		"$CS" --json "$W/node.core" > "$W/j.json" 2>"$W/j.err"
		r=$(jit "$W/j.json" "$nodemap") && pass perf-map-node || fail perf-map-node "$r"
		"$CS" "$W/node.core" 2>/dev/null | grep -q '^#[0-9]* *0x[0-9a-f]* in JS:^hotLoop .*hot.js:[0-9:]* () \[JIT\] from /tmp/perf-' \
			&& pass perf-map-text || fail perf-map-text "no JIT frame line in the text output"
		# without the map the JIT frame has no name and the walk stops at it
		: > "$W/empty.map"
		"$CS" --json --perf-map "$W/empty.map" "$W/node.core" > "$W/j.json" 2>/dev/null
		r=$(jit "$W/j.json" "$W/empty.map" 2>&1)
		[ "$r" = "no hotLoop frame" ] && pass perf-map-needed || fail perf-map-needed "without the map: $r"
		# a hostile map given with --perf-map: bad lines around the good ones
		python3 - "$nodemap" "$W/hostile.map" <<'EOF'
import sys
good = open(sys.argv[1]).read().splitlines()
bad = ["", "garbage", "zz 10 name", "10", "10 20", "-10 20 negative", "10 -20 negsize",
       "ffffffffffffffff 10 wraps", "11111111111111111 10 seventeen-digits", "10 0 zero-size",
       "0x7f 0x10 " + "N" * 1000000, "\x00\x01\x02 10 20", "12 34\tname with\x1b[31m escape"]
with open(sys.argv[2], "w") as f:
    for i, l in enumerate(good):
        f.write(l + "\n")
        if i % 50 == 0:
            f.write("\n".join(bad) + "\n")
EOF
		"$CS" --json --perf-map "$W/hostile.map" "$W/node.core" > "$W/j.json" 2>"$W/j.err"; rc=$?
		r=$(jit "$W/j.json" "$W/hostile.map")
		if [ $rc -gt 1 ]; then fail perf-map-hostile "exit $rc"
		elif [ -n "$r" ]; then fail perf-map-hostile "$r"
		elif ! grep -q "perf map $W/hostile.map: [0-9]* malformed line(s) skipped" "$W/j.err"; then
			fail perf-map-hostile "no count of malformed lines: $(cat "$W/j.err")"
		else pass perf-map-hostile; fi
		# a terminal escape in a name is not printed
		grep 'JS:^hotLoop ' "$nodemap" | awk '{printf "%s %s \033[31mred\n", $1, $2}' > "$W/esc.map"
		"$CS" --perf-map "$W/esc.map" "$W/node.core" > "$W/esc.txt" 2>/dev/null
		if grep -q $'\033' "$W/esc.txt"; then fail perf-map-escape "an escape sequence reached the output"
		elif grep -q ' in ?\[31mred () \[JIT\]' "$W/esc.txt"; then pass perf-map-escape
		else fail perf-map-escape "no frame named from the map"; fi
		# a map owned by another user is not read from /tmp unasked
		if [ "$(id -u)" = 0 ]; then
			chown nobody "$nodemap"
			"$CS" --json "$W/node.core" > "$W/j.json" 2>"$W/j.err"
			chown 0 "$nodemap"
			if jit "$W/j.json" "$nodemap" >/dev/null; then fail perf-map-owner "read a map owned by nobody"
			elif grep -q "perf map $nodemap: owned by uid" "$W/j.err"; then pass perf-map-owner
			else fail perf-map-owner "no warning: $(cat "$W/j.err")"; fi
		fi
	fi
	rm -f "$W/node.core"
fi
exit 0

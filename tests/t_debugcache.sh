#!/bin/bash
# The cache of decompressed separate debug files (common/debugcache.h): a -g program whose
# debug information is split into a file with zlib-compressed sections, found by build-id
# under --debug-dir; a core of it.  The first run makes the entry, later runs read it (even
# once the debug file is gone), --no-debug-cache and CORESTACK_DEBUG_CACHE=0 leave it alone,
# bad entries (truncated, another build's, a symlink, a FIFO) are not used, a cache that
# cannot be written and the size bounds change nothing in the output.  Also: without
# DEBUGINFOD_URLS, libdebuginfod.so is not loaded.
# Prints PASS/FAIL/SKIP lines for tests/run.sh; always exits 0.  KEEP=1 keeps the work dir.
. "$(dirname "$0")/lib/common.sh" || exit 1
unset DEBUGINFOD_URLS CORESTACK_DEBUG_CACHE CORESTACK_DEBUG_CACHE_FILE_MAX CORESTACK_DEBUG_CACHE_TOTAL_MAX
export DEBUGINFOD_CACHE_PATH=$W/debuginfod-cache
export XDG_CACHE_HOME=$W/xdg
C=$XDG_CACHE_HOME/corestack/debug

# "function file:line [inlined]" of thread 0's frames in corestack --json output (a line
# "no JSON" when there is none)
frames() { python3 -c '
import json, os, sys
try:
    frames = json.load(open(sys.argv[1]))["threads"][0]["frames"]
except Exception as e:
    sys.exit(print("no JSON:", e))
for f in frames:
    where = "%s:%s" % (os.path.basename(f["file"]), f["line"]) if f["file"] else "-"
    print(f["function"] or "??", where, "inlined" if f["inlined"] else "")' "$1" 2>/dev/null; }
# the line of marker LINE:NAME in the test program
line_of() { grep -n "LINE:$1 " tests/debugcache/inlined.c | cut -d: -f1; }
# compressed sections (readelf -S flag C) of an ELF file
ncompressed() { readelf -SW "$1" 2>/dev/null | grep -c '^ *\[ *[0-9]*\] .* [A-Z]*C[A-Z]* '; }
build_id() { readelf -n "$1" 2>/dev/null | awk '/Build ID/ { print $3; exit }'; }

# ---- the program, its compressed debug file, a core -------------------------------------
# (the split file is kept in $W/split, not next to the program, where libdwfl's search by
# name would find it)
mkdir -p "$W/split"
mk() {   # out [cflags]: build, split the compressed debug file into $W/dbg by build-id, strip
	local s=$W/split/${1##*/}.debug
	gcc -O2 -g -fno-omit-frame-pointer $2 -o "$1" tests/debugcache/inlined.c || return 1
	objcopy --only-keep-debug --compress-debug-sections=zlib "$1" "$s" || return 1
	local id; id=$(build_id "$1")
	[ -n "$id" ] || return 1
	mkdir -p "$W/dbg/.build-id/${id:0:2}"
	cp "$s" "$W/dbg/.build-id/${id:0:2}/${id:2}.debug"
	strip -s "$1"
}
mk "$W/prog" || { fail debugcache-build "gcc/objcopy/strip"; exit 0; }
mk "$W/other" -DOTHER || { fail debugcache-build "gcc/objcopy/strip (other)"; exit 0; }
ID=$(build_id "$W/prog")
OID=$(build_id "$W/other")
E=$C/$ID.debug
[ "$(ncompressed "$W/split/prog.debug")" -gt 0 ] || { fail debugcache-setup "objcopy made no compressed section"; exit 0; }
python3 tests/lib/mkcore.py crash "$W/core" "$W/prog" 2> "$W/mk.err" >/dev/null ||
	{ fail debugcache-core "$(head -c 300 "$W/mk.err")"; exit 0; }

# libc's own separate debug file (libc6-dbg), when installed with compressed sections, is
# cached too
LIBC=$(ldd "$W/prog" 2>/dev/null | awk '/libc.so/ { print $3 }')
LID=$(build_id "$LIBC")
LDBG=/usr/lib/debug/.build-id/${LID:0:2}/${LID:2}.debug
want_entries=$ID.debug
if [ -n "$LID" ] && [ -f "$LDBG" ] && [ "$(ncompressed "$LDBG")" -gt 0 ]; then
	want_entries=$(printf '%s\n' "$ID.debug" "$LID.debug" | sort | tr '\n' ' ')
	have_libc=1
else
	want_entries="$ID.debug "
	have_libc=0
fi

run() {   # name [options...]: text and JSON output in $W/name.txt, $W/name.json
	local n=$1; shift
	timeout 60 "$CS" --debug-dir "$W/dbg" "$@" "$W/core" > "$W/$n.txt" 2> "$W/$n.err"
	timeout 60 "$CS" --debug-dir "$W/dbg" --json "$@" "$W/core" > "$W/$n.json" 2>> "$W/$n.err"
	frames "$W/$n.json" > "$W/$n.frames"
}
# the frames the program really has, lines from the source's markers
expect="check inlined.c:$(line_of check) inlined
middle inlined.c:$(line_of middle) inlined
outer inlined.c:$(line_of outer)
main inlined.c:$(line_of main)"
right() {   # name: the frames of run NAME are the expected ones, and its walks are complete
	local got
	got=$(grep -A3 '^check ' "$W/$1.frames" | sed 's/^outer[.a-z]* /outer /; s/ $//')
	[ "$got" = "$expect" ] && python3 -c '
import json, sys
sys.exit(not all(t["complete"] for t in json.load(open(sys.argv[1]))["threads"]))' "$W/$1.json" 2>/dev/null
}
same() {   # a b: runs A and B printed the same text and JSON
	cmp -s "$W/$1.txt" "$W/$2.txt" && cmp -s "$W/$1.json" "$W/$2.json"
}
entries() { ls -A "$C" 2>/dev/null | sort | tr '\n' ' '; }

# ---- first run: the entry is made ------------------------------------------------------
run first
right first && pass debugcache-first-run-frames ||
	fail debugcache-first-run-frames "$(head -8 "$W/first.frames" | tr '\n' '|') $(head -2 "$W/first.err")"
[ "$(entries)" = "$want_entries" ] && pass debugcache-entry-made ||
	fail debugcache-entry-made "cache holds '$(entries)', want '$want_entries'"
if [ -f "$E" ] && [ ! -L "$E" ] && [ "$(ncompressed "$E")" = 0 ] && [ "$(build_id "$E")" = "$ID" ] &&
   [ "$(stat -c %a "$C")" = 700 ]; then
	pass debugcache-entry-decompressed
else
	fail debugcache-entry-decompressed "$(ls -la "$C") $(readelf -SW "$E" 2>&1 | grep -c ' C ') compressed"
fi
# the entry is a sound ELF file that other readers take: same DWARF as the original
if readelf -wi "$E" 2>/dev/null | sed 1d > "$W/e.wi" && readelf -wi "$W/split/prog.debug" 2>/dev/null | sed 1d > "$W/o.wi" &&
   [ -s "$W/e.wi" ] && cmp -s "$W/e.wi" "$W/o.wi"; then
	pass debugcache-entry-same-dwarf
else
	fail debugcache-entry-same-dwarf "readelf -wi differs or empty"
fi
if command -v eu-elflint >/dev/null; then
	eu-elflint --gnu-ld --debuginfo "$E" > "$W/lint" 2>&1 && pass debugcache-entry-elflint ||
		fail debugcache-entry-elflint "$(head -3 "$W/lint" | tr '\n' '|')"
fi
if [ $have_libc = 1 ]; then
	# libc's frames get their lines and the inline frame (glibc 2.36: __pthread_kill_internal
	# inlined into __pthread_kill_implementation) from libc's cached debug file
	grep -q '^__pthread_kill_internal pthread_kill.c:[0-9]* inlined' "$W/first.frames" &&
	grep -q '^abort abort.c:[0-9]' "$W/first.frames" &&
	[ "$(ncompressed "$C/$LID.debug")" = 0 ] && pass debugcache-libc-entry ||
		fail debugcache-libc-entry "$(head -5 "$W/first.frames" | tr '\n' '|')"
else
	skip debugcache-libc-entry "libc's separate debug file (libc6-dbg) is not installed with compressed sections"
fi

# ---- second run: from the cache --------------------------------------------------------
touch -d 2001-01-01 "$E"
run second
same first second && right second && pass debugcache-cached-run-same ||
	fail debugcache-cached-run-same "$(diff "$W/first.frames" "$W/second.frames" | head -4 | tr '\n' '|')"
[ "$(stat -c %Y "$E")" -gt 1000000000 ] && [ "$(date -d @"$(stat -c %Y "$E")" +%Y)" != 2001 ] &&
	pass debugcache-use-touches-mtime || fail debugcache-use-touches-mtime "mtime $(stat -c %y "$E")"
# the debug file gone: the lines still come, from the entry alone
mv "$W/dbg" "$W/dbg.away" && mkdir "$W/dbg"
run nodebug
right nodebug && pass debugcache-used-without-debug-file ||
	fail debugcache-used-without-debug-file "$(head -8 "$W/nodebug.frames" | tr '\n' '|')"
# ... and --no-debug-cache, CORESTACK_DEBUG_CACHE=0 do not read it
run off-gone --no-debug-cache
grep -q "inlined.c" "$W/off-gone.frames" && fail debugcache-option-off "--no-debug-cache read the cache" ||
	pass debugcache-option-off
CORESTACK_DEBUG_CACHE=0 run env-off-gone
grep -q "inlined.c" "$W/env-off-gone.frames" && fail debugcache-env-off "CORESTACK_DEBUG_CACHE=0 read the cache" ||
	pass debugcache-env-off
rmdir "$W/dbg" && mv "$W/dbg.away" "$W/dbg"
rm -rf "$XDG_CACHE_HOME"
run off --no-debug-cache
same first off && [ ! -e "$C" ] || [ -z "$(ls -A "$C" 2>/dev/null)" ] && same first off &&
	pass debugcache-off-same-output-no-entry ||
	fail debugcache-off-same-output-no-entry "cache '$(entries)'; $(diff "$W/first.frames" "$W/off.frames" | head -3 | tr '\n' '|')"

# ---- --debug-cache DIR -----------------------------------------------------------------
run dir --debug-cache "$W/elsewhere"
same first dir && [ -f "$W/elsewhere/$ID.debug" ] && [ "$(ncompressed "$W/elsewhere/$ID.debug")" = 0 ] &&
	pass debugcache-dir-option || fail debugcache-dir-option "$(ls -A "$W/elsewhere" 2>&1)"

# ---- bad entries: never used, replaced from the debug file -----------------------------
bad() {   # name: with the entry $E prepared by the caller
	local n=$1
	# the debug file gone: a bad entry must not give lines
	mv "$W/dbg" "$W/dbg.away" && mkdir "$W/dbg"
	run "bad-$n-gone"
	rmdir "$W/dbg" && mv "$W/dbg.away" "$W/dbg"
	if ! grep -q "^abort " "$W/bad-$n-gone.frames"; then
		fail "debugcache-bad-$n" "no backtrace without the debug file: $(head -2 "$W/bad-$n-gone.err")"
		return
	fi
	if grep -q "inlined.c" "$W/bad-$n-gone.frames"; then
		fail "debugcache-bad-$n" "the entry was used: $(head -6 "$W/bad-$n-gone.frames" | tr '\n' '|')"
		return
	fi
	run "bad-$n"
	if ! same first "bad-$n"; then
		fail "debugcache-bad-$n" "output differs: $(diff "$W/first.frames" "$W/bad-$n.frames" | head -4 | tr '\n' '|')"
	elif [ -L "$E" ] || [ ! -f "$E" ] || [ "$(build_id "$E")" != "$ID" ] || [ "$(ncompressed "$E")" != 0 ]; then
		fail "debugcache-bad-$n" "the entry was not rebuilt: $(ls -la "$E")"
	else
		pass "debugcache-bad-$n"
	fi
}
run first-again
good=$W/good.debug
cp "$E" "$good"
size=$(stat -c %s "$good")
for n in truncated-half truncated-headers empty other-build garbage symlink fifo directory; do
	rm -rf "$E"
	case $n in
	truncated-half) head -c $((size / 2)) "$good" > "$E" ;;
	truncated-headers) head -c $((size - 100)) "$good" > "$E" ;;   # the section headers cut
	empty) : > "$E" ;;
	other-build) objcopy --decompress-debug-sections "$W/split/other.debug" "$E" ;;
	garbage) head -c "$size" /dev/urandom > "$E" ;;
	symlink) ln -s "$good" "$E" ;;
	fifo) mkfifo "$E" ;;
	directory) mkdir "$E" ;;
	esac
	if [ $n = directory ]; then
		# cannot be replaced by rename(): still the right output, from the debug file
		run "bad-$n"
		same first "bad-$n" && [ -d "$E" ] && pass "debugcache-bad-$n" ||
			fail "debugcache-bad-$n" "$(diff "$W/first.frames" "$W/bad-$n.frames" | head -4 | tr '\n' '|')"
		rmdir "$E"
		continue
	fi
	bad $n
done
# the other build's entry above is a real other build: another build-id
[ -n "$OID" ] && [ "$OID" != "$ID" ] && pass debugcache-other-build-differs ||
	fail debugcache-other-build-differs "same build-id $OID"

# ---- a cache that cannot be written ----------------------------------------------------
rm -rf "$XDG_CACHE_HOME"
mkdir -p "$C"
if [ "$(id -u)" = 0 ]; then
	if unshare -m true 2>/dev/null; then
		unshare -m bash -c "mount --bind -o ro '$C' '$C' && \
			'$CS' --debug-dir '$W/dbg' '$W/core' > '$W/ro.txt' 2> '$W/ro.err'; \
			'$CS' --debug-dir '$W/dbg' --json '$W/core' > '$W/ro.json' 2>> '$W/ro.err'"
		same first ro && [ -z "$(ls -A "$C")" ] && pass debugcache-read-only-dir ||
			fail debugcache-read-only-dir "$(head -2 "$W/ro.err") entries '$(entries)'"
	else
		skip debugcache-read-only-dir "root, and no mount namespace (unshare -m) for a read-only bind mount"
	fi
else
	chmod 500 "$C"
	run ro
	chmod 700 "$C"
	same first ro && [ -z "$(ls -A "$C")" ] && pass debugcache-read-only-dir ||
		fail debugcache-read-only-dir "$(head -2 "$W/ro.err") entries '$(entries)'"
fi
# the cache directory's place is a file; no HOME and no XDG_CACHE_HOME
rm -rf "$XDG_CACHE_HOME"
mkdir -p "$XDG_CACHE_HOME/corestack" && : > "$C"
run blocked
same first blocked && [ -f "$C" ] && [ ! -s "$C" ] && pass debugcache-dir-is-a-file ||
	fail debugcache-dir-is-a-file "$(head -2 "$W/blocked.err")"
( unset XDG_CACHE_HOME HOME; run nohome )
same first nohome && [ -z "$(cat "$W/nohome.err")" ] && pass debugcache-no-home ||
	fail debugcache-no-home "$(head -2 "$W/nohome.err")"
# a directory that is not ours alone is not used
rm -rf "$XDG_CACHE_HOME"
mkdir -p "$C" && chmod 777 "$C"
run shared
same first shared && [ -z "$(ls -A "$C")" ] && pass debugcache-group-writable-dir-unused ||
	fail debugcache-group-writable-dir-unused "entries '$(entries)'"

# ---- bounds ------------------------------------------------------------------------------
rm -rf "$XDG_CACHE_HOME"
CORESTACK_DEBUG_CACHE_FILE_MAX=4096 run filemax
same first filemax && [ -z "$(ls -A "$C" 2>/dev/null)" ] && pass debugcache-file-limit ||
	fail debugcache-file-limit "entries '$(entries)'"
# total: two old unrelated entries of 1 MiB, a total that leaves room for one of them
rm -rf "$XDG_CACHE_HOME"
run sizes
total=0
for f in "$C"/*.debug; do total=$((total + $(stat -c %s "$f"))); done
rm -rf "$XDG_CACHE_HOME" && mkdir -p "$C"
head -c 1048576 /dev/zero > "$C/aaaa.debug" && touch -d 2001-01-01 "$C/aaaa.debug"
head -c 1048576 /dev/zero > "$C/bbbb.debug" && touch -d 2002-01-01 "$C/bbbb.debug"
CORESTACK_DEBUG_CACHE_TOTAL_MAX=$((total + 1572864)) run totalmax
if same first totalmax && [ ! -e "$C/aaaa.debug" ] && [ -e "$C/bbbb.debug" ] && [ -f "$E" ]; then
	pass debugcache-total-limit-drops-least-recent
else
	fail debugcache-total-limit-drops-least-recent "entries '$(entries)' (limit $((total + 1572864)))"
fi
# an entry bigger than the total bound is not made
rm -rf "$XDG_CACHE_HOME"
CORESTACK_DEBUG_CACHE_TOTAL_MAX=4096 run totaltiny
same first totaltiny && [ -z "$(ls -A "$C" 2>/dev/null)" ] && pass debugcache-total-limit-small ||
	fail debugcache-total-limit-small "entries '$(entries)'"

# ---- concurrent first runs: one whole entry, no temporary file left ----------------------
rm -rf "$XDG_CACHE_HOME"
for i in 1 2 3 4; do
	( timeout 60 "$CS" --debug-dir "$W/dbg" "$W/core" > "$W/par$i.txt" 2>&1 ) &
done
wait
ok=1
for i in 1 2 3 4; do cmp -s "$W/first.txt" "$W/par$i.txt" || ok=0; done
[ $ok = 1 ] && [ "$(entries)" = "$want_entries" ] && [ "$(ncompressed "$E")" = 0 ] &&
	pass debugcache-concurrent-runs || fail debugcache-concurrent-runs "entries '$(entries)'"

# ---- libdebuginfod is loaded only when it can be used --------------------------------------
# (the cache off: the search itself must not load it)
LD_DEBUG=files "$CS" --no-debug-cache --debug-dir "$W/dbg" "$W/core" 2> "$W/ld.err" > /dev/null
LD_DEBUG=files "$CS" --no-debug-cache "$W/core" 2> "$W/ld-nodbg.err" > /dev/null
if grep -q 'file=libdebuginfod' "$W/ld.err" "$W/ld-nodbg.err"; then
	fail debugcache-no-debuginfod-without-urls "$(grep -h 'file=libdebuginfod' "$W/ld.err" "$W/ld-nodbg.err" | head -1)"
elif ! grep -q 'file=libdw' "$W/ld.err"; then
	fail debugcache-no-debuginfod-without-urls "LD_DEBUG=files shows no library loads"
else
	pass debugcache-no-debuginfod-without-urls
fi
# with DEBUGINFOD_URLS (a port nothing listens on), the client is still asked
DEBUGINFOD_URLS=http://127.0.0.1:9/ DEBUGINFOD_TIMEOUT=2 LD_DEBUG=files "$CS" --no-debug-cache "$W/core" \
	2> "$W/ld-urls.err" > /dev/null
grep -q 'file=libdebuginfod' "$W/ld-urls.err" && pass debugcache-debuginfod-with-urls ||
	fail debugcache-debuginfod-with-urls "libdebuginfod not loaded with DEBUGINFOD_URLS set"
exit 0

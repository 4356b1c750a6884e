#!/bin/bash
# JSON output of many threads: each thread is written as soon as it is walked, by one json-c
# object per frame kept from thread to thread (coredump/json_thread.c).  A core of a program
# with 61 threads of 20 to 40 frames each (bench/manythreads.c, built here with -g so that
# frames with and without file:line, cfa and markers take turns in each kept object) and a
# stripped multithreaded core are checked against corestack's text output (text.c, written
# apart): every thread and frame with its pc, function, file:line, module, marker, found_by,
# cfa and note (tests/lib/json_vs_text.py).  --json-lines and the array of several cores
# must hold the same documents.
# Prints PASS/FAIL/SKIP lines for tests/run.sh; always exits 0.
cd "$(dirname "$0")/.." || exit 0
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$(pwd)/$BUILD ;; esac
CS=$B/corestack
T=$B/tests
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }
check() { local n=$1; shift; local out; if out=$("$@" 2>&1); then pass "$n"; else fail "$n" "$(echo "$out" | head -3 | tr '\n' ' ')"; fi; }

[ -x "$CS" ] || { skip json "$CS not built"; exit 0; }
[ -x "$T/threads-cfi-stripped" ] || { skip json "$T/threads-cfi-stripped not built (make test-progs)"; exit 0; }
gcc -O2 -g -pthread -o "$W/many" bench/manythreads.c || { fail json-build "gcc"; exit 0; }
python3 tests/lib/mkcore.py crash "$W/many.core" "$W/many" 60 >/dev/null 2>"$W/mk.err" ||
	{ fail json-core "$(cat "$W/mk.err")"; exit 0; }
python3 tests/lib/mkcore.py crash "$W/strip.core" "$T/threads-cfi-stripped" >/dev/null 2>"$W/mk.err" ||
	{ fail json-core-stripped "$(cat "$W/mk.err")"; exit 0; }

for c in many strip; do
	"$CS" --json "$W/$c.core" > "$W/$c.json" 2>/dev/null
	"$CS" -v "$W/$c.core" > "$W/$c.txt" 2>/dev/null
	"$CS" --json-lines "$W/$c.core" > "$W/$c.lines" 2>/dev/null
done
check json-many-threads-as-text python3 tests/lib/json_vs_text.py "$W/many.json" "$W/many.txt" 61
check json-stripped-as-text python3 tests/lib/json_vs_text.py "$W/strip.json" "$W/strip.txt" 2

# the frame counts differ from thread to thread, and some frames have no file:line
check json-many-threads-vary python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
counts = {len(t["frames"]) for t in d["threads"]}
files = [f["file"] is None for t in d["threads"] for f in t["frames"]]
sys.exit(not (len(counts) >= 10 and any(files) and not all(files)))' "$W/many.json"

# --json-lines: one line per core, the same document
check json-lines-same python3 -c '
import json, sys
for c in ("many", "strip"):
    lines = open("%s/%s.lines" % (sys.argv[1], c)).read().split("\n")
    a = json.load(open("%s/%s.json" % (sys.argv[1], c)))
    b = json.loads(lines[0])
    if len(lines) != 2 or lines[1] != "" or a != b or list(a) != list(b):
        sys.exit("%s: %d lines, same=%s" % (c, len(lines) - 1, a == b))' "$W"

# several cores: an array of the same documents
"$CS" --json "$W/many.core" "$W/strip.core" "$W/many.core" > "$W/array.json" 2>/dev/null
check json-array-same python3 -c '
import json, sys
a = json.load(open(sys.argv[1] + "/array.json"))
m = json.load(open(sys.argv[1] + "/many.json"))
s = json.load(open(sys.argv[1] + "/strip.json"))
sys.exit(not (a == [m, s, m]))' "$W"
exit 0

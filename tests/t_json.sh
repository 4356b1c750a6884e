#!/bin/bash
# JSON output of many threads: each thread is written as soon as it is walked, by the streaming
# writer (coredump/jsonw.c, coredump/json_thread.c).  A core of a program
# with 61 threads of 20 to 40 frames each (bench/manythreads.c, built here with -g so that
# frames with and without file:line, cfa and markers take turns) and a
# stripped multithreaded core are checked against corestack's text output (text.c, written
# apart): every thread and frame with its pc, function, file:line, module, marker, found_by,
# cfa and note (tests/lib/json_vs_text.py).  So is a pool of 40 threads blocked under chains
# of 2 to 5 inlined functions, a fifth of them on stacks below 4 GiB (tests/json/inline_pool.c).
# The threads that repeat an earlier thread's frames at other CFAs, whose objects are copied
# and whose frames are located once with their inline chains, must match the first one but
# for the CFAs (tests/lib/json_repeats.py).  Both cores' text, -v text and JSON are the
# bytes they are without any cache (CORESTACK_NO_CACHES).  --json-lines and the array of
# several cores must hold the same documents.
# Prints PASS/FAIL/SKIP lines for tests/run.sh; always exits 0.
. "$(dirname "$0")/lib/common.sh" || exit 1

[ -x "$CS" ] || { skip json "$CS not built"; exit 0; }
[ -x "$T/threads-cfi-stripped" ] || { skip json "$T/threads-cfi-stripped not built (make test-progs)"; exit 0; }
gcc -O2 -g -pthread -o "$W/many" bench/manythreads.c || { fail json-build "gcc"; exit 0; }
python3 tests/lib/mkcore.py crash "$W/many.core" "$W/many" 60 >/dev/null 2>"$W/mk.err" ||
	{ fail json-core "$(cat "$W/mk.err")"; exit 0; }
python3 tests/lib/mkcore.py crash "$W/strip.core" "$T/threads-cfi-stripped" >/dev/null 2>"$W/mk.err" ||
	{ fail json-core-stripped "$(cat "$W/mk.err")"; exit 0; }
gcc -O2 -g -pthread -o "$W/pool" tests/json/inline_pool.c || { fail json-build-pool "gcc"; exit 0; }
python3 tests/lib/mkcore.py crash "$W/pool.core" "$W/pool" 40 >/dev/null 2>"$W/mk.err" ||
	{ fail json-core-pool "$(cat "$W/mk.err")"; exit 0; }

for c in many strip pool; do
	"$CS" --json "$W/$c.core" > "$W/$c.json" 2>"$W/$c.err"
	echo $? > "$W/$c.rc"
	"$CS" -v "$W/$c.core" > "$W/$c.txt" 2>/dev/null
	"$CS" --json-lines "$W/$c.core" > "$W/$c.lines" 2>/dev/null
done
# the documents compared below are of complete walks: exit 0, every thread to its outermost
# frame (two documents that agree on walks cut short would prove little)
for c in many strip pool; do
	check "json-$c-complete" python3 -c '
import json, sys
d = json.load(open(sys.argv[1] + ".json"))
rc = open(sys.argv[1] + ".rc").read().strip()
stopped = ["%s: %s" % (t["tid"], t["stop_reason"]) for t in d["threads"] if t["complete"] is not True]
sys.exit("exit %s, stopped early: %s %s" % (rc, stopped[:3], open(sys.argv[1] + ".err").read()[:200])
         if rc != "0" or stopped else 0)' "$W/$c"
done
check json-many-threads-as-text python3 tests/lib/json_vs_text.py "$W/many.json" "$W/many.txt" 61
check json-stripped-as-text python3 tests/lib/json_vs_text.py "$W/strip.json" "$W/strip.txt" 2
# threads of the same frames at other CFAs: each is copied from the first one's objects with
# its own CFAs put in (json_thread.c, kept threads), and its frames with inlined functions
# (glibc's read, __libc_read inlined into it) are located once per process with their chain
# (backtrace.c, locate_cached); every member but the CFAs must be the first thread's, which
# came from the debug information, and an inlined frame has its own frame's CFA
# (tests/lib/json_repeats.py)
check json-many-threads-repeat python3 tests/lib/json_repeats.py "$W/many.json" 20 0 1
check json-inline-pool-as-text python3 tests/lib/json_vs_text.py "$W/pool.json" "$W/pool.txt" 41
# chains of 2 to 5 entries in the middle of the stack (up to 3 kept with their frame, longer
# ones located every time), and stacks at addresses of two lengths
check json-inline-pool-repeat python3 tests/lib/json_repeats.py "$W/pool.json" 20 5 2
# every cache of the printers and of located frames (with the numbers they give frames and
# their inlined functions) left out (the test hook CORESTACK_NO_CACHES): the same bytes
for c in many pool; do
	for mode in json verbose text; do
		opt=$( [ $mode = json ] && echo --json; [ $mode = verbose ] && echo -v )
		CORESTACK_NO_CACHES=1 "$CS" $opt "$W/$c.core" > "$W/$c.nocache" 2>/dev/null
		"$CS" $opt "$W/$c.core" > "$W/$c.cache" 2>/dev/null
		check "json-$c-caches-same-$mode" cmp "$W/$c.cache" "$W/$c.nocache"
	done
done

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

# tests/lib/jsoncheck.c, which parses every document of the test suite with json-c, fails a
# document that is not JSON: a corestack that writes a raw 0xff byte in a string
if [ -x "$T/jsoncheck" ]; then
	printf '#!/bin/sh\nprintf '"'"'{"corestack":1,"a":"\\377"}\\n'"'"'\n' > "$W/badjson.sh"
	chmod +x "$W/badjson.sh"
	CST_JSONCHECK_CORESTACK=$W/badjson.sh CST_JSONCHECK_LOG=$W/badjson.log \
		"$T/jsoncheck" --json x.core > "$W/badjson.out" 2>&1
	check jsoncheck-fails-bad-utf8 grep -q '^FAIL not JSON' "$W/badjson.log"
	CST_JSONCHECK_CORESTACK=$CST_JSONCHECK_CORESTACK CST_JSONCHECK_LOG=$W/good.log \
		"$T/jsoncheck" --json "$W/strip.core" > /dev/null 2>&1
	check jsoncheck-passes-corestack grep -qx ok "$W/good.log"
fi
exit 0

#!/bin/bash
# The triage corpus: distinct bugs (tests/triage/bugs.c and bugs.cpp: a libc string function
# on a NULL pointer, SIGFPE and an assert in one function, a stack overflow, a double free, a
# NULL dereference on a worker thread, uncaught C++ exceptions of different types and of one
# type from different methods, one thrown on a worker thread; tests/triage/tailcall.c: a
# SIGFPE in ratio, reached from main (called through a pointer by glibc) by two tail jumps,
# so that main and handle must be inferred), each crashed several times
# under variations that must not split a bug: a frame-pointer and a default build, ASLR on
# and off (setarch -R), the worker thread count, and GLIBC_TUNABLES hiding CPU features so
# that glibc picks other string-function variants.  Every pair of cores must be in one
# signature group exactly when it is one bug: the pairwise precision and recall are printed
# and must be 100%.  Also: the expected class and first frames of each bug, and -r giving the
# same signatures.  Cores are made by tests/lib/mkcore.py.
# Prints PASS/FAIL/SKIP lines for tests/run.sh; always exits 0.
. "$(dirname "$0")/lib/common.sh" || exit 1

if [ ! -x "$CS" ]; then skip triage-corpus "$CS not built"; exit 0; fi
command -v g++ >/dev/null || { skip triage-corpus "no g++"; exit 0; }
gcc -O2 -g -pthread -o "$W/bugs" tests/triage/bugs.c &&
gcc -O2 -g -fno-omit-frame-pointer -pthread -o "$W/bugs-fp" tests/triage/bugs.c &&
g++ -O2 -g -pthread -o "$W/bugs-cxx" tests/triage/bugs.cpp &&
g++ -O2 -g -fno-omit-frame-pointer -pthread -o "$W/bugs-cxx-fp" tests/triage/bugs.cpp &&
gcc -O2 -g -o "$W/tailcall" tests/triage/tailcall.c &&
gcc -O2 -g -fno-omit-frame-pointer -o "$W/tailcall-fp" tests/triage/tailcall.c &&
gcc -O2 -o "$W/tailcall-nog" tests/triage/tailcall.c ||
	{ fail triage-corpus-build "gcc/g++ failed on tests/triage"; exit 0; }

NOASLR="setarch $(uname -m) -R"
$NOASLR true 2>/dev/null || NOASLR=""          # some sandboxes forbid personality(2)
NOAVX2=glibc.cpu.hwcaps=-AVX2,-AVX512F,-AVX512VL,-AVX512BW,-BMI2
NOEVEX=glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW
# BUG VARIANT ENV PROG ARGS...: one crash; the core is $W/cores/BUG.VARIANT
mkdir -p "$W/cores"
n=0
crash() {
	local bug=$1 var=$2 env=$3 prog=$4; shift 4
	local wrap=
	case $var in noaslr*) [ -n "$NOASLR" ] || return 0; wrap=$NOASLR ;; esac
	env ${env:+GLIBC_TUNABLES=$env} python3 tests/lib/mkcore.py crash "$W/cores/$bug.$var" \
		$([ -n "$wrap" ] && command -v setarch) $([ -n "$wrap" ] && echo "$(uname -m) -R") \
		"$W/$prog" "$@" >/dev/null 2>"$W/mk.err" ||
		{ fail "triage-corpus-core-$bug.$var" "$(cat "$W/mk.err")"; return 0; }
	n=$((n + 1))
}
for b in bugs bugs-fp; do
	crash strlen $b "" $b strlen
	crash strlen $b-noavx2 $NOAVX2 $b strlen
	crash strlen $b-noevex $NOEVEX $b strlen
	crash fpe $b "" $b fpe
	crash assert $b "" $b assert
	crash overflow $b "" $b overflow
	crash doublefree $b "" $b doublefree
	crash worker $b-1 "" $b worker 1
	crash worker $b-4 "" $b worker 4
done
crash strlen noaslr-noavx2 $NOAVX2 bugs strlen
crash fpe noaslr "" bugs-fp fpe
crash assert noaslr "" bugs assert
crash overflow noaslr "" bugs overflow
crash doublefree noaslr-noavx2 $NOAVX2 bugs doublefree
crash worker noaslr-3 "" bugs-fp worker 3
for b in bugs-cxx bugs-cxx-fp; do
	crash parse $b "" $b parse
	crash load $b "" $b load
	crash lookup $b "" $b lookup
	crash cxxworker $b-1 "" $b worker 1
	crash cxxworker $b-3 "" $b worker 3
done
crash parse noaslr "" bugs-cxx parse
crash load noaslr "" bugs-cxx-fp load
crash lookup noaslr "" bugs-cxx lookup
crash cxxworker noaslr-2 "" bugs-cxx worker 2
for b in tailcall tailcall-fp tailcall-nog; do
	crash tailcall $b "" $b
done
crash tailcall noaslr "" tailcall-fp

"$CS" --json-lines "$W"/cores/* > "$W/sig.json" 2>"$W/sig.err"
"$CS" -r --json-lines "$W"/cores/* > "$W/raw.json" 2>/dev/null
"$CS" -r --json-lines "$W"/cores/strlen.* > "$W/rawstrlen.json" 2>/dev/null

# precision: of the pairs of cores in one group, the share that are one bug;
# recall: of the pairs of cores of one bug, the share in one group
python3 -c '
import json, sys, itertools
docs = [json.loads(l) for l in open(sys.argv[1])]
bug = lambda d: d["core"].rsplit("/", 1)[1].split(".")[0]
assert len(docs) == int(sys.argv[2]) and all("signature" in d for d in docs), open(sys.argv[3]).read()[:300]
tp = same_group = same_bug = 0
for a, b in itertools.combinations(docs, 2):
    g, s = a["signature"]["hash"] == b["signature"]["hash"], bug(a) == bug(b)
    tp += g and s; same_group += g; same_bug += s
p, r = tp / max(same_group, 1), tp / max(same_bug, 1)
groups = {}
for d in docs:
    groups.setdefault(bug(d), set()).add(d["signature"]["text"])
print("%d cores of %d bugs: pairwise precision %.1f%%, recall %.1f%%" % (len(docs), len(groups), 100 * p, 100 * r))
for b, t in sorted(groups.items()):
    print("  %-10s %s" % (b, " || ".join(sorted(t))))
split = {b: t for b, t in groups.items() if len(t) > 1}
merged = [t for t in set().union(*groups.values()) if sum(t in g for g in groups.values()) > 1]
assert p == 1 and r == 1, ("precision %.3f recall %.3f" % (p, r), "split:", split, "merged:", merged)
' "$W/sig.json" "$n" "$W/sig.err" > "$W/pr.txt" 2>&1; rc=$?
grep -v -e Traceback -e '^  File ' -e '^    ' "$W/pr.txt" | grep -v '^[A-Za-z]*Error' || true
[ $rc = 0 ] && pass triage-corpus-precision-recall ||
	fail triage-corpus-precision-recall "$(tail -1 "$W/pr.txt" | cut -c1-400)"

check triage-corpus-classes-and-frames python3 -c '
import json, sys
want = {  # bug: (class, exception, first frames)
    "strlen": ("SIGSEGV", None, ["strlen", "header_len", "parse_header", "main"]),
    "fpe": ("SIGFPE", None, ["handle", "main"]),
    "assert": ("assert", None, ["handle", "main"]),
    "overflow": ("SIGSEGV", None, ["descend"]),
    "doublefree": ("SIGABRT", None, None),
    "worker": ("SIGSEGV", None, ["consume", "worker"]),
    "parse": ("exception", "std::runtime_error", ["Parser::parse("]),
    "load": ("exception", "std::runtime_error", ["Loader::load(char const*)", "main"]),
    "lookup": ("exception", "std::out_of_range", None),
    "cxxworker": ("exception", "std::logic_error", ["Job::run()"]),
    "tailcall": ("SIGFPE", None, ["ratio", "handle", "main"]),
}
for l in open(sys.argv[1]):
    d = json.loads(l)
    b = d["core"].rsplit("/", 1)[1].split(".")[0]
    s = d["signature"]
    cls, exc, frames = want[b]
    assert (s["class"], s["exception"]) == (cls, exc), (b, s)
    assert s["text"].startswith(cls + (" " + exc if exc else "") + ": "), (b, s)
    if frames:
        assert [f for f in s["frames"][:len(frames)]] == frames or \
            all(g.startswith(w) for g, w in zip(s["frames"], frames)), (b, s["frames"])
    if b == "doublefree":
        assert "release" in s["frames"] and "abort" not in s["frames"], s
    if b == "tailcall":   # no frame of main or handle is on the stack: both inferred
        fr = [(f["function"], f["found_by"]) for f in d["threads"][0]["frames"][:4]]
        assert fr[1:3] == [("handle", "tail-call-inferred"), ("main", "tail-call-inferred")], (d["core"], fr)
        assert s["frames"] == ["ratio", "handle", "main"], s
    if b == "lookup":
        assert any(f.startswith("Table::lookup(") for f in s["frames"]), s
        assert not any(f.startswith(("std::__throw", "__cxa")) or "+0x" in f for f in s["frames"]), s
' "$W/sig.json"

check triage-corpus-raw-same python3 -c '
import json, sys
a = {json.loads(l)["core"]: json.loads(l)["signature"]["hash"] for l in open(sys.argv[1])}
b = {json.loads(l)["core"]: json.loads(l)["signature"]["hash"] for l in open(sys.argv[2])}
raw = [json.loads(l) for l in open(sys.argv[2])]
mangled = [f["function"] for d in raw for f in d["threads"][0]["frames"] if (f["function"] or "").startswith("_ZN")]
assert mangled, "-r showed no mangled name"
assert a == b, [c for c in a if a[c] != b.get(c)]' "$W/sig.json" "$W/raw.json"

# the string bug really ran in different glibc variants (a CPU without AVX2 has one only)
variants=$(python3 -c '
import json, sys
print(" ".join(sorted({json.loads(l)["threads"][0]["frames"][0]["function"] for l in open(sys.argv[1])})))' "$W/rawstrlen.json")
case $variants in
	*" "*) echo "strlen ran as: $variants"; pass triage-corpus-string-variants ;;
	"") fail triage-corpus-string-variants "no frame 0" ;;
	*) skip triage-corpus-string-variants "this CPU gives glibc one strlen only: $variants" ;;
esac
exit 0

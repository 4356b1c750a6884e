#!/bin/bash
# Triage tests: several cores in one run (text, --json array, --json-lines, exit status),
# crash signatures (stable across cores of one crash and across builds, different for another
# crash, machinery skipped, recovered and lost-tail-call frames included, build-id form for
# stripped code, options), --group on a multithreaded core, --summary, colour on a pty,
# progress, the manual page, and examples/triage.py.
# Cores are made by tests/lib/mkcore.py from tests/progs and examples/ programs.
# Prints PASS/FAIL/SKIP lines for tests/run.sh; always exits 0.
. "$(dirname "$0")/lib/common.sh" || exit 1
E=$B/examples

if [ ! -x "$CS" ]; then skip triage "$CS not built"; exit 0; fi
mk() { # mk NAME PROG [ARGS]: a core of PROG in $W/NAME.core
	local name=$1; shift
	python3 tests/lib/mkcore.py crash "$W/$name.core" "$@" 2>"$W/$name.err" >/dev/null ||
		{ fail "core-$name" "$(cat "$W/$name.err")"; return 1; }
}
need() { for p; do [ -x "$p" ] || { skip triage "$p not built (make test-progs examples)"; exit 0; }; done; }
need "$T/segv-fp" "$T/segv-cfi" "$T/libcfp-fp" "$T/tail-fpnoleaf" "$T/segv-fp-stripped" \
	"$E/segfault" "$E/abort_leaf" "$E/tailcall" "$E/deadlock"

mk segv1 "$T/segv-fp"; mk segv2 "$T/segv-fp"; mk segvcfi "$T/segv-cfi"
mk abort "$T/libcfp-fp" abort; mk tail "$T/tail-fpnoleaf" crash
mk strip1 "$T/segv-fp-stripped"; mk strip2 "$T/segv-fp-stripped"
mk deadlock "$E/deadlock"
printf 'not a core\n' > "$W/bad.core"
S1=$W/segv1.core S2=$W/segv2.core SC=$W/segvcfi.core AB=$W/abort.core TL=$W/tail.core
BAD=$W/bad.core DL=$W/deadlock.core

# py CODE ARGS...: run a Python check; a failed assert prints its message
py() { python3 -c "import json, sys, re, hashlib
$1" "${@:2}"; }

# --- several cores in one run
"$CS" "$S1" "$AB" "$TL" > "$W/multi.txt" 2>"$W/multi.err"; rc=$?
check multi-text-blocks py '
hdr = [l.split()[1] for l in open(sys.argv[1]) if l.startswith("core: ")]
assert hdr == sys.argv[2:], hdr' "$W/multi.txt" "$S1" "$AB" "$TL"
check multi-text-threads py '
t = open(sys.argv[1]).read()
assert t.count("(crashed: SIGSEGV)") == 2 and t.count("(crashed: SIGABRT)") == 1, t[:300]
assert "in die ()" in t and "in crasher ()" in t and "in leaf2 ()" in t' "$W/multi.txt"
[ $rc = 0 ] && pass multi-exit-ok || fail multi-exit-ok "exit $rc: $(cat "$W/multi.err")"

"$CS" --json-lines "$S1" "$AB" "$BAD" "$TL" > "$W/lines.json" 2>/dev/null; rc=$?
check multi-json-lines py '
lines = open(sys.argv[1]).read().splitlines()
docs = [json.loads(l) for l in lines]
assert [d["core"] for d in docs] == sys.argv[2:], [d["core"] for d in docs]
assert "error" in docs[2] and "threads" not in docs[2], docs[2]
assert all("signature" in d and d["threads"] for i, d in enumerate(docs) if i != 2)' \
	"$W/lines.json" "$S1" "$AB" "$BAD" "$TL"
[ $rc = 2 ] && pass multi-exit-unusable || fail multi-exit-unusable "exit $rc, want 2 (one core unreadable)"

"$CS" --json "$S1" "$AB" > "$W/array.json" 2>/dev/null
check multi-json-array py '
d = json.load(open(sys.argv[1]))
assert isinstance(d, list) and [x["core"] for x in d] == sys.argv[2:], d' "$W/array.json" "$S1" "$AB"
"$CS" --json "$S1" > "$W/single.json" 2>/dev/null
check single-json-unchanged py '
t = open(sys.argv[1]).read()
d = json.loads(t)
assert isinstance(d, dict) and d["corestack"] == 1 and d["core"] == sys.argv[2]
want = ["corestack", "core", "executable", "arch", "pid", "signal", "threads"]
assert list(d)[:7] == want, list(d)
assert t.count("\n") > 20, "not the pretty-printed form"' "$W/single.json" "$S1"

"$CS" -n 2 "$S1" "$S2" >/dev/null 2>&1; rc1=$?
"$CS" -n 2 "$S1" "$BAD" >/dev/null 2>&1; rc2=$?
"$CS" "$BAD" "$S1" >/dev/null 2>&1; rc3=$?
[ $rc1 = 1 ] && [ $rc2 = 2 ] && [ $rc3 = 2 ] && pass multi-exit-highest ||
	fail multi-exit-highest "partial+partial $rc1 (want 1), partial+bad $rc2 (want 2), bad+ok $rc3 (want 2)"

# --- signatures
"$CS" --json-lines "$S1" "$S2" "$SC" "$AB" "$TL" "$W/strip1.core" "$W/strip2.core" > "$W/sig.json" 2>/dev/null
sig() { py 'import itertools
docs = [json.loads(l) for l in open(sys.argv[1])]
s = [d["signature"] for d in docs if d["core"] == sys.argv[2]][0]
print(s[sys.argv[3]] if sys.argv[3] != "all" else json.dumps(s))' "$W/sig.json" "$1" "$2"; }
h1=$(sig "$S1" hash); h2=$(sig "$S2" hash); hc=$(sig "$SC" hash); ha=$(sig "$AB" hash)
[ -n "$h1" ] && [ "$h1" = "$h2" ] && pass sig-stable-same-crash || fail sig-stable-same-crash "$h1 vs $h2"
[ "$h1" = "$hc" ] && pass sig-stable-across-builds || fail sig-stable-across-builds "fp $h1, cfi $hc"
[ "$(sig "$S1" text)" = "SIGSEGV: crasher | middle | main" ] && pass sig-text || fail sig-text "$(sig "$S1" text)"
[ -n "$ha" ] && [ "$ha" != "$h1" ] && pass sig-different-crash || fail sig-different-crash "abort $ha, segv $h1"
check sig-hash-is-sha256 py '
s = json.loads(sys.argv[1])
assert re.fullmatch("[0-9a-f]{16}", s["hash"]), s
assert hashlib.sha256(s["text"].encode()).hexdigest()[:16] == s["hash"], s' "$(sig "$S1" all)"
check sig-machinery-skipped py '
docs = [json.loads(l) for l in open(sys.argv[1])]
d = [d for d in docs if d["core"] == sys.argv[2]][0]
fns = [f["function"] for f in d["threads"][0]["frames"]]
assert "abort" in fns and "raise" in fns, fns            # the machinery is in the backtrace
s = d["signature"]
assert s["text"] == "SIGABRT: die | middle | main", s     # and not in the signature
assert s["class"] == "SIGABRT" and s["exception"] is None, s
assert s["skipped"] == fns.index("die"), (s, fns)' "$W/sig.json" "$AB"
check sig-recovered-and-tail-call py '
docs = [json.loads(l) for l in open(sys.argv[1])]
d = [d for d in docs if d["core"] == sys.argv[2]][0]
marks = {f["function"]: f["marker"] for f in d["threads"][0]["frames"]}
assert marks.get("hop") == "lost tail call" and marks.get("middle") == "recovered caller", marks
assert d["signature"]["frames"] == ["leaf2", "hop", "middle", "main"], d["signature"]' "$W/sig.json" "$TL"
check sig-stripped-build-id py '
docs = [json.loads(l) for l in open(sys.argv[1])]
s = [d["signature"] for d in docs if d["core"] in sys.argv[2:]]
assert len(s) == 2 and s[0]["hash"] == s[1]["hash"], s
assert all(re.fullmatch("[0-9a-f]{40}\\+0x[0-9a-f]+", w) for w in s[0]["frames"][:3]), s[0]' \
	"$W/sig.json" "$W/strip1.core" "$W/strip2.core"

"$CS" --signature "$S1" "$AB" > "$W/sigline.txt" 2>/dev/null
check sig-line py '
l = open(sys.argv[1]).read().splitlines()
assert l == ["%s: %s %s" % (sys.argv[2], sys.argv[3], "SIGSEGV: crasher | middle | main"),
             "%s: %s %s" % (sys.argv[4], sys.argv[5], "SIGABRT: die | middle | main")], l' \
	"$W/sigline.txt" "$S1" "$h1" "$AB" "$ha"
got=$("$CS" --signature --signature-frames 2 "$TL" 2>&1)
[ "$got" = "$TL: $(printf %s 'SIGSEGV: leaf2 | hop' | sha256sum | cut -c1-16) SIGSEGV: leaf2 | hop" ] && pass sig-frames-option || fail sig-frames-option "$got"
got=$("$CS" --signature --skip die "$AB" 2>&1)
case $got in *": middle | main") pass sig-skip-option ;; *) fail sig-skip-option "$got" ;; esac
printf '# the pthread_kill family only\n__pthread_kill_*\n\n  pthread_kill\n' > "$W/skiplist"
got=$("$CS" --signature --skip-frames "$W/skiplist" "$AB" 2>&1)
case $got in *": raise | abort | die | middle | main") pass sig-skip-frames-replaces ;;
	*) fail sig-skip-frames-replaces "$got" ;; esac
"$CS" --skip-frames "$W/nonexistent" "$S1" >/dev/null 2>"$W/err"; rc=$?
[ $rc = 64 ] && grep -q nonexistent "$W/err" && pass sig-skip-frames-missing || fail sig-skip-frames-missing "exit $rc: $(cat "$W/err")"

# --- cores not made by a crash (gcore of a running process) and signals sent by kill
sleep 60 & SLEEPER=$!
at_exit "kill $SLEEPER 2>/dev/null"
if gcore -o "$W/gc" $SLEEPER >/dev/null 2>&1 && [ -s "$W/gc.$SLEEPER" ]; then
	GC=$W/gc.$SLEEPER
	"$CS" "$GC" > "$W/gc.txt" 2>/dev/null
	"$CS" --json "$GC" > "$W/gc.json" 2>/dev/null
	"$CS" --signature "$GC" > "$W/gc.sig" 2>/dev/null
	check gcore-not-a-crash py '
t = open(sys.argv[1]).read()
assert "\nnot a crash: saved from a stopped process (as gcore does)" in t, t[:300]
assert "crashed:" not in t, t[:400]
d = json.load(open(sys.argv[2]))
assert d["signal"]["name"] == "SIGSTOP" and d["signal"]["crash"] is False, d["signal"]
assert not d["threads"][0]["crashed"] and d["signature"]["class"] == "not a crash", d["signature"]
assert open(sys.argv[3]).read().split(" ", 2)[2].startswith("not a crash: "), open(sys.argv[3]).read()' \
		"$W/gc.txt" "$W/gc.json" "$W/gc.sig"
else
	skip gcore-not-a-crash "gcore could not attach to a process here"
fi
kill $SLEEPER 2>/dev/null
# a SIGSEGV sent by this script to a sleeping process: its sender is this shell
mkdir -p "$W/killed"
(cd "$W/killed" && ulimit -c unlimited && exec sleep 60) & VICTIM=$!
sleep 0.3
kill -SEGV $VICTIM; wait $VICTIM 2>/dev/null
KC=$(ls "$W"/killed/core* 2>/dev/null | head -1)
if [ -n "$KC" ]; then
	"$CS" "$KC" > "$W/kill.txt" 2>/dev/null
	"$CS" --json "$KC" > "$W/kill.json" 2>/dev/null
	check signal-sender py '
t = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
pid, uid = int(sys.argv[3]), int(sys.argv[4])
want = "signal: SIGSEGV (Segmentation fault), si_code 0, sent by pid %d, uid %d\n" % (pid, uid)
assert want in t, t[:300]
s = d["signal"]
assert s["code"] == 0 and s["sender"] == {"pid": pid, "uid": uid} and s["crash"] is True, s
assert s["address"] is None and d["threads"][0]["crashed"], s' "$W/kill.txt" "$W/kill.json" $$ "$(id -u)"
else
	skip signal-sender "the kernel wrote no core (core_pattern $(cat /proc/sys/kernel/core_pattern))"
fi
check signal-sender-itself py '
d = [json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["core"] == sys.argv[2]][0]
s = d["signal"]
assert s["name"] == "SIGABRT" and s["code"] == -6 and s["sender"]["pid"] == d["pid"], s' "$W/sig.json" "$AB"
"$CS" "$AB" 2>/dev/null | grep -q "^signal: SIGABRT (Aborted), si_code -6, sent by pid [0-9]* (itself), uid " &&
	pass signal-sender-itself-text || fail signal-sender-itself-text "$("$CS" "$AB" 2>&1 | sed -n 2p)"
"$CS" "$S1" 2>/dev/null | grep -q "^signal: SIGSEGV (Segmentation fault), si_code 1, fault address 0x0$" &&
	pass signal-fault-no-sender || fail signal-fault-no-sender "$("$CS" "$S1" 2>&1 | sed -n 2p)"

# --- --group on a core with 6 identical threads (examples/deadlock.c)
"$CS" --group "$DL" > "$W/group.txt" 2>/dev/null
"$CS" --json "$DL" > "$W/dl.json" 2>/dev/null
"$CS" --json --group "$DL" > "$W/dlg.json" 2>/dev/null
check group-text-count py '
t = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
same = [th["tid"] for th in d["threads"] if any(f["function"] == "take_b" for f in th["frames"])]
assert len(same) == 6, same
m = re.search(r"^6 threads: ([0-9 ]+)$", t, re.M)
assert m and sorted(map(int, m.group(1).split())) == sorted(same), t
assert t.count("in take_b ()") == 1 and t.count("in lock_both ()") == 1, t
assert "(crashed: SIGABRT)" in t and t.count("\nThread ") == 2, t' "$W/group.txt" "$W/dl.json"
check group-json py '
d = json.load(open(sys.argv[1]))
g = d["groups"]
assert [x["count"] for x in g] == [6, 1, 1], g
assert sum(x["count"] for x in g) == len(d["threads"]) == 8' "$W/dlg.json"
"$CS" "$DL" > "$W/nogroup.txt" 2>/dev/null
check group-off-by-default py '
t = open(sys.argv[1]).read()
assert t.count("in take_b ()") == 6 and "threads:" not in t' "$W/nogroup.txt"

# --- --summary
"$CS" --summary "$S1" "$AB" "$S2" "$TL" "$SC" "$BAD" > "$W/sum.txt" 2>/dev/null
check summary-text py '
l = open(sys.argv[1]).read().splitlines()
assert l[0] == "6 cores, 3 distinct signatures, 1 unusable", l
assert re.fullmatch(r"\s+3  %s  SIGSEGV: crasher \| middle \| main" % sys.argv[2], l[1]), l[1]
assert l[2].split() == ["e.g.", sys.argv[3]], l[2]
assert re.fullmatch(r"\s+1  [0-9a-f]{16}  SIGABRT: die \| middle \| main", l[3]), l[3]
assert len(l) == 7, l' "$W/sum.txt" "$h1" "$S1"
"$CS" --summary --json "$S1" "$AB" "$S2" > "$W/sum.json" 2>/dev/null
check summary-json py '
d = json.load(open(sys.argv[1]))
s = d["signatures"]
assert d["cores"] == 3 and [x["count"] for x in s] == [2, 1], d
assert s[0]["cores"] == [sys.argv[2], sys.argv[3]] and s[0]["example"] == sys.argv[2], s' "$W/sum.json" "$S1" "$S2"

# --- colour: on a terminal (a pty), not with NO_COLOR, not through a pipe
ptyrun() { python3 tests/lib/ptyrun.py "$@"; }
ptyrun stdout "$W/c1" -- "$CS" "$TL" 2>/dev/null
ptyrun stdout "$W/c2" NO_COLOR=1 -- "$CS" "$TL" 2>/dev/null
ptyrun stdout "$W/c3" NO_COLOR= -- "$CS" "$TL" 2>/dev/null
"$CS" "$TL" > "$W/c4" 2>/dev/null
"$CS" --color always "$TL" > "$W/c5" 2>/dev/null
check color-on-terminal py '
t = open(sys.argv[1], "rb").read()
assert b"\x1b[33mleaf2\x1b[0m" in t and b"\x1b[1;35m[lost tail call]\x1b[0m" in t, t[:400]' "$W/c1"
check color-no-color py 'assert b"\x1b[" not in open(sys.argv[1], "rb").read() and b"leaf2" in open(sys.argv[1], "rb").read()' "$W/c2"
check color-empty-no-color-is-unset py 'assert b"\x1b[33m" in open(sys.argv[1], "rb").read()' "$W/c3"
check color-pipe py 'assert b"\x1b[" not in open(sys.argv[1], "rb").read()' "$W/c4"
check color-always py 'assert b"\x1b[33mleaf2" in open(sys.argv[1], "rb").read()' "$W/c5"

# --- progress line: stderr on a pty, stdout to a file
ptyrun stderr "$W/prog.err" -- "$CS" "$S1" "$AB" > "$W/prog.out"
"$CS" "$S1" "$AB" > /dev/null 2> "$W/noprog.err"
check progress-on-terminal py '
e = open(sys.argv[1], "rb").read()
assert b"[1/2] " + sys.argv[3].encode() in e and b"[2/2] " in e, e
assert not open(sys.argv[2], "rb").read().strip() == b""' "$W/prog.err" "$W/prog.out" "$S1"
check progress-off-otherwise py 'assert b"[1/2]" not in open(sys.argv[1], "rb").read()' "$W/noprog.err"

# --- the manual page
if command -v man >/dev/null; then
	MANWIDTH=80 man -l doc/corestack.1 > "$W/man.txt" 2> "$W/man.err"
	check man-renders py '
t = open(sys.argv[1]).read()
for s in ("NAME", "SYNOPSIS", "CRASH SIGNATURES", "EXIT STATUS", "NO_COLOR"):
    assert s in t, s
assert not open(sys.argv[2]).read().strip(), open(sys.argv[2]).read()' "$W/man.txt" "$W/man.err"
else
	skip man-renders "man not installed (make deps)"
fi
"$CS" --help > "$W/help.txt"
check man-help-options-agree py '
man = open(sys.argv[1]).read().replace("\\-", "-")
helpt = open(sys.argv[2]).read()
h = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", helpt))
m = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", man))
assert h == m, ("only in --help", sorted(h - m), "only in the man page", sorted(m - h))' doc/corestack.1 "$W/help.txt"
check man-version py '
v = open(sys.argv[2]).read().split()[1]
th = [l for l in open(sys.argv[1]) if l.startswith(".TH")][0]
assert ("\"corestack %s\"" % v) in th, (v, th)' doc/corestack.1 <("$CS" --version)
make -s install DESTDIR="$W/inst" PREFIX=/usr BUILD="$BUILD" >/dev/null 2>"$W/inst.err"
cmp -s doc/corestack.1 "$W/inst/usr/share/man/man1/corestack.1" && pass man-installed ||
	fail man-installed "not at \$(PREFIX)/share/man/man1: $(head -2 "$W/inst.err")"

# --- examples/triage.py on a directory of cores
mkdir -p "$W/crashes"
ok=1
for n in segfault:1 segfault:2 segfault:3 abort_leaf:1 tailcall:1 tailcall:2 deadlock:1; do
	python3 tests/lib/mkcore.py crash "$W/crashes/core.${n%:*}.${n#*:}" "$E/${n%:*}" >/dev/null 2>&1 || ok=0
done
printf 'garbage' > "$W/crashes/core.garbage"
if [ $ok = 1 ]; then
	CORESTACK=$CS python3 examples/triage.py --json "$W/crashes" > "$W/buckets.json" 2>"$W/buckets.err"
	check triage-script-buckets py '
d = json.load(open(sys.argv[1]))
b = [(x["count"], x["signature"], sorted(c.rsplit("/", 1)[1] for c in x["cores"])) for x in d["buckets"]]
want = [(3, "SIGSEGV: entry_value | parse_line | load_config | main", ["core.segfault.1", "core.segfault.2", "core.segfault.3"]),
        (2, "SIGSEGV: write_field | set_field | cmd_set | run_command | main", ["core.tailcall.1", "core.tailcall.2"]),
        (1, "SIGABRT: check_range | apply_setting | main", ["core.abort_leaf.1"]),
        (1, "SIGABRT: watchdog | main", ["core.deadlock.1"])]
assert b == want, b
assert [u["core"].rsplit("/", 1)[1] for u in d["unreadable"]] == ["core.garbage"], d["unreadable"]' "$W/buckets.json"
	CORESTACK=$CS python3 examples/triage.py "$W/crashes" > "$W/buckets.txt" 2>&1
	check triage-script-text py '
t = open(sys.argv[1]).read()
assert t.startswith("8 files: 4 buckets, 1 unreadable"), t[:200]
assert re.search(r"bucket 1: 3 cores  [0-9a-f]{16}  SIGSEGV\n  entry_value \| parse_line", t), t' "$W/buckets.txt"
	CORESTACK=$CS python3 examples/triage.py --summary "$W/crashes" > "$W/bsum.txt" 2>&1
	check triage-script-summary py '
l = open(sys.argv[1]).read().splitlines()
assert l[0] == "8 files: 4 buckets, 1 unreadable", l
assert l[2].split() == ["count", "class", "hash", "example"], l[2]
rows = [x.split() for x in l[3:11:2]]
assert [(r[0], r[1], r[3].rsplit("/", 1)[1]) for r in rows] == [("3", "SIGSEGV", "core.segfault.1"),
    ("2", "SIGSEGV", "core.tailcall.1"), ("1", "SIGABRT", "core.abort_leaf.1"), ("1", "SIGABRT", "core.deadlock.1")], rows
assert l[4].strip() == "entry_value | parse_line | load_config | main", l[4]' "$W/bsum.txt"
	# found next to the script (an install of both in one folder), or said clearly when nowhere
	mkdir -p "$W/next" "$W/alone"
	cp examples/triage.py "$W/next/" && cp examples/triage.py "$W/alone/" && ln -s "$CS" "$W/next/corestack"
	env -u CORESTACK PATH=/usr/bin:/bin python3 "$W/next/triage.py" "$W/crashes" > "$W/next.txt" 2>&1
	check triage-script-next-to-it py '
t = open(sys.argv[1]).read()
assert t.startswith("8 files: 4 buckets, 1 unreadable"), t[:300]' "$W/next.txt"
	env -u CORESTACK PATH=/usr/bin:/bin python3 "$W/alone/triage.py" "$W/crashes" > "$W/alone.txt" 2>&1; rc=$?
	check triage-script-not-found py '
t = open(sys.argv[1]).read()
assert int(sys.argv[2]) == 1, sys.argv[2]
assert t.startswith("triage: corestack not found: not on PATH") and "--corestack" in t and "\n" == t[-1] and t.count("\n") == 1, t' "$W/alone.txt" "$rc"
else
	fail triage-script-buckets "could not make the example cores"
fi
exit 0

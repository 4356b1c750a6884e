#!/bin/bash
# tests/t_callsite.sh: a lost tail call behind an indirect call, found from a DWARF call-site
# record.  tests/callsite/gotcall.c is built -g and without (-fPIC -fno-plt, linked with
# --no-relax, so that main calls dispatch through its GOT slot) and crashes in crash, which
# dispatch reached by a tail jump.  With -g the record of main's call names dispatch: it is
# inserted as a lost tail call, its note says how it was found, and its pc is its tail jump
# (the only one to crash).  Without -g nothing names the target: nothing is inserted.
. "$(dirname "$0")/lib/common.sh" || exit 1
CC=${CC:-cc}

for v in g nog; do
    flags="-O2 -fPIC -fno-plt -fno-omit-frame-pointer -Wl,--no-relax"
    [ $v = g ] && flags="$flags -g"
    prog=$W/gotcall.$v
    if ! $CC $flags -o "$prog" tests/callsite/gotcall.c 2> "$W/err"; then
        fail "callsite-$v" "cannot build: $(head -1 "$W/err")"; continue
    fi
    if ! objdump -d --no-show-raw-insn "$prog" |
            awk '$2 == "<main>:" { on = 1; next } /^$/ { on = 0 } on' | grep -q 'call *\*'; then
        skip "callsite-$v" "the compiler made main's call to dispatch direct"; continue
    fi
    if ! python3 tests/lib/mkcore.py crash "$W/$v.core" "$prog" > /dev/null 2> "$W/err"; then
        fail "callsite-$v" "no core: $(head -1 "$W/err")"; continue
    fi
    jump=$(objdump -d --no-show-raw-insn "$prog" |
           awk '$2 == "<dispatch>:" { on = 1; next } /^$/ { on = 0 } on && /jmp.*<crash>/ { sub(":", "", $1); print $1 }')
    "$CS" --json "$W/$v.core" > "$W/$v.json" 2> "$W/$v.err"
    check "callsite-$v" python3 - "$W/$v.json" "$v" "$jump" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
variant, jump = sys.argv[2], int(sys.argv[3], 16)
frames = doc["threads"][0]["frames"]
names = [f["function"] for f in frames[:3]]
if variant == "g":
    want = ["crash", "dispatch", "main"]
    d = frames[1]
    ok = (names == want and d["marker"] == "lost tail call" and d["found_by"] == "tail-call"
          and "call-site record" in (d["note"] or "")
          and int(d["module_offset"], 16) == jump)
else:
    want = ["crash", "main"]
    ok = names[:2] == want and all(f["marker"] != "lost tail call" for f in frames)
if not ok:
    print("frames %s, wanted %s: %s" % (names, want, json.dumps(frames[:3])))
    sys.exit(1)
PY
done
exit 0

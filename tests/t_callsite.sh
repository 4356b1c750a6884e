#!/bin/bash
# tests/t_callsite.sh: a lost tail call behind an indirect call, found three ways.
# tests/callsite/gotcall.c is built -fPIC -fno-plt and linked with --no-relax, so that main
# calls dispatch through its GOT slot, and crashes in crash, which dispatch reached by a tail
# jump.  Each build must show crash, dispatch [lost tail call] at its tail jump (the only
# one to crash), main:
#   g         -g, the GOT writable (-z norelro): the call-site record of main's call names
#             dispatch (found_by tail-call, "call-site record" in the note);
#   relro     no -g: the GOT slot is read-only once relocated, its word names dispatch
#             ("read-only slot");
#   norelro   no -g, the GOT writable: nothing names the target; dispatch is the only
#             address-taken function that reaches crash (found_by tail-call-inferred).
. "$(dirname "$0")/lib/common.sh" || exit 1
CC=${CC:-cc}

for v in g relro norelro; do
    flags="-O2 -fPIC -fno-plt -fno-omit-frame-pointer -Wl,--no-relax"
    case $v in
    g)       flags="$flags -g -Wl,-z,norelro" ;;
    norelro) flags="$flags -Wl,-z,norelro" ;;
    esac
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
want = ["crash", "dispatch", "main"]
d = frames[1]
how = {"g": ("tail-call", "call-site record"), "relro": ("tail-call", "read-only slot"),
       "norelro": ("tail-call-inferred", "address-taken")}[variant]
ok = (names == want and d["marker"] == "lost tail call" and d["found_by"] == how[0]
      and how[1] in (d["note"] or "") and int(d["module_offset"], 16) == jump)
if not ok:
    print("frames %s, wanted %s: %s" % (names, want, json.dumps(frames[:3])))
    sys.exit(1)
PY
done
exit 0

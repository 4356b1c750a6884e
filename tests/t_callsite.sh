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
# tests/callsite/tablecall.c calls handlers through a read-only table; h1 and other both
# tail-jump to crash, so the address-taken functions alone say nothing.  Built with CFI
# (cfi) and with a frame pointer and no CFI (fp: the instruction analysis recovers the
# caller's preserved registers), each must show crash, h1 [lost tail call] at its jump:
#   loop      the table and the index are in preserved registers: the word the call read
#             is known ("through the word at", found_by tail-call), under run_loop;
#   script    the index is lost: h1 is the only entry of the table (its symbol's extent)
#             that reaches crash ("through the table", tail-call-inferred), under
#             run_script.
# tests/callsite/indexcall.c calls ha or hb through a read-only table, the index in a
# register the call may clobber; both tail-jump to crash:
#   index     no code since the call writes the index register: its value at the fault
#             selects hb ("the entry %REG selects", tail-call-inferred);
#   clobber   the table selects ha, which writes the caller-saved registers (hb's index
#             into each): crash's caller is run, with nothing between.
. "$(dirname "$0")/lib/common.sh" || exit 1
CC=${CC:-cc}

# expect NAME JSON FRAMES FOUND_BY NOTE JUMP: the first frames of JSON's first thread are
# FRAMES (comma-separated), the second one a lost tail call found by FOUND_BY, its note
# saying NOTE, at module offset JUMP (hex)
expect() {
    check "$1" python3 - "$2" "$3" "$4" "$5" "$6" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
want, found_by, note, jump = sys.argv[2].split(","), sys.argv[3], sys.argv[4], int(sys.argv[5], 16)
frames = doc["threads"][0]["frames"]
names = [f["function"] for f in frames[:len(want)]]
d = frames[1]
ok = (names == want and d["marker"] == "lost tail call" and d["found_by"] == found_by
      and note in (d["note"] or "") and int(d["module_offset"], 16) == jump)
if not ok:
    print("frames %s, wanted %s: %s" % (names, want, json.dumps(frames[:3])))
    sys.exit(1)
PY
}

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
    case $v in
    g)       how="tail-call|call-site record" ;;
    relro)   how="tail-call|read-only slot" ;;
    norelro) how="tail-call-inferred|address-taken" ;;
    esac
    expect "callsite-$v" "$W/$v.json" crash,dispatch,main "${how%|*}" "${how#*|}" "$jump"
done

for v in cfi fp; do
    flags="-O2"
    [ $v = fp ] && flags="-O2 -fno-omit-frame-pointer -fno-asynchronous-unwind-tables"
    prog=$W/tablecall.$v
    if ! $CC $flags -o "$prog" tests/callsite/tablecall.c 2> "$W/err"; then
        fail "callsite-table-$v" "cannot build: $(head -1 "$W/err")"; continue
    fi
    jump=$(objdump -d --no-show-raw-insn "$prog" |
           awk '$2 == "<h1>:" { on = 1; next } /^$/ { on = 0 } on && /jmp.*<crash>/ { sub(":", "", $1); print $1 }')
    for m in loop script; do
        if [ -z "$jump" ]; then
            skip "callsite-table-$v-$m" "the compiler made h1's call to crash no tail jump"; continue
        fi
        if ! python3 tests/lib/mkcore.py crash "$W/t$v.$m.core" "$prog" $m > /dev/null 2> "$W/err"; then
            fail "callsite-table-$v-$m" "no core: $(head -1 "$W/err")"; continue
        fi
        "$CS" --json "$W/t$v.$m.core" > "$W/t$v.$m.json" 2> "$W/t$v.$m.err"
        case $m in
        loop)   how="tail-call|through the word at" ;;
        script) how="tail-call-inferred|through the table at" ;;
        esac
        expect "callsite-table-$v-$m" "$W/t$v.$m.json" crash,h1,run_$m,main "${how%|*}" "${how#*|}" "$jump"
    done
done
for v in index clobber; do
    flags="-O2"
    [ $v = clobber ] && flags="-O2 -DCLOBBER"
    prog=$W/indexcall.$v
    if ! $CC $flags -o "$prog" tests/callsite/indexcall.c 2> "$W/err"; then
        fail "callsite-$v" "cannot build: $(head -1 "$W/err")"; continue
    fi
    if ! python3 tests/lib/mkcore.py crash "$W/i$v.core" "$prog" > /dev/null 2> "$W/err"; then
        fail "callsite-$v" "no core: $(head -1 "$W/err")"; continue
    fi
    "$CS" --json "$W/i$v.core" > "$W/i$v.json" 2> "$W/i$v.err"
    if [ $v = index ]; then
        jump=$(objdump -d --no-show-raw-insn "$prog" |
               awk '$2 == "<hb>:" { on = 1; next } /^$/ { on = 0 } on && /jmp.*<crash>/ { sub(":", "", $1); print $1 }')
        expect "callsite-$v" "$W/i$v.json" crash,hb,run,main tail-call-inferred "selects, untouched since" "${jump:-0}"
    else
        check "callsite-$v" python3 - "$W/i$v.json" <<'PY'
import json, sys
frames = json.load(open(sys.argv[1]))["threads"][0]["frames"]
names = [f["function"] for f in frames[:3]]
if names != ["crash", "run", "main"]:
    print("frames %s, wanted crash, run, main: %s" % (names, json.dumps(frames[:3])))
    sys.exit(1)
PY
    fi
done
exit 0

#!/bin/bash
# t_fuzz_regress.sh - replays every input the fuzzers found (fuzz/regressions/HARNESS/*)
# through the harness built with the normal compiler ($BUILD/fuzz/replay-HARNESS, see
# fuzz/fuzz.mk), one run per input, bounded in time and memory.  An input passes when the
# harness returns normally (exit 0): no crash, no sanitizer report (SANITIZE=1 builds), no
# hang.  When FILE.expect exists, the run has CST_FUZZ_PRINT set (the unwinder harness then
# prints its frames and the stop reason on stderr) and stderr must match the extended regex
# in FILE.expect too.  Prints PASS/FAIL/SKIP lines on stdout; always exits 0.
set -u
. "$(dirname "$0")/lib/common.sh" || exit 1
exec 1>&2               # result lines go to file descriptor 3 (common.sh), the rest to stderr
TIMEOUT=60
VCAP=2000000            # KiB of address space per run (not with ASan)
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:${ASAN_OPTIONS:-}
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1:${UBSAN_OPTIONS:-}
libc=$(ldd "$BUILD/tests/tailchain-cfi" 2>/dev/null | sed -n 's/.*libc\.so\.6 => \([^ ]*\).*/\1/p')
export CST_FUZZ_MODULES=$BUILD/tests/tailchain-cfi:$BUILD/tests/tailchain-fp:$libc

for h in core unwind corewalk cli jsonw; do
    r=$BUILD/fuzz/replay-$h
    for f in "$TOP"/fuzz/regressions/$h/*; do
        [ -f "$f" ] || continue
        case $f in *.expect) continue ;; esac
        name=fuzz_regress.$h.$(basename "$f")
        if [ ! -x "$r" ]; then skip "$name" "$r not built"; continue; fi
        vcap=$VCAP
        ldd "$r" 2>/dev/null | grep -q libasan && vcap=
        want=
        [ -f "$f.expect" ] && want=$(cat "$f.expect")
        ( ulimit -c 0; [ -n "$vcap" ] && ulimit -v "$vcap"
          [ -n "$want" ] && export CST_FUZZ_PRINT=1
          exec timeout -k 5 "$TIMEOUT" "$r" "$f" ) >/dev/null 2>"$BUILD/fuzz/last.err"
        rc=$?
        if [ "$rc" -eq 0 ] && [ -n "$want" ] && ! grep -Eq -- "$want" "$BUILD/fuzz/last.err"; then
            fail "$name" "the output does not match /$want/: $(tail -n 1 "$BUILD/fuzz/last.err")"
        elif [ "$rc" -eq 0 ]; then
            pass "$name"
        else
            why="exit $rc"
            [ "$rc" -eq 124 ] && why="timed out after ${TIMEOUT}s"
            [ "$rc" -gt 128 ] && [ "$rc" -ne 124 ] && why="killed by signal $((rc - 128))"
            fail "$name" "$why; cmd: $r $f"
            head -n 30 "$BUILD/fuzz/last.err" >&2
        fi
    done
done
exit 0

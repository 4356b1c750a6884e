#!/bin/bash
# tests/t_sparc.sh: corestack on the committed SPARC fixture cores (tests/sparc/fixtures/,
# listed in tests/sparc/fixtures.list, made by `make fixtures`).  For each line: runs
# `$BUILD/corestack --json --sysroot /usr/sparc64-linux-gnu -e BINARY NAME.core` through
# tests/lib/check_frames.py and compares the frames with tests/sparc/expected/EXPECTED.
# Prints PASS/FAIL/SKIP lines (details of a failure indented) and always exits 0.
# Needs no qemu and no cross compiler: only the sparc64 and 32-bit sparc C libraries
# of the cross sysroot (Debian: libc6-sparc64-cross, libc6-sparc-sparc64-cross).
. "$(dirname "$0")/lib/common.sh" || exit 1
S=tests/sparc
SYSROOT=/usr/sparc64-linux-gnu

if [ ! -x "$CS" ]; then
    skip sparc "$CS not built"; exit 0
fi
for lib in lib/libc.so.6 lib64/ld-linux.so.2 lib32/libc.so.6 lib32/ld-linux.so.2; do
    if [ ! -e "$SYSROOT/$lib" ]; then
        skip sparc "$SYSROOT/$lib missing (make deps)"; exit 0
    fi
done
seen=" "
while read -r name binary expected rest; do
    case "$name" in ''|'#'*) continue ;; esac
    rest=" $rest"; opts=${rest%% -- *}
    test="sparc-$name"
    case "$seen" in *" $test "*) test="$test-$expected" ;; esac
    seen="$seen$test "
    core=$S/fixtures/$name.core
    if [ ! -e "$core" ] || [ ! -e "$S/fixtures/$binary" ]; then
        fail "$test" "$core or its binary is missing (make fixtures)"; continue
    fi
    # shellcheck disable=SC2086
    if out=$(python3 tests/lib/check_frames.py --corestack "$CS" --sysroot "$SYSROOT" \
            --exe "$S/fixtures/$binary" $opts "$S/expected/$expected" "$core" 2>&1); then
        pass "$test"
    else
        fail "$test" "$(head -n 1 <<< "$out")"
        tail -n +2 <<< "$out" | sed 's/^/    /'
    fi
done < $S/fixtures.list
exit 0

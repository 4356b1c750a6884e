#!/bin/bash
# tests/t_fixtures.sh: corestack on the committed x86-64 fixture cores (tests/fixtures/x86_64/,
# listed in fixtures.list there, made by `make x86-fixtures`): statically linked programs,
# so the expected frames down to the outermost one do not depend on the machine's C
# library.  For each line, runs `$BUILD/corestack --json -e BINARY CORE` through
# tests/lib/check_frames.py against tests/fixtures/x86_64/expected/EXPECTED.  Prints
# PASS/FAIL/SKIP lines (details of a failure indented) and always exits 0.
. "$(dirname "$0")/lib/common.sh" || exit 1
D=tests/fixtures/x86_64

if [ ! -x "$CS" ]; then
    skip x86-fixtures "$CS not built"; exit 0
fi
while read -r name core binary expected opts; do
    case "$name" in ''|'#'*) continue ;; esac
    test="x86-fixture-$name"
    if [ ! -e "$D/$core" ] || [ ! -e "$D/$binary" ]; then
        fail "$test" "$D/$core or $D/$binary is missing (make x86-fixtures)"; continue
    fi
    # shellcheck disable=SC2086
    if out=$(python3 tests/lib/check_frames.py --corestack "$CS" --exe "$D/$binary" $opts \
            "$D/expected/$expected" "$D/$core" 2>&1); then
        pass "$test"
    else
        fail "$test" "$(head -n 1 <<< "$out")"
        tail -n +2 <<< "$out" | sed 's/^/    /'
    fi
done < "$D/fixtures.list"
exit 0

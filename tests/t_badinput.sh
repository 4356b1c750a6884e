#!/bin/bash
# t_badinput.sh - hostile-input tests for corestack.
#
# Run by tests/run.sh from the repository top with BUILD set (default
# "build"); the binary under test is $CORESTACK (default $BUILD/corestack).  Prints exactly one line per test on stdout:
#     PASS name | FAIL name: reason | SKIP name: reason
# Everything else (diagnostics, details of failures) goes to stderr.  Always
# exits 0; run.sh counts the lines.
#
# What corestack promises for bad input (and what is checked here):
#   * never a crash (signal), a hang or unbounded memory: every run is under
#     `timeout 20` and `ulimit -v`; an exit status >= 124 is a FAIL;
#   * a one-line error on stderr, `corestack: FILE: problem`;
#   * exit codes: 0 every thread unwound to its outermost frame, 1 output
#     printed but some walk stopped early or a module mismatched, 2 the core
#     could not be used, 64 usage error.
#
# The hostile cores are derived from a freshly generated base core by
# tests/lib/mkbad.py (see `python3 tests/lib/mkbad.py list`).

set -u
TEST_PREFIX=badinput.   # prefix of every test name
. "$(dirname "$0")/lib/common.sh" || exit 1
exec 1>&2               # result lines go to file descriptor 3 (common.sh); stdout to stderr

MKBAD=$TOP/tests/lib/mkbad.py
TIMEOUT=20              # seconds per corestack run
VCAP=2000000            # KiB of address space per corestack run

# Make sanitizer builds (make SANITIZE=1) die by a signal on the first error,
# so that an ASan/UBSan report counts as a crash instead of as exit 1.
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=0:${ASAN_OPTIONS:-}
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1:${UBSAN_OPTIONS:-}

# ---------------------------------------------------------------------------
# result helpers

# the details of a failure, on stderr (fail in common.sh calls it)
on_fail() {
    {
        echo "=== FAIL $TEST_PREFIX$1: $2"
        echo "    command:  ${LAST_CMD:-}"
        [ -n "${MUT:-}" ] && echo "    mutation: $MUT"
        echo "    exit:     ${RC:-}"
        if [ -s "$W/out" ]; then echo "    --- stdout (head):"; head -n 15 "$W/out" | sed 's/^/    | /'; fi
        if [ -s "$W/err" ]; then echo "    --- stderr (head):"; head -n 15 "$W/err" | sed 's/^/    | /'; fi
    } >&2
}

# run_cs ARG...: run corestack bounded in time and memory, without core
# dumps; sets RC, LAST_CMD; output in $W/out and $W/err.
run_cs() {
    LAST_CMD="$CS $*"
    (
        ulimit -c 0
        [ -n "$VCAP" ] && ulimit -v "$VCAP"
        exec timeout -k 5 "$TIMEOUT" "$CS" "$@"
    ) >"$W/out" 2>"$W/err" </dev/null
    RC=$?
}

# crash_reason: non-empty description if the last run hung or died by a signal
crash_reason() {
    if [ "$RC" -eq 124 ] || [ "$RC" -eq 137 ]; then
        echo "timed out after ${TIMEOUT}s (exit $RC): hang or too slow"
    elif [ "$RC" -gt 128 ]; then
        echo "killed by signal $((RC - 128)) (exit $RC)"
    elif [ "$RC" -ge 124 ]; then
        echo "exit $RC from timeout/exec (could not run?)"
    fi
}

# in_set RC "0 1 2"
in_set() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }

# err_names "FILE[|FILE...]": some stderr line is `corestack: ...` and names
# one of the FILEs
err_names() {
    local IFS='|' f
    for f in $1; do
        grep -F -- "$f" "$W/err" | grep -q '^corestack: ' && return 0
    done
    return 1
}

# first_err: first stderr line, for one-line reasons
first_err() { head -n 1 "$W/err" | cut -c1-200; }

# expect NAME "RCS" NAMEFILE REGEX -- ARG...
#   Run corestack ARG...; PASS if it neither crashed nor hung, exited with one
#   of RCS, has a stderr line `corestack: ...` naming NAMEFILE (or one of
#   "F1|F2|...") when the exit is not 0 (NAMEFILE empty: no check; used where
#   an early stop is an ordinary result reported on stdout), printed
#   something on stdout when the exit is 0 or 1, and (when
#   REGEX is not empty) stderr matches the extended regex REGEX (case
#   insensitive).
expect() {
    local name=$1 rcs=$2 nfile=$3 re=$4 why
    shift 5
    run_cs "$@"
    why=$(crash_reason)
    if [ -n "$why" ]; then fail "$name" "$why; cmd: $LAST_CMD${MUT:+; mutation: $MUT}"; return; fi
    if ! in_set "$RC" "$rcs"; then
        fail "$name" "exit $RC, expected one of {$rcs}; cmd: $LAST_CMD${MUT:+; mutation: $MUT}; stderr: $(first_err)"
        return
    fi
    if [ "$RC" -ne 0 ] && [ -n "$nfile" ] && ! err_names "$nfile"; then
        fail "$name" "exit $RC but no stderr line 'corestack: ...' naming $nfile; cmd: $LAST_CMD${MUT:+; mutation: $MUT}; stderr: $(first_err)"
        return
    fi
    if { [ "$RC" -eq 0 ] || [ "$RC" -eq 1 ]; } && [ ! -s "$W/out" ]; then
        fail "$name" "exit $RC but nothing printed on stdout; cmd: $LAST_CMD${MUT:+; mutation: $MUT}; stderr: $(first_err)"
        return
    fi
    if [ -n "$re" ] && ! grep -Eqi -- "$re" "$W/err"; then
        fail "$name" "stderr does not match /$re/; cmd: $LAST_CMD${MUT:+; mutation: $MUT}; stderr: $(first_err)"
        return
    fi
    pass "$name"
}

# mk NAME MUTATION [ARG...]: $W/NAME.core = mutation of the base core; sets
# MUT to mkbad's description of the damage.  Returns 1 (after a SKIP line)
# if mkbad cannot apply the mutation to this core.
mk() {
    local name=$1 mut=$2
    shift 2
    if ! MUT=$(python3 "$MKBAD" "$mut" "$BASE" "$W/$name.core" "$@" 2>&1); then
        skip "$name" "mkbad $mut failed: $(echo "$MUT" | tail -n 1)"
        MUT=
        return 1
    fi
    MUT=$(echo "$MUT" | sed 's/^mkbad: //' | paste -sd ';' -)
    return 0
}

# every test name, for the SKIP lines when corestack or the base core is missing
ALL_TESTS="usage.no_args usage.bogus_option usage.json_no_file usage.nonexistent
usage.directory not_elf empty short3 baseline elf_not_core other_arch.arm
other_arch.aarch64 elf32 big_endian truncated lying_notes.descsz_huge
lying_notes.namesz_huge lying_notes.prstatus_overrun lying_notes.last_overrun
lying_notes.cut_in_prstatus lying_notes.cut_last_header lying_notes.filesz_beyond_file
lying_notes.filesz_wrap lying_notes.prstatus_short lying_notes.prstatus_missing
lying_notes.no_note lying_notes.no_names regs.garbage regs.rsp_at_segment_end
phdr_lies.phoff_beyond phdr_lies.phoff_wrap phdr_lies.phnum_65535
phdr_lies.phentsize_8 phdr_lies.load_2e63 phdr_lies.load_offset_wrap
phdr_lies.load_filesz_gt_memsz phdr_lies.load_impossible phdr_lies.load_impossible.not_truncated
truncated.message truncated.header phdr_lies.load_vaddr_wrap overlapping_loads
nt_file_lies.count_1m nt_file_lies.pagesize_0 nt_file_lies.pagesize_2e63
nt_file_lies.ranges nt_file_lies.names_unterminated nt_file_lies.dev_zero
nt_file_lies.fifo nt_file_lies.directory nt_file_lies.symlink_loop
nt_file_lies.empty_name linkmap_lies.fifo linkmap_lies.dev_zero
linkmap_lies.directory linkmap_lies.cycle missing_mapped_file missing_mapped_file.pcs
missing_mapped_file.message module_mismatch module_mismatch.names_module fp_cycle fp_cycle.json
fp_cycle.text fp_cycle.frames garbage_stack.seed1 garbage_stack.seed2 loads_zero loads_zero.json
fp_cycle.two_records fp_cycle.two_records.reason fp_cycle.three_records
fp_cycle.three_records.reason sp_down sp_down.reason sp_down.nocfi sp_down.nocfi.reason
phdr_lies.note_offset_2e63 phdr_lies.note_filesz_2e63 phdr_lies.load_memsz_2e63
phdr_lies.load_vaddr_2e63 nt_file_lies.count_2e63 nt_file_lies.million
nt_file_lies.million.bounded_output no_nt_file no_nt_file.linkmap_fifo no_nt_file.linkmap_fifo.not_opened
no_nt_file.linkmap_dev_zero no_nt_file.linkmap_directory no_nt_file.linkmap_symlink_loop no_symbols.text
no_symbols.json no_symbols.json-lines no_symbols.signature no_symbols.shell threads_100k threads_100k.count threads_1500k threads_1500k.count threads_1500k.no_nt_file threads_1500k.no_nt_file.count nt_file_lies.fifo_not_opened terminal_injection terminal_injection.shell"

skip_rest() {       # skip_rest REASON NAME...: SKIP the named tests
    local why=$1 t
    shift
    for t in "$@"; do skip "$t" "$why"; done
}

# ---------------------------------------------------------------------------
# preconditions

if [ ! -x "$CS" ]; then
    # shellcheck disable=SC2086
    skip_rest "$CS not built" $ALL_TESTS
    exit 0
fi
# ASan reserves terabytes of address space: a ulimit -v would kill it.
if ldd "$CS" 2>/dev/null | grep -q 'libasan'; then
    echo "t_badinput: $CS uses ASan: no ulimit -v memory cap" >&2
    VCAP=
fi

# ---------------------------------------------------------------------------
# usage errors and unusable files: these need no core

# usage: no argument at all -> 64
expect usage.no_args "64" "" "" --
# usage: an unknown option -> 64
expect usage.bogus_option "64" "" "" -- --bogus "$W/whatever"
# usage: --json without a core file -> 64
expect usage.json_no_file "64" "" "" -- --json
# usage: a file that does not exist -> 2, message names it
expect usage.nonexistent "2" "$W/no-such-core" "" -- "$W/no-such-core"
# usage: a directory instead of a core -> 2, message names it
mkdir "$W/adir"
expect usage.directory "2" "$W/adir" "" -- "$W/adir"

# not_elf: a text file -> 2, message names the file
for i in $(seq 200); do echo "this is a text file, not an ELF core ($i)"; done >"$W/text.core"
expect not_elf "2" "$W/text.core" "" -- "$W/text.core"
# empty: a zero-byte file -> 2
: >"$W/empty.core"
expect empty "2" "$W/empty.core" "" -- "$W/empty.core"
# short3: 3 bytes, the start of the ELF magic -> 2
printf '\177EL' >"$W/short3.core"
expect short3 "2" "$W/short3.core" "" -- "$W/short3.core"

# ---------------------------------------------------------------------------
# the base program and its core

mkdir "$W/base"
cat >"$W/base/crash.c" <<'EOF'
/* main -> f -> g; g writes through NULL.  Every function keeps a frame
 * pointer (the asm after the calls prevents tail calls). */
volatile int sink_v;
__attribute__((noinline)) void sink(void) { sink_v++; }
__attribute__((noinline)) void g(int *p) { *p = 42; sink(); __asm__ volatile(""); }
__attribute__((noinline)) void f(int *p) { g(p); sink(); __asm__ volatile(""); }
int main(int argc, char **argv)
{
#ifdef VARIANT
    sink();                     /* a different binary, another build-id */
#endif
    f(argc > 99 ? (int *)argv : (int *)0);
    sink();
    return 0;
}
EOF

# make_core DIR PROG: compile DIR/crash.c into DIR/PROG, crash it in DIR and
# leave its core in DIR/core.  Kernel dump first (core_pattern "core"), gdb's
# gcore as a fallback.
make_core() {
    local dir=$1 prog=$2 c
    # shellcheck disable=SC2086
    gcc ${MAKE_CORE_CFLAGS:--O2 -fno-omit-frame-pointer -g} -o "$dir/$prog" "$dir/crash.c" || return 1
    (cd "$dir" && ulimit -c unlimited && exec "./$prog") >/dev/null 2>&1
    for c in "$dir"/core "$dir"/core.*; do
        if [ -f "$c" ]; then
            [ "$c" = "$dir/core" ] || mv "$c" "$dir/core"
            return 0
        fi
    done
    echo "t_badinput: no kernel core for $prog; trying gdb gcore" >&2
    (cd "$dir" && timeout 60 gdb -nx -batch -ex run -ex "gcore $dir/core" "./$prog") >/dev/null 2>&1
    [ -f "$dir/core" ]
}

if ! make_core "$W/base" crash; then
    # shellcheck disable=SC2086
    # shellcheck disable=SC2046
    skip_rest "could not generate a base core" $(echo "$ALL_TESTS" | tr ' ' '\n' | grep -v '^usage\.\|^not_elf$\|^empty$\|^short3$')
    exit 0
fi
BASE=$W/base/core
file_size=0 note_offset=0 note_size=0 note_headers='' exe='' files=''
while IFS='=' read -r k v; do
    case $k in
    file_size) file_size=$v ;;
    note_offset) note_offset=$v ;;
    note_size) note_size=$v ;;
    note_headers) note_headers=$v ;;
    exe) exe=$v ;;
    files) files=${v//:/|} ;;
    esac
done < <(python3 "$MKBAD" info "$BASE")
echo "t_badinput: base core $BASE: $file_size bytes, notes at $note_offset+$note_size, exe $exe" >&2

# baseline: the untouched core unwinds completely (exit 0) through g, f, main.
# If this fails, the other results are less meaningful.
MUT=
run_cs "$BASE"
why=$(crash_reason)
if [ -n "$why" ]; then
    fail baseline "$why; cmd: $LAST_CMD"
elif [ "$RC" -ne 0 ]; then
    fail baseline "exit $RC on the untouched core, expected 0; stderr: $(first_err)"
elif ! grep -qw main "$W/out" || ! grep -qw f "$W/out" || ! grep -qw g "$W/out"; then
    fail baseline "output lacks one of the frames g, f, main"
else
    pass baseline
fi

# ---------------------------------------------------------------------------
# header-level damage

# elf_not_core: the program binary itself (an ET_DYN) -> 2, "... not a core"
MUT=
expect elf_not_core "2" "$W/base/crash" "core" -- "$W/base/crash"

# other_arch: e_machine = EM_ARM / EM_AARCH64 -> 2, message about the machine
mk other_arch.arm machine 40 &&
    expect other_arch.arm "2" "$W/other_arch.arm.core" "arch|machine|x86|arm" -- "$W/other_arch.arm.core"
mk other_arch.aarch64 machine 183 &&
    expect other_arch.aarch64 "2" "$W/other_arch.aarch64.core" "arch|machine|x86|aarch64|arm" -- "$W/other_arch.aarch64.core"

# elf32: e_ident[EI_CLASS] = ELFCLASS32 on a 64-bit core -> 2
mk elf32 class32 &&
    expect elf32 "2" "$W/elf32.core" "" -- "$W/elf32.core"

# big_endian: e_ident[EI_DATA] = ELFDATA2MSB -> 2
mk big_endian setbyte 5 2 &&
    expect big_endian "2" "$W/big_endian.core" "" -- "$W/big_endian.core"

# ---------------------------------------------------------------------------
# truncated: the core cut at many offsets: every 97 bytes in the first 4 KiB,
# every 4 KiB boundary, and inside every note of the PT_NOTE segment.  Any of
# 0/1/2 is fine; never a signal or a hang; when not 0, stderr is one or more
# lines, every one naming the file.

offs=$(
    seq 0 97 4095
    seq 4096 4096 $((file_size - 1))
    for h in ${note_headers//,/ }; do echo $((h + 4)) $((h + 13)) $((h + 40)) $((h + 200)); done | tr ' ' '\n'
    echo $((note_offset + note_size - 1))
)
offs=$(echo "$offs" | awk -v max="$file_size" '$1 < max' | sort -n -u)
tr_fail=() tr_hangs=0 tr_n=0 tr_start=$SECONDS
MUT=
for off in $offs; do
    tc=$W/trunc.core
    nfail=${#tr_fail[@]}
    head -c "$off" "$BASE" >"$tc"
    run_cs "$tc"
    tr_n=$((tr_n + 1))
    why=$(crash_reason)
    if [ -n "$why" ]; then
        tr_fail+=("at $off: $why")
        [ "$RC" -eq 124 ] || [ "$RC" -eq 137 ] && tr_hangs=$((tr_hangs + 1))
    elif ! in_set "$RC" "0 1 2"; then
        tr_fail+=("at $off: exit $RC")
    elif [ "$RC" -ne 0 ] && ! [ -s "$W/err" ]; then
        tr_fail+=("at $off: exit $RC with empty stderr")
    elif [ "$RC" -ne 0 ] && grep -v '^$' "$W/err" | grep -qvF -- "$tc"; then
        tr_fail+=("at $off: exit $RC, stderr line without the file name: $(grep -v '^$' "$W/err" | grep -vF -- "$tc" | head -n 1 | cut -c1-120)")
    elif [ "$RC" -ne 0 ] && ! err_names "$tc"; then
        tr_fail+=("at $off: exit $RC, no 'corestack: ' line naming the file")
    fi
    if [ ${#tr_fail[@]} -gt "$nfail" ]; then
        echo "t_badinput: truncated at $off: $LAST_CMD -> exit $RC; stderr: $(first_err)" >&2
    fi
    [ "$tr_hangs" -ge 2 ] && break        # do not spend minutes on hangs
done
echo "t_badinput: truncated: $tr_n runs in $((SECONDS - tr_start))s" >&2
if [ ${#tr_fail[@]} -eq 0 ]; then
    pass truncated
else
    LAST_CMD="head -c OFFSET $BASE > $W/trunc.core; $CS $W/trunc.core"
    fail truncated "${#tr_fail[@]} of $tr_n cuts failed (head -c OFFSET core): ${tr_fail[0]}${tr_fail[1]:+; ${tr_fail[1]}}${tr_fail[2]:+; ${tr_fail[2]}}"
fi

# ---------------------------------------------------------------------------
# lying_notes: the PT_NOTE segment or its notes lie about sizes -> 1 or 2

# first note (NT_PRSTATUS): n_descsz = 0xffffff00
mk lying_notes.descsz_huge note-descsz-huge &&
    expect lying_notes.descsz_huge "1 2" "$W/lying_notes.descsz_huge.core" "" -- "$W/lying_notes.descsz_huge.core"
# first note: n_namesz = 0xffffff00
mk lying_notes.namesz_huge note-namesz-huge &&
    expect lying_notes.namesz_huge "1 2" "$W/lying_notes.namesz_huge.core" "" -- "$W/lying_notes.namesz_huge.core"
# NT_PRSTATUS n_descsz runs 4 KiB past the end of the segment
mk lying_notes.prstatus_overrun note-overrun &&
    expect lying_notes.prstatus_overrun "1 2" "$W/lying_notes.prstatus_overrun.core" "" -- "$W/lying_notes.prstatus_overrun.core"
# the last (inessential) note's n_descsz runs past the segment: 0 is fine too
mk lying_notes.last_overrun note-overrun last &&
    expect lying_notes.last_overrun "0 1 2" "$W/lying_notes.last_overrun.core" "" -- "$W/lying_notes.last_overrun.core"
# PT_NOTE p_filesz ends in the middle of the NT_PRSTATUS registers
mk lying_notes.cut_in_prstatus note-cut &&
    expect lying_notes.cut_in_prstatus "1 2" "$W/lying_notes.cut_in_prstatus.core" "" -- "$W/lying_notes.cut_in_prstatus.core"
# PT_NOTE p_filesz ends in the middle of the last note's header: 0 is fine too
mk lying_notes.cut_last_header note-cut last &&
    expect lying_notes.cut_last_header "0 1 2" "$W/lying_notes.cut_last_header.core" "" -- "$W/lying_notes.cut_last_header.core"
# PT_NOTE p_filesz 1 MiB larger than the whole file
mk lying_notes.filesz_beyond_file note-filesz-big &&
    expect lying_notes.filesz_beyond_file "1 2" "$W/lying_notes.filesz_beyond_file.core" "" -- "$W/lying_notes.filesz_beyond_file.core"
# PT_NOTE p_filesz = 2^64-256: p_offset + p_filesz wraps around
mk lying_notes.filesz_wrap note-filesz-wrap &&
    expect lying_notes.filesz_wrap "1 2" "$W/lying_notes.filesz_wrap.core" "" -- "$W/lying_notes.filesz_wrap.core"
# NT_PRSTATUS with only 16 bytes of desc (notes rebuilt consistently)
mk lying_notes.prstatus_short prstatus-short 16 &&
    expect lying_notes.prstatus_short "1 2" "$W/lying_notes.prstatus_short.core" "" -- "$W/lying_notes.prstatus_short.core"
# no NT_PRSTATUS at all: no thread to unwind
mk lying_notes.prstatus_missing prstatus-missing &&
    expect lying_notes.prstatus_missing "1 2" "$W/lying_notes.prstatus_missing.core" "" -- "$W/lying_notes.prstatus_missing.core"
# no PT_NOTE segment at all (PT_NOTE -> PT_NULL)
mk lying_notes.no_note no-note &&
    expect lying_notes.no_note "1 2" "$W/lying_notes.no_note.core" "" -- "$W/lying_notes.no_note.core"
# every note's n_namesz = 0: the whole note stream is misparsed
mk lying_notes.no_names note-noname &&
    expect lying_notes.no_names "1 2" "$W/lying_notes.no_names.core" "" -- "$W/lying_notes.no_names.core"

# regs: registers in NT_PRSTATUS that point nowhere -> 1 or 2
mk regs.garbage regs-garbage &&
    expect regs.garbage "1 2" "" "" -- "$W/regs.garbage.core"
# rsp = rbp = last byte of the stack PT_LOAD: 8-byte reads straddle its end
mk regs.rsp_at_segment_end regs-rsp-edge &&
    expect regs.rsp_at_segment_end "1 2" "" "" -- "$W/regs.rsp_at_segment_end.core"

# ---------------------------------------------------------------------------
# phdr_lies: program headers that lie.  Header-level lies -> 1 or 2;
# a single bad PT_LOAD -> 0, 1 or 2 (0 only if the rest suffices).

# e_phoff 64 KiB beyond the end of the file
mk phdr_lies.phoff_beyond phoff-beyond &&
    expect phdr_lies.phoff_beyond "1 2" "$W/phdr_lies.phoff_beyond.core" "" -- "$W/phdr_lies.phoff_beyond.core"
# e_phoff = 2^64-16: e_phoff + e_phnum * e_phentsize wraps
mk phdr_lies.phoff_wrap phoff-wrap &&
    expect phdr_lies.phoff_wrap "1 2" "$W/phdr_lies.phoff_wrap.core" "" -- "$W/phdr_lies.phoff_wrap.core"
# e_phnum = 65535 (PN_XNUM, but there is no section header 0)
mk phdr_lies.phnum_65535 phnum-max &&
    expect phdr_lies.phnum_65535 "0 1 2" "$W/phdr_lies.phnum_65535.core" "" -- "$W/phdr_lies.phnum_65535.core"
# e_phentsize = 8, smaller than an Elf64_Phdr (libelf ignores e_phentsize
# and reads 56-byte entries, so a full unwind, exit 0, is acceptable)
mk phdr_lies.phentsize_8 phentsize 8 &&
    expect phdr_lies.phentsize_8 "0 1 2" "$W/phdr_lies.phentsize_8.core" "" -- "$W/phdr_lies.phentsize_8.core"
# the stack PT_LOAD: p_offset = p_filesz = 2^63
mk phdr_lies.load_2e63 load-huge &&
    expect phdr_lies.load_2e63 "0 1 2" "$W/phdr_lies.load_2e63.core" "" -- "$W/phdr_lies.load_2e63.core"
# the stack PT_LOAD: p_offset = 2^64-4096, p_filesz = 8192 (offset wraps)
mk phdr_lies.load_offset_wrap load-wrap &&
    expect phdr_lies.load_offset_wrap "0 1 2" "$W/phdr_lies.load_offset_wrap.core" "" -- "$W/phdr_lies.load_offset_wrap.core"
# the stack PT_LOAD: p_filesz = p_memsz + 1 MiB (past the end of the file)
mk phdr_lies.load_filesz_gt_memsz load-filesz-gt-memsz &&
    expect phdr_lies.load_filesz_gt_memsz "0 1 2" "$W/phdr_lies.load_filesz_gt_memsz.core" "" -- "$W/phdr_lies.load_filesz_gt_memsz.core"
# the first PT_LOAD claims 2^60 bytes in the file (p_filesz = p_memsz = 2^60): its bytes would
# run into the next segment's, so the header is named as impossible, not the file as truncated
if python3 "$MKBAD" phset "$BASE" "$W/imp1.core" 1 memsz 0x1000000000000000 2>/dev/null &&
   python3 "$MKBAD" phset "$W/imp1.core" "$W/phdr_lies.load_impossible.core" 1 filesz 0x1000000000000000 2>/dev/null; then
    MUT="program header 1 (PT_LOAD): p_memsz = p_filesz = 2^60"
    expect phdr_lies.load_impossible "1" "$W/phdr_lies.load_impossible.core" \
        "phdr_lies.load_impossible.core: program header 1 \(PT_LOAD at 0x[0-9a-f]+\) is impossible: 1152921504606846976 bytes at file offset [0-9]+ run into the next segment's bytes" \
        -- "$W/phdr_lies.load_impossible.core"
    if grep -q "truncated" "$W/err"; then fail phdr_lies.load_impossible.not_truncated "blamed on a truncation: $(first_err)"
    else pass phdr_lies.load_impossible.not_truncated; fi
fi
# the core cut in the middle of its memory: the message says how much is there and how much the
# headers describe
head -c $((file_size / 2)) "$BASE" > "$W/half.core"
MUT="the core cut to $((file_size / 2)) of $file_size bytes"
expect truncated.message "1" "$W/half.core" \
    "half.core: file is truncated: it has $((file_size / 2)) bytes, its program headers describe $file_size; [0-9]+ memory segment\(s\) missing or cut" \
    -- "$W/half.core"
# 40 bytes: the ELF magic, then the end of the file inside the ELF header
head -c 40 "$BASE" > "$W/head40.core"
MUT="the core cut to 40 bytes"
expect truncated.header "2" "$W/head40.core" \
    "head40.core: file is truncated: 40 bytes, shorter than the ELF header \(64 bytes\)" -- "$W/head40.core"
MUT=
# a PT_LOAD at vaddr 2^64-4096 with p_memsz 64 KiB: vaddr + memsz wraps
mk phdr_lies.load_vaddr_wrap load-vaddr-wrap &&
    expect phdr_lies.load_vaddr_wrap "0 1 2" "$W/phdr_lies.load_vaddr_wrap.core" "" -- "$W/phdr_lies.load_vaddr_wrap.core"

# overlapping_loads: another PT_LOAD moved onto the page holding rsp, so two
# PT_LOADs claim the top of the stack with different bytes -> no crash
mk overlapping_loads overlap-loads &&
    expect overlapping_loads "0 1 2" "" "" -- "$W/overlapping_loads.core"

# ---------------------------------------------------------------------------
# nt_file_lies: NT_FILE (the mapped files) lies -> 0, 1 or 2, never a hang.
# The files it names are opened by corestack: a FIFO must not block it,
# /dev/zero must not be read forever.

# count = 1,000,000 but the desc holds 15 entries
# a stderr line may name the core or the mapped file at fault
mapped="$files|$W/fifo|$W/adir|$W/loop1|/dev/zero"
mk nt_file_lies.count_1m ntfile-count 1000000 &&
    expect nt_file_lies.count_1m "0 1 2" "$W/nt_file_lies.count_1m.core|$mapped" "" -- "$W/nt_file_lies.count_1m.core"
# page_size = 0 (a division by it would trap)
mk nt_file_lies.pagesize_0 ntfile-pagesize 0 &&
    expect nt_file_lies.pagesize_0 "0 1 2" "$W/nt_file_lies.pagesize_0.core|$mapped" "" -- "$W/nt_file_lies.pagesize_0.core"
# page_size = 2^63 (file_ofs * page_size overflows)
mk nt_file_lies.pagesize_2e63 ntfile-pagesize 0x8000000000000000 &&
    expect nt_file_lies.pagesize_2e63 "0 1 2" "$W/nt_file_lies.pagesize_2e63.core|$mapped" "" -- "$W/nt_file_lies.pagesize_2e63.core"
# every entry has start > end and a file offset near 2^64 pages
mk nt_file_lies.ranges ntfile-ranges &&
    expect nt_file_lies.ranges "0 1 2" "$W/nt_file_lies.ranges.core|$mapped" "" -- "$W/nt_file_lies.ranges.core"
# the file names are not NUL-terminated (the last runs to the end of desc)
mk nt_file_lies.names_unterminated ntfile-noterm &&
    expect nt_file_lies.names_unterminated "0 1 2" "$W/nt_file_lies.names_unterminated.core|$mapped" "" -- "$W/nt_file_lies.names_unterminated.core"
# every mapped file is /dev/zero (endless zeros)
mk nt_file_lies.dev_zero ntfile-rename '*' /dev/zero &&
    expect nt_file_lies.dev_zero "0 1 2" "$W/nt_file_lies.dev_zero.core|$mapped" "" -- "$W/nt_file_lies.dev_zero.core"
# every mapped file is a FIFO nobody writes to: open() must not block
mkfifo "$W/fifo"
mk nt_file_lies.fifo ntfile-rename '*' "$W/fifo" &&
    expect nt_file_lies.fifo "0 1 2" "$W/nt_file_lies.fifo.core|$mapped" "" -- "$W/nt_file_lies.fifo.core"
# nt_file_lies.fifo_not_opened: a writer waits in open() on a FIFO that
# NT_FILE names; after corestack has read the core the writer still waits:
# the FIFO was never opened (opening a device or FIFO a core names can act)
mkfifo "$W/fifo2"
if mk nt_file_lies.fifo_not_opened ntfile-rename '*' "$W/fifo2"; then
    timeout 120 sh -c 'echo x >"$1"' sh "$W/fifo2" 2>/dev/null &
    writer=$!
    sleep 1                                   # let the writer block in open()
    run_cs "$W/nt_file_lies.fifo_not_opened.core"
    sleep 1
    if [ -n "$(crash_reason)" ]; then
        fail nt_file_lies.fifo_not_opened "$(crash_reason); cmd: $LAST_CMD"
    elif ! kill -0 "$writer" 2>/dev/null; then
        fail nt_file_lies.fifo_not_opened "the writer's open() returned: corestack opened the FIFO; cmd: $LAST_CMD"
    else
        pass nt_file_lies.fifo_not_opened
    fi
    kill "$writer" 2>/dev/null
    wait "$writer" 2>/dev/null
fi
# every mapped file is a directory
mk nt_file_lies.directory ntfile-rename '*' "$W/adir" &&
    expect nt_file_lies.directory "0 1 2" "$W/nt_file_lies.directory.core|$mapped" "" -- "$W/nt_file_lies.directory.core"
# every mapped file is a symlink loop (loop1 -> loop2 -> loop1)
ln -s loop2 "$W/loop1" && ln -s loop1 "$W/loop2"
mk nt_file_lies.symlink_loop ntfile-rename '*' "$W/loop1" &&
    expect nt_file_lies.symlink_loop "0 1 2" "$W/nt_file_lies.symlink_loop.core|$mapped" "" -- "$W/nt_file_lies.symlink_loop.core"
# every mapped file has an empty name
mk nt_file_lies.empty_name ntfile-rename '*' '' &&
    expect nt_file_lies.empty_name "0 1 2" "$W/nt_file_lies.empty_name.core|$mapped" "" -- "$W/nt_file_lies.empty_name.core"

# linkmap_lies: the dynamic linker's link_map in the core's memory names the
# loaded libraries too (l_name strings); rename libc there (the NT_FILE note
# is untouched) -> 0, 1 or 2, never a hang on the FIFO.
libc=$(echo "$files" | tr '|' '\n' | grep -m1 '/libc\.so')
libc_short=${libc#/usr}                 # ld.so records the /lib/... form
for lm in "fifo:$W/fifo" "dev_zero:/dev/zero" "directory:$W/adir"; do
    n=linkmap_lies.${lm%%:*}
    mk "$n" mem-strrep "$libc_short" "${lm#*:}" &&
        expect "$n" "0 1 2" "$W/$n.core|$mapped" "" -- "$W/$n.core"
done
# the link_map list is circular (last l_next -> first): bounded, no crash
mk linkmap_lies.cycle linkmap-cycle &&
    expect linkmap_lies.cycle "0 1 2" "" "" -- "$W/linkmap_lies.cycle.core"

# no_nt_file.*: the core without NT_FILE (its n_type changed), so its modules come from the
# link_map alone (libdwfl's dwfl_core_file_report, which opens each l_name itself): libc's
# l_name names a FIFO with a writer waiting on it, /dev/zero, a directory, a symlink loop.
# Never a hang; the FIFO is never opened (the writer still waits afterwards); the refused file
# is named on stderr.
if python3 "$MKBAD" note-set "$BASE" "$W/no_nt_file.core" 0x46494c45 type 0x7777 2>/dev/null; then
    expect no_nt_file "0 1" "" "" -- "$W/no_nt_file.core"
    mkfifo "$W/fifo3"
    for lm in "fifo:$W/fifo3" "dev_zero:/dev/zero" "directory:$W/adir" "symlink_loop:$W/loop1"; do
        n=no_nt_file.linkmap_${lm%%:*}
        if MUT=$(python3 "$MKBAD" mem-strrep "$W/no_nt_file.core" "$W/$n.core" "$libc_short" "${lm#*:}" 2>&1); then
            writer=
            if [ "${lm%%:*}" = fifo ]; then
                timeout 120 sh -c 'echo x >"$1"' sh "$W/fifo3" 2>/dev/null &
                writer=$!
                sleep 1                       # let the writer block in open()
            fi
            expect "$n" "0 1" "" "${lm#*:}" -- "$W/$n.core"
            if [ -n "$writer" ]; then
                sleep 1
                if [ "$RC" -lt 124 ] && ! kill -0 "$writer" 2>/dev/null; then
                    fail "$n.not_opened" "the writer's open() returned: corestack opened the FIFO"
                elif [ "$RC" -lt 124 ]; then
                    pass "$n.not_opened"
                fi
                kill "$writer" 2>/dev/null
                wait "$writer" 2>/dev/null
            fi
        else
            skip "$n" "mkbad mem-strrep failed: $MUT"
        fi
    done
fi

# no_symbols: a SPARC core whose NT_FILE n_namesz is 21 instead of 5 (the note and every note
# after it misparsed, so no mapped file is known): every output mode and the shell walk on
# without a crash, exit 0 or 1
S6=$TOP/tests/sparc/fixtures/s6-O2.core
if [ -f "$S6" ] && MUT=$(python3 "$MKBAD" note-set "$S6" "$W/no_symbols.core" 0x46494c45 namesz 21 2>&1); then
    for mode in text --json --json-lines --signature; do
        if [ $mode = text ]; then
            expect no_symbols.$mode "0 1" "" "" -- "$W/no_symbols.core"
        else
            expect no_symbols.${mode#--} "0 1" "" "" -- $mode "$W/no_symbols.core"
        fi
    done
    LAST_CMD="corestack -i no_symbols.core; bt; info sharedlibrary; frame 1; info frame; disassemble"
    printf 'bt\ninfo sharedlibrary\nframe 1\ninfo frame\ndisassemble\nthread apply all bt\n' |
        timeout "$TIMEOUT" "$CS" -i "$W/no_symbols.core" >"$W/out" 2>"$W/err"
    RC=$?
    if [ $RC -ge 124 ]; then fail no_symbols.shell "exit status $RC; cmd: $LAST_CMD"
    elif ! grep -q '^#1 ' "$W/out"; then fail no_symbols.shell "no frame #1 in bt: $(head -c 300 "$W/out")"
    else pass no_symbols.shell; fi
else
    skip_rest "no $S6 or mkbad note-set failed" no_symbols.text no_symbols.json no_symbols.json-lines \
        no_symbols.signature no_symbols.shell
fi

# ---------------------------------------------------------------------------
# missing_mapped_file: the crashed binary was deleted after the crash ->
# frames still printed (hex pcs), exit 0 or 1, a message naming the file.
MUT="core of $W/gone/crash_gone, binary deleted after the crash"
mkdir "$W/gone" && cp "$W/base/crash.c" "$W/gone/"
if make_core "$W/gone" crash_gone; then
    rm -f "$W/gone/crash_gone"
    expect missing_mapped_file "0 1" "" "" -- "$W/gone/core"
    # missing_mapped_file.pcs / .message: the specific promises
    if in_set "$RC" "0 1"; then
        if ! grep -Eq '0x[0-9a-fA-F]{6,}' "$W/out"; then
            fail missing_mapped_file.pcs "no hex pc in the output; cmd: $LAST_CMD"
        else
            pass missing_mapped_file.pcs
        fi
        if ! err_names "$W/gone/crash_gone"; then
            fail missing_mapped_file.message "no stderr line 'corestack: ...' naming the missing $W/gone/crash_gone; cmd: $LAST_CMD; stderr: $(first_err)"
        else
            pass missing_mapped_file.message
        fi
    else
        skip missing_mapped_file.pcs "corestack failed above"
        skip missing_mapped_file.message "corestack failed above"
    fi
else
    skip_rest "could not generate the core" missing_mapped_file missing_mapped_file.pcs missing_mapped_file.message
fi

# module_mismatch: the crashed binary was rebuilt (another build-id) after
# the crash -> exit 1 ("a module mismatched"), an error line naming the core,
# and the mismatched file named on stderr or stdout.
MUT="core of $W/mm/crash_mm, binary rebuilt with -DVARIANT after the crash"
mkdir "$W/mm" && cp "$W/base/crash.c" "$W/mm/"
if make_core "$W/mm" crash_mm &&
    gcc -DVARIANT -O2 -fno-omit-frame-pointer -g -o "$W/mm/crash_mm" "$W/mm/crash.c"; then
    expect module_mismatch "1" "$W/mm/core|$W/mm/crash_mm" "" -- "$W/mm/core"
    if [ "$RC" -eq 1 ]; then
        if grep -qF -- "$W/mm/crash_mm" "$W/out" "$W/err"; then
            pass module_mismatch.names_module
        else
            fail module_mismatch.names_module "the mismatched $W/mm/crash_mm is named nowhere; cmd: $LAST_CMD; stderr: $(first_err)"
        fi
    else
        skip module_mismatch.names_module "exit $RC above"
    fi
else
    skip_rest "could not generate the core" module_mismatch module_mismatch.names_module
fi

# ---------------------------------------------------------------------------
# fp_cycle: the saved rbp in f's frame points at its own slot, so main's frame
# gets the same CFA as f's: the walk must stop (exit 1) with a stop_reason
# about a cycle / a stack that does not grow, in bounded time.
if mk fp_cycle fp-cycle 0; then
    expect fp_cycle "1" "" "" -- --json "$W/fp_cycle.core"
    if [ "$RC" -lt 124 ]; then
        # fp_cycle.json: --json output parses, some thread has a stop_reason
        # that mentions a cycle / loop / non-growing stack
        if sr=$(python3 - "$W/out" <<'EOF'
import json, re, sys
try:
    doc = json.load(open(sys.argv[1]))
except Exception as e:
    print("--json output is not valid JSON: %s" % e); sys.exit(1)
found = []
def walk(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if k == "stop_reason":
                found.append(v)
            walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
walk(doc)
pat = re.compile(r"cycl|loop|grow|increas|monoton|same|repeat|recur|not advanc", re.I)
if not found:
    print("no stop_reason field in the --json output"); sys.exit(1)
if not any(isinstance(v, str) and pat.search(v) for v in found):
    print("stop_reason(s) %s do not mention a cycle / non-growing stack" % json.dumps(found)[:200]); sys.exit(1)
print(json.dumps(found)[:200])
EOF
        ); then
            echo "t_badinput: fp_cycle stop_reason: $sr" >&2
            pass fp_cycle.json
        else
            fail fp_cycle.json "$sr; cmd: $LAST_CMD; mutation: $MUT"
        fi
    else
        skip fp_cycle.json "corestack crashed or hung above"
    fi
    # fp_cycle.text: the same core without --json -> exit 1 as well
    expect fp_cycle.text "1" "" "" -- "$W/fp_cycle.core"
    # fp_cycle.frames: the trustworthy frames g and f are still printed
    if [ "$RC" -lt 124 ] && grep -qw g "$W/out" && grep -qw f "$W/out"; then
        pass fp_cycle.frames
    else
        fail fp_cycle.frames "text output lacks the trustworthy frames g and f (exit $RC); cmd: $LAST_CMD; mutation: $MUT"
    fi
else
    skip_rest "mkbad fp-cycle failed" fp_cycle.json fp_cycle.text fp_cycle.frames
fi

# ---------------------------------------------------------------------------
# garbage_stack: the stack PT_LOAD overwritten with random bytes (two seeds)
# -> exit 0 or 1, bounded, no crash.
for seed in 1 2; do
    mk garbage_stack.seed$seed garbage-stack $seed &&
        expect garbage_stack.seed$seed "0 1" "" "" -- "$W/garbage_stack.seed$seed.core"
done

# loads_zero: every PT_LOAD byte is zero (a dump whose memory was never written) -> no module
# is found in memory, the crashed thread's pc is outside every module: its walk stops early
# and says so (text and --json), exit 1, not one frame marked complete
if mk loads_zero loads-zero; then
    expect loads_zero "1" "" "thread [0-9]+: walk stopped early: pc 0x[0-9a-f]+ is outside every module" \
        -- "$W/loads_zero.core"
    LAST_CMD="$CS --json $W/loads_zero.core"
    if ! "$CS" --json "$W/loads_zero.core" 2>/dev/null | python3 -c '
import json, sys
t = json.load(sys.stdin)["threads"][0]
sys.exit(0 if t["crashed"] and t["complete"] is False and "outside every module" in t["stop_reason"] else 1)'; then
        fail loads_zero.json "the crashed thread is not incomplete with its reason in --json"
    else
        pass loads_zero.json
    fi
fi

# ---------------------------------------------------------------------------
# 2^63 in program headers and notes: offsets and sizes that wrap or overflow any
# signed or 64-bit arithmetic done carelessly -> a clear error or a partial
# result, never a crash.

# PT_NOTE p_offset = 2^63: no notes, so no threads -> 2
mk phdr_lies.note_offset_2e63 phset note offset 0x8000000000000000 &&
    expect phdr_lies.note_offset_2e63 "2" "$W/phdr_lies.note_offset_2e63.core" "" -- "$W/phdr_lies.note_offset_2e63.core"
# PT_NOTE p_filesz = 2^63: the notes are read up to the end of the file
mk phdr_lies.note_filesz_2e63 phset note filesz 0x8000000000000000 &&
    expect phdr_lies.note_filesz_2e63 "1 2" "$W/phdr_lies.note_filesz_2e63.core" "" -- "$W/phdr_lies.note_filesz_2e63.core"
# the stack PT_LOAD: p_memsz = 2^63 (vaddr + memsz wraps)
mk phdr_lies.load_memsz_2e63 phset stack memsz 0x8000000000000000 &&
    expect phdr_lies.load_memsz_2e63 "0 1 2" "$W/phdr_lies.load_memsz_2e63.core" "" -- "$W/phdr_lies.load_memsz_2e63.core"
# the stack PT_LOAD: p_vaddr = 2^63 (the stack is gone from where rsp points)
mk phdr_lies.load_vaddr_2e63 phset stack vaddr 0x8000000000000000 &&
    expect phdr_lies.load_vaddr_2e63 "1 2" "" "" -- "$W/phdr_lies.load_vaddr_2e63.core"
# NT_FILE count = 2^63 (count * 24 overflows)
mk nt_file_lies.count_2e63 ntfile-count 0x8000000000000000 &&
    expect nt_file_lies.count_2e63 "0 1 2" "$W/nt_file_lies.count_2e63.core|$mapped" "" -- "$W/nt_file_lies.count_2e63.core"

# ---------------------------------------------------------------------------
# Size: a core that really has a million NT_FILE entries (66 MB of notes) or
# 100,000 threads must be read in bounded time and memory (the usual ulimit -v
# and a 60 s timeout) with bounded diagnostics.

TIMEOUT=60
# nt_file_lies.million: 1,000,000 NT_FILE entries, 999,985 of them naming
# files that do not exist -> frames printed, exit 0 or 1
if mk nt_file_lies.million ntfile-many 1000000; then
    expect nt_file_lies.million "0 1" "$W/nt_file_lies.million.core|$mapped|/nonexistent/" "" -- "$W/nt_file_lies.million.core"
    # nt_file_lies.million.bounded_output: the crashed thread's frames, and a
    # bounded number of warnings (not one per missing file)
    nerr=$(wc -l <"$W/err")
    if [ "$RC" -ge 124 ]; then
        skip nt_file_lies.million.bounded_output "corestack crashed or hung above"
    elif ! grep -qw g "$W/out" || ! grep -qw main "$W/out"; then
        fail nt_file_lies.million.bounded_output "the frames g and main are missing (exit $RC)"
    elif [ "$nerr" -gt 100 ]; then
        fail nt_file_lies.million.bounded_output "$nerr lines on stderr: not bounded"
    else
        pass nt_file_lies.million.bounded_output
    fi
    rm -f "$W/nt_file_lies.million.core"
else
    skip nt_file_lies.million.bounded_output "mkbad ntfile-many failed"
fi
# thread_count NAME N: the run above printed N thread headers, the first the crashed
# thread unwound through g and main.
thread_count() {
    local name=$1 want=$2 nth first
    nth=$(grep -c '^Thread ' "$W/out")
    first=$(awk '/^Thread /{n++} n==1' "$W/out")
    if [ "$RC" -ge 124 ]; then
        skip "$name" "corestack crashed or hung above"
    elif [ "$nth" -ne "$want" ]; then
        fail "$name" "$nth thread headers on stdout, expected $want"
    elif ! echo "$first" | grep -q crashed || ! echo "$first" | grep -qw g ||
        ! echo "$first" | grep -qw main; then
        fail "$name" "the first thread is not the crashed one unwound through g and main"
    else
        pass "$name"
    fi
}
# threads_100k: 100,000 NT_PRSTATUS notes (the crashed thread, then copies
# with zero registers) -> every thread printed, exit 0 or 1
if mk threads_100k threads 100000 zero; then
    expect threads_100k "0 1" "$W/threads_100k.core" "" -- "$W/threads_100k.core"
    # threads_100k.count: 100,000 thread headers; the crashed thread first,
    # unwound through g, f and main
    thread_count threads_100k.count 100000
    rm -f "$W/threads_100k.core"
else
    skip threads_100k.count "mkbad threads failed"
fi
# threads_1500k: 1,500,000 NT_PRSTATUS notes, over the 1,000,000-thread cap -> the
# rest are said to be ignored, 1,000,000 threads printed, the crashed one first, within
# 150 MB of address space: the notes are read through a window, and a thread is kept as 24
# bytes (with its registers for the first 16 MiB of them; the others' read again when it is
# walked), not as its registers (the whole note segment and the registers of a million
# threads take over a gigabyte)
if mk threads_1500k threads 1500000 zero; then
    SAVED_VCAP=$VCAP SAVED_TIMEOUT=$TIMEOUT
    [ -n "$VCAP" ] && VCAP=150000
    TIMEOUT=120
    expect threads_1500k "0 1" "$W/threads_1500k.core" "more than 1000000 threads; the rest are ignored" \
        -- "$W/threads_1500k.core"
    thread_count threads_1500k.count 1000000
    # threads_1500k.no_nt_file: the same core without NT_FILE, within the same 150 MB: libdwfl's
    # search for modules in the core's memory (which reads the 534 MB of notes whole) is not
    # made, and that is said
    if python3 "$MKBAD" note-set "$W/threads_1500k.core" "$W/threads_1500k.core" 0x46494c45 type 0x7777 2>/dev/null; then
        expect threads_1500k.no_nt_file "1" "$W/threads_1500k.core" \
            "no NT_FILE note, and [0-9]+ bytes of notes: over the 64 MiB bound of libdwfl's search for modules" \
            -- "$W/threads_1500k.core"
        nth=$(grep -c '^Thread ' "$W/out")
        if [ "$RC" -ge 124 ]; then skip threads_1500k.no_nt_file.count "corestack crashed or hung above"
        elif [ "$nth" -ne 1000000 ]; then fail threads_1500k.no_nt_file.count "$nth thread headers, expected 1000000"
        else pass threads_1500k.no_nt_file.count; fi
    fi
    VCAP=$SAVED_VCAP TIMEOUT=$SAVED_TIMEOUT
    rm -f "$W/threads_1500k.core" "$W/out"
else
    skip threads_1500k.count "mkbad threads failed"
fi
TIMEOUT=20

# ---------------------------------------------------------------------------
# stop_reason_matches NAME REGEX: the last run printed --json whose first
# stop_reason matches REGEX (extended, case insensitive) -> PASS/FAIL NAME
stop_reason_matches() {
    local name=$1 re=$2 sr
    if [ "$RC" -ge 124 ]; then
        skip "$name" "corestack crashed or hung above"
        return
    fi
    sr=$(grep -o '"stop_reason": *"[^"]*"' "$W/out" | head -n 1)
    if echo "$sr" | grep -Eqi -- "$re"; then
        pass "$name"
    else
        fail "$name" "stop_reason ${sr:-missing} does not match /$re/; cmd: $LAST_CMD${MUT:+; mutation: $MUT}"
    fi
}

# sp_down: f's saved rbp points below the stack pointer, so main's frame
# would lie below f's: the walk stops (exit 1) saying the stack did not grow,
# and does not pass for a clean end.
if mk sp_down sp-down; then
    expect sp_down "1" "" "" -- --json "$W/sp_down.core"
    stop_reason_matches sp_down.reason "grow"
else
    skip sp_down.reason "mkbad sp-down failed"
fi

# A base core without CFI: main -> a -> b -> c -> d, d writes through NULL;
# only frame records and prologue analysis lead outward.
mkdir "$W/deep"
cat >"$W/deep/crash.c" <<'EOF'
volatile int sink_v;
__attribute__((noinline)) void sink(void) { sink_v++; }
__attribute__((noinline)) void d(int *p) { sink(); *p = 42; sink(); __asm__ volatile(""); }
__attribute__((noinline)) void c(int *p) { d(p); sink(); __asm__ volatile(""); }
__attribute__((noinline)) void b(int *p) { c(p); sink(); __asm__ volatile(""); }
__attribute__((noinline)) void a(int *p) { b(p); sink(); __asm__ volatile(""); }
int main(int argc, char **argv)
{
    a(argc > 99 ? (int *)argv : (int *)0);
    sink();
    return 0;
}
EOF
if MAKE_CORE_CFLAGS="-O2 -fno-omit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables" \
    make_core "$W/deep" chain; then
    SAVED_BASE=$BASE
    BASE=$W/deep/core
    # fp_cycle.two_records / three_records: the frame-pointer chain loops
    # back to its first record after 2 / 3 records -> exit 1, the stack did
    # not grow
    for cyc in "two_records 1" "three_records 2"; do
        n=fp_cycle.${cyc% *}
        if mk "$n" fp-backlink "${cyc#* }"; then
            expect "$n" "1" "" "" -- --json "$W/$n.core"
            stop_reason_matches "$n.reason" "grow"
        else
            skip "$n.reason" "mkbad fp-backlink failed"
        fi
    done
    # sp_down.nocfi: the same as sp_down, followed by frame records only
    if mk sp_down.nocfi sp-down; then
        expect sp_down.nocfi "1" "" "" -- --json "$W/sp_down.nocfi.core"
        stop_reason_matches sp_down.nocfi.reason "grow"
    else
        skip sp_down.nocfi.reason "mkbad sp-down failed"
    fi
    BASE=$SAVED_BASE
else
    skip_rest "could not generate the core without CFI" fp_cycle.two_records fp_cycle.two_records.reason \
        fp_cycle.three_records fp_cycle.three_records.reason sp_down.nocfi sp_down.nocfi.reason
fi

# terminal_injection: NT_FILE names the executable "/tmp/x<newline>#9  0xdead in evil () at
# x.c:1<newline><ESC>[2J": printed raw, it would forge a frame line and clear the screen.  Text
# output and every warning show it escaped (\n, \x1b), each on its one line.
evil=$'/tmp/x\n#9  0xdead in evil () at x.c:1\n\e[2J'
if [ -n "$exe" ] && mk terminal_injection ntfile-rename "$exe" "$evil"; then
    run_cs "$W/terminal_injection.core"
    why=$(crash_reason)
    if [ -n "$why" ]; then
        fail terminal_injection "$why"
    elif grep -q '^#9  0xdead' "$W/out" "$W/err"; then
        fail terminal_injection "a forged frame line: $(grep -h '^#9  0xdead' "$W/out" "$W/err" | head -1)"
    elif grep -q $'\e' "$W/out" "$W/err"; then
        fail terminal_injection "an escape character reached the output"
    elif grep -v '^$' "$W/err" | grep -qv '^corestack: '; then
        fail terminal_injection "a warning broken into lines: $(grep -v '^$' "$W/err" | grep -v '^corestack: ' | head -1)"
    elif ! grep -qF 'x\n#9  0xdead in evil () at x.c:1\n\x1b[2J' "$W/out" "$W/err"; then
        fail terminal_injection "the name is not shown escaped: $(head -c 300 "$W/err")"
    else
        pass terminal_injection
    fi
    # the shell's module list and frame details
    LAST_CMD="corestack -i terminal_injection.core; info sharedlibrary; info frame"
    printf 'info sharedlibrary\nframe 1\ninfo frame\n' |
        timeout "$TIMEOUT" "$CS" -i "$W/terminal_injection.core" >"$W/out" 2>"$W/err"
    RC=$?
    if [ $RC -ge 124 ]; then fail terminal_injection.shell "exit status $RC"
    elif grep -q $'\e' "$W/out" "$W/err" || grep -q '^#9  0xdead' "$W/out"; then
        fail terminal_injection.shell "raw control characters in the shell's output"
    else pass terminal_injection.shell; fi
fi

# terminal_injection.note: a file's code mapped again far from its module (a copy) is named in
# -v's note ("a copy of FILE's code") by its NT_FILE name, a file name the process chose: the
# note shows it escaped, in the text and in the shell's frame details
cat > "$W/copied.c" <<'EOF'
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#define NOINLINE __attribute__((noinline, noipa))
static volatile int sink;
NOINLINE void crash(void) { abort(); }
NOINLINE void via_copy(void (*f)(void)) { f(); sink++; }
extern char __executable_start[];
int main(int argc, char **argv)
{
	/* argv[1], a copy of this program: its page of via_copy mapped 512 MiB after its
	 * offset 0, and called there */
	int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;
	uintptr_t at = (uintptr_t)via_copy - (uintptr_t)__executable_start;
	char *base = mmap(NULL, 1 << 30, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || base == MAP_FAILED || mmap(base, 4096, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED)
		return 2;
	char *copy = mmap(base + (512 << 20), 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd,
			  (off_t)(at & ~(uintptr_t)4095));
	if (copy == MAP_FAILED)
		return 2;
	((void (*)(void (*)(void)))(copy + (at & 4095)))(crash);
	return sink;
}
EOF
evil=$'lib\n#9  0xdead in evil () from x\e]0;title\a.so'
if gcc -O1 -fno-omit-frame-pointer -no-pie -o "$W/copied" "$W/copied.c" 2>/dev/null && cp "$W/copied" "$W/$evil" &&
   python3 "$TOP/tests/lib/mkcore.py" crash "$W/copied.core" "$W/copied" "$W/$evil" >/dev/null 2>&1; then
    LAST_CMD="corestack -v copied.core"
    timeout "$TIMEOUT" "$CS" -v "$W/copied.core" >"$W/out" 2>"$W/err"
    RC=$?
    n=$(sed -n 's/^#\([0-9]*\) .* from a copy of .*/\1/p' "$W/out" | head -1)
    if [ $RC -ge 124 ]; then fail terminal_injection.note "exit status $RC"
    elif ! grep -q "; a copy of $W/lib" "$W/out"; then
        fail terminal_injection.note "no note names the copy: $(grep -A1 'a copy of' "$W/out" | head -2 | cat -v)"
    elif grep -q '^#9  0xdead' "$W/out" || grep -q $'[\e\a]' "$W/out" "$W/err"; then
        fail terminal_injection.note "raw control characters or a forged frame line: $(grep -A1 'a copy of' "$W/out" | cat -v | head -3)"
    elif ! grep -qF "lib\\n#9  0xdead in evil () from x\\x1b]0;title\\x07.so's code outside its module" "$W/out"; then
        fail terminal_injection.note "the note does not show the name escaped: $(grep 'a copy of' "$W/out" | tail -1)"
    else pass terminal_injection.note; fi
    LAST_CMD="corestack -i copied.core; frame $n; info frame"
    printf 'frame %s\ninfo frame\n' "${n:-6}" | timeout "$TIMEOUT" "$CS" -i "$W/copied.core" >"$W/out" 2>"$W/err"
    RC=$?
    if [ $RC -ge 124 ]; then fail terminal_injection.note.shell "exit status $RC"
    elif ! grep -q "note: a copy of $W/lib" "$W/out"; then
        fail terminal_injection.note.shell "no note names the copy in frame ${n:-?}: $(grep -i note "$W/out" | head -2 | cat -v)"
    elif grep -q '^#9  0xdead' "$W/out" || grep -q $'[\e\a]' "$W/out" "$W/err"; then
        fail terminal_injection.note.shell "raw control characters or a forged frame line in the shell's output"
    else pass terminal_injection.note.shell; fi
else
    skip terminal_injection.note "gcc or mkcore.py could not make the program that calls a copy of its code, or its core"
fi

# shrunk_while_open: the core loses its tail while corestack has it open (the shell keeps it
# open between commands).  Reading a thread's stack from the lost part is a failed read that
# stops the walk with its reason, never SIGBUS (as reading through the file's mapping was).
TP=$B/tests/threads-g
if [ -x "$TP" ] && python3 "$TOP/tests/lib/mkcore.py" crash "$W/shrink.core" "$TP" >/dev/null 2>&1; then
    LAST_CMD="corestack -i shrink.core; the core truncated to 64 KiB; thread 3; bt"
    { sleep 1; truncate -s 65536 "$W/shrink.core"; printf 'thread 3\nbt\n'; } |
        timeout "$TIMEOUT" "$CS" -i "$W/shrink.core" >"$W/out" 2>"$W/err"
    rc=$?
    if [ $rc -ge 124 ]; then
        fail shrunk_while_open "exit status $rc (a signal or the timeout)"
    elif ! grep -q '^(walk stopped: cannot read memory at ' "$W/out"; then
        fail shrunk_while_open "thread 3's walk did not stop on a failed read: $(tail -3 "$W/out" | tr '\n' '|')"
    else
        pass shrunk_while_open
    fi
else
    skip shrunk_while_open "no core of $TP (make test-progs)"
fi

# notes_padded: large notes between the threads' groups of notes (as NT_X86_XSTATE is, 11 KiB
# a thread, on an x86-64 with AMX), some larger than corestack's read of the notes, and groups
# of unequal length: corestack reads the notes past the large ones, not through them, and
# must print for 24 threads what it prints for the same threads' notes without the padding.
if [ -x "$TP" ] && python3 "$TOP/tests/lib/mkcore.py" crash "$W/pad0.core" "$TP" >/dev/null 2>&1 &&
   python3 "$MKBAD" notes-padded "$W/pad0.core" "$W/padded.core" 24 pad 2>/dev/null &&
   python3 "$MKBAD" notes-padded "$W/pad0.core" "$W/plain.core" 24 plain 2>/dev/null; then
    LAST_CMD="corestack padded.core; corestack plain.core (mkbad notes-padded 24 pad|plain)"
    timeout "$TIMEOUT" "$CS" "$W/padded.core" >"$W/out" 2>"$W/err"
    rc=$?
    timeout "$TIMEOUT" "$CS" "$W/plain.core" >"$W/out2" 2>"$W/err2"
    rc2=$?
    if [ $rc != 0 ] || [ $rc2 != 0 ] || [ -s "$W/err" ] || [ -s "$W/err2" ]; then
        fail notes_padded "exit $rc and $rc2, stderr: $(head -2 "$W/err" "$W/err2" | tr '\n' '|')"
    elif ! tail -n +2 "$W/out" | cmp -s - <(tail -n +2 "$W/out2"); then
        fail notes_padded "the outputs differ: $(diff "$W/out" "$W/out2" | sed -n 2,5p | tr '\n' '|')"
    elif [ "$(grep -c '^Thread ' "$W/out")" != 24 ]; then
        fail notes_padded "$(grep -c '^Thread ' "$W/out") threads printed, expected 24"
    else
        pass notes_padded
    fi
    rm -f "$W/pad0.core" "$W/padded.core" "$W/plain.core"
else
    skip notes_padded "no core of $TP (make test-progs), or mkbad notes-padded failed"
fi

# core_name_escaped: a core's own file name (chosen by whoever named it: core.%e takes the
# crashing program's name) reaches the terminal escaped in every mode and in every error.
ESC=$(printf '\033')
if [ -e "$W/shrink.core" ] || python3 "$TOP/tests/lib/mkcore.py" crash "$W/shrink.core" "$TP" >/dev/null 2>&1; then
    python3 "$TOP/tests/lib/mkcore.py" crash "$W/name${ESC}[31m.core" "$TP" >/dev/null 2>&1
    printf 'not an ELF file' > "$W/bad${ESC}[31m.core"
    raw=""
    for mode in "" --signature --summary --json; do
        LAST_CMD="corestack $mode on a core named with ESC"
        timeout "$TIMEOUT" "$CS" $mode "$W/name${ESC}[31m.core" "$W/bad${ESC}[31m.core" >"$W/out" 2>"$W/err"
        grep -q "$ESC" "$W/out" "$W/err" && raw="$raw ${mode:-text}"
    done
    printf 'bt\n' | timeout "$TIMEOUT" "$CS" -i "$W/name${ESC}[31m.core" >"$W/out" 2>"$W/err"
    grep -q "$ESC" "$W/out" "$W/err" && raw="$raw shell"
    timeout "$TIMEOUT" "$CS" -i "$W/bad${ESC}[31m.core" </dev/null >"$W/out" 2>"$W/err"
    grep -q "$ESC" "$W/out" "$W/err" && raw="$raw shell-error"
    if [ -n "$raw" ]; then fail core_name_escaped "raw ESC in:$raw"
    else pass core_name_escaped; fi
else
    skip core_name_escaped "no core of $TP (make test-progs)"
fi

# module_shrunk_while_open: a file the core names (its program) loses its content while the
# shell has it open; libelf and libdwfl read such files through mappings, where a load from
# the lost part raises SIGBUS: one line naming the core and status 2, never a crash.
if [ -x "$TP" ] && mkdir -p "$W/shrinkmod" && cp "$TP" "$W/shrinkmod/prog" &&
   python3 "$TOP/tests/lib/mkcore.py" crash "$W/shrinkmod.core" "$W/shrinkmod/prog" >/dev/null 2>&1; then
    LAST_CMD="corestack -i shrinkmod.core; its program truncated to 0 bytes; bt; disassemble main"
    { printf 'x/4xg main\n'; sleep 1; truncate -s 0 "$W/shrinkmod/prog"; printf 'bt\ndisassemble main\ninfo sharedlibrary\n'; } |
        timeout "$TIMEOUT" "$CS" -i "$W/shrinkmod.core" >"$W/out" 2>"$W/err"
    rc=$?
    if [ $rc -ge 124 ]; then
        fail module_shrunk_while_open "exit status $rc (a signal or the timeout)"
    elif [ $rc = 2 ] && ! grep -q "^corestack: $W/shrinkmod.core: a file it names shrank while corestack read it" "$W/err"; then
        fail module_shrunk_while_open "status 2 without its message: $(tail -2 "$W/err" | tr '\n' '|')"
    else
        pass module_shrunk_while_open
    fi
else
    skip module_shrunk_while_open "no core of a copy of $TP (make test-progs)"
fi

# module_shrunk_after_threads: the program of a core of several threads loses its content
# right after the second thread is printed (an LD_PRELOAD shim truncating it at the CLI's
# second look at the clock, which follows each thread); the third thread's walk reads the
# lost part and dies of SIGBUS.  The two threads printed before it still reach a pipe,
# whole, before the one-line message (stdout is buffered between threads, and the SIGBUS
# handler cannot flush it with stdio).
if [ -x "$TP" ] && mkdir -p "$W/shrinklate" && cp "$TP" "$W/shrinklate/prog" &&
   python3 "$TOP/tests/lib/mkcore.py" crash "$W/shrinklate.core" "$W/shrinklate/prog" >/dev/null 2>&1 &&
   timeout "$TIMEOUT" "$CS" "$W/shrinklate.core" >"$W/full" 2>/dev/null &&
   gcc -shared -fPIC -o "$W/shrink_at_clock.so" "$TOP/tests/badinput/shrink_at_clock.c" -ldl 2>"$W/err"; then
    LAST_CMD="corestack shrinklate.core | cat, its program truncated after the second thread"
    SHRINK_PATH=$W/shrinklate/prog SHRINK_CALL=2 LD_PRELOAD=$W/shrink_at_clock.so \
        ASAN_OPTIONS=verify_asan_link_order=0:$ASAN_OPTIONS \
        timeout "$TIMEOUT" "$CS" "$W/shrinklate.core" 2>"$W/err" | cat >"$W/out"
    RC=${PIPESTATUS[0]}
    # the full output up to the third thread's header
    awk '/^Thread / && ++n == 3 { exit } { print }' "$W/full" >"$W/want"
    if [ "$RC" -ge 124 ]; then
        fail module_shrunk_after_threads "exit status $RC (a signal or the timeout)"
    elif [ "$(grep -c '^Thread ' "$W/full")" -lt 3 ]; then
        fail module_shrunk_after_threads "the core has fewer than 3 threads"
    elif [ "$RC" != 2 ] || ! grep -q "^corestack: $W/shrinklate.core: a file it names shrank while corestack read it" "$W/err"; then
        fail module_shrunk_after_threads "exit status $RC, want 2 with the bus error line: $(tail -2 "$W/err" | tr '\n' '|')"
    elif [ "$(head -c "$(wc -c <"$W/want")" "$W/out")" != "$(cat "$W/want")" ]; then
        fail module_shrunk_after_threads "the two threads printed before it are lost: $(grep -c '^Thread ' "$W/out") thread(s) on stdout"
    else
        pass module_shrunk_after_threads
    fi
else
    skip module_shrunk_after_threads "no core of a copy of $TP (make test-progs) or no gcc"
fi

# shrunk_while_notes_read: the core is truncated at the moment its PT_NOTE is read (an
# LD_PRELOAD shim around pread, truncating the file at the first read at or past the PT_NOTE's
# offset).  Reading notes through the file's mapping died of SIGBUS there; they are read with
# pread, so it is a one-line "truncated".
note_at() {
    python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read()
phoff, = struct.unpack_from("<Q", d, 32)
phentsize, phnum = struct.unpack_from("<HH", d, 54)
for i in range(phnum):
    typ, = struct.unpack_from("<I", d, phoff + i * phentsize)
    if typ == 4:
        print(struct.unpack_from("<Q", d, phoff + i * phentsize + 8)[0])
        break' "$1"
}
if [ -n "${TP:-}" ] && [ -e "$W/shrink.core" ] && python3 "$TOP/tests/lib/mkcore.py" crash "$W/notes.core" "$TP" >/dev/null 2>&1 &&
   NOTE_AT=$(note_at "$W/notes.core") && [ -n "$NOTE_AT" ] &&
   gcc -shared -fPIC -o "$W/shrink_notes.so" "$TOP/tests/badinput/shrink_notes.c" -ldl 2>"$W/err"; then
    LAST_CMD="corestack notes.core, truncated when its notes are read"
    SHRINK_PATH=$W/notes.core SHRINK_AT=$NOTE_AT LD_PRELOAD=$W/shrink_notes.so \
        ASAN_OPTIONS=verify_asan_link_order=0:$ASAN_OPTIONS \
        timeout "$TIMEOUT" "$CS" "$W/notes.core" >"$W/out" 2>"$W/err"
    RC=$?
    if [ $RC != 2 ]; then
        fail shrunk_while_notes_read "exit status $RC, want 2"
    elif [ "$(wc -l < "$W/err")" != 1 ] || ! grep -q "^corestack: $W/notes.core: file is truncated: it shrank while its notes" "$W/err"; then
        fail shrunk_while_notes_read "message: $(head -3 "$W/err")"
    else
        pass shrunk_while_notes_read
    fi
else
    skip shrunk_while_notes_read "no core of ${TP:-threads-g} or no gcc"
fi

exit 0

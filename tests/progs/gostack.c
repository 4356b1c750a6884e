/* gostack: Go's switches to the scheduler's stack, imitated.
 *
 *   main -> runtime.morestack.abi0 | runtime.systemstack | runtime.asmcgocall
 *             (argv[1]: morestack, systemstack, asmcgocall)
 *             switches %rsp to a second stack ("g0") and calls crash_on_g0 there
 *   crash_on_g0                                        stores through a null pointer
 *   main -> runtime.mcall                                (argv[1]: mcall-entry)
 *             stores through a null pointer before its switch: the thread's registers
 *             are in it, its caller main is on the stack it has not left
 *
 * Go's runtime.morestack and runtime.systemstack (runtime/asm_amd64.s) load %rsp from
 * g0.sched.sp and CALL on that stack; their CFI still says CFA = %rsp + 8, so the word
 * above their frame on g0 is whatever an earlier call left there, not a caller.  Here that
 * word, and the rest of the second stack, hold stale return addresses into main.  Go's own
 * traceback ends at them (runtime/traceback.go: functions that write SP end it), and so
 * must the walk.  %rbp is left as main's, as Go's morestack leaves the frame pointer of the
 * function that grew its stack: a frame-pointer walk from there would skip frames. */
#include <stdint.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noipa))

volatile int sink;
int *volatile nowhere;

/* the second stack, and the top the switch loads into %rsp (16-byte aligned) */
static uintptr_t g0_stack[512] __attribute__((aligned(16)));
uintptr_t g0_sp;

NOINLINE void crash_on_g0(void)
{
    *nowhere = sink;              /* SIGSEGV */
}

/* Go 1.17 and later name assembly functions with the suffix ".abi0"; one of each form */
void go_morestack(void (*fn)(void)) __asm__("runtime.morestack.abi0");
void go_systemstack(void (*fn)(void)) __asm__("runtime.systemstack");
void go_asmcgocall(void (*fn)(void)) __asm__("runtime.asmcgocall");
void go_mcall(void (*fn)(void)) __asm__("runtime.mcall");

/* Each: %rsp = g0_sp; call *%rdi; ud2 (FIRST: instructions before the switch).  With CFI
 * where the build has it, as Go's own. */
#ifdef __GCC_HAVE_DWARF2_CFI_ASM
#define CFI(x) x "\n"
#else
#define CFI(x)
#endif
#define SWITCH_AND_CALL(name, first)                            \
    "    .text\n"                                               \
    "    .globl " name "\n"                                     \
    "    .type " name ", @function\n"                           \
    name ":\n"                                                  \
    CFI("    .cfi_startproc")                                   \
    first                                                       \
    "    movq g0_sp(%rip), %rax\n"                              \
    "    movq %rax, %rsp\n"                                     \
    "    call *%rdi\n"                                          \
    "    ud2\n"                                                 \
    CFI("    .cfi_endproc")                                     \
    "    .size " name ", .-" name "\n"
#define NULL_STORE "    movq nowhere(%rip), %rax\n    movl $1, (%rax)\n"
__asm__(SWITCH_AND_CALL("runtime.morestack.abi0", "") SWITCH_AND_CALL("runtime.systemstack", "")
        SWITCH_AND_CALL("runtime.asmcgocall", "") SWITCH_AND_CALL("runtime.mcall", NULL_STORE));

NOINLINE int main(int argc, char **argv)
{
    /* stale words: return addresses into main, as an earlier call on g0 leaves them */
    for (size_t i = 0; i < sizeof g0_stack / sizeof g0_stack[0]; i++)
        g0_stack[i] = (uintptr_t)&main + 16;
    g0_sp = (uintptr_t)&g0_stack[256];
    const char *mode = argc > 1 ? argv[1] : "morestack";
    if (strcmp(mode, "systemstack") == 0)
        go_systemstack(crash_on_g0);
    else if (strcmp(mode, "asmcgocall") == 0)
        go_asmcgocall(crash_on_g0);
    else if (strcmp(mode, "mcall-entry") == 0)
        go_mcall(crash_on_g0);
    else
        go_morestack(crash_on_g0);
    return sink;
}

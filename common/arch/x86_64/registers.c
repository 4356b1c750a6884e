/* x86-64 registers: DWARF numbering (x86-64 psABI 3.6.2, figure 3.36: 0 rax, 1 rdx, 2 rcx,
 * 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15, 16 the return address), NT_PRSTATUS and
 * ptrace's user_regs_struct, and the architecture table that reaches every x86-64 rule. */
#include "x86_64.h"
#include "error.h"
#include "symbols.h"
#include "util.h"

#include <capstone.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

static const char *const reg_names[NREGS] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
};

/* struct user_regs_struct (arch/x86/include/asm/user_64.h) word index -> DWARF number, -1
 * for words that are not unwound (orig_rax, segment registers, eflags, fs/gs base). */
static const int user_regs_dwarf[27] = {
	15, 14, 13, 12, RBP, RBX, 11, 10, 9, 8, RAX, RCX, RDX, RSI, RDI, -1,
	RIP, -1, -1, RSP, -1, -1, -1, -1, -1, -1, -1,
};

/* Fills OUT (DWARF numbers) from the 27 words of struct user_regs_struct, as in
 * NT_PRSTATUS and ptrace's NT_PRSTATUS register set. */
static void from_user_regs(const uint64_t words[27], struct cst_regs *out)
{
	uint64_t valid = 0;         /* the numbers are 0..16: no bounds to check */
#pragma GCC unroll 27               /* a move per register, the table folded in: once a thread */
	for (int i = 0; i < 27; i++) {
		int r = user_regs_dwarf[i];
		if (r >= 0) {
			out->val[r] = words[i];
			valid |= 1ull << r;
		}
	}
	cst_regs_clear(out);
	out->valid[0] = valid;
}

/* NT_PRSTATUS is struct elf_prstatus (include/uapi/linux/elfcore.h), 336 bytes on x86-64:
 * pr_cursig (u16) at 12, pr_pid (i32) at 32, pr_reg (27 x u64, user_regs_struct) at 112. */
static int prstatus(const uint8_t *d, size_t size, struct cst_regs *out, int *tid, int *cursig)
{
	if (size < 112 + 27 * 8)
		return -CST_E_BAD_NOTE;
	uint16_t sig;
	int32_t pid;
	uint64_t words[27];
	memcpy(&sig, d + 12, 2);
	memcpy(&pid, d + 32, 4);
	memcpy(words, d + 112, sizeof words);
	*cursig = sig;
	*tid = pid;
	from_user_regs(words, out);
	return 0;
}

/* The ladder, top to bottom: the kernel's signal frame where the code is a signal restorer
 * (first: a runtime's own restorer may have CFI of an ordinary function, Go's has); CFI
 * where the code has it; the function's own instructions where it has none; the
 * frame-pointer chain when the function is not known. */
static const struct cst_strategy ladder[] = {
	{ cst_x86_64_signal_step, CST_FOUND_SIGNAL, CST_STRATEGY_SIGNAL },
	{ cst_cfi_step,      CST_FOUND_CFI,      0 },
	{ cst_analysis_step, CST_FOUND_PROLOGUE, 0 },
	{ cst_fp_step,       CST_FOUND_FP,       0 },
	{ NULL,              CST_FOUND_CONTEXT,  0 },
};

/* glibc's functions that begin a thread's stack: _start (sysdeps/x86_64/start.S), the
 * thread entries of clone and clone3 (sysdeps/unix/sysv/linux/x86_64/clone.S, clone3.S),
 * and the dynamic linker's _dl_start_user (sysdeps/x86_64/dl-machine.h, RTLD_START). */
static const char *const outermost[] = {
	"_start", "__clone", "clone", "__clone3", "clone3", "_dl_start_user", NULL,
};

/* Go's runtime.mcall, runtime.morestack, runtime.systemstack and runtime.asmcgocall (a cgo
 * call; runtime/asm_amd64.s) load %rsp from the scheduler's stack (g0.sched.sp) and call
 * there, while their CFI still says CFA = %rsp + 8: what lies above their frame on g0 is an
 * earlier call's leftovers.  Go's own traceback ends at them too (runtime/traceback.go: mcall
 * is the top of a stack, and a function that writes SP ends a printed traceback).  The
 * ".abi0" of their symbols since Go 1.17 is not compared (func_listed). */
static const char *const stack_switches[] = {
	"runtime.mcall", "runtime.morestack", "runtime.systemstack", "runtime.asmcgocall", NULL,
};

/* Go's runtime.sigpanic: the signal handler pushes the faulting pc as its return address
 * (runtime/signal_amd64.go, sigctxt.preparePanic), and Go's own traceback looks that pc up
 * as it is (runtime/traceback.go, the frame whose callee is sigpanic). */
static const char *const fault_callees[] = { "runtime.sigpanic", NULL };

#ifdef __x86_64__
/* PTRACE_GETREGSET NT_PRSTATUS gives struct user_regs_struct (ptrace(2); the kernel's
 * regset for NT_PRSTATUS is the general registers, arch/x86/kernel/ptrace.c). */
static int ptrace_regs(pid_t tid, struct cst_regs *out)
{
	uint64_t words[27];
	struct iovec iov = { .iov_base = words, .iov_len = sizeof words };
	if (ptrace(PTRACE_GETREGSET, tid, (void *)(uintptr_t)NT_PRSTATUS, &iov) < 0 ||
	    iov.iov_len != sizeof words)
		return -CST_E_PTRACE;
	from_user_regs(words, out);
	return 0;
}
#define PTRACE_REGS ptrace_regs
#else
#define PTRACE_REGS NULL    /* another host's ptrace gives its own layout */
#endif

/* gdb's numbers are the DWARF ones for rax..r15 (0-15) and rip (16): System V AMD64 psABI,
 * "DWARF Register Number Mapping", which gdb's amd64 target follows. */
static const struct cst_gdb_reg gdb_regs[NREGS] = {
	{ 0, 0 }, { 1, 1 }, { 2, 2 }, { 3, 3 }, { 4, 4 }, { 5, 5 }, { 6, 6 }, { 7, 7 }, { 8, 8 },
	{ 9, 9 }, { 10, 10 }, { 11, 11 }, { 12, 12 }, { 13, 13 }, { 14, 14 }, { 15, 15 }, { 16, 16 },
};

const struct cst_arch cst_arch_x86_64 = {
	.name = "x86_64",
	.elf_machine = EM_X86_64,
	.elf_class = ELFCLASS64,
	.big_endian = false,
	.addr_size = 8,
	.pc_reg = RIP,
	.sp_reg = RSP,
	.fp_reg = RBP,
	/* rbx, rbp, r12-r15: x86-64 psABI 3.2.1, figure 3.4 (DWARF numbers, figure 3.36) */
	.preserved_regs = 1u << 3 | 1u << 6 | 1u << 12 | 1u << 13 | 1u << 14 | 1u << 15,
	.nregs = NREGS,
	.reg_names = reg_names,
	.gdb_regs = gdb_regs,
	.n_gdb_regs = NREGS,
	.disassembler = true,
	.cs_arch = CS_ARCH_X86,
	.cs_mode = CS_MODE_64,
	.cs_syntax = CS_OPT_SYNTAX_ATT,      /* gdb's default syntax */
	.ptrace_regs = PTRACE_REGS,
	.prstatus = prstatus,
	.ladder = ladder,
	.outermost = outermost,
	.stack_switches = stack_switches,
	.fault_callees = fault_callees,
	.analyse = cst_x86_64_analyse,
	.call_before = cst_x86_64_call_before,
	.tail_targets = cst_x86_64_tail_targets,
	.reg_writes = cst_x86_64_reg_writes,
	.code_addresses = cst_x86_64_code_addresses,
	.resolve_stub = cst_x86_64_resolve_stub,
	.guess_func = cst_x86_64_guess_func,
	.signal_frame = cst_x86_64_signal_frame,
	.cache_free = cst_x86_64_cache_free,
};

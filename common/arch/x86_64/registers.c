/* x86-64 registers: DWARF numbering (x86-64 psABI 3.6.2, figure 3.36: 0 rax, 1 rdx, 2 rcx,
 * 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15, 16 the return address), NT_PRSTATUS and
 * ptrace's user_regs_struct, and the architecture table that reaches every x86-64 rule. */
#include "x86_64.h"
#include "error.h"
#include "symbols.h"
#include "util.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

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

void cst_x86_64_from_user_regs(const uint64_t words[27], struct cst_regs *out)
{
	cst_regs_clear(out);
	for (int i = 0; i < 27; i++)
		if (user_regs_dwarf[i] >= 0)
			cst_reg_set(out, user_regs_dwarf[i], words[i]);
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
	cst_x86_64_from_user_regs(words, out);
	return 0;
}

/* The ladder, top to bottom: CFI where the code has it; the function's own instructions
 * where it has none; the frame-pointer chain when the function is not known. */
static const struct cst_strategy ladder[] = {
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

const struct cst_arch cst_arch_x86_64 = {
	.name = "x86_64",
	.elf_machine = EM_X86_64,
	.elf_class = ELFCLASS64,
	.big_endian = false,
	.addr_size = 8,
	.pc_reg = RIP,
	.sp_reg = RSP,
	.fp_reg = RBP,
	.nregs = NREGS,
	.reg_names = reg_names,
	.prstatus = prstatus,
	.ladder = ladder,
	.outermost = outermost,
	.analyse = cst_x86_64_analyse,
	.call_before = cst_x86_64_call_before,
	.tail_targets = cst_x86_64_tail_targets,
	.resolve_stub = cst_x86_64_resolve_stub,
	.guess_func = cst_x86_64_guess_func,
	.cache_free = cst_x86_64_cache_free,
};

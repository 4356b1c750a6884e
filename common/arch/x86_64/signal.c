/* x86-64 Linux signal frames, recognised by the restorer's code whatever its symbol (glibc's
 * __restore_rt, Go's runtime.sigreturn, any runtime's own sa_restorer), as gdb's
 * amd64_linux_sigtramp_p does, and crossed with the kernel's rt_sigframe layout. */
#include "x86_64.h"
#include "error.h"
#include "row.h"

#include <dwarf.h>
#include <string.h>

/* The sa_restorer the kernel makes a handler return to: rt_sigreturn(2) by number,
 *	48 c7 c0 0f 00 00 00	mov $0xf,%rax	(__NR_rt_sigreturn, arch/x86/entry/syscalls/syscall_64.tbl)
 *	0f 05			syscall
 * glibc's __restore_rt (sysdeps/unix/sysv/linux/x86_64/libc_sigaction.c) and Go's
 * runtime.sigreturn (runtime/sys_linux_amd64.s) are exactly these bytes. */
static const uint8_t restorer[9] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };

bool cst_x86_64_signal_frame(struct cst_unwind *u, uint64_t pc)
{
	uint8_t b[sizeof restorer];
	return pc && cst_target_read(u->env->target, pc, b, sizeof b) == 0 &&
	       memcmp(b, restorer, sizeof b) == 0;
}

/* When the handler returns to the restorer, rsp points just past the return address the
 * kernel pushed: at struct rt_sigframe's uc (arch/x86/include/asm/sigframe.h: pretcode, then
 * struct ucontext uc, then siginfo).  struct ucontext (include/uapi/asm-generic/ucontext.h,
 * which arch/x86/include/uapi/asm/ucontext.h includes): uc_flags (8), uc_link (8), uc_stack
 * (stack_t, 24), then uc_mcontext, a struct sigcontext at byte 40.  struct sigcontext
 * (arch/x86/include/uapi/asm/sigcontext.h, the 64-bit layout): r8..r15, rdi, rsi, rbp, rbx,
 * rdx, rax, rcx, rsp, rip, 8 bytes each from byte 0. */
#define UC_MCONTEXT 40
enum {
	SC_R8 = 0, SC_RDI = 64, SC_RSI = 72, SC_RBP = 80, SC_RBX = 88, SC_RDX = 96, SC_RAX = 104,
	SC_RCX = 112, SC_RSP = 120, SC_RIP = 128,
};

/* DW_OP_breg7 N: rsp + N, the address of a sigcontext slot (each register's rule, as glibc's
 * hand-written CFI for __restore_rt says the same); the CFA, the interrupted rsp, is read
 * from its slot. */
#define SLOT(off) { .atom = DW_OP_breg7, .number = UC_MCONTEXT + (off) }
static const Dwarf_Op slot_ops[NREGS] = {
	[RAX] = SLOT(SC_RAX), [RDX] = SLOT(SC_RDX), [RCX] = SLOT(SC_RCX), [RBX] = SLOT(SC_RBX),
	[RSI] = SLOT(SC_RSI), [RDI] = SLOT(SC_RDI), [RBP] = SLOT(SC_RBP), [RSP] = SLOT(SC_RSP),
	[8] = SLOT(SC_R8), [9] = SLOT(SC_R8 + 8), [10] = SLOT(SC_R8 + 16), [11] = SLOT(SC_R8 + 24),
	[12] = SLOT(SC_R8 + 32), [13] = SLOT(SC_R8 + 40), [14] = SLOT(SC_R8 + 48),
	[15] = SLOT(SC_R8 + 56), [RIP] = SLOT(SC_RIP),
};
static const Dwarf_Op cfa_ops[2] = { SLOT(SC_RSP), { .atom = DW_OP_deref } };

int cst_x86_64_signal_step(struct cst_unwind *u, struct cst_frame *f, const struct cst_func *fn,
			   struct cst_frame *c, struct cst_step *out)
{
	if (!cst_x86_64_signal_frame(u, f->pc))
		return -CST_E_DECODE;       /* a signal frame CFI marks: CFI reads it */
	struct cst_row row = {
		.cfa_kind = CST_CFA_EXPR, .cfa_ops = cfa_ops, .cfa_nops = 2, .ra_col = -1,
		.frame_record = 1,          /* the interrupted frame is a full context */
	};
	for (int r = 0; r < NREGS; r++)
		if (r != RSP)               /* the CFA */
			row.reg[r] = (struct cst_rule){ .kind = CST_RULE_EXPR, .nops = 1, .ops = &slot_ops[r] };
	bool frame_record;
	int rc = cst_row_step(u, &row, f, c, out, &frame_record);
	if (rc < 0)
		return rc;
	uint64_t sp = 0;
	cst_reg_get(&f->regs, RSP, &sp);
	snprintf(c->note, sizeof c->note, "registers from the signal frame's ucontext at 0x%" PRIx64, sp);
	return 1;
}

/* SPARC: registers, core layouts, the register-window step, the return-register rule for
 * leaf context, and Linux signal frames.  Instruction analysis is in arch/sparc/code.c;
 * the register numbering and the window layout are described in arch/sparc/sparc.h.
 *
 * The step, for a frame F whose function is known:
 *   - F is the innermost frame (or was interrupted by a signal) and the analysis says no
 *     `save` is in effect at its pc (a leaf, a prologue before `save`, the delay slot of
 *     `return`): the caller runs in the same window and resumes at %o7 + 8, provided no
 *     instruction on the way from the entry to the pc can have written %o7 (the analysis
 *     tracks copies, so `mov %o7,%g1; call T; mov %g1,%o7` is followed too).  Provenance
 *     `return-register`; the caller gets the marker `recovered caller` (a walk over saved
 *     windows, like DTrace's ustack(), never sees it).
 *   - otherwise the window walk: the caller's outs are F's ins, the caller resumes at
 *     %i7 + 8 with %sp = %i6, and its locals and ins are read from the save area at its
 *     %sp (+ bias).  Provenance `register-window`.
 * When %o7 may have been overwritten in leaf context the walk takes the window instead and
 * says so: the frame above then comes from %i7, and the call found at %i7 names the missing
 * caller (the "%i7 rule", done by unwind.c's tail-call check for every frame). */
#include "sparc.h"
#include "error.h"
#include "symbols.h"
#include "unwind.h"

#include <capstone.h>
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *const reg_names[SPARC_NREGS] = {
	"g0", "g1", "g2", "g3", "g4", "g5", "g6", "g7",
	"o0", "o1", "o2", "o3", "o4", "o5", "sp", "o7",
	"l0", "l1", "l2", "l3", "l4", "l5", "l6", "l7",
	"i0", "i1", "i2", "i3", "i4", "i5", "fp", "i7",
};

static uint64_t be(const uint8_t *p, unsigned size)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v = v << 8 | p[i];
	return v;
}

/* NT_PRSTATUS, struct elf_prstatus (include/uapi/linux/elfcore.h): pr_cursig (u16) at 12,
 * pr_pid (i32) at PID_OFF, pr_reg (NGREG words of W bytes) at REG_OFF, pc in word 33. */
static int prstatus(const uint8_t *d, size_t size, struct cst_regs *out, int *tid, int *cursig,
		    unsigned w, size_t pid_off, size_t reg_off, size_t ngreg)
{
	if (size < reg_off + ngreg * w)
		return -CST_E_BAD_NOTE;
	*cursig = (int)be(d + 12, 2);
	*tid = (int32_t)be(d + pid_off, 4);
	cst_regs_clear(out);
	for (int r = 0; r < 32; r++)
		cst_reg_set(out, r, be(d + reg_off + w * (size_t)r, w));
	cst_reg_set(out, SPARC_PC, be(d + reg_off + w * 33, w));
	cst_reg_set(out, SPARC_G0, 0);
	return 0;
}

/* sparc64: 64-bit longs, 408 bytes: pr_pid at 32, pr_reg at 112.
 * pr_reg is elf_gregset_t of 36 u64 (arch/sparc/include/asm/elf_64.h ELF_NGREG 36;
 * /usr/sparc64-linux-gnu/include/bits/procfs.h), filled by genregs64_get
 * (arch/sparc/kernel/ptrace_64.c): g0-g7, o0-o7, l0-l7, i0-i7 (the locals and ins read
 * from the window at %sp + 2047), tstate, tpc, tnpc, y. */
static int prstatus64(const uint8_t *d, size_t size, struct cst_regs *out, int *tid, int *cursig)
{
	return prstatus(d, size, out, tid, cursig, 8, 32, 112, 36);
}

/* 32-bit: 32-bit longs, 228 bytes: pr_pid at 24, pr_reg at 72.  pr_reg is 38 u32 (elf_32.h ELF_NGREG 38;
 * bits/procfs-extra.h elf_gregset_t32), in genregs32_get's order (ptrace_32.c, and
 * ptrace_64.c for compat tasks): g0-g7, o0-o7, l0-l7, i0-i7, psr, pc, npc, y, wim, tbr. */
static int prstatus32(const uint8_t *d, size_t size, struct cst_regs *out, int *tid, int *cursig)
{
	return prstatus(d, size, out, tid, cursig, 4, 24, 72, 38);
}

/* ---- the window ------------------------------------------------------------------------ */

/* Bytes from a %sp value to its save area: the V9 bias for an odd %sp in 64-bit code. */
static uint64_t bias_of(const struct cst_arch *a, uint64_t sp)
{
	return a->addr_size == 8 && (sp & 1) ? SPARC_STACK_BIAS : 0;
}

/* Reads the 16-word save area at target address BASE (l0-l7, i0-i7) into registers 16-31
 * of R.  Returns 0 or -CST_E_MEMORY (the fault noted on U). */
static int read_save_area(struct cst_unwind *u, uint64_t base, struct cst_regs *r)
{
	const struct cst_arch *a = u->env->arch;
	for (int k = 0; k < 16; k++) {
		uint64_t v, at = base + (uint64_t)k * a->addr_size;
		if (cst_target_read_word(u->env->target, at, a->addr_size, &v) < 0) {
			cst_unwind_note_fault(u, at);
			return -CST_E_MEMORY;
		}
		cst_reg_set(r, SPARC_L0 + k, v);
	}
	return 0;
}

/* The save area of the window whose %sp is SP. */
static int read_window(struct cst_unwind *u, uint64_t sp, struct cst_regs *r)
{
	return read_save_area(u, sp + bias_of(u->env->arch, sp), r);
}

static bool have_ins(const struct cst_regs *r)
{
	for (int k = SPARC_I0; k <= SPARC_I7; k++)
		if (!cst_reg_valid(r, k))
			return false;
	return true;
}

/* The window walk: caller C of F from F's ins.  Returns 1, 0 at the outermost frame (%fp or
 * %i7 zero: _start and thread entries clear %fp), or -CST_E_MEMORY. */
static int window_step(struct cst_unwind *u, struct cst_frame *f, struct cst_frame *c)
{
	const struct cst_arch *a = u->env->arch;
	uint64_t sp = f->sp, fp = 0, ra = 0;
	if (!have_ins(&f->regs)) {
		int rc = read_window(u, sp, &f->regs);
		if (rc < 0)
			return rc;
	}
	cst_reg_get(&f->regs, SPARC_FP, &fp);
	cst_reg_get(&f->regs, SPARC_I7, &ra);
	if (fp == 0 || ra == 0)
		return 0;
	cst_regs_clear(&c->regs);
	cst_reg_set(&c->regs, SPARC_G0, 0);
	for (int k = 0; k < 8; k++) {
		uint64_t v = 0;
		cst_reg_get(&f->regs, SPARC_I0 + k, &v);
		cst_reg_set(&c->regs, SPARC_O0 + k, v);
	}
	cst_reg_set(&c->regs, SPARC_PC, (ra + 8) & (a->addr_size == 4 ? 0xffffffffull : ~0ull));
	/* the caller's own window, for the next step; a window we cannot read stays unknown */
	struct cst_regs w = c->regs;
	if (read_window(u, fp, &w) == 0)
		c->regs = w;
	else
		u->stop_detail[0] = 0;
	f->cfa = fp + bias_of(a, fp);
	c->found_by = CST_FOUND_WINDOW;
	return 1;
}

/* ---- signal frames ----------------------------------------------------------------------- */

/* glibc's sa_restorer stubs (sysdeps/unix/sysv/linux/sparc/sparc64/sigaction.c and
 * sparc32/sigaction.c, __rt_sigreturn_stub / __sigreturn_stub):
 *	mov __NR_rt_sigreturn (101), %g1	0x82102065
 *	ta  0x6d (64-bit) / ta 0x10 (32-bit)	0x91d0206d / 0x91d02010
 * 32-bit code also has mov __NR_sigreturn (216), %g1 (0x821020d8) for non-rt frames.
 * The kernel makes the handler return to the stub (%o7 = restorer - 8). */
#define MOV_RT_SIGRETURN 0x82102065u
#define MOV_SIGRETURN    0x821020d8u
#define TA_0x6D          0x91d0206du
#define TA_0x10          0x91d02010u

static int stub_kind(struct cst_unwind *u, uint64_t pc)
{
	uint64_t w0, w1;
	if ((pc & 3) || cst_target_read_word(u->env->target, pc, 4, &w0) < 0 ||
	    cst_target_read_word(u->env->target, pc + 4, 4, &w1) < 0)
		return 0;
	bool wide = u->env->arch->addr_size == 8;
	if (w1 != (wide ? TA_0x6D : TA_0x10))
		return 0;
	return w0 == MOV_RT_SIGRETURN ? 2 : !wide && w0 == MOV_SIGRETURN ? 1 : 0;
}

static bool is_signal_frame(struct cst_unwind *u, uint64_t pc)
{
	return stub_kind(u, pc) != 0;
}

/* PT_REGS_MAGIC (arch/sparc/include/uapi/asm/ptrace.h): pt_regs.magic = magic | trap type */
#define PT_REGS_MAGIC 0x57ac6c00u

/* The interrupted registers from the signal frame that F (the stub's frame) points to.
 * F's %sp is the %sp the handler was entered with (setup_rt_frame: %sp = frame - bias).
 *
 * sparc64, struct rt_signal_frame (arch/sparc/kernel/signal_64.c):
 *	struct sparc_stackf ss		192 bytes (a register window + argument slots)
 *	siginfo_t info			128
 *	struct pt_regs regs		at 320: u_regs[16] (g0-g7, o0-o7), tstate, tpc, tnpc,
 *					y (u32), magic (u32)   (asm/ptrace.h)
 * 32-bit, struct rt_signal_frame32 (signal32.c): sparc_stackf32 (96), compat_siginfo (128),
 * then struct pt_regs32 at 224: psr, pc, npc, y, u_regs[16] (u32 each); the non-rt
 * struct signal_frame32 has its pt_regs32 right after the 96-byte window.
 * The kernel copies the interrupted window (flushed to its %sp) into the frame's first 16
 * words (setup_rt_frame: copy_in_user(sf, %fp + bias, sizeof(struct reg_window))): its
 * locals and ins are read from there. */
static int signal_step(struct cst_unwind *u, struct cst_frame *f, const struct cst_func *fn,
		       struct cst_frame *c, struct cst_step *out)
{
	const struct cst_arch *a = u->env->arch;
	out->fp_record = true;
	int kind = stub_kind(u, f->pc);
	if (!kind)
		return -CST_E_DECODE;
	uint64_t frame = f->sp + bias_of(a, f->sp), pc, v, magic = PT_REGS_MAGIC;
	uint64_t uregs, pcat;
	unsigned w = a->addr_size;
	if (w == 8) {
		uint64_t regs = frame + 192 + 128;
		uregs = regs;
		pcat = regs + 16 * 8 + 8;
		if (cst_target_read_word(u->env->target, regs + 16 * 8 + 3 * 8 + 4, 4, &magic) < 0) {
			cst_unwind_note_fault(u, regs + 16 * 8 + 3 * 8 + 4);
			return -CST_E_MEMORY;
		}
	} else {
		uint64_t regs = frame + 96 + (kind == 2 ? 128 : 0);
		uregs = regs + 16;
		pcat = regs + 4;
	}
	/* qemu-user's signal frames leave magic 0 */
	if ((magic & ~0x1ffu) != PT_REGS_MAGIC && magic != 0)
		return -CST_E_DECODE;
	if (cst_target_read_word(u->env->target, pcat, w, &pc) < 0) {
		cst_unwind_note_fault(u, pcat);
		return -CST_E_MEMORY;
	}
	if (pc == 0 || (pc & 3))
		return -CST_E_DECODE;
	cst_regs_clear(&c->regs);
	for (int k = 0; k < 16; k++) {
		if (cst_target_read_word(u->env->target, uregs + (uint64_t)k * w, w, &v) < 0) {
			cst_unwind_note_fault(u, uregs + (uint64_t)k * w);
			return -CST_E_MEMORY;
		}
		cst_reg_set(&c->regs, k, v);
	}
	cst_reg_set(&c->regs, SPARC_G0, 0);
	cst_reg_set(&c->regs, SPARC_PC, pc);
	struct cst_regs win = c->regs;
	if (read_save_area(u, frame, &win) == 0)
		c->regs = win;
	f->cfa = frame;
	c->found_by = CST_FOUND_WINDOW;
	snprintf(c->note, sizeof c->note, "registers from the signal frame at 0x%" PRIx64, frame);
	return 1;
}

/* ---- signal numbers ---------------------------------------------------------------------- */

/* SPARC Linux numbers (arch/sparc/include/uapi/asm/signal.h) -> generic ones.  SIGEMT (7)
 * has no generic number. */
static int generic_signal(int signo)
{
	static const unsigned char map[32] = {
		0, 1, 2, 3, 4, 5, 6, 0 /* EMT */, 8, 9, 7 /* BUS */, 11, 31 /* SYS */, 13, 14, 15,
		23 /* URG */, 19 /* STOP */, 20 /* TSTP */, 18 /* CONT */, 17 /* CHLD */, 21, 22,
		29 /* IO */, 24, 25, 26, 27, 28, 30 /* PWR */, 10 /* USR1 */, 12 /* USR2 */,
	};
	return signo >= 0 && signo < 32 ? map[signo] : signo;
}

/* ---- the strategies ---------------------------------------------------------------------- */

/* Leaf context: F (a context frame) runs in its caller's window at its pc.  The caller
 * resumes at the return register + 8, with F's registers; when no register can still hold
 * the return address, the window walk gives the caller's caller (caller_skipped).  Does not
 * apply when F is not in leaf context or its function cannot be analysed. */
static int leaf_step(struct cst_unwind *u, struct cst_frame *f, const struct cst_func *fn,
		     struct cst_frame *c, struct cst_step *out)
{
	struct sparc_at_pc at;
	out->fp_record = true;
	out->caller_skipped = false;
	if (!u->cur_is_context || f->signal_frame || !fn || cst_sparc_at_pc(u, fn, f->pc, &at) < 0 ||
	    at.window != SW_CALLER)
		return -CST_E_DECODE;
	int reg = (at.ra_regs >> SPARC_O7) & 1 ? SPARC_O7 : at.ra_regs ? __builtin_ctz(at.ra_regs) : -1;
	uint64_t ra;
	if (reg >= 0 && cst_reg_get(&f->regs, reg, &ra)) {
		c->regs = f->regs;
		cst_reg_set(&c->regs, SPARC_PC, (ra + 8) & (u->env->arch->addr_size == 4 ? 0xffffffffull : ~0ull));
		f->cfa = f->sp + bias_of(u->env->arch, f->sp);
		c->found_by = CST_FOUND_RETURN_REG;
		if (reg != SPARC_O7)
			snprintf(c->note, sizeof c->note, "return address kept in %%%s", reg_names[reg]);
		out->fp_record = false;
		out->same_sp = true;       /* the caller runs in this window */
		return 1;
	}
	int rc = window_step(u, f, c);
	if (rc > 0) {
		out->caller_skipped = true;
		snprintf(c->note, sizeof c->note,
			 "%%o7 may have been overwritten before pc 0x%" PRIx64 ": its caller is not known", f->pc);
	}
	return rc;
}

/* CFI, whose frame-record flag means on SPARC that the callee has a register window of its
 * own: it has unless the caller's %sp is its own (a leaf in its caller's window). */
static int cfi_step(struct cst_unwind *u, struct cst_frame *f, const struct cst_func *fn,
		    struct cst_frame *c, struct cst_step *out)
{
	int rc = cst_cfi_step(u, f, fn, c, out);
	uint64_t sp, csp;
	if (rc > 0 && cst_reg_get(&f->regs, SPARC_SP, &sp)) {
		out->fp_record = cst_reg_get(&c->regs, SPARC_SP, &csp) && csp != sp;
		out->same_sp = u->cur_is_context && !out->fp_record;
	}
	return rc;
}

/* The window walk, for every frame the strategies above leave; in a context frame whose
 * paths disagree on `save` at its pc the window is a guess, and the note says so. */
static int register_window_step(struct cst_unwind *u, struct cst_frame *f, const struct cst_func *fn,
				struct cst_frame *c, struct cst_step *out)
{
	struct sparc_at_pc at;
	out->fp_record = true;
	out->caller_skipped = false;
	int rc = window_step(u, f, c);
	if (rc > 0 && u->cur_is_context && fn && cst_sparc_at_pc(u, fn, f->pc, &at) == 0 &&
	    at.window == SW_UNKNOWN) {
		out->caller_skipped = true;
		snprintf(c->note, sizeof c->note,
			 "no single window state at pc 0x%" PRIx64 ": its caller may be missing", f->pc);
	}
	return rc;
}

/* The ladder, top to bottom: a context frame in leaf context (its return address still in
 * a register, which CFI may not know was overwritten); CFI; the kernel's signal frame; the
 * register window saved at %sp. */
static const struct cst_strategy ladder[] = {
	{ leaf_step,            CST_FOUND_RETURN_REG, CST_STRATEGY_CONTEXT },
	{ cfi_step,             CST_FOUND_CFI,        CST_STRATEGY_NOT_SIGNAL },
	{ signal_step,          CST_FOUND_WINDOW,     CST_STRATEGY_SIGNAL },
	{ register_window_step, CST_FOUND_WINDOW,     0 },
	{ NULL,                 CST_FOUND_CONTEXT,    0 },
};

/* glibc's functions that begin a thread's stack on SPARC: _start
 * (sysdeps/sparc/sparc64/start.S, sparc32/start.S), clone's thread entry
 * (sysdeps/unix/sysv/linux/sparc/sparc64/clone.S, sparc32/clone.S; there is no clone3) and
 * the dynamic linker's _dl_start_user (sysdeps/sparc/sparc64/dl-machine.h, RTLD_START). */
static const char *const outermost[] = { "_start", "__clone", "clone", "_dl_start_user", NULL };

/* gdb's sparc64 numbers: g0-g7, o0-o7, l0-l7, i0-i7 are 0-31 as in DWARF; the pc is gdb's
 * 80 and npc 81 (gdb's sparc64 numbering, as `maint print registers` of gdb-multiarch 13
 * shows it for a sparc64 program under qemu-sparc64: 32-79 floating point, 80 pc, 81 npc,
 * 82 state, 83 fsr, 84 fprs, 85 y).  The plugin knows no 32-bit SPARC numbers. */
#define GDB_SPARC64_PC 80
#define GDB_SPARC64_NPC 81
#define R(n) { n, n }
static const struct cst_gdb_reg gdb_regs64[] = {
	R(0), R(1), R(2), R(3), R(4), R(5), R(6), R(7), R(8), R(9), R(10), R(11), R(12), R(13),
	R(14), R(15), R(16), R(17), R(18), R(19), R(20), R(21), R(22), R(23), R(24), R(25), R(26),
	R(27), R(28), R(29), R(30), R(31), { SPARC_PC, GDB_SPARC64_PC },
};
#undef R
_Static_assert(SPARC_NREGS == 32, "gdb_regs64 lists the 32 integer registers");

/* flushw (SPARC V9 manual, A.21 "Flush Register Windows": op 2, op3 0x2b, all else 0) */
#define FLUSHW 0x81580000u

/* One table per ELF machine: sparc64 (EM_SPARCV9), and 32-bit V8+ (EM_SPARC32PLUS) and V8
 * (EM_SPARC), which differ in the machine number, in the registers the gdb plugin knows, and
 * in capstone's mode (capstone disassembles V9 and V8 code; V8+ code is not offered to it). */
#define SPARC_TABLE(var, label, machine, class, size, bias, prs, gdb, ngdb, npc, disasm, mode, flush) \
	const struct cst_arch var = {                                    \
		.name = label, .elf_machine = machine, .elf_class = class,  \
		.addr_size = size, .stack_bias = bias, .prstatus = prs,     \
		.gdb_regs = gdb, .n_gdb_regs = ngdb, .gdb_npc = npc,        \
		.disassembler = disasm, .cs_arch = CS_ARCH_SPARC,           \
		.cs_mode = mode, .window_flush = flush,                     \
		.big_endian = true, .pc_reg = SPARC_PC, .sp_reg = SPARC_SP, \
		.fp_reg = SPARC_FP, .nregs = SPARC_NREGS,                   \
		.reg_names = reg_names, .ladder = ladder,                   \
		.outermost = outermost, .ra_offset = 8,                     \
		.generic_signal = generic_signal,                           \
		.signal_frame = is_signal_frame,                            \
		.call_before = cst_sparc_call_before,                       \
		.tail_targets = cst_sparc_tail_targets,                     \
		.code_addresses = cst_sparc_code_addresses,                 \
		.resolve_stub = cst_sparc_resolve_stub,                     \
		.guess_func = cst_sparc_guess_func,                         \
		.cache_free = cst_sparc_cache_free,                         \
	}

SPARC_TABLE(cst_arch_sparc64, "sparc64", EM_SPARCV9, ELFCLASS64, 8, SPARC_STACK_BIAS, prstatus64,
	    gdb_regs64, (int)(sizeof gdb_regs64 / sizeof gdb_regs64[0]), GDB_SPARC64_NPC,
	    true, CS_MODE_V9 | CS_MODE_BIG_ENDIAN, FLUSHW);
SPARC_TABLE(cst_arch_sparc32plus, "sparc", EM_SPARC32PLUS, ELFCLASS32, 4, 0, prstatus32,
	    NULL, 0, 0, false, 0, FLUSHW);
SPARC_TABLE(cst_arch_sparc32, "sparc", EM_SPARC, ELFCLASS32, 4, 0, prstatus32,
	    NULL, 0, 0, true, CS_MODE_BIG_ENDIAN, FLUSHW);

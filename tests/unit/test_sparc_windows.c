/* SPARC register windows: the caller the cursor finds at every pc of functions around their
 * `save` and `restore`, with the thread's registers and the windows the kernel flushed to
 * the stack in an in-memory target, for V9 (64-bit, %sp biased by 2047) and V8 (32-bit).
 * Before `save` and after `restore` a function runs in its caller's window: the caller
 * resumes at %o7 + 8 with the same %sp (found by the return register, a caller a frame walk
 * misses).  In between the caller is in the window saved at %sp (+ bias): %i6 is its %sp,
 * %i7 + 8 its pc. */
#include "cursor.h"
#include "error.h"
#include "fake_target.h"
#include "unit.h"

#include <stdio.h>

enum { G0 = 0, O0 = 8, SP = 14, O7 = 15, L0 = 16, I0 = 24, FP = 30, I7 = 31, PC = 32 };

#define SAVE    0x9de3bf50u     /* save %sp, -176, %sp */
#define NOP     0x01000000u
#define RET     0x81c7e008u     /* jmpl %i7 + 8, %g0 */
#define RETL    0x81c3e008u     /* jmpl %o7 + 8, %g0 */
#define RESTORE 0x81e80000u     /* restore %g0, %g0, %g0 */

#define CODE    0x100000ull
#define CALL_AT 0x100800ull     /* the caller's call instruction: it resumes at CALL_AT + 8 */
#define STACK   0x7f0000ull     /* the windows' save areas: the callee's, then the caller's */
#define CALLER_SAVE (STACK + 0x200)

/* Whether the function runs in its caller's window before the instruction at a pc. */
enum where { IN_CALLER, OWN };

struct func {
	const char *name;
	uint32_t code[8];
	int n;
	enum where at[8];
};

static const struct func funcs[] = {
	{ "save_ret_restore", { SAVE, NOP, RET, RESTORE }, 4,
	  { IN_CALLER, OWN, OWN, OWN } },                  /* restore in ret's delay slot */
	{ "restore_retl", { SAVE, NOP, RESTORE, RETL, NOP }, 5,
	  { IN_CALLER, OWN, OWN, IN_CALLER, IN_CALLER } },
	{ "leaf", { RETL, NOP }, 2, { IN_CALLER, IN_CALLER } },
};

struct variant {
	const char *name;
	const struct cst_arch *arch;
	unsigned w;             /* bytes in a register */
	uint64_t bias;          /* %sp + bias = the save area */
};

static const struct variant variants[] = {
	{ "sparc64", &cst_arch_sparc64, 8, 2047 },
	{ "sparc32", &cst_arch_sparc32, 4, 0 },
};

/* A save area at BASE: %l0-%l7 junk, %i0-%i5 junk, %i6 (the caller's %sp) FP, %i7 RA. */
static void write_window(struct fake_target *ft, const struct variant *v, uint64_t base,
			 uint64_t fp, uint64_t ra)
{
	for (int k = 0; k < 14; k++)
		fake_write_word(ft, base + (uint64_t)k * v->w, v->w, 0x1000 + (uint64_t)k);
	fake_write_word(ft, base + 14ull * v->w, v->w, fp);
	fake_write_word(ft, base + 15ull * v->w, v->w, ra);
}

static void check(const struct variant *v, const struct func *fn)
{
	struct fake_target ft;
	fake_init(&ft, true);
	fake_map(&ft, CODE, 0x100);
	for (int i = 0; i < fn->n; i++)
		fake_write_word(&ft, CODE + 4ull * (uint64_t)i, 4, fn->code[i]);
	fake_map(&ft, STACK, 0x400);
	uint64_t callee_sp = STACK - v->bias, caller_sp = CALLER_SAVE - v->bias;
	write_window(&ft, v, STACK, caller_sp, CALL_AT);
	write_window(&ft, v, CALLER_SAVE, 0x7f8000 - v->bias, 0x100900);
	struct cst_func f = { .start = CODE, .end = CODE + 4ull * (uint64_t)fn->n, .name = fn->name };

	unit_begin("%s_callers_%s", v->name, fn->name);
	for (int i = 0; i < fn->n; i++) {
		bool own = fn->at[i] == OWN;
		/* the thread's registers: %g and %o (the ins are in the flushed window) */
		struct cst_regs regs;
		cst_regs_clear(&regs);
		for (int r = G0; r <= O7; r++)
			cst_reg_set(&regs, r, r == G0 ? 0 : 0x2000 + (uint64_t)r);
		cst_reg_set(&regs, SP, own ? callee_sp : caller_sp);
		/* own window: %o7 is the function's own (junk here); else the call's address */
		cst_reg_set(&regs, O7, own ? 0x100c00 : CALL_AT);
		cst_reg_set(&regs, PC, CODE + 4ull * (uint64_t)i);
		struct cst_frame c[2];
		int rc;
		int n = unit_caller(v->arch, &ft.target, &regs, &f, c, &rc);
		if (!unit_expect(n == 2, "pc +%d: no caller (cst_unwind_next returned %d)", 4 * i, rc))
			continue;
		char what[64];
#define AT(s) (snprintf(what, sizeof what, "pc +%d: %s", 4 * i, s), what)
		EXPECT_EQ(c[1].pc, CALL_AT + 8, AT("caller pc"));
		EXPECT_EQ(c[1].sp, caller_sp, AT("caller sp"));
		enum cst_found_by by = own ? CST_FOUND_WINDOW : CST_FOUND_RETURN_REG;
		unit_expect(c[1].found_by == by, "pc +%d: found_by %s, want %s", 4 * i,
			    cst_found_by_token(c[1].found_by), cst_found_by_token(by));
		EXPECT_EQ(c[1].marker, own ? CST_MARK_NONE : CST_MARK_RECOVERED_CALLER, AT("marker"));
		if (own) {
			/* the caller's outs are the callee's ins; its own window is read too */
			uint64_t o6 = 0, fpv = 0;
			cst_reg_get(&c[1].regs, O0 + 6, &o6);
			EXPECT_EQ(o6, caller_sp, AT("caller %o6"));
			unit_expect(cst_reg_get(&c[1].regs, FP, &fpv) && fpv == 0x7f8000 - v->bias,
				    "pc +%d: caller's %%fp from its window: 0x%llx", 4 * i,
				    (unsigned long long)fpv);
		}
#undef AT
	}
	unit_end();
	fake_free(&ft);
}

/* A window whose %fp is 0 (as _start and thread entries leave it) ends the walk cleanly. */
static void check_outermost(const struct variant *v)
{
	struct fake_target ft;
	fake_init(&ft, true);
	fake_map(&ft, CODE, 0x100);
	fake_write_word(&ft, CODE, 4, SAVE);
	fake_write_word(&ft, CODE + 4, 4, NOP);
	fake_map(&ft, STACK, 0x400);
	write_window(&ft, v, STACK, 0, 0);
	struct cst_func f = { .start = CODE, .end = CODE + 8, .name = "outermost" };
	struct cst_regs regs;
	cst_regs_clear(&regs);
	cst_reg_set(&regs, SP, STACK - v->bias);
	cst_reg_set(&regs, O7, 0);
	cst_reg_set(&regs, PC, CODE + 4);
	struct cst_frame c[2];
	int rc;
	unit_begin("%s_outermost", v->name);
	int n = unit_caller(v->arch, &ft.target, &regs, &f, c, &rc);
	unit_expect(n == 1 && rc == 0, "%d frames, cst_unwind_next returned %d", n, rc);
	unit_end();

	/* a window the target does not hold stops the walk with a memory error */
	unit_begin("%s_unreadable_window", v->name);
	cst_reg_set(&regs, SP, 0x300000 - v->bias);
	n = unit_caller(v->arch, &ft.target, &regs, &f, c, &rc);
	unit_expect(n == 1 && rc == -CST_E_MEMORY, "%d frames, cst_unwind_next returned %d", n, rc);
	unit_end();
	fake_free(&ft);
}

int main(void)
{
	for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
		for (size_t j = 0; j < sizeof funcs / sizeof funcs[0]; j++)
			check(&variants[i], &funcs[j]);
		check_outermost(&variants[i]);
	}
	return unit_exit();
}

/* CFI rules with DWARF expressions (common/unwind/cfi.c): rows read by libdw from a small
 * linked ELF file (cfi_expr.s, at 0x500000) and evaluated by cst_cfi_step with registers
 * and the memory of an in-memory target: a signal frame's CFA and registers in a ucontext
 * (DW_OP_breg, DW_OP_deref, DW_CFA_expression, DW_CFA_val_expression with
 * DW_OP_plus_uconst), the PLT rule (and, ge, shl, plus), an undefined return address, an
 * unknown operation and a read outside the target.  Usage: test_cfi_expr DIR (where
 * cfi_expr.elf is). */
#include "error.h"
#include "fake_target.h"
#include "unit.h"
#include "unwind.h"

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { RBX = 3, RBP = 6, RSP = 7, RIP = 16 };

#define BASE       0x500000ull
#define SIG_LIKE   (BASE + 0x00)
#define PLT_LIKE   (BASE + 0x40)
#define OUTERMOST  (BASE + 0x80)
#define UNKNOWN_OP (BASE + 0xc0)

#define STACK 0x7ff000ull

static Dwarf_CFI *cfi;

/* The glue: the CFI row at PC and one CFI step with registers IN in TARGET.  Returns
 * cst_cfi_step's result (or -CST_E_NO_CFI when there is no row). */
static int step_at(struct cst_target *target, uint64_t pc, const struct cst_regs *in,
		   struct cst_regs *out, uint64_t *cfa)
{
	Dwarf_Frame *frame;
	if (dwarf_cfi_addrframe(cfi, pc, &frame) != 0)
		return -CST_E_NO_CFI;
	struct cst_unwind_env env = { .arch = &cst_arch_x86_64, .target = target };
	struct cst_unwind *u = calloc(1, sizeof *u);
	struct cst_row *row = malloc(sizeof *row);
	bool fp_record;
	int rc = -CST_E_NOMEM;
	if (u && row) {
		u->env = &env;
		cst_cfi_row(frame, env.arch->nregs, row);
		rc = cst_row_apply(u, row, 0, in, out, cfa, &fp_record, NULL);
	}
	free(row);
	cst_unwind_env_free(&env);
	free(u);
	free(frame);
	return rc;
}

static void regs_at(struct cst_regs *r, uint64_t rip, uint64_t rsp)
{
	cst_regs_clear(r);
	cst_reg_set(r, RIP, rip);
	cst_reg_set(r, RSP, rsp);
	cst_reg_set(r, RBP, 0x1111);
	cst_reg_set(r, RBX, 0x2222);
}

static uint64_t reg(const struct cst_regs *r, int n)
{
	uint64_t v = 0xbad;
	cst_reg_get(r, n, &v);
	return v;
}

static void signal_frame(struct fake_target *ft)
{
	unit_begin("cfi_signal_frame_expressions");
	uint64_t sp = STACK + 0x100;
	fake_write_word(ft, sp + 160, 8, 0x7ff900);     /* the interrupted rsp */
	fake_write_word(ft, sp + 168, 8, 0x401234);     /* the interrupted rip */
	fake_write_word(ft, sp + 120, 8, 0x7ff950);     /* the interrupted rbp */
	struct cst_regs in, out;
	regs_at(&in, SIG_LIKE + 1, sp);
	uint64_t cfa = 0;
	int rc = step_at(&ft->target, SIG_LIKE + 1, &in, &out, &cfa);
	if (unit_expect(rc == 1, "cst_cfi_step returned %d", rc)) {
		EXPECT_EQ(cfa, 0x7ff900, "CFA (breg7 160; deref)");
		EXPECT_EQ(reg(&out, RIP), 0x401234, "rip (expression breg7 168)");
		EXPECT_EQ(reg(&out, RSP), 0x7ff900, "rsp (the CFA)");
		EXPECT_EQ(reg(&out, RBP), 0x7ff950, "rbp (expression breg7 120)");
		EXPECT_EQ(reg(&out, RBX), sp + 8, "rbx (val_expression breg7 0; plus_uconst 8)");
	}
	unit_end();

	unit_begin("cfi_expression_read_outside_target");
	regs_at(&in, SIG_LIKE + 1, 0x300000);           /* *(rsp + 160) is not mapped */
	rc = step_at(&ft->target, SIG_LIKE + 1, &in, &out, &cfa);
	EXPECT_EQ(rc, -CST_E_MEMORY, "cst_cfi_step");
	unit_end();
}

static void plt_rule(struct fake_target *ft)
{
	/* the rule is evaluated with the registers given: rip's low bits pick the height */
	static const struct { unsigned low; uint64_t height; } cases[] = {
		{ 0, 8 }, { 6, 8 }, { 10, 8 }, { 11, 16 }, { 15, 16 },
	};
	unit_begin("cfi_plt_rule");
	uint64_t rsp = STACK + 0x200;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint64_t h = cases[i].height;
		fake_write_word(ft, rsp + h - 8, 8, 0x405000 + cases[i].low);
		struct cst_regs in, out;
		regs_at(&in, 0x401000 + cases[i].low, rsp);
		uint64_t cfa = 0;
		int rc = step_at(&ft->target, PLT_LIKE, &in, &out, &cfa);
		if (!unit_expect(rc == 1, "rip & 15 = %u: cst_cfi_step returned %d", cases[i].low, rc))
			continue;
		unit_expect(cfa == rsp + h, "rip & 15 = %u: CFA rsp + %llu, want rsp + %llu", cases[i].low,
			    (unsigned long long)(cfa - rsp), (unsigned long long)h);
		unit_expect(reg(&out, RIP) == 0x405000 + cases[i].low, "rip & 15 = %u: caller rip 0x%llx",
			    cases[i].low, (unsigned long long)reg(&out, RIP));
	}
	unit_end();
}

static void ends(struct fake_target *ft)
{
	struct cst_regs in, out;
	uint64_t cfa;
	unit_begin("cfi_undefined_return_address");
	regs_at(&in, OUTERMOST, STACK + 0x300);
	int rc = step_at(&ft->target, OUTERMOST, &in, &out, &cfa);
	EXPECT_EQ(rc, 0, "cst_cfi_step (0: outermost)");
	unit_end();

	unit_begin("cfi_unknown_operation");
	regs_at(&in, UNKNOWN_OP, STACK + 0x300);
	rc = step_at(&ft->target, UNKNOWN_OP, &in, &out, &cfa);
	EXPECT_EQ(rc, -CST_E_CFI, "cst_cfi_step");
	unit_end();
}

int main(int argc, char **argv)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/cfi_expr.elf", argc > 1 ? argv[1] : ".");
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	cfi = elf ? dwarf_getcfi_elf(elf) : NULL;
	if (!cfi) {
		printf("FAIL cfi_expr: cannot read the CFI of %s\n", path);
		return 1;
	}
	struct fake_target ft;
	fake_init(&ft, false);
	fake_map(&ft, STACK, 0x1000);
	signal_frame(&ft);
	plt_rule(&ft);
	ends(&ft);
	fake_free(&ft);
	dwarf_cfi_end(cfi);
	elf_end(elf);
	close(fd);
	return unit_exit();
}

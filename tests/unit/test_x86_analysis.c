/* x86-64 instruction analysis: the rule row arch->analyse gives at every pc of hand-assembled
 * prologues, bodies and epilogues, and the caller the cursor finds with it from registers
 * and stack memory in an in-memory target.  At joins (common/unwind/dataflow.c): where two
 * paths reach a pc with different stack heights or with the caller's rbp in different
 * places, the analysis must not answer (it must not pick one path); where they agree, or a
 * frame record gives the CFA, it must.  Encodings: Intel SDM vol. 2. */
#include "cursor.h"
#include "error.h"
#include "fake_target.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RBX = 3, RBP = 6, RSP = 7, RIP = 16 };

#define CODE      0x401000ull
#define STACK_LO  0x7fffe000ull
#define CFA       0x7ffff000ull       /* the caller's rsp before its call */
#define RA        0x402345ull         /* the caller's resume address */
#define CALLER_BP 0x7ffff0f0ull       /* the caller's frame pointer */

/* The caller's rbp: unchanged, saved at CFA + offset, or not known. */
enum fp_rule { FP_SAME, FP_SAVED, FP_UNKNOWN };

/* The expected row before the instruction at byte OFF: CFA = REG + CFA_OFF; the caller's rbp
 * unchanged (FP_SAME) or saved at CFA + FP_OFF; the frame record set up (rbp = CFA - 16).
 * REG NO_ROW: no row, the paths that reach OFF disagree. */
struct want {
	unsigned off;
	int cfa_reg;
	int cfa_off;
	enum fp_rule fp;
	int fp_off;
	bool record;
};
#define NO_ROW (-1)
#define NONE(o) { .off = (o), .cfa_reg = NO_ROW }

struct seq {
	const char *name;
	const uint8_t *code;
	size_t len;
	const struct want *rows;
	size_t nrows;
};

/* push %rbp; mov %rsp,%rbp; sub $0x20,%rsp; mov %rdi,-8(%rbp); leave; ret */
static const uint8_t frame_code[] = {
	0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x20, 0x48, 0x89, 0x7d, 0xf8, 0xc9, 0xc3,
};
static const struct want frame_rows[] = {
	{ 0,  RSP, 8,  FP_SAME,  0,   false },   /* push %rbp */
	{ 1,  RSP, 16, FP_SAVED, -16, false },   /* mov %rsp,%rbp */
	{ 4,  RBP, 16, FP_SAVED, -16, true },    /* sub $0x20,%rsp */
	{ 8,  RBP, 16, FP_SAVED, -16, true },    /* body */
	{ 12, RBP, 16, FP_SAVED, -16, true },    /* leave */
	{ 13, RSP, 8,  FP_SAME,  0,   false },   /* ret */
};

/* push %rbx; push %r12; sub $0x10,%rsp; nop; add $0x10,%rsp; pop %r12; pop %rbx; ret */
static const uint8_t saved_code[] = {
	0x53, 0x41, 0x54, 0x48, 0x83, 0xec, 0x10, 0x90, 0x48, 0x83, 0xc4, 0x10, 0x41, 0x5c,
	0x5b, 0xc3,
};
static const struct want saved_rows[] = {
	{ 0,  RSP, 8,  FP_SAME, 0, false },
	{ 1,  RSP, 16, FP_SAME, 0, false },
	{ 3,  RSP, 24, FP_SAME, 0, false },
	{ 7,  RSP, 40, FP_SAME, 0, false },
	{ 8,  RSP, 40, FP_SAME, 0, false },
	{ 12, RSP, 24, FP_SAME, 0, false },
	{ 14, RSP, 16, FP_SAME, 0, false },
	{ 15, RSP, 8,  FP_SAME, 0, false },
};

/* Two exits: push %rbx; sub $0x10,%rsp; test %edi,%edi; je 1f; add $0x10,%rsp; pop %rbx;
 * ret; 1: mov $1,%eax; add $0x10,%rsp; pop %rbx; ret.  The code after the first ret is
 * reached only by the branch and has the branch's stack height. */
static const uint8_t branch_code[] = {
	0x53, 0x48, 0x83, 0xec, 0x10, 0x85, 0xff, 0x74, 0x06, 0x48, 0x83, 0xc4, 0x10, 0x5b,
	0xc3, 0xb8, 0x01, 0x00, 0x00, 0x00, 0x48, 0x83, 0xc4, 0x10, 0x5b, 0xc3,
};
static const struct want branch_rows[] = {
	{ 0,  RSP, 8,  FP_SAME, 0, false },
	{ 1,  RSP, 16, FP_SAME, 0, false },
	{ 5,  RSP, 32, FP_SAME, 0, false },
	{ 7,  RSP, 32, FP_SAME, 0, false },
	{ 9,  RSP, 32, FP_SAME, 0, false },
	{ 13, RSP, 16, FP_SAME, 0, false },
	{ 14, RSP, 8,  FP_SAME, 0, false },
	{ 15, RSP, 32, FP_SAME, 0, false },
	{ 20, RSP, 32, FP_SAME, 0, false },
	{ 24, RSP, 16, FP_SAME, 0, false },
	{ 25, RSP, 8,  FP_SAME, 0, false },
};

/* Joins.  push %rbp; test %edi,%edi; je 8; push %rbx; jmp 8; 8: nop; pop %rbp; ret: at 8
 * the height is 16 from the je, 24 from the jmp. */
static const uint8_t join_height_code[] = {
	0x55, 0x85, 0xff, 0x74, 0x03, 0x53, 0xeb, 0x00, 0x90, 0x5d, 0xc3,
};
static const struct want join_height_rows[] = {
	{ 1, RSP, 16, FP_SAVED, -16, false },
	{ 5, RSP, 16, FP_SAVED, -16, false },
	{ 6, RSP, 24, FP_SAVED, -16, false },
	NONE(8), NONE(9), NONE(10),
};

/* test %edi,%edi; je 7; push %rbp; jmp 8; 7: push %rbx; 8: nop; pop %rcx; ret: at 8 the
 * height is 16 on both paths, the caller's rbp saved on one only. */
static const uint8_t join_fp_code[] = {
	0x85, 0xff, 0x74, 0x03, 0x55, 0xeb, 0x01, 0x53, 0x90, 0x59, 0xc3,
};
static const struct want join_fp_rows[] = {
	{ 4, RSP, 8,  FP_SAME,  0,   false },
	{ 5, RSP, 16, FP_SAVED, -16, false },
	{ 7, RSP, 8,  FP_SAME,  0,   false },
	NONE(8), NONE(10),
};

/* push %rbx; test %edi,%edi; je 7; xor %eax,%eax; 7: pop %rbx; ret: both paths reach 7 at
 * height 16. */
static const uint8_t join_agrees_code[] = {
	0x53, 0x85, 0xff, 0x74, 0x02, 0x31, 0xc0, 0x5b, 0xc3,
};
static const struct want join_agrees_rows[] = {
	{ 0, RSP, 8,  FP_SAME, 0, false },
	{ 7, RSP, 16, FP_SAME, 0, false },
	{ 8, RSP, 8,  FP_SAME, 0, false },
};

/* push %rbp; mov %rsp,%rbp; test %edi,%edi; je 9; push %rbx; 9: nop; leave; ret: the
 * heights differ at 9, the frame record gives the CFA. */
static const uint8_t join_record_code[] = {
	0x55, 0x48, 0x89, 0xe5, 0x85, 0xff, 0x74, 0x01, 0x53, 0x90, 0xc9, 0xc3,
};
static const struct want join_record_rows[] = {
	{ 4,  RBP, 16, FP_SAVED, -16, true },
	{ 9,  RBP, 16, FP_SAVED, -16, true },
	{ 10, RBP, 16, FP_SAVED, -16, true },
	{ 11, RSP, 8,  FP_SAME,  0,   false },
};

#define SEQ(n, c, r) { n, c, sizeof c, r, sizeof r / sizeof r[0] }
/* each checked for its rows and for the caller found at each pc */
static const struct seq seqs[] = {
	SEQ("frame_pointer", frame_code, frame_rows),
	SEQ("callee_saved", saved_code, saved_rows),
	SEQ("two_epilogues", branch_code, branch_rows),
};
/* each checked for its rows */
static const struct seq joins[] = {
	SEQ("join_height_differs", join_height_code, join_height_rows),
	SEQ("join_fp_differs", join_fp_code, join_fp_rows),
	SEQ("join_agrees", join_agrees_code, join_agrees_rows),
	SEQ("join_frame_record", join_record_code, join_record_rows),
};

/* The glue to the analysis: the arch hook on a bare cursor whose environment reads TARGET. */
static int row_at(struct cst_target *target, const struct cst_func *fn, uint64_t pc, struct cst_row *row)
{
	struct cst_unwind_env env = { .arch = &cst_arch_x86_64, .target = target };
	struct cst_unwind *u = calloc(1, sizeof *u);
	if (!u)
		return -CST_E_NOMEM;
	u->env = &env;
	int rc = cst_arch_x86_64.analyse(u, fn, pc, row);
	cst_unwind_env_free(&env);
	free(u);
	return rc;
}

/* A stack where the caller's rsp was CFA: the return address below it, the caller's rbp
 * below that (where push %rbp puts it; the other pushed registers hold junk). */
static void make_stack(struct fake_target *ft)
{
	fake_map(ft, STACK_LO, CFA + 0x100 - STACK_LO);
	for (uint64_t a = CFA - 0x40; a < CFA - 16; a += 8)
		fake_write_word(ft, a, 8, 0xdead0000 + a);
	fake_write_word(ft, CFA - 8, 8, RA);
	fake_write_word(ft, CFA - 16, 8, CALLER_BP);
}

/* The caller's rbp rule of ROW in the terms above (*OFF: bytes from the CFA when saved), and
 * whether the return address is at CFA - 8. */
static enum fp_rule fp_rule_of(const struct cst_row *r, int64_t *off)
{
	const struct cst_rule *x = &r->reg[6];
	*off = x->n;
	return x->kind == CST_RULE_SAME ? FP_SAME : x->kind == CST_RULE_OFFSET ? FP_SAVED : FP_UNKNOWN;
}

static bool ra_at_cfa_minus_8(const struct cst_row *r)
{
	return r->reg[16].kind == CST_RULE_OFFSET && r->reg[16].n == -8;
}

/* Where each check stands, for the failure message. */
static char at[80];
#define AT(w, what) (snprintf(at, sizeof at, "pc +%u: %s", (w)->off, what), at)

/* The row at every pc of S equals the expected one. */
static void check_rows(struct fake_target *ft, const struct seq *s, const struct cst_func *fn)
{
	unit_begin("x86_64_rows_%s", s->name);
	for (size_t i = 0; i < s->nrows; i++) {
		const struct want *w = &s->rows[i];
		struct cst_row row;
		int rc = row_at(&ft->target, fn, CODE + w->off, &row);
		if (w->cfa_reg == NO_ROW) {
			unit_expect(rc < 0, "pc +%u: CFA = reg%d%+lld, expected no answer (the paths disagree)",
				    w->off, row.cfa_reg, (long long)row.cfa_off);
			continue;
		}
		if (!unit_expect(rc == 0, "pc +%u: analyse returned %d", w->off, rc))
			continue;
		EXPECT_EQ(row.cfa_reg, w->cfa_reg, AT(w, "CFA register"));
		EXPECT_EQ(row.cfa_off, w->cfa_off, AT(w, "CFA offset"));
		int64_t fp_off;
		enum fp_rule fp = fp_rule_of(&row, &fp_off);
		EXPECT_EQ(ra_at_cfa_minus_8(&row), true, AT(w, "return address at CFA - 8"));
		EXPECT_EQ(fp, w->fp, AT(w, "frame-pointer rule"));
		if (w->fp == FP_SAVED)
			EXPECT_EQ(fp_off, w->fp_off, AT(w, "frame-pointer offset"));
		EXPECT_EQ(row.frame_record, w->record, AT(w, "frame record"));
	}
	unit_end();
}

/* At every pc of S, a thread stopped there (registers as the code left them, the stack of
 * make_stack) has the caller RA with sp CFA and rbp CALLER_BP: found through the frame
 * record where it is set up, by the prologue analysis (a recovered caller) elsewhere. */
static void check_callers(struct fake_target *ft, const struct seq *s, const struct cst_func *fn)
{
	unit_begin("x86_64_callers_%s", s->name);
	for (size_t i = 0; i < s->nrows; i++) {
		const struct want *w = &s->rows[i];
		struct cst_regs regs;
		cst_regs_clear(&regs);
		cst_reg_set(&regs, RIP, CODE + w->off);
		/* with a frame record, any rsp below it */
		cst_reg_set(&regs, RSP, CFA - (w->record ? 0x30 : (uint64_t)w->cfa_off));
		cst_reg_set(&regs, RBP, w->record ? CFA - 16 : CALLER_BP);
		struct cst_frame f[2];
		int rc;
		int n = unit_caller(&cst_arch_x86_64, &ft->target, &regs, fn, f, &rc);
		if (!unit_expect(n == 2, "pc +%u: no caller (cst_unwind_next returned %d)", w->off, rc))
			continue;
		EXPECT_EQ(f[1].pc, RA, AT(w, "caller pc"));
		EXPECT_EQ(f[1].sp, CFA, AT(w, "caller sp"));
		uint64_t bp = 0;
		unit_expect(cst_reg_get(&f[1].regs, RBP, &bp), "pc +%u: caller rbp unknown", w->off);
		EXPECT_EQ(bp, CALLER_BP, AT(w, "caller rbp"));
		enum cst_found_by by = w->record ? CST_FOUND_FP : CST_FOUND_PROLOGUE;
		unit_expect(f[1].found_by == by, "pc +%u: found_by %s, want %s", w->off,
			    cst_found_by_token(f[1].found_by), cst_found_by_token(by));
		EXPECT_EQ(f[1].marker, w->record ? CST_MARK_NONE : CST_MARK_RECOVERED_CALLER,
			  AT(w, "marker"));
	}
	unit_end();
}

/* S's rows, and with CALLERS the caller at each pc. */
static void check_seq(const struct seq *s, bool callers)
{
	struct fake_target ft;
	fake_init(&ft, false);
	fake_map(&ft, CODE, 0x1000);
	fake_write(&ft, CODE, s->code, s->len);
	make_stack(&ft);
	struct cst_func fn = { .start = CODE, .end = CODE + s->len, .name = s->name };
	check_rows(&ft, s, &fn);
	if (callers)
		check_callers(&ft, s, &fn);
	fake_free(&ft);
}

int main(void)
{
	for (size_t i = 0; i < sizeof seqs / sizeof seqs[0]; i++)
		check_seq(&seqs[i], true);
	for (size_t i = 0; i < sizeof joins / sizeof joins[0]; i++)
		check_seq(&joins[i], false);

	/* A pc outside the decoded function has no row. */
	struct fake_target ft;
	fake_init(&ft, false);
	fake_map(&ft, CODE, 0x1000);
	fake_write(&ft, CODE, frame_code, sizeof frame_code);
	struct cst_func fn = { .start = CODE, .end = CODE + sizeof frame_code };
	struct cst_row row;
	unit_begin("x86_64_row_outside_function");
	int rc = row_at(&ft.target, &fn, CODE + sizeof frame_code + 4, &row);
	unit_expect(rc < 0, "analyse returned %d for a pc past the function", rc);
	unit_end();
	/* Code the target cannot read gives no row either. */
	unit_begin("x86_64_row_unreadable_code");
	struct cst_func far = { .start = 0x900000, .end = 0x900010 };
	rc = row_at(&ft.target, &far, 0x900004, &row);
	unit_expect(rc < 0, "analyse returned %d for unmapped code", rc);
	unit_end();
	fake_free(&ft);
	return unit_exit();
}

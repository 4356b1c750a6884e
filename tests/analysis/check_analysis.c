/* tests/analysis/check_analysis.c: the x86-64 instruction analysis (arch->analyse) at joins.
 * Small functions, assembled by hand below (encodings: Intel SDM vol. 2), sit in the memory
 * of an in-memory target; the analysis is asked for the rule row at each pc and the answers
 * are compared with the rows the code implies.  Where two paths reach a pc with different
 * stack heights or with the caller's rbp in different places, the analysis must not answer
 * (it must not pick one path); where they agree, or a frame record gives the CFA, it must.
 * Prints one PASS/FAIL line per function (the wrong answers indented after a FAIL); exits 1
 * when any failed. */
#include "arch.h"
#include "error.h"
#include "symbols.h"
#include "target.h"
#include "unwind.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define BASE 0x400000u

static uint8_t mem[0x400];

static int mem_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	if (addr < BASE || addr - BASE > sizeof mem || len > sizeof mem - (addr - BASE))
		return -CST_E_MEMORY;
	memcpy(buf, mem + (addr - BASE), len);
	return 0;
}

/* The caller's rbp: unchanged, saved at CFA + offset, or not known. */
enum fp_rule { FP_SAME, FP_SAVED, FP_UNKNOWN };

/* One expected answer: the row at offset OFF, or no answer (NONE). */
struct want {
	unsigned off;
	bool none;
	int cfa_reg;            /* DWARF: 6 rbp, 7 rsp */
	int cfa_off;
	enum fp_rule fp_rule;
};

struct func {
	const char *name;
	unsigned at;            /* offset of the function in mem */
	uint8_t code[32];
	unsigned len;
	struct want want[8];
	int nwant;
};

enum { RBP = 6, RSP = 7 };
#define NONE(off) { (off), true, 0, 0, FP_UNKNOWN }

static const struct func funcs[] = {
	{ "join-height-differs", 0x000,
	  { 0x55,               /* 0  push %rbp */
	    0x85, 0xff,         /* 1  test %edi,%edi */
	    0x74, 0x03,         /* 3  je 8 */
	    0x53,               /* 5  push %rbx */
	    0xeb, 0x00,         /* 6  jmp 8 */
	    0x90,               /* 8  nop: h is 16 from je, 24 from jmp */
	    0x5d,               /* 9  pop %rbp */
	    0xc3 },             /* 10 ret */
	  11,
	  { { 1, false, RSP, 16, FP_SAVED }, { 5, false, RSP, 16, FP_SAVED },
	    { 6, false, RSP, 24, FP_SAVED }, NONE(8), NONE(9), NONE(10) }, 6 },
	{ "join-fp-differs", 0x040,
	  { 0x85, 0xff,         /* 0  test %edi,%edi */
	    0x74, 0x03,         /* 2  je 7 */
	    0x55,               /* 4  push %rbp */
	    0xeb, 0x01,         /* 5  jmp 8 */
	    0x53,               /* 7  push %rbx: h 16, rbp the caller's */
	    0x90,               /* 8  nop: h 16 on both paths; rbp saved on one only */
	    0x59,               /* 9  pop %rcx */
	    0xc3 },             /* 10 ret */
	  11,
	  { { 4, false, RSP, 8, FP_SAME }, { 5, false, RSP, 16, FP_SAVED },
	    { 7, false, RSP, 8, FP_SAME }, NONE(8), NONE(10) }, 5 },
	{ "join-agrees", 0x080,
	  { 0x53,               /* 0  push %rbx */
	    0x85, 0xff,         /* 1  test %edi,%edi */
	    0x74, 0x02,         /* 3  je 7 */
	    0x31, 0xc0,         /* 5  xor %eax,%eax */
	    0x5b,               /* 7  pop %rbx: both paths at h 16 */
	    0xc3 },             /* 8  ret */
	  9,
	  { { 0, false, RSP, 8, FP_SAME }, { 7, false, RSP, 16, FP_SAME },
	    { 8, false, RSP, 8, FP_SAME } }, 3 },
	{ "join-frame-record", 0x0c0,
	  { 0x55,               /* 0  push %rbp */
	    0x48, 0x89, 0xe5,   /* 1  mov %rsp,%rbp */
	    0x85, 0xff,         /* 4  test %edi,%edi */
	    0x74, 0x01,         /* 6  je 9 */
	    0x53,               /* 8  push %rbx */
	    0x90,               /* 9  nop: heights differ, the frame record gives the CFA */
	    0xc9,               /* 10 leave */
	    0xc3 },             /* 11 ret */
	  12,
	  { { 4, false, RBP, 16, FP_SAVED }, { 9, false, RBP, 16, FP_SAVED },
	    { 10, false, RBP, 16, FP_SAVED }, { 11, false, RSP, 8, FP_SAME } }, 4 },
};

static char details[4096];

static void detail(const char *fmt, ...)
{
	size_t n = strlen(details);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(details + n, sizeof details - n, fmt, ap);
	va_end(ap);
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

static bool check(struct cst_unwind *u, const struct func *f)
{
	struct cst_func fn = { .start = BASE + f->at, .end = BASE + f->at + f->len };
	bool ok = true;
	for (int i = 0; i < f->nwant; i++) {
		const struct want *w = &f->want[i];
		struct cst_row row;
		int64_t fp_off;
		int rc = u->env->arch->analyse(u, &fn, fn.start + w->off, &row);
		enum fp_rule fp = rc == 0 ? fp_rule_of(&row, &fp_off) : FP_UNKNOWN;
		if (w->none && rc == 0) {
			detail("    +%u: CFA = reg%d%+lld, expected no answer (the paths disagree)\n",
			       w->off, row.cfa_reg, (long long)row.cfa_off);
			ok = false;
		} else if (!w->none && rc < 0) {
			detail("    +%u: no answer, expected CFA = reg%d%+d\n", w->off, w->cfa_reg, w->cfa_off);
			ok = false;
		} else if (!w->none && (row.cfa_reg != w->cfa_reg || row.cfa_off != w->cfa_off ||
					!ra_at_cfa_minus_8(&row) || fp != w->fp_rule)) {
			detail("    +%u: CFA = reg%d%+lld (fp rule %d), expected reg%d%+d (fp rule %d)\n",
			       w->off, row.cfa_reg, (long long)row.cfa_off, fp, w->cfa_reg,
			       w->cfa_off, w->fp_rule);
			ok = false;
		}
	}
	return ok;
}

int main(void)
{
	static const struct cst_target_ops ops = { .read = mem_read };
	struct cst_target target = { .ops = &ops };
	memset(mem, 0xcc, sizeof mem);
	for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++)
		memcpy(mem + funcs[i].at, funcs[i].code, funcs[i].len);
	struct cst_unwind_env env = { .arch = &cst_arch_x86_64, .target = &target };
	struct cst_unwind u = { .env = &env };
	int failed = 0;
	for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++) {
		details[0] = 0;
		bool ok = check(&u, &funcs[i]);
		printf("%s analysis-%s\n%s", ok ? "PASS" : "FAIL", funcs[i].name, details);
		failed += !ok;
	}
	cst_unwind_env_free(&env);
	return failed ? 1 : 0;
}

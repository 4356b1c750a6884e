/* A register set indexed by DWARF register number, with a validity bit per register.
 *
 * After an unwind step only the registers the strategy could recover are valid (after a
 * frame-pointer step: pc, sp and fp); the rest are left invalid rather than guessed. */
#ifndef CST_REGS_H
#define CST_REGS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define CST_NREGS 128   /* DWARF numbers 0..127: covers x86-64 (0-16) and SPARC (0-31, pc 80-ish) */

struct cst_regs {
	uint64_t val[CST_NREGS];
	uint64_t valid[CST_NREGS / 64];
};

static inline void cst_regs_clear(struct cst_regs *r)
{
	memset(r->valid, 0, sizeof r->valid);
}

static inline void cst_reg_set(struct cst_regs *r, int n, uint64_t v)
{
	if (n < 0 || n >= CST_NREGS)
		return;
	r->val[n] = v;
	r->valid[n / 64] |= 1ull << (n % 64);
}

static inline void cst_reg_unset(struct cst_regs *r, int n)
{
	if (n >= 0 && n < CST_NREGS)
		r->valid[n / 64] &= ~(1ull << (n % 64));
}

static inline bool cst_reg_valid(const struct cst_regs *r, int n)
{
	return n >= 0 && n < CST_NREGS && (r->valid[n / 64] >> (n % 64)) & 1;
}

/* Stores register N in *V and returns true when it is valid; false otherwise. */
static inline bool cst_reg_get(const struct cst_regs *r, int n, uint64_t *v)
{
	if (!cst_reg_valid(r, n))
		return false;
	*v = r->val[n];
	return true;
}

#endif

/* A register set indexed by DWARF register number, with a validity bit per register.
 *
 * After an unwind step only the registers the strategy could recover are valid (after a
 * frame-pointer step: pc, sp and fp); the rest are left invalid rather than guessed. */
#ifndef CST_REGS_H
#define CST_REGS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Slots 0..63: DWARF numbers 0-16 on x86-64 (x86-64 psABI 3.6.2, Figure 3.36), 0-31 on SPARC
 * (the pc in slot 32, arch/sparc/sparc.h).  Kept small: every frame a walk hands out carries one. */
#define CST_NREGS 64

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

/* Registers that cst_regs_copy copies as a block of fixed size, without a call: the 17 of
 * x86-64, in whole 16-byte moves. */
#define CST_REGS_SHORT 18

/* Copies FROM's valid bits and the values of its registers up to the highest valid one to
 * TO: the values behind invalid bits are never read, and a frame's 64 slots hold a handful
 * of registers (17 on x86-64), which a frame handed out on every step need not copy.  Up to
 * CST_REGS_SHORT registers are copied as one block, whatever the highest valid one. */
static inline void cst_regs_copy(struct cst_regs *to, const struct cst_regs *from)
{
	int n = 0;
	for (int w = CST_NREGS / 64 - 1; w >= 0; w--)
		if (from->valid[w]) {
			n = 64 * w + 64 - __builtin_clzll(from->valid[w]);
			break;
		}
	if (n <= CST_REGS_SHORT)
		memcpy(to->val, from->val, CST_REGS_SHORT * sizeof to->val[0]);
	else
		memcpy(to->val, from->val, (size_t)n * sizeof to->val[0]);
	memcpy(to->valid, from->valid, sizeof to->valid);
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

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

/* 16 bytes moved as one (two words, 8-byte aligned, aliasing anything): for copies written
 * out move by move. */
typedef uint64_t cst_pair16 __attribute__((vector_size(16), aligned(8), may_alias));

/* Copies the values of registers 0..CST_REGS_SHORT-1 from FROM to TO as nine 16-byte moves
 * written out: for a memcpy of the block the compiler chooses between moves and a string
 * instruction, whose start costs more than the copy, by the code around it. */
static inline void cst_regs_copy_short(uint64_t *to, const uint64_t *from)
{
	_Static_assert(CST_REGS_SHORT == 18, "nine pairs");
	cst_pair16 *t = (cst_pair16 *)to;
	const cst_pair16 *f = (const cst_pair16 *)from;
	cst_pair16 a = f[0], b = f[1], c = f[2], d = f[3], e = f[4], g = f[5], h = f[6], i = f[7], j = f[8];
	t[0] = a; t[1] = b; t[2] = c; t[3] = d; t[4] = e; t[5] = g; t[6] = h; t[7] = i; t[8] = j;
}

/* Copies FROM's valid bits and the values of its registers up to the highest valid one to
 * TO: the values behind invalid bits are never read, and a frame's 64 slots hold a handful
 * of registers (17 on x86-64), which a frame handed out on every step need not copy.  Up to
 * CST_REGS_SHORT registers are copied as one block, whatever the highest valid one. */
static inline void cst_regs_copy(struct cst_regs *to, const struct cst_regs *from)
{
	if (CST_NREGS == 64 && !(from->valid[0] >> CST_REGS_SHORT)) {
		cst_regs_copy_short(to->val, from->val);
	} else {
		int n = 0;
		for (int w = CST_NREGS / 64 - 1; w >= 0; w--)
			if (from->valid[w]) {
				n = 64 * w + 64 - __builtin_clzll(from->valid[w]);
				break;
			}
		memcpy(to->val, from->val, (size_t)n * sizeof to->val[0]);
	}
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

/* SPARC function entries in code with neither symbols nor CFI, for unwind/entries.h: a
 * stripped program built without unwind tables (Debian's sparc64 gcc emits no .eh_frame for
 * C by default, so a stripped sparc64 program usually has neither).
 *
 * Entries are the segment's start and the targets of CALL instructions; code addresses are
 * taken by `sethi %hi(X), %r` followed by `or %r, %lo(X), %rd` (or `add`); branches that
 * leave their function are tail calls to functions that are never called directly (`b T`
 * after `mov %o7,%g1` or with `restore` in its delay slot).  A function's first instruction
 * has the shape `save %sp, -N, %sp`; functions follow each other after the previous one's
 * ret, retl, return or ba and its delay slot, or nop padding.  Every word is an instruction
 * (SPARC V9 manual, Appendix A: SETHI A.48, OR/ADD A.2 and A.31, SAVE A.46); a function is
 * searched at most 256 KiB below an address. */
#include "sparc.h"
#include "entries.h"
#include "error.h"
#include "unwind.h"

#include <string.h>

#define SPARC_NOP 0x01000000u           /* sethi 0, %g0 */
#define SETHI_PAIR_BYTES 64             /* an or/add uses a sethi at most this far above it */

struct scan {
	const struct cst_unwind *u;
	uint64_t mask;                  /* the address size */
	bool delay_ends;                /* the next word is the delay slot of a barrier */
	uint64_t hi[32];                /* per register: the value of its last sethi */
	uint64_t hi_at[32];             /* where that sethi is, +1 (0: none) */
};

static bool begin(void *ctx)
{
	struct scan *s = ctx;
	s->delay_ends = false;
	memset(s->hi_at, 0, sizeof s->hi_at);
	return true;
}

static size_t decode(void *ctx, const uint8_t *p, size_t left, uint64_t addr, struct cst_entry_insn *out)
{
	struct scan *s = ctx;
	uint32_t w = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	unsigned op = w >> 30, rd = (w >> 25) & 31, op2 = (w >> 22) & 7, op3 = (w >> 19) & 63;
	unsigned rs1 = (w >> 14) & 31, imm = (w >> 13) & 1;
	bool call;
	(void)left;                     /* at least unit (4) bytes */
	out->barrier = s->delay_ends;
	int b = cst_sparc_barrier(w);
	s->delay_ends = b == 1;
	if (b == 2)
		out->barrier = true;
	out->padding = w == SPARC_NOP && !out->barrier;
	/* save %sp, -N, %sp */
	out->prologue = op == 2 && op3 == 0x3c && rd == 14 && rs1 == 14 && imm && (w & 0x1000);
	if (cst_sparc_transfer(w, addr, s->mask, &call, &out->target)) {
		out->ref = call ? CST_REF_ENTRY : CST_REF_JUMP;
	} else if (op == 0 && op2 == 4 && rd) {                          /* sethi %hi(X), %rd */
		s->hi[rd] = (uint64_t)(w & 0x3fffff) << 10;
		s->hi_at[rd] = addr + 1;
	} else if (op == 2 && (op3 == 0x02 || op3 == 0x00) && imm && rs1 && s->hi_at[rs1] &&
		   addr + 1 - s->hi_at[rs1] <= SETHI_PAIR_BYTES) {            /* or/add %rs1, %lo(X), %rd */
		int64_t simm = (int64_t)((w & 0x1fff) ^ 0x1000) - 0x1000;
		out->ref = CST_REF_ADDR;
		out->target = (op3 == 0x02 ? s->hi[rs1] | (uint64_t)simm : s->hi[rs1] + (uint64_t)simm) & s->mask;
	}
	if (op == 2 && rd && !(op == 0 && op2 == 4))
		s->hi_at[rd] = 0;       /* rd is written: its sethi is gone */
	return 4;
}

static const struct cst_entries_ops entries_ops = {
	.unit = 4,
	.fill = 0,              /* ILLTRAP */
	.segment_start = true,
	.max_func_bytes = 256 * 1024,
	.begin = begin,
	.decode = decode,
};

int cst_sparc_guess_func(struct cst_unwind *u, uint64_t addr, struct cst_func *fn)
{
	struct cst_entries **slot = cst_sparc_entries_slot(u);
	struct scan s = { .u = u, .mask = u->env->arch->addr_size == 4 ? 0xffffffffull : ~0ull };
	return slot ? cst_entries_func(slot, u, &entries_ops, &s, addr, fn) : -CST_E_NO_FUNC;
}

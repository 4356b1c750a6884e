/* SPARC function entries in code with neither symbols nor CFI: a stripped program built
 * without unwind tables (Debian's sparc64 gcc emits no .eh_frame for C by default, so a
 * stripped sparc64 program usually has neither).
 *
 * One bit per instruction word of an executable segment marks a function entry.  Entries
 * are the segment's start and the targets of CALL instructions; then, until nothing
 * changes, the targets of branches that leave the function holding the branch (tail calls
 * to functions that are never called directly, `b T` after `mov %o7,%g1` or with `restore`
 * in its delay slot).  A function ends at the next entry. */
#include "sparc.h"
#include "error.h"
#include "fncache.h"
#include "symbols.h"
#include "unwind.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SEGMENT_BYTES (64u << 20)
#define MAX_FUNC_WORDS (256u * 1024 / 4)     /* an entry is searched this far back */
#define MAX_ROUNDS 16

struct sparc_entries {
	uint64_t lo, hi;                /* the segment [lo, hi), target addresses */
	size_t nwords;
	uint64_t *bits;                 /* bit i: lo + 4 i is an entry */
	struct sparc_entries *next;
};

void cst_sparc_entries_free(struct sparc_entries *e)
{
	while (e) {
		struct sparc_entries *n = e->next;
		free(e->bits);
		free(e);
		e = n;
	}
}

static bool bit(const struct sparc_entries *e, size_t i)
{
	return (e->bits[i / 64] >> (i % 64)) & 1;
}

/* Word index of the entry at or below word I (searching MAX_FUNC_WORDS back), or -1. */
static ptrdiff_t entry_below(const struct sparc_entries *e, size_t i)
{
	for (size_t k = 0; k <= MAX_FUNC_WORDS && k <= i; k++)
		if (bit(e, i - k))
			return (ptrdiff_t)(i - k);
	return -1;
}

/* Word index of the first entry above word I, or nwords. */
static size_t entry_above(const struct sparc_entries *e, size_t i)
{
	for (size_t k = i + 1; k < e->nwords; k++)
		if (bit(e, k))
			return k;
	return e->nwords;
}

static void build(struct cst_unwind *u, struct sparc_entries *e)
{
	uint64_t mask = u->env->arch->addr_size == 4 ? 0xffffffffull : ~0ull;
	size_t len = e->nwords * 4;
	uint8_t *buf = calloc(len ? len : 4, 1);      /* unreadable words stay 0: ILLTRAP */
	if (!buf)
		return;
	cst_read_code(u->env->target, e->lo, buf, len, 4);
	e->bits[0] |= 1;
	for (int round = 0; round < MAX_ROUNDS; round++) {
		bool changed = false;
		for (size_t i = 0; i < e->nwords; i++) {
			const uint8_t *p = buf + 4 * i;
			uint32_t w = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
			bool call;
			uint64_t t;
			if (!cst_sparc_transfer(w, e->lo + 4 * i, mask, &call, &t) || t < e->lo || t >= e->hi)
				continue;
			size_t ti = (size_t)((t - e->lo) / 4);
			if (bit(e, ti) || (call ? round > 0 : round == 0))
				continue;               /* calls in the first round, branches after */
			if (!call) {
				ptrdiff_t f = entry_below(e, i);
				if (f < 0 || (ti >= (size_t)f && ti < entry_above(e, i)))
					continue;       /* a branch inside its function */
			}
			e->bits[ti / 64] |= 1ull << (ti % 64);
			changed = true;
		}
		if (round > 0 && !changed)
			break;
	}
	free(buf);
}

int cst_sparc_guess_func(struct cst_unwind *u, uint64_t addr, struct cst_func *fn)
{
	struct sparc_entries **slot = cst_sparc_entries_slot(u);
	uint64_t lo, hi;
	if (!slot || !u->env->syms || !cst_symbols_exec_range(u->env->syms, addr, &lo, &hi) ||
	    hi - lo > MAX_SEGMENT_BYTES || (lo & 3))
		return -CST_E_NO_FUNC;
	struct sparc_entries *e = *slot;
	while (e && e->lo != lo)
		e = e->next;
	if (!e) {
		e = calloc(1, sizeof *e);
		if (!e)
			return -CST_E_NO_FUNC;
		e->lo = lo;
		e->hi = hi;
		e->nwords = (size_t)((hi - lo) / 4);
		e->bits = calloc(e->nwords / 64 + 1, sizeof *e->bits);
		if (!e->bits) {
			free(e);
			return -CST_E_NO_FUNC;
		}
		build(u, e);
		e->next = *slot;
		*slot = e;
	}
	if (addr < lo || addr >= hi || e->nwords == 0)
		return -CST_E_NO_FUNC;
	size_t i = (size_t)((addr - lo) / 4);
	ptrdiff_t f = entry_below(e, i);
	if (f < 0)
		return -CST_E_NO_FUNC;
	memset(fn, 0, sizeof *fn);
	fn->start = lo + 4 * (uint64_t)f;
	fn->end = lo + 4 * (uint64_t)entry_above(e, i);
	return 0;
}

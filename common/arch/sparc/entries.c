/* SPARC function entries in code with neither symbols nor CFI, for unwind/entries.h: a
 * stripped program built without unwind tables (Debian's sparc64 gcc emits no .eh_frame for
 * C by default, so a stripped sparc64 program usually has neither).
 *
 * Entries are the segment's start and the targets of CALL instructions; branches that leave
 * their function are tail calls to functions that are never called directly (`b T` after
 * `mov %o7,%g1` or with `restore` in its delay slot).  Every word is an instruction (SPARC V9
 * manual, Appendix A); a function is searched at most 256 KiB below an address. */
#include "sparc.h"
#include "entries.h"
#include "error.h"
#include "unwind.h"

static size_t decode(void *ctx, const uint8_t *p, size_t left, uint64_t addr,
		     enum cst_entry_ref *ref, uint64_t *target)
{
	const struct cst_unwind *u = ctx;
	uint64_t mask = u->env->arch->addr_size == 4 ? 0xffffffffull : ~0ull;
	uint32_t w = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	bool call;
	(void)left;                     /* at least unit (4) bytes */
	if (cst_sparc_transfer(w, addr, mask, &call, target))
		*ref = call ? CST_REF_ENTRY : CST_REF_JUMP;
	return 4;
}

static const struct cst_entries_ops entries_ops = {
	.unit = 4,
	.fill = 0,              /* ILLTRAP */
	.segment_start = true,
	.max_func_bytes = 256 * 1024,
	.decode = decode,
};

int cst_sparc_guess_func(struct cst_unwind *u, uint64_t addr, struct cst_func *fn)
{
	struct cst_entries **slot = cst_sparc_entries_slot(u);
	return slot ? cst_entries_func(slot, u, &entries_ops, u, addr, fn) : -CST_E_NO_FUNC;
}

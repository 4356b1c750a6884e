/* The application of a plain rule row (cst_row.plain), inline where a walk applies one on
 * every step (the cursor's remembered rung) as well as in cst_row_apply, and the parts of
 * cst_row_apply both share.  Internal to common/unwind. */
#ifndef CST_ROW_PLAIN_H
#define CST_ROW_PLAIN_H

#include "error.h"
#include "row.h"
#include "target.h"
#include "unwind.h"

static inline void cst_row_origin_set(struct cst_reg_origin *o, int reg, enum cst_reg_how how, uint64_t where)
{
	if (o && reg >= 0 && reg < CST_NREGS) {
		o->how[reg] = (uint8_t)how;
		o->where[reg] = where;
	}
}

/* For the save slot at ADDR of the caller's register R, which cannot be read: 0 (the
 * register stays unknown), or -CST_E_MEMORY when R is the return address (the fault noted
 * on U). */
static inline int cst_row_unreadable(struct cst_unwind *u, int r, uint64_t addr)
{
	if (r != u->env->arch->pc_reg)
		return 0;
	cst_unwind_note_fault(u, addr);
	return -CST_E_MEMORY;
}

/* The end of cst_row_apply once the rules are applied (RA_DEFINED: the return address is
 * in OUT; FP_SLOT: where the frame pointer was saved, 0 when not read from memory). */
static inline __attribute__((always_inline)) int cst_row_done(struct cst_unwind *u, const struct cst_row *row,
		const struct cst_regs *in, struct cst_regs *out, uint64_t cfa, bool ra_defined,
		uint64_t fp_slot, uint64_t *cfap, bool *frame_record, struct cst_reg_origin *origin)
{
	const struct cst_arch *arch = u->env->arch;
	/* A return-address column other than the pc (SPARC: %o7, which holds the call's
	 * address; the caller resumes ra_offset bytes after it, libdw's sparc ebl ra_offset). */
	uint64_t rav;
	if (!ra_defined && row->ra_col >= 0 && row->ra_col != arch->pc_reg &&
	    cst_reg_get(out, row->ra_col, &rav)) {
		rav += arch->ra_offset;
		cst_reg_set(out, arch->pc_reg, arch->addr_size == 4 ? rav & 0xffffffffull : rav);
		ra_defined = true;
	}
	if (!ra_defined)
		return 0;
	/* The caller's stack pointer is the CFA (x86-64 psABI 3.6.2), less the stack bias
	 * (SPARC V9: the CFA is %sp + 2047). */
	cst_reg_set(out, arch->sp_reg, cfa - arch->stack_bias);
	cst_row_origin_set(origin, arch->sp_reg, CST_REG_CFA, 0);
	if (origin)
		origin->callee_cfa = cfa;
	uint64_t fp;
	if (row->frame_record >= 0)
		*frame_record = row->frame_record > 0;
	else if (fp_slot && cst_reg_get(in, arch->fp_reg, &fp) && fp == fp_slot &&
		 fp_slot == cfa - 2 * arch->addr_size)
		*frame_record = true;
	*cfap = cfa;
	return 1;
}

/* cst_row_apply for a plain row (cst_row.plain), without ORIGIN and without expressions
 * (no load bias): the rules found by kind and the saved registers from the row's list, read
 * through a copy of the target's span (when U->span_words); neither reads another's result,
 * nor fails but for the return address.  Returns as cst_row_apply; with SPAN_ONLY (a
 * constant, U->span_words set), 0 as soon as a saved register is not in the span, where it
 * would read the target (the caller applies the row again without it): a loop that calls
 * nothing keeps its values in registers. */
static inline __attribute__((always_inline)) int cst_row_apply_plain(struct cst_unwind *u, const struct cst_row *row, const struct cst_regs *in,
		       struct cst_regs *out, uint64_t *cfap, bool *frame_record, bool span_only)
{
	const struct cst_arch *arch = u->env->arch;
	const uint64_t valid = in->valid[0];
	*frame_record = false;
	if (!(valid >> row->cfa_reg & 1))
		return -CST_E_CFI;
	const uint64_t cfa = in->val[row->cfa_reg] + (uint64_t)row->cfa_off;
	/* the same-value rules at once: the callee's valid registers among them */
	const uint64_t same = row->same & valid;
	if (arch->nregs <= CST_REGS_SHORT) {
		/* one block: the values of the other registers are behind invalid bits or
		 * written below */
		cst_regs_copy_short(out->val, in->val);
	} else {
		for (uint64_t m = same; m; m &= m - 1) {
			int r = __builtin_ctzll(m);
			out->val[r] = in->val[r];
		}
	}
	for (uint64_t m = row->at_cfa; m; m &= m - 1) {
		int r = __builtin_ctzll(m);
		out->val[r] = cfa + (uint64_t)row->reg[r].n;
	}
	uint64_t got = row->at_cfa | row->saved;   /* less the slots that cannot be read */
	const struct cst_target *t = u->env->target;
	const struct cst_target_span none = { .len = 0 };
	struct cst_target_span span = span_only || u->span_words ? t->span : none;
	for (unsigned k = 0; k < row->nsaved; k++) {
		int r = row->saved_reg[k];
		uint64_t v, addr = cfa + (uint64_t)row->saved_off[k];
		if (!cst_span_word(&span, addr, &v)) {
			if (span_only)
				return 0;
			int rc = cst_target_read_word(t, addr, arch->addr_size, &v);
			span = u->span_words ? t->span : none;   /* the read may move it */
			if (rc < 0) {
				got &= ~(1ull << r);
				if ((rc = cst_row_unreadable(u, r, addr)) < 0) {
					out->valid[0] = same;
					return rc;
				}
				continue;
			}
		}
		out->val[r] = v;
	}
	out->valid[0] = same | got;
	bool ra_defined = arch->pc_reg >= 0 && arch->pc_reg < 64 && (got >> arch->pc_reg & 1);
	/* the frame pointer's save slot tells the frame record where the row does not */
	uint64_t fp_slot = 0;
	if (row->frame_record < 0 && arch->fp_reg >= 0 && arch->fp_reg < 64 &&
	    (row->saved >> arch->fp_reg & 1))
		fp_slot = cfa + (uint64_t)row->reg[arch->fp_reg].n;
	return cst_row_done(u, row, in, out, cfa, ra_defined, fp_slot, cfap, frame_record, NULL);
}

#endif

/* Applying a rule row: the caller's registers, its CFA and the frame-record flag.  See row.h. */
#include "row.h"
#include "row_plain.h"
#include "error.h"
#include "unwind.h"

/* The CFA of ROW with the callee's registers IN.  Returns 0 or a negative code. */
static int row_cfa(struct cst_unwind *u, const struct cst_row *row, uint64_t bias,
		   const struct cst_regs *in, uint64_t *cfa)
{
	bool is_value;
	uint64_t base;
	switch ((enum cst_cfa_kind)row->cfa_kind) {
	case CST_CFA_REG:
		if (!cst_reg_get(in, row->cfa_reg, &base))
			return -CST_E_CFI;
		*cfa = base + (uint64_t)row->cfa_off;
		return 0;
	case CST_CFA_EXPR:
		return cst_cfi_eval(u, row->cfa_ops, row->cfa_nops, in, 0, false, bias, cfa, &is_value);
	case CST_CFA_NONE:
		break;
	}
	return -CST_E_CFI;
}

void cst_row_index(struct cst_row *row, int nregs)
{
	row->defined = 0;
	row->same = 0;
	row->saved = 0;
	row->at_cfa = 0;
	for (int r = 0; r < nregs && r < CST_NREGS && r < 64; r++) {
		if (row->reg[r].kind != CST_RULE_UNDEFINED)
			row->defined |= 1ull << r;
		if (row->reg[r].kind == CST_RULE_SAME)
			row->same |= 1ull << r;
		if (row->reg[r].kind == CST_RULE_OFFSET)
			row->saved |= 1ull << r;
		if (row->reg[r].kind == CST_RULE_VAL_OFFSET)
			row->at_cfa |= 1ull << r;
	}
	row->indexed = true;
	row->nsaved = 0;
	row->plain = row->cfa_kind == CST_CFA_REG && row->cfa_reg >= 0 && row->cfa_reg < 64 &&
		     !(row->defined & ~(row->same | row->saved | row->at_cfa)) &&
		     __builtin_popcountll(row->saved) <= CST_ROW_SAVED;
	if (row->plain)
		for (uint64_t m = row->saved; m; m &= m - 1) {
			int r = __builtin_ctzll(m);
			row->saved_reg[row->nsaved] = (uint8_t)r;
			row->saved_off[row->nsaved++] = row->reg[r].n;
		}
}

int cst_row_apply(struct cst_unwind *u, const struct cst_row *row, uint64_t bias,
		  const struct cst_regs *in, struct cst_regs *out, uint64_t *cfap,
		  bool *frame_record, struct cst_reg_origin *origin)
{
	if (row->plain && !origin)
		return cst_row_apply_plain(u, row, in, out, cfap, frame_record, false);
	const struct cst_arch *arch = u->env->arch;
	uint64_t cfa;
	*frame_record = false;
	int rc = row_cfa(u, row, bias, in, &cfa);
	if (rc < 0)
		return rc;
	cst_regs_clear(out);
	bool ra_defined = false;
	uint64_t fp_slot = 0;
	const int nregs = arch->nregs < CST_NREGS ? arch->nregs : CST_NREGS;
	/* the registers with a rule, lowest first */
	uint64_t todo = row->indexed ? row->defined : nregs >= 64 ? ~0ull : (1ull << nregs) - 1;
	if (row->indexed) {
		/* the same-value rules at once: the callee's valid registers among them (a plain
		 * row without ORIGIN went to apply_plain) */
		uint64_t same = row->same & in->valid[0];
		out->valid[0] |= same;
		for (uint64_t m = same; m; m &= m - 1) {
			int r = __builtin_ctzll(m);
			out->val[r] = in->val[r];
			cst_row_origin_set(origin, r, CST_REG_SAME, 0);
		}
		todo &= ~row->same;
	}
	while (todo) {
		int r = __builtin_ctzll(todo);
		todo &= todo - 1;
		const struct cst_rule *x = &row->reg[r];
		if (x->kind == CST_RULE_UNDEFINED)
			continue;
		uint64_t v, addr = 0;
		bool is_value = false;
		switch ((enum cst_rule_kind)x->kind) {
		case CST_RULE_UNDEFINED:
			continue;
		case CST_RULE_SAME:
			if (cst_reg_get(in, r, &v)) {
				cst_reg_set(out, r, v);
				cst_row_origin_set(origin, r, CST_REG_SAME, 0);
			}
			continue;
		case CST_RULE_OFFSET:
			v = cfa + (uint64_t)x->n;
			break;
		case CST_RULE_VAL_OFFSET:
			v = cfa + (uint64_t)x->n;
			is_value = true;
			break;
		case CST_RULE_REGISTER:
			if (!cst_reg_get(in, (int)x->n, &v))
				continue;
			is_value = true;
			break;
		case CST_RULE_EXPR:
		case CST_RULE_VAL_EXPR:
			rc = cst_cfi_eval(u, x->ops, x->nops, in, cfa, true, bias, &v, &is_value);
			if (rc == -CST_E_MEMORY)
				return rc;
			if (rc < 0)
				continue;
			break;
		}
		if (!is_value) {
			if (r == arch->fp_reg)
				fp_slot = v;
			addr = v;
			if (cst_target_read_word(u->env->target, addr, arch->addr_size, &v) < 0) {
				if ((rc = cst_row_unreadable(u, r, addr)) < 0)
					return rc;
				continue;
			}
		}
		cst_reg_set(out, r, v);
		cst_row_origin_set(origin, r, is_value ? CST_REG_COMPUTED : CST_REG_SAVED, addr);
		if (r == arch->pc_reg)
			ra_defined = true;
	}
	return cst_row_done(u, row, in, out, cfa, ra_defined, fp_slot, cfap, frame_record, origin);
}

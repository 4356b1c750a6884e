/* Applying a rule row: the caller's registers, its CFA and the frame-record flag.  See row.h. */
#include "row.h"
#include "error.h"
#include "unwind.h"

static void origin_set(struct cst_reg_origin *o, int reg, enum cst_reg_how how, uint64_t where)
{
	if (o && reg >= 0 && reg < CST_NREGS) {
		o->how[reg] = (uint8_t)how;
		o->where[reg] = where;
	}
}

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

/* For the save slot at ADDR of the caller's register R, which cannot be read: 0 (the
 * register stays unknown), or -CST_E_MEMORY when R is the return address (the fault noted
 * on U). */
static int unreadable(struct cst_unwind *u, int r, uint64_t addr)
{
	if (r != u->env->arch->pc_reg)
		return 0;
	cst_unwind_note_fault(u, addr);
	return -CST_E_MEMORY;
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
}

int cst_row_apply(struct cst_unwind *u, const struct cst_row *row, uint64_t bias,
		  const struct cst_regs *in, struct cst_regs *out, uint64_t *cfap,
		  bool *frame_record, struct cst_reg_origin *origin)
{
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
		/* the same-value rules at once: the callee's valid registers among them */
		uint64_t same = row->same & in->valid[0];
		out->valid[0] |= same;
		if (nregs <= CST_REGS_SHORT && !origin) {
			/* one block, which the compiler writes as moves: the values of the other
			 * registers are behind invalid bits or written below */
			memcpy(out->val, in->val, CST_REGS_SHORT * sizeof out->val[0]);
		} else {
			for (uint64_t m = same; m; m &= m - 1) {
				int r = __builtin_ctzll(m);
				out->val[r] = in->val[r];
				if (origin)
					origin_set(origin, r, CST_REG_SAME, 0);
			}
		}
		todo &= ~row->same;
	}
	if (row->indexed && !(todo & ~(row->saved | row->at_cfa))) {
		/* a row of saved registers and values at the CFA alone (a frame record's, most
		 * CFI rows): neither reads another's result, nor fails but for the return
		 * address, so that they are found by kind, without the loop below */
		uint64_t got = row->at_cfa;   /* the registers these rules recover */
		for (uint64_t m = row->at_cfa; m; m &= m - 1) {
			int r = __builtin_ctzll(m);
			out->val[r] = cfa + (uint64_t)row->reg[r].n;
		}
		const struct cst_target *t = u->env->target;
		struct cst_target_span span = cst_target_span_now(t, arch->addr_size);
		for (todo &= row->saved; todo; todo &= todo - 1) {
			int r = __builtin_ctzll(todo);
			uint64_t v, addr = cfa + (uint64_t)row->reg[r].n;
			if (!cst_span_word(&span, addr, &v)) {
				rc = cst_target_read_word(t, addr, arch->addr_size, &v);
				span = cst_target_span_now(t, arch->addr_size);   /* the read may move it */
				if (rc < 0) {
					if ((rc = unreadable(u, r, addr)) < 0)
						return rc;
					continue;
				}
			}
			out->val[r] = v;
			got |= 1ull << r;
		}
		out->valid[0] |= got;
		if (origin)
			for (uint64_t m = got; m; m &= m - 1) {
				int r = __builtin_ctzll(m);
				if (row->at_cfa >> r & 1)
					origin_set(origin, r, CST_REG_COMPUTED, 0);
				else
					origin_set(origin, r, CST_REG_SAVED, cfa + (uint64_t)row->reg[r].n);
			}
		ra_defined = arch->pc_reg >= 0 && arch->pc_reg < 64 && (got >> arch->pc_reg & 1);
		/* the frame pointer's save slot tells the frame record where the row does not */
		if (row->frame_record < 0 && arch->fp_reg >= 0 && arch->fp_reg < 64 &&
		    (row->saved >> arch->fp_reg & 1))
			fp_slot = cfa + (uint64_t)row->reg[arch->fp_reg].n;
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
				origin_set(origin, r, CST_REG_SAME, 0);
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
				if ((rc = unreadable(u, r, addr)) < 0)
					return rc;
				continue;
			}
		}
		cst_reg_set(out, r, v);
		origin_set(origin, r, is_value ? CST_REG_COMPUTED : CST_REG_SAVED, addr);
		if (r == arch->pc_reg)
			ra_defined = true;
	}
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
	origin_set(origin, arch->sp_reg, CST_REG_CFA, 0);
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

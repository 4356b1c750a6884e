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

/* The end of cst_row_apply once the rules are applied (RA_DEFINED: the return address is
 * in OUT; FP_SLOT: where the frame pointer was saved, 0 when not read from memory). */
static inline __attribute__((always_inline)) int row_done(struct cst_unwind *u, const struct cst_row *row,
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

/* cst_row_apply for a plain row, without ORIGIN: the rules found by kind and the saved
 * registers from the row's list, read through a copy of the target's span; neither reads
 * another's result, nor fails but for the return address. */
static inline int apply_plain(struct cst_unwind *u, const struct cst_row *row, const struct cst_regs *in,
		       struct cst_regs *out, uint64_t *cfap, bool *frame_record)
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
		/* one block, which the compiler writes as moves: the values of the other
		 * registers are behind invalid bits or written below */
		memcpy(out->val, in->val, CST_REGS_SHORT * sizeof out->val[0]);
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
	struct cst_target_span span = cst_target_span_now(t, arch->addr_size);
	for (unsigned k = 0; k < row->nsaved; k++) {
		int r = row->saved_reg[k];
		uint64_t v, addr = cfa + (uint64_t)row->saved_off[k];
		if (!cst_span_word(&span, addr, &v)) {
			int rc = cst_target_read_word(t, addr, arch->addr_size, &v);
			span = cst_target_span_now(t, arch->addr_size);   /* the read may move it */
			if (rc < 0) {
				got &= ~(1ull << r);
				if ((rc = unreadable(u, r, addr)) < 0) {
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
	return row_done(u, row, in, out, cfa, ra_defined, fp_slot, cfap, frame_record, NULL);
}

int cst_row_apply(struct cst_unwind *u, const struct cst_row *row, uint64_t bias,
		  const struct cst_regs *in, struct cst_regs *out, uint64_t *cfap,
		  bool *frame_record, struct cst_reg_origin *origin)
{
	if (row->plain && !origin)
		return apply_plain(u, row, in, out, cfap, frame_record);
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
			origin_set(origin, r, CST_REG_SAME, 0);
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
	return row_done(u, row, in, out, cfa, ra_defined, fp_slot, cfap, frame_record, origin);
}

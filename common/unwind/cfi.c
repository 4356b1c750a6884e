/* The CFI step: a caller's registers from one row of .eh_frame / .debug_frame.
 *
 * libdw finds the row (dwarf_cfi_addrframe) and hands each rule out as a DWARF expression
 * (dwarf_frame_cfa, dwarf_frame_register); this file evaluates them against the callee's
 * registers and the target's memory.  The operations are those of DWARF 5 section 2.5 that
 * CFI uses in practice, including the x86-64 PLT rule
 * (breg7 8; breg16 0; lit15; and; lit11; ge; lit3; shl; plus). */
#include "unwind.h"
#include "error.h"
#include "memo.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#define STACK_MAX 64

/* Evaluates OPS (NOPS operations) with REGS; the stack starts with INITIAL values (0 or 1,
 * the CFA for register rules).  Stores the top of the stack in *RESULT and sets *IS_VALUE
 * when the expression ends with DW_OP_stack_value (a value, not an address). */
static int eval(struct cst_unwind *u, const Dwarf_Op *ops, size_t nops, const struct cst_regs *regs,
		uint64_t cfa, bool push_cfa, uint64_t bias, uint64_t *result, bool *is_value)
{
	uint64_t st[STACK_MAX];
	int sp = 0;
	unsigned w = u->env->arch->addr_size;
	*is_value = false;
	if (push_cfa)
		st[sp++] = cfa;
#define NEED(n) do { if (sp < (n)) return -CST_E_CFI; } while (0)
#define PUSH(v) do { uint64_t v_ = (v); if (sp >= STACK_MAX) return -CST_E_CFI; st[sp++] = v_; } while (0)
	for (size_t i = 0; i < nops; i++) {
		const Dwarf_Op *op = &ops[i];
		uint8_t a = op->atom;
		uint64_t v, x;
		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			PUSH(a - DW_OP_lit0);
			continue;
		}
		if ((a >= DW_OP_breg0 && a <= DW_OP_breg31) || a == DW_OP_bregx) {
			int r = a == DW_OP_bregx ? (int)op->number : a - DW_OP_breg0;
			int64_t off = a == DW_OP_bregx ? (int64_t)op->number2 : (int64_t)op->number;
			if (!cst_reg_get(regs, r, &v))
				return -CST_E_CFI;
			PUSH(v + (uint64_t)off);
			continue;
		}
		if ((a >= DW_OP_reg0 && a <= DW_OP_reg31) || a == DW_OP_regx) {
			int r = a == DW_OP_regx ? (int)op->number : a - DW_OP_reg0;
			if (!cst_reg_get(regs, r, &v))
				return -CST_E_CFI;
			PUSH(v);
			*is_value = true;
			continue;
		}
		switch (a) {
		case DW_OP_addr:   PUSH(op->number + bias); break;
		case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
		case DW_OP_constu:
		case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
		case DW_OP_consts: PUSH(op->number); break;
		case DW_OP_call_frame_cfa: PUSH(cfa); break;
		case DW_OP_dup:    NEED(1); PUSH(st[sp - 1]); break;
		case DW_OP_drop:   NEED(1); sp--; break;
		case DW_OP_over:   NEED(2); PUSH(st[sp - 2]); break;
		case DW_OP_swap:   NEED(2); x = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = x; break;
		case DW_OP_deref:
			NEED(1);
			if (cst_target_read_word(u->env->target, st[sp - 1], w, &v) < 0) {
				cst_unwind_note_fault(u, st[sp - 1]);
				return -CST_E_MEMORY;
			}
			st[sp - 1] = v;
			break;
		case DW_OP_plus_uconst: NEED(1); st[sp - 1] += op->number; break;
#define BIN(opc, expr) case opc: NEED(2); x = st[--sp]; v = st[sp - 1]; st[sp - 1] = (expr); break;
		BIN(DW_OP_plus, v + x)
		BIN(DW_OP_minus, v - x)
		BIN(DW_OP_mul, v * x)
		BIN(DW_OP_and, v & x)
		BIN(DW_OP_or, v | x)
		BIN(DW_OP_xor, v ^ x)
		BIN(DW_OP_shl, x < 64 ? v << x : 0)
		BIN(DW_OP_shr, x < 64 ? v >> x : 0)
		BIN(DW_OP_shra, x < 64 ? (uint64_t)((int64_t)v >> x) : 0)
		BIN(DW_OP_ge, (int64_t)v >= (int64_t)x)
		BIN(DW_OP_gt, (int64_t)v > (int64_t)x)
		BIN(DW_OP_le, (int64_t)v <= (int64_t)x)
		BIN(DW_OP_lt, (int64_t)v < (int64_t)x)
		BIN(DW_OP_eq, v == x)
		BIN(DW_OP_ne, v != x)
#undef BIN
		case DW_OP_neg: NEED(1); st[sp - 1] = -st[sp - 1]; break;
		case DW_OP_not: NEED(1); st[sp - 1] = ~st[sp - 1]; break;
		case DW_OP_abs: NEED(1); if ((int64_t)st[sp - 1] < 0) st[sp - 1] = -st[sp - 1]; break;
		case DW_OP_nop: break;
		case DW_OP_stack_value: *is_value = true; break;
		default:
			return -CST_E_CFI;
		}
	}
#undef NEED
#undef PUSH
	if (sp == 0)
		return -CST_E_CFI;
	*result = st[sp - 1];
	return 0;
}

/* ---- rows decoded once ------------------------------------------------------------ */

/* The rules of one CFI row as libdw hands them out (dwarf_frame_cfa, dwarf_frame_register),
 * kept per row: the threads of a core share their rows, and asking libdw for every register
 * of every frame was most of a step's cost.  Rules are listed in register order; registers
 * whose rule is undefined or that libdw cannot describe are left out, as the step skips
 * them. */
struct rule {
	int reg;
	bool same;               /* same value as in the callee */
	const Dwarf_Op *ops;     /* the rule's expression (into mem, the row or the CFI) */
	size_t nops;
	Dwarf_Op mem[3];         /* dwarf_frame_register's ops_mem for simple rules */
};

struct decoded {
	const Dwarf_Op *cfa_ops; /* NULL: no usable CFA rule */
	size_t cfa_nops;
	int ra_col;              /* the return-address column (dwarf_frame_info), or -1 */
	int n;
	struct rule r[];
};

#define MAX_DECODED_ROWS (64 * 1024)

static struct decoded *decode(Dwarf_Frame *frame, int nregs)
{
	struct decoded *d = malloc(sizeof *d + (size_t)nregs * sizeof(struct rule));
	if (!d)
		return NULL;
	Dwarf_Op *ops;
	size_t nops;
	d->n = 0;
	d->cfa_ops = NULL;
	d->cfa_nops = 0;
	d->ra_col = dwarf_frame_info(frame, NULL, NULL, NULL);
	if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops > 0) {
		d->cfa_ops = ops;
		d->cfa_nops = nops;
	}
	for (int r = 0; r < nregs; r++) {
		Dwarf_Op mem[3];
		if (dwarf_frame_register(frame, r, mem, &ops, &nops) != 0)
			continue;
		if (nops == 0 && ops != NULL)
			continue;                            /* undefined */
		struct rule *x = &d->r[d->n++];
		x->reg = r;
		x->same = nops == 0;
		x->nops = nops;
		x->ops = ops;
		if (ops >= mem && ops < mem + 3) {           /* libdw's ops_mem: keep a copy */
			memcpy(x->mem, mem, sizeof mem);
			x->ops = x->mem + (ops - mem);
		}
	}
	return d;
}

static void free_decoded(uint64_t key, void *value, void *arg)
{
	free(*(struct decoded **)value);
}

void cst_cfi_cache_free(struct cst_unwind_env *env)
{
	cst_memo_each(env->cfi_cache, free_decoded, NULL);
	cst_memo_free(env->cfi_cache);
	env->cfi_cache = NULL;
}

/* FRAME's decoded rules; *OWNED is set when the caller must free them (a row that is not
 * kept for the life of the symbols cannot be remembered by its address). */
static struct decoded *decoded_row(struct cst_unwind *u, Dwarf_Frame *frame, bool *owned)
{
	struct cst_unwind_env *env = u->env;
	*owned = false;
	bool keep = env->syms && cst_symbols_cfi_kept(env->syms, frame);
	if (keep && !env->cfi_cache)
		env->cfi_cache = cst_memo_new(sizeof(struct decoded *), MAX_DECODED_ROWS);
	uint64_t key = (uint64_t)(uintptr_t)frame;
	struct decoded *const *m = keep ? cst_memo_get(env->cfi_cache, key) : NULL;
	if (m)
		return *m;
	struct decoded *d = decode(frame, env->arch->nregs);
	if (d && !(keep && cst_memo_put(env->cfi_cache, key, &d)))
		*owned = true;
	return d;
}

static int step(struct cst_unwind *u, const struct decoded *d, uint64_t bias,
		const struct cst_regs *in, struct cst_regs *out, uint64_t *cfap, bool *fp_record)
{
	const struct cst_arch *arch = u->env->arch;
	bool is_value;
	uint64_t cfa;
	*fp_record = false;
	if (!d->cfa_ops)
		return -CST_E_CFI;
	int rc = eval(u, d->cfa_ops, d->cfa_nops, in, 0, false, bias, &cfa, &is_value);
	if (rc < 0)
		return rc;
	cst_regs_clear(out);
	memset(u->step_origin.how, 0, sizeof u->step_origin.how);
	bool ra_defined = false;
	uint64_t fp_slot = 0;
	for (int i = 0; i < d->n; i++) {
		const struct rule *x = &d->r[i];
		int r = x->reg;
		uint64_t v;
		if (x->same) {
			if (cst_reg_get(in, r, &v)) {         /* same value */
				cst_reg_set(out, r, v);
				cst_origin_set(&u->step_origin, r, CST_REG_SAME, 0);
			}
			continue;
		}
		rc = eval(u, x->ops, x->nops, in, cfa, true, bias, &v, &is_value);
		if (rc == -CST_E_MEMORY)
			return rc;
		if (rc < 0)
			continue;
		uint64_t addr = 0;
		if (!is_value) {
			if (r == arch->fp_reg)
				fp_slot = v;
			addr = v;
			if (cst_target_read_word(u->env->target, addr, arch->addr_size, &v) < 0) {
				if (r != arch->pc_reg)
					continue;        /* a register we could not read stays unknown */
				cst_unwind_note_fault(u, addr);
				return -CST_E_MEMORY;
			}
		}
		cst_reg_set(out, r, v);
		cst_origin_set(&u->step_origin, r, is_value ? CST_REG_COMPUTED : CST_REG_SAVED, addr);
		if (r == arch->pc_reg)
			ra_defined = true;
	}
	/* A return-address column other than the pc (SPARC: %o7, which holds the call's
	 * address; the caller resumes ra_offset bytes after it, libdw's sparc ebl ra_offset). */
	int ra_col = d->ra_col;
	uint64_t rav;
	if (!ra_defined && ra_col >= 0 && ra_col != arch->pc_reg && cst_reg_get(out, ra_col, &rav)) {
		rav += arch->ra_offset;
		cst_reg_set(out, arch->pc_reg, arch->addr_size == 4 ? rav & 0xffffffffull : rav);
		ra_defined = true;
	}
	if (!ra_defined)
		return 0;
	/* The caller's stack pointer is the CFA (x86-64 psABI 3.6.2), less the stack bias
	 * (SPARC V9: the CFA is %sp + 2047). */
	cst_reg_set(out, arch->sp_reg, cfa - arch->stack_bias);
	cst_origin_set(&u->step_origin, arch->sp_reg, CST_REG_CFA, 0);
	uint64_t fp, sp;
	if (fp_slot && cst_reg_get(in, arch->fp_reg, &fp) && fp == fp_slot &&
	    fp_slot == cfa - 2 * arch->addr_size)
		*fp_record = true;
	/* Register windows: the callee has a window of its own unless the caller's %sp is its. */
	if (arch->register_windows && cst_reg_get(in, arch->sp_reg, &sp))
		*fp_record = cfa - arch->stack_bias != sp;
	*cfap = cfa;
	return 1;
}

int cst_cfi_step(struct cst_unwind *u, Dwarf_Frame *frame, uint64_t bias,
		const struct cst_regs *in, struct cst_regs *out, uint64_t *cfap, bool *fp_record)
{
	bool owned;
	*fp_record = false;
	struct decoded *d = decoded_row(u, frame, &owned);
	if (!d)
		return -CST_E_CFI;                /* no memory: the other strategies are tried */
	int rc = step(u, d, bias, in, out, cfap, fp_record);
	if (owned)
		free(d);
	return rc;
}

/* The CFI strategy: a caller's registers from one row of .eh_frame / .debug_frame.
 *
 * libdw finds the row (dwarf_cfi_addrframe) and hands each rule out as a DWARF expression
 * (dwarf_frame_cfa, dwarf_frame_register); this file turns them into a struct cst_row
 * (row.h), applied by cst_row_apply, and evaluates the expressions that remain against the
 * callee's registers and the target's memory.  The operations are those of DWARF 5 section 2.5 that
 * CFI uses in practice, including the x86-64 PLT rule
 * (breg7 8; breg16 0; lit15; and; lit11; ge; lit3; shl; plus). */
#include "unwind.h"
#include "error.h"
#include "memo.h"
#include "row.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#define STACK_MAX 64

int cst_cfi_eval(struct cst_unwind *u, const Dwarf_Op *ops, size_t nops, const struct cst_regs *regs,
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

/* ---- rows converted once --------------------------------------------------------- */

/* libdw's rules (libdw/dwarf_frame_register.c) as row rules: same value (no operations),
 * undefined (none, ops set), offset(N) as DW_OP_call_frame_cfa [DW_OP_plus_uconst N],
 * val_offset(N) as the same and DW_OP_stack_value, register(R) as DW_OP_regx R, all in
 * the caller's OPS_MEM; expression and val_expression as operations kept by the CFI, with
 * DW_OP_call_frame_cfa first (and DW_OP_stack_value last for a value). */
static void convert_rule(struct cst_rule *x, const Dwarf_Op *ops, size_t nops, const Dwarf_Op *mem)
{
	memset(x, 0, sizeof *x);
	if (nops == 0) {
		x->kind = ops ? CST_RULE_UNDEFINED : CST_RULE_SAME;
		return;
	}
	if (ops >= mem && ops < mem + 3) {
		if (nops == 1 && ops[0].atom == DW_OP_regx) {
			x->kind = CST_RULE_REGISTER;
			x->n = (int64_t)ops[0].number;
			return;
		}
		if (ops[0].atom != DW_OP_call_frame_cfa)
			return;                                   /* not a shape libdw makes */
		size_t i = 1;
		if (i < nops && ops[i].atom == DW_OP_plus_uconst)
			x->n = (int64_t)ops[i++].number;
		bool value = i < nops && ops[i].atom == DW_OP_stack_value;
		if (i + value != nops) {
			x->n = 0;
			return;
		}
		x->kind = value ? CST_RULE_VAL_OFFSET : CST_RULE_OFFSET;
		return;
	}
	x->kind = ops[nops - 1].atom == DW_OP_stack_value ? CST_RULE_VAL_EXPR : CST_RULE_EXPR;
	x->ops = ops;
	x->nops = (uint32_t)nops;
}

void cst_cfi_row(Dwarf_Frame *frame, int nregs, struct cst_row *row)
{
	Dwarf_Op *ops;
	size_t nops;
	memset(row, 0, offsetof(struct cst_row, reg));
	memset(row->reg, 0, sizeof row->reg);
	row->frame_record = -1;
	row->ra_col = dwarf_frame_info(frame, NULL, NULL, NULL);
	if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops > 0) {
		if (nops == 1 && ops[0].atom == DW_OP_bregx) {
			row->cfa_kind = CST_CFA_REG;
			row->cfa_reg = (int)ops[0].number;
			row->cfa_off = (int64_t)ops[0].number2;
		} else {
			row->cfa_kind = CST_CFA_EXPR;
			row->cfa_ops = ops;
			row->cfa_nops = nops;
		}
	}
	for (int r = 0; r < nregs && r < CST_NREGS; r++) {
		Dwarf_Op mem[3];
		if (dwarf_frame_register(frame, r, mem, &ops, &nops) == 0)
			convert_rule(&row->reg[r], ops, nops, mem);
	}
}

/* Rows are converted once and kept per Dwarf_Frame: the threads of a core share their rows,
 * and asking libdw for every register of every frame was most of a step's cost. */
#define MAX_CONVERTED_ROWS (64 * 1024)

static void free_row(uint64_t key, void *value, void *arg)
{
	free(*(struct cst_row **)value);
}

void cst_cfi_cache_free(struct cst_unwind_env *env)
{
	cst_memo_each(env->cfi_cache, free_row, NULL);
	cst_memo_free(env->cfi_cache);
	env->cfi_cache = NULL;
}

/* FRAME's row; *OWNED is set when the caller must free it (a Dwarf_Frame that is not kept
 * for the life of the symbols cannot be remembered by its address). */
static struct cst_row *converted_row(struct cst_unwind *u, Dwarf_Frame *frame, bool *owned)
{
	struct cst_unwind_env *env = u->env;
	*owned = false;
	bool keep = env->syms && cst_symbols_cfi_kept(env->syms, frame);
	if (keep && !env->cfi_cache)
		env->cfi_cache = cst_memo_new(sizeof(struct cst_row *), MAX_CONVERTED_ROWS);
	uint64_t key = (uint64_t)(uintptr_t)frame;
	struct cst_row *const *m = keep ? cst_memo_get(env->cfi_cache, key) : NULL;
	if (m)
		return *m;
	struct cst_row *row = malloc(sizeof *row);
	if (!row)
		return NULL;
	cst_cfi_row(frame, env->arch->nregs, row);
	/* A register the psABI preserves across calls that the CFI does not mention keeps its
	 * value (x86-64 psABI 3.2.1).  libdw's x86-64 initial rules say so for rbp and r12-r15
	 * but name register 0 (rax) where rbx (3) is meant, so rbx would read as undefined. */
	for (int r = 0; r < env->arch->nregs && r < CST_NREGS && r < 64; r++)
		if ((env->arch->preserved_regs >> r & 1) && r != env->arch->pc_reg &&
		    row->reg[r].kind == CST_RULE_UNDEFINED)
			row->reg[r].kind = CST_RULE_SAME;
	cst_row_index(row, env->arch->nregs);
	if (!(keep && cst_memo_put(env->cfi_cache, key, &row)))
		*owned = true;
	return row;
}

int cst_cfi_row_at(struct cst_unwind *u, uint64_t pc, const struct cst_row **row, uint64_t *bias,
		   bool *owned)
{
	Dwarf_Frame *frame = u->env->syms ? cst_symbols_cfi_cached(u->env->syms, pc, bias) : NULL;
	if (!frame)
		return 0;
	*row = converted_row(u, frame, owned);
	return *row ? 1 : -CST_E_NOMEM;
}

int cst_cfi_step(struct cst_unwind *u, struct cst_frame *f, const struct cst_func *fn,
		 struct cst_frame *c, struct cst_step *out)
{
	uint64_t bias, cfa = 0;
	const struct cst_row *row;
	bool owned;
	int rc = cst_unwind_cfi_row(u, f, &row, &bias, &owned);
	if (rc == 0)
		return -CST_E_DECODE;
	out->fp_record = false;
	if (rc < 0)
		return -CST_E_DECODE;             /* no memory: the other strategies are tried */
	rc = cst_row_apply(u, row, bias, &f->regs, &c->regs, &cfa, &out->fp_record, out->origin);
	if (owned)
		free((struct cst_row *)row);
	if (rc > 0)
		f->cfa = cfa;
	/* an expression it cannot evaluate: the other strategies are tried */
	return rc == -CST_E_CFI ? -CST_E_DECODE : rc;
}

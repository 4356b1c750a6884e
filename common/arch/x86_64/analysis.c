/* x86-64 instruction analysis: the rule row at a pc of code without CFI.
 *
 * Each function is decoded once with capstone and analysed by following its control flow
 * from the entry (unwind/dataflow.h): for every instruction the analysis knows the stack
 * height (CFA - rsp; the CFA is rsp before the call pushed the return address, so the
 * return address is at CFA - 8) and where the caller's rbp is (still in rbp, saved at
 * CFA - n, or rbp holding CFA - 16 as the frame record).  Within a function that is the same table .eh_frame would
 * give, derived for code built without CFI:
 *
 *	entry:	push %rbp          h = 8,  rbp = caller's        (return address at [rsp])
 *		mov  %rsp,%rbp     h = 16, caller's rbp at CFA-16 (return address at [rsp+8])
 *		...                 frame record: rbp = CFA - 16
 *		pop  %rbp          h = 16, rbp = caller's again
 *		ret                h = 8                          (return address at [rsp])
 *
 * The preserved registers rbx and r12-r15 (x86-64 psABI 3.2.1) hold the caller's values
 * wherever no path from the entry has written them (the row's same-value rule).
 *
 * Where paths join, a height or a place of the caller's rbp on which they disagree becomes
 * unknown, and the analysis cannot answer there (unless the frame record still gives the
 * CFA): the unwinder then tries its next strategy rather than trusting one path. */
#include "x86_64.h"
#include "error.h"
#include "symbols.h"
#include "util.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

/* The preserved registers other than rbp (x86-64 psABI 3.2.1: rbx, r12-r15), the ones
 * xstate.written follows. */
#define PRESERVED_NOT_FP (1u << RBX | 0xf000u)

static struct xstate transfer(struct xstate s, const struct xinsn *x)
{
	bool hk = s.h != H_UNKNOWN;
	s.written |= x->writes & PRESERVED_NOT_FP;
	switch (x->kind) {
	case K_PUSH_FP:
		if (hk)
			s.h += 8;
		if (s.fp == F_CALLER && hk) {
			s.fp = F_SAVED;
			s.save_off = (int16_t)s.h;
		}
		break;
	case K_PUSH:
		if (hk)
			s.h += 8;
		break;
	case K_POP_FP:
		if (hk)
			s.h -= 8;
		if (s.fp == F_SAVED || s.fp == F_FRAME)
			s.fp = F_CALLER;
		break;
	case K_POP:
		if (hk)
			s.h -= 8;
		break;
	case K_SUB_SP:
		if (hk)
			s.h += (int32_t)x->imm;
		break;
	case K_ADD_SP:
		if (hk)
			s.h -= (int32_t)x->imm;
		break;
	case K_MOV_FP_SP:
		if ((s.fp == F_SAVED || s.fp == F_FRAME) && hk) {
			s.fp = F_FRAME;
			s.rbp_off = (int16_t)s.h;
		} else if (s.fp != F_UNKNOWN) {
			s.fp = F_LOST;
		}
		break;
	case K_MOV_SP_FP:
		s.h = s.fp == F_FRAME ? s.rbp_off : H_UNKNOWN;
		break;
	case K_LEA_SP_FP:
		s.h = s.fp == F_FRAME ? s.rbp_off - (int32_t)x->imm : H_UNKNOWN;
		break;
	case K_LEAVE:
		if (s.fp == F_FRAME) {
			s.h = s.rbp_off - 8;
			s.fp = F_CALLER;
		} else {
			s.h = H_UNKNOWN;
			s.fp = s.fp == F_UNKNOWN ? F_UNKNOWN : F_LOST;
		}
		break;
	case K_SP_OTHER:
		s.h = H_UNKNOWN;
		break;
	case K_FP_OTHER:
		s.fp = s.fp == F_FRAME ? F_SAVED : s.fp == F_CALLER ? F_LOST : s.fp;
		break;
	}
	if (s.h != H_UNKNOWN && (s.h < 8 || s.h > (1 << 24)))
		s.h = H_UNKNOWN;
	return s;
}

/* ---- the hooks of unwind/dataflow.h ------------------------------------------------------ */

static ptrdiff_t index_of(const void *code, uint64_t addr)
{
	return cst_x86_64_find_insn(code, addr);
}

static int step(const void *code, size_t i, const void *in, void *out, size_t *succ)
{
	const struct code *k = code;
	const struct xinsn *x = &k->ins[i];
	struct xstate s = transfer(*(const struct xstate *)in, x);
	ptrdiff_t t = -1;
	int ns = 0;
	switch (x->kind) {
	case K_RET: case K_HALT: case K_JMP_IND:
		break;
	case K_JMP:
		if (x->target >= k->start && x->target < k->end)
			t = cst_x86_64_find_insn(k, x->target);
		break;
	case K_JCC:
		succ[ns++] = i + 1;
		if (x->target >= k->start && x->target < k->end)
			t = cst_x86_64_find_insn(k, x->target);
		break;
	case K_CALL: case K_CALL_IND:
		s.strength = 1;     /* the callee may not return */
		/* fall through */
	default:
		succ[ns++] = i + 1;
	}
	if (t >= 0)
		succ[ns++] = (size_t)t;
	*(struct xstate *)out = s;
	return ns;
}

/* A strong state replaces a weak one (code after a call that does not return, reached by a
 * jump from elsewhere, has the jump's state); states of the same strength keep what they
 * agree on.  The caller's rbp is still saved at the same place when one path has the frame
 * record set up and the other does not. */
static bool merge(void *dst, const void *src)
{
	struct xstate *d = dst, m = *d;
	const struct xstate *s = src;
	/* the preserved registers written on any path, whatever its strength */
	uint16_t written = d->written | s->written;
	if (s->strength < d->strength) {
		if (written == d->written)
			return false;
		d->written = written;
		return true;
	}
	if (s->strength > d->strength) {
		*d = *s;
		d->written = written;
		return true;
	}
	if (m.h != s->h)
		m.h = H_UNKNOWN;
	bool saved_m = m.fp == F_SAVED || m.fp == F_FRAME, saved_s = s->fp == F_SAVED || s->fp == F_FRAME;
	if (m.fp == s->fp && (!saved_m || m.save_off == s->save_off) &&
	    (m.fp != F_FRAME || m.rbp_off == s->rbp_off))
		;
	else if (saved_m && saved_s && m.save_off == s->save_off)
		m.fp = F_SAVED;
	else
		m.fp = F_UNKNOWN;
	m.written = written;
	if (m.h == d->h && m.fp == d->fp && m.written == d->written)
		return false;
	*d = m;
	return true;
}

static bool table_jump(const void *code, size_t i)
{
	return ((const struct code *)code)->ins[i].kind == K_JMP_IND;
}

static void seeded(void *state)
{
	((struct xstate *)state)->strength = 1;
}

static const struct cst_dataflow_ops flow_ops = {
	.state_size = sizeof(struct xstate),
	.index_of = index_of,
	.step = step,
	.merge = merge,
	.table_jump = table_jump,
	.seeded = seeded,
};

int cst_x86_64_analyse(struct cst_unwind *u, const struct cst_func *fn, uint64_t pc, struct cst_row *row)
{
	struct code *k = cst_x86_64_code(u, fn);
	if (!k)
		return -CST_E_DECODE;
	if (!k->analysed) {
		static const struct xstate entry = { .h = 8, .fp = F_CALLER, .strength = 2 };
		k->analysed = true;
		if (cst_dataflow_run(&k->flow, &flow_ops, k, k->n, &entry) < 0) {
			cst_dataflow_free(&k->flow);
			return -CST_E_NOMEM;
		}
	}
	if (!k->flow.states)
		return -CST_E_NOMEM;
	const struct xstate *s = cst_dataflow_at(&k->flow, pc);
	if (!s || s->fp == F_UNKNOWN)
		return -CST_E_DECODE;
	memset(row, 0, offsetof(struct cst_row, reg[NREGS]));   /* the rest is not read (row.h) */
	row->cfa_kind = CST_CFA_REG;
	row->ra_col = -1;
	if (s->fp == F_FRAME) {
		row->cfa_reg = RBP;
		row->cfa_off = s->rbp_off;
	} else if (s->h != H_UNKNOWN) {
		row->cfa_reg = RSP;
		row->cfa_off = s->h;
	} else {
		return -CST_E_DECODE;
	}
	row->reg[RIP] = (struct cst_rule){ .kind = CST_RULE_OFFSET, .n = -8 };
	if (s->fp == F_CALLER)
		row->reg[RBP].kind = CST_RULE_SAME;
	else if (s->fp != F_LOST)
		row->reg[RBP] = (struct cst_rule){ .kind = CST_RULE_OFFSET, .n = -(int64_t)s->save_off };
	row->frame_record = s->fp == F_FRAME && s->rbp_off == 16 && s->save_off == 16;
	/* a preserved register no path from the entry wrote holds the caller's value */
	for (int r = RBX; r <= 15; r++)
		if ((r == RBX || r >= 12) && !(s->written >> r & 1))
			row->reg[r].kind = CST_RULE_SAME;
	return 0;
}

/* x86-64 instruction analysis: the rule row at a pc of code without CFI.
 *
 * Each function is decoded once with capstone and analysed by following its control flow
 * from the entry: for every instruction the analysis knows the stack height (CFA - rsp; the
 * CFA is rsp before the call pushed the return address, so the return address is at
 * CFA - 8) and where the caller's rbp is (still in rbp, saved at CFA - n, or rbp holding
 * CFA - 16 as the frame record).  Within a function that is the same table .eh_frame would
 * give, derived for code built without CFI:
 *
 *	entry:	push %rbp          h = 8,  rbp = caller's        (return address at [rsp])
 *		mov  %rsp,%rbp     h = 16, caller's rbp at CFA-16 (return address at [rsp+8])
 *		...                 frame record: rbp = CFA - 16
 *		pop  %rbp          h = 16, rbp = caller's again
 *		ret                h = 8                          (return address at [rsp])
 */
#include "x86_64.h"
#include "error.h"
#include "symbols.h"
#include "util.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

static struct xstate transfer(struct xstate s, const struct xinsn *x)
{
	bool hk = s.h != H_UNKNOWN;
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
		} else {
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
			s.fp = F_LOST;
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

static void analyse_code(struct code *k)
{
	k->st = calloc(k->n ? k->n : 1, sizeof *k->st);
	size_t *work = malloc((2 * k->n + 2) * sizeof *work);
	if (!k->st || !work) {
		free(work);
		free(k->st);
		k->st = NULL;
		return;
	}
	size_t nwork = 0, nvisit = 0;
	if (k->n) {
		k->st[0] = (struct xstate){ .h = 8, .fp = F_CALLER, .seen = 2 };
		work[nwork++] = 0;
	}
	size_t next_seed = 0;
	for (;;) {
		while (nwork > 0 && nvisit < 64 * k->n + 64) {
			size_t i = work[--nwork];
			nvisit++;
			const struct xinsn *x = &k->ins[i];
			struct xstate out = transfer(k->st[i], x);
			size_t succ[2];
			int ns = 0;
			bool weak = false;
			switch (x->kind) {
			case K_RET: case K_HALT: case K_JMP_IND:
				break;
			case K_JMP:
				if (x->target >= k->start && x->target < k->end)
					succ[ns++] = (size_t)cst_x86_64_find_insn(k, x->target);
				break;
			case K_JCC:
				if (i + 1 < k->n)
					succ[ns++] = i + 1;
				if (x->target >= k->start && x->target < k->end)
					succ[ns++] = (size_t)cst_x86_64_find_insn(k, x->target);
				break;
			case K_CALL: case K_CALL_IND:
				weak = true;        /* the callee may not return */
				/* fall through */
			default:
				if (i + 1 < k->n)
					succ[ns++] = i + 1;
			}
			uint8_t strength = (weak || k->st[i].seen == 1) ? 1 : 2;
			for (int j = 0; j < ns; j++) {
				size_t t = succ[j];
				if (t == (size_t)-1 || t >= k->n || k->st[t].seen >= strength)
					continue;
				out.seen = strength;
				k->st[t] = out;
				if (nwork < 2 * k->n + 2)
					work[nwork++] = t;
			}
		}
		/* Code reached only through an indirect jump (a switch table) has the state of
		 * the nearest indirect jump before it. */
		while (next_seed < k->n && k->st[next_seed].seen)
			next_seed++;
		if (next_seed >= k->n || nvisit >= 64 * k->n + 64)
			break;
		ptrdiff_t j = (ptrdiff_t)next_seed - 1;
		while (j >= 0 && !(k->ins[j].kind == K_JMP_IND && k->st[j].seen))
			j--;
		if (j >= 0) {
			k->st[next_seed] = k->st[j];
			k->st[next_seed].seen = 1;
			work[nwork++] = next_seed;
		}
		next_seed++;
	}
	free(work);
}

int cst_x86_64_analyse(struct cst_unwind *u, const struct cst_func *fn, uint64_t pc, struct cst_row *row)
{
	struct code *k = cst_x86_64_code(u, fn);
	if (!k)
		return -CST_E_DECODE;
	if (!k->st)
		analyse_code(k);
	if (!k->st)
		return -CST_E_NOMEM;
	ptrdiff_t i = cst_x86_64_find_insn(k, pc);
	if (i < 0 || !k->st[i].seen)
		return -CST_E_DECODE;
	const struct xstate *s = &k->st[i];
	memset(row, 0, sizeof *row);
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
	return 0;
}

/* x86-64 decoding: a function's bytes decoded once with capstone into struct code, each
 * instruction classified by what it does to rsp, rbp and control flow. */
#include "x86_64.h"
#include "error.h"
#include "symbols.h"
#include "util.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

static void free_code(struct cst_fncache_entry *e)
{
	struct code *k = (struct code *)e;
	free(k->ins);
	free(k->rest);
	cst_dataflow_free(&k->flow);
	free(k);
}

void cst_x86_64_cache_free(void *p)
{
	struct cache *c = p;
	if (!c)
		return;
	cst_fncache_clear(&c->fns, free_code);
	cst_entries_free(c->entries);
	cst_memo_free(c->stubs);
	if (c->insn)
		cs_free(c->insn, 1);
	if (c->cst_ok)
		cs_close(&c->cs);
	free(c);
}

struct cache *cst_x86_64_cache(struct cst_unwind *u)
{
	struct cache *c = u->env->arch_cache;
	if (c)
		return c;
	c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &c->cs) == CS_ERR_OK) {
		cs_option(c->cs, CS_OPT_DETAIL, CS_OPT_ON);
		c->cst_ok = true;
	}
	c->stubs = cst_memo_new(sizeof(struct stub_memo), MAX_STUB_MEMO);
	u->env->arch_cache = c;
	return c;
}

/* The DWARF number of 64-bit register R (x86-64 psABI 3.6.2, figure 3.36), -1 for others. */
static int dwarf_reg(x86_reg r)
{
	static const x86_reg gpr[16] = {
		X86_REG_RAX, X86_REG_RDX, X86_REG_RCX, X86_REG_RBX, X86_REG_RSI, X86_REG_RDI,
		X86_REG_RBP, X86_REG_RSP, X86_REG_R8, X86_REG_R9, X86_REG_R10, X86_REG_R11,
		X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15,
	};
	for (int i = 0; i < 16; i++)
		if (gpr[i] == r)
			return i;
	return -1;
}

/* DWARF number + 1 (x86-64 psABI 3.6.2, figure 3.36) of every capstone register that is a
 * general register in some width, 0 for the others. */
static const uint8_t gpr_number[X86_REG_ENDING] = {
	[X86_REG_RAX] = 1, [X86_REG_EAX] = 1, [X86_REG_AX] = 1, [X86_REG_AL] = 1, [X86_REG_AH] = 1,
	[X86_REG_RDX] = 2, [X86_REG_EDX] = 2, [X86_REG_DX] = 2, [X86_REG_DL] = 2, [X86_REG_DH] = 2,
	[X86_REG_RCX] = 3, [X86_REG_ECX] = 3, [X86_REG_CX] = 3, [X86_REG_CL] = 3, [X86_REG_CH] = 3,
	[X86_REG_RBX] = 4, [X86_REG_EBX] = 4, [X86_REG_BX] = 4, [X86_REG_BL] = 4, [X86_REG_BH] = 4,
	[X86_REG_RSI] = 5, [X86_REG_ESI] = 5, [X86_REG_SI] = 5, [X86_REG_SIL] = 5,
	[X86_REG_RDI] = 6, [X86_REG_EDI] = 6, [X86_REG_DI] = 6, [X86_REG_DIL] = 6,
	[X86_REG_RBP] = 7, [X86_REG_EBP] = 7, [X86_REG_BP] = 7, [X86_REG_BPL] = 7,
	[X86_REG_RSP] = 8, [X86_REG_ESP] = 8, [X86_REG_SP] = 8, [X86_REG_SPL] = 8,
	[X86_REG_R8] = 9, [X86_REG_R8D] = 9, [X86_REG_R8W] = 9, [X86_REG_R8B] = 9,
	[X86_REG_R9] = 10, [X86_REG_R9D] = 10, [X86_REG_R9W] = 10, [X86_REG_R9B] = 10,
	[X86_REG_R10] = 11, [X86_REG_R10D] = 11, [X86_REG_R10W] = 11, [X86_REG_R10B] = 11,
	[X86_REG_R11] = 12, [X86_REG_R11D] = 12, [X86_REG_R11W] = 12, [X86_REG_R11B] = 12,
	[X86_REG_R12] = 13, [X86_REG_R12D] = 13, [X86_REG_R12W] = 13, [X86_REG_R12B] = 13,
	[X86_REG_R13] = 14, [X86_REG_R13D] = 14, [X86_REG_R13W] = 14, [X86_REG_R13B] = 14,
	[X86_REG_R14] = 15, [X86_REG_R14D] = 15, [X86_REG_R14W] = 15, [X86_REG_R14B] = 15,
	[X86_REG_R15] = 16, [X86_REG_R15D] = 16, [X86_REG_R15W] = 16, [X86_REG_R15B] = 16,
};

/* The registers IN writes, from one question to capstone. */
struct written {
	bool known;          /* capstone could tell */
	uint16_t gprs;       /* the general registers written in any width, bit N for DWARF number N */
	bool rsp, rbp;       /* rsp, rbp written whole */
};

static struct written regs_written(csh cs, const cs_insn *in)
{
	cs_regs rd, wr;
	uint8_t nr, nw;
	struct written w = { .known = cs_regs_access(cs, in, rd, &nr, wr, &nw) == CS_ERR_OK };
	for (int i = 0; w.known && i < nw; i++) {
		if (wr[i] < X86_REG_ENDING && gpr_number[wr[i]])
			w.gprs |= (uint16_t)(1u << (gpr_number[wr[i]] - 1));
		w.rsp |= wr[i] == X86_REG_RSP;
		w.rbp |= wr[i] == X86_REG_RBP;
	}
	return w;
}

/* The general registers IN writes (W), bit N for DWARF number N; all of them when capstone
 * cannot tell, or for an instruction that enters the kernel (syscall, sysenter, int: the
 * kernel and a signal handler run before the next one). */
static uint16_t gprs_written(const cs_insn *in, const struct written *w)
{
	if (in->id == X86_INS_SYSCALL || in->id == X86_INS_SYSENTER || in->id == X86_INS_INT ||
	    in->id == X86_INS_INT1 || in->id == X86_INS_INT3 || in->id == X86_INS_INTO || !w->known)
		return 0xffff;
	return w->gprs;
}

void cst_x86_64_classify(csh cs, const cs_insn *in, struct xinsn *x)
{
	const cs_x86 *d = &in->detail->x86;
	const cs_x86_op *o0 = d->op_count > 0 ? &d->operands[0] : NULL;
	const cs_x86_op *o1 = d->op_count > 1 ? &d->operands[1] : NULL;
	bool o0_rsp = o0 && o0->type == X86_OP_REG && o0->reg == X86_REG_RSP;
	bool o0_rbp = o0 && o0->type == X86_OP_REG && o0->reg == X86_REG_RBP;
	x->kind = K_OTHER;
	struct written w = { 0 };
	if (in->id != X86_INS_CALL) {
		w = regs_written(cs, in);
		x->writes = gprs_written(in, &w);
	}
	switch (in->id) {
	case X86_INS_PUSH:
		x->kind = o0_rbp ? K_PUSH_FP : K_PUSH;
		return;
	case X86_INS_POP:
		x->kind = o0_rbp ? K_POP_FP : o0_rsp ? K_SP_OTHER : K_POP;
		return;
	case X86_INS_SUB:
	case X86_INS_ADD:
		if (o0_rsp && o1 && o1->type == X86_OP_IMM) {
			x->kind = in->id == X86_INS_SUB ? K_SUB_SP : K_ADD_SP;
			x->imm = o1->imm;
			return;
		}
		break;
	case X86_INS_MOV:
		if (o0_rbp && o1 && o1->type == X86_OP_REG && o1->reg == X86_REG_RSP) {
			x->kind = K_MOV_FP_SP;
			return;
		}
		if (o0_rsp && o1 && o1->type == X86_OP_REG && o1->reg == X86_REG_RBP) {
			x->kind = K_MOV_SP_FP;
			return;
		}
		break;
	case X86_INS_LEA:
		if (o0_rsp && o1 && o1->type == X86_OP_MEM && o1->mem.index == X86_REG_INVALID) {
			if (o1->mem.base == X86_REG_RBP) {
				x->kind = K_LEA_SP_FP;
				x->imm = o1->mem.disp;
				return;
			}
			if (o1->mem.base == X86_REG_RSP) {
				x->kind = K_SUB_SP;
				x->imm = -o1->mem.disp;
				return;
			}
		}
		break;
	case X86_INS_LEAVE:
		x->kind = K_LEAVE;
		return;
	case X86_INS_RET:
	case X86_INS_RETF:
		x->kind = K_RET;
		return;
	case X86_INS_HLT:
	case X86_INS_UD2:
	case X86_INS_INT3:
		x->kind = K_HALT;
		return;
	case X86_INS_CALL:
		if (o0 && o0->type == X86_OP_IMM) {
			x->kind = K_CALL;
			x->target = (uint64_t)o0->imm;
		} else {
			x->kind = K_CALL_IND;
			x->call_reg = 0;
			/* call *disp(%rip): the address of the slot it reads */
			if (o0 && o0->type == X86_OP_MEM && o0->mem.base == X86_REG_RIP &&
			    o0->mem.index == X86_REG_INVALID)
				x->target = in->address + in->size + (uint64_t)o0->mem.disp;
			/* call *disp(%base,%index,scale): a table of function pointers */
			if (o0 && o0->type == X86_OP_MEM && dwarf_reg(o0->mem.base) >= 0 &&
			    o0->mem.segment == X86_REG_INVALID) {
				x->mem_base = (uint8_t)(dwarf_reg(o0->mem.base) + 1);
				x->mem_index = (uint8_t)(dwarf_reg(o0->mem.index) + 1);
				x->mem_scale = (uint8_t)o0->mem.scale;
				x->imm = o0->mem.disp;
			}
			if (o0 && o0->type == X86_OP_REG)
				switch (o0->reg) {         /* DWARF numbers: psABI 3.6.2, table 3.36 */
				case X86_REG_RBX: x->call_reg = 3; break;
				case X86_REG_RBP: x->call_reg = 6; break;
				case X86_REG_R12: x->call_reg = 12; break;
				case X86_REG_R13: x->call_reg = 13; break;
				case X86_REG_R14: x->call_reg = 14; break;
				case X86_REG_R15: x->call_reg = 15; break;
				default: break;
				}
		}
		return;
	case X86_INS_JMP:
		if (o0 && o0->type == X86_OP_IMM) {
			x->kind = K_JMP;
			x->target = (uint64_t)o0->imm;
		} else {
			x->kind = K_JMP_IND;
			/* jmp *disp(%rip): a linkage stub's slot */
			if (o0 && o0->type == X86_OP_MEM && o0->mem.base == X86_REG_RIP &&
			    o0->mem.index == X86_REG_INVALID)
				x->target = in->address + in->size + (uint64_t)o0->mem.disp;
		}
		return;
	default:
		if (cs_insn_group(cs, in, CS_GRP_JUMP) && o0 && o0->type == X86_OP_IMM) {
			x->kind = K_JCC;
			x->target = (uint64_t)o0->imm;
			return;
		}
		break;
	}
	if (w.rsp)
		x->kind = K_SP_OTHER;
	else if (w.rbp)
		x->kind = K_FP_OTHER;
}

/* Reads [start, end) of the target into a new struct code, nothing decoded yet; the bytes
 * end before the first that cannot be read. */
static struct code *read_code(struct cst_unwind *u, struct cache *c, uint64_t start, uint64_t end)
{
	if (!c->cst_ok)
		return NULL;
	if (end <= start || end - start > MAX_FUNC_BYTES)
		end = start + (end <= start ? UNKNOWN_SIZE_BYTES : MAX_FUNC_BYTES);
	size_t len = (size_t)(end - start);
	struct code *k = calloc(1, sizeof *k);
	uint8_t *buf = malloc(len);
	if (!k || !buf) {
		free(k);
		free(buf);
		return NULL;
	}
	size_t got = cst_read_code(u->env->target, start, buf, len, 1);
	k->cap = got / 3 + 4;
	k->ins = malloc(k->cap * sizeof *k->ins);
	if (!k->ins) {
		free(k);
		free(buf);
		return NULL;
	}
	k->start = k->end = start;
	k->rest = buf;
	k->nrest = got;
	return k;
}

/* Decodes K's instructions on from K->end until K->end > THROUGH, or to the end of its bytes
 * or the first byte that does not decode; then K is decoded whole and its bytes freed. */
static void decode_more(struct cache *c, struct code *k, uint64_t through)
{
	if (!k->rest)
		return;
	if (!c->insn)
		c->insn = cs_malloc(c->cs);
	cs_insn *in = c->insn;
	if (!in)
		return;      /* no memory now: the bytes stay, a later call decodes them */
	const uint8_t *p = k->rest + (k->end - k->start);
	size_t left = k->nrest - (size_t)(k->end - k->start);
	uint64_t addr = k->end;
	bool whole = false;
	while (k->end <= through) {
		if (left == 0 || !cs_disasm_iter(c->cs, &p, &left, &addr, in)) {
			whole = true;
			break;
		}
		if (k->n == k->cap) {
			struct xinsn *nx = realloc(k->ins, 2 * k->cap * sizeof *nx);
			if (!nx) {
				whole = true;
				break;
			}
			k->cap *= 2;
			k->ins = nx;
		}
		struct xinsn *x = &k->ins[k->n++];
		memset(x, 0, sizeof *x);
		x->addr = in->address;
		x->size = (uint8_t)in->size;
		cst_x86_64_classify(c->cs, in, x);
		k->end = x->addr + x->size;
	}
	if (whole) {
		free(k->rest);
		k->rest = NULL;
	}
}

static struct cst_fncache_entry *make_code(void *u, uint64_t start, uint64_t end)
{
	struct code *k = read_code(u, cst_x86_64_cache(u), start, end);
	return k ? &k->link : NULL;
}

struct code *cst_x86_64_code_through(struct cst_unwind *u, const struct cst_func *fn, uint64_t addr)
{
	struct cache *c = cst_x86_64_cache(u);
	struct code *k = c ? (struct code *)cst_fncache_get(&c->fns, fn->start, fn->end, make_code, u) : NULL;
	if (k)
		decode_more(c, k, addr);
	return k;
}

struct code *cst_x86_64_code(struct cst_unwind *u, const struct cst_func *fn)
{
	struct code *k = cst_x86_64_code_through(u, fn, UINT64_MAX);
	return k && !k->rest ? k : NULL;     /* bytes left: no memory to decode them now */
}

/* Index of the instruction that contains ADDR, or -1. */
ptrdiff_t cst_x86_64_find_insn(const struct code *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->ins[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	const struct xinsn *x = &k->ins[lo - 1];
	return addr < x->addr + x->size ? (ptrdiff_t)(lo - 1) : -1;
}

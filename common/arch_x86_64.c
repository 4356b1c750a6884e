/* x86-64: registers, core layout, and the rules that find frames a frame-pointer walk loses.
 *
 * DWARF register numbers are those of the x86-64 psABI (figure 3.36): 0 rax, 1 rdx, 2 rcx,
 * 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15, 16 the return address (rip).
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
#include "arch.h"
#include "error.h"
#include "fncache.h"
#include "memo.h"
#include "symbols.h"
#include "unwind.h"
#include "util.h"

#include <capstone.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

enum { RAX, RDX, RCX, RBX, RSI, RDI, RBP, RSP, RIP = 16, NREGS = 17 };

static const char *const reg_names[NREGS] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
};

/* struct user_regs_struct (arch/x86/include/asm/user_64.h) word index -> DWARF number, -1
 * for words that are not unwound (orig_rax, segment registers, eflags, fs/gs base). */
static const int user_regs_dwarf[27] = {
	15, 14, 13, 12, RBP, RBX, 11, 10, 9, 8, RAX, RCX, RDX, RSI, RDI, -1,
	RIP, -1, -1, RSP, -1, -1, -1, -1, -1, -1, -1,
};

void cst_x86_64_from_user_regs(const uint64_t words[27], struct cst_regs *out)
{
	cst_regs_clear(out);
	for (int i = 0; i < 27; i++)
		if (user_regs_dwarf[i] >= 0)
			cst_reg_set(out, user_regs_dwarf[i], words[i]);
}

/* NT_PRSTATUS is struct elf_prstatus (include/uapi/linux/elfcore.h), 336 bytes on x86-64:
 * pr_cursig (u16) at 12, pr_pid (i32) at 32, pr_reg (27 x u64, user_regs_struct) at 112. */
static int prstatus(const uint8_t *d, size_t size, struct cst_regs *out, int *tid, int *cursig)
{
	if (size < 112 + 27 * 8)
		return -CST_E_BAD_NOTE;
	uint16_t sig;
	int32_t pid;
	uint64_t words[27];
	memcpy(&sig, d + 12, 2);
	memcpy(&pid, d + 32, 4);
	memcpy(words, d + 112, sizeof words);
	*cursig = sig;
	*tid = pid;
	cst_x86_64_from_user_regs(words, out);
	return 0;
}

/* ---- decoded functions ------------------------------------------------------------- */

enum kind {
	K_OTHER, K_PUSH_FP, K_PUSH, K_POP_FP, K_POP, K_SUB_SP, K_ADD_SP, K_MOV_FP_SP, K_MOV_SP_FP,
	K_LEA_SP_FP, K_LEAVE, K_RET, K_HALT, K_JMP, K_JCC, K_JMP_IND, K_CALL, K_CALL_IND,
	K_SP_OTHER, K_FP_OTHER,
};

struct xinsn {
	uint64_t addr;
	int64_t imm;            /* stack adjustment or displacement */
	uint64_t target;        /* direct branch target */
	uint8_t size, kind;
};

#define H_UNKNOWN INT32_MIN
enum fp_state { F_CALLER, F_SAVED, F_FRAME, F_LOST };
struct xstate {
	int32_t h;              /* CFA - rsp in bytes, or H_UNKNOWN */
	int16_t save_off;       /* caller's rbp saved at CFA - save_off (F_SAVED, F_FRAME) */
	int16_t rbp_off;        /* rbp = CFA - rbp_off (F_FRAME) */
	uint8_t fp;             /* enum fp_state */
	uint8_t seen;           /* 0 not reached, 1 reached only through a call's fall-through, 2 */
};

struct code {
	struct cst_fncache_entry link;  /* first: the cache's chain */
	uint64_t start, end;    /* decoded range */
	size_t n;
	struct xinsn *ins;
	struct xstate *st;      /* NULL until analysed */
};

#define MAX_FUNC_BYTES (256 * 1024)
#define UNKNOWN_SIZE_BYTES (16 * 1024)

#define MAX_ENTRY_TABLES 64
#define MAX_EXEC_BYTES (64u << 20)

struct entry_table {             /* guessed function entries of one executable segment */
	uint64_t lo, hi;
	uint64_t *starts;        /* sorted, unique */
	size_t n;
};

struct cache {
	csh cs;
	bool cst_ok;
	struct cst_fncache fns;
	struct entry_table entries[MAX_ENTRY_TABLES];
	int nentries;
	struct cst_memo *stubs;  /* resolve_stub's decoding per address: struct stub_memo */
};

static void free_code(struct cst_fncache_entry *e)
{
	struct code *k = (struct code *)e;
	free(k->ins);
	free(k->st);
	free(k);
}
/* What the instruction at a stub address is: an indirect jump through SLOT (its pointer is
 * read again on every call: a live process binds its GOT lazily), or not (SLOT 0). */
struct stub_memo { uint64_t slot; };
#define MAX_STUB_MEMO (64 * 1024)

static void cache_free(void *p)
{
	struct cache *c = p;
	if (!c)
		return;
	cst_fncache_clear(&c->fns, free_code);
	for (int i = 0; i < c->nentries; i++)
		free(c->entries[i].starts);
	cst_memo_free(c->stubs);
	if (c->cst_ok)
		cs_close(&c->cs);
	free(c);
}

static struct cache *get_cache(struct cst_unwind *u)
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

static bool writes_reg(csh cs, const cs_insn *in, x86_reg reg)
{
	cs_regs rd, wr;
	uint8_t nr, nw;
	if (cs_regs_access(cs, in, rd, &nr, wr, &nw) != CS_ERR_OK)
		return false;
	for (int i = 0; i < nw; i++)
		if (wr[i] == reg)
			return true;
	return false;
}

static void classify(csh cs, const cs_insn *in, struct xinsn *x)
{
	const cs_x86 *d = &in->detail->x86;
	const cs_x86_op *o0 = d->op_count > 0 ? &d->operands[0] : NULL;
	const cs_x86_op *o1 = d->op_count > 1 ? &d->operands[1] : NULL;
	bool o0_rsp = o0 && o0->type == X86_OP_REG && o0->reg == X86_REG_RSP;
	bool o0_rbp = o0 && o0->type == X86_OP_REG && o0->reg == X86_REG_RBP;
	x->kind = K_OTHER;
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
	if (writes_reg(cs, in, X86_REG_RSP))
		x->kind = K_SP_OTHER;
	else if (writes_reg(cs, in, X86_REG_RBP))
		x->kind = K_FP_OTHER;
}

/* Decodes [start, end) of the target into a new struct code; stops at the first byte that
 * cannot be read or decoded. */
static struct code *decode(struct cst_unwind *u, struct cache *c, uint64_t start, uint64_t end)
{
	if (!c->cst_ok)
		return NULL;
	if (end <= start || end - start > MAX_FUNC_BYTES)
		end = start + (end <= start ? UNKNOWN_SIZE_BYTES : MAX_FUNC_BYTES);
	size_t len = (size_t)(end - start);
	uint8_t *buf = malloc(len);
	if (!buf)
		return NULL;
	size_t got = cst_read_code(u->env->target, start, buf, len, 1);
	struct code *k = calloc(1, sizeof *k);
	size_t cap = got / 3 + 4;
	if (k)
		k->ins = malloc(cap * sizeof *k->ins);
	cs_insn *in = cs_malloc(c->cs);
	if (!k || !k->ins || !in) {
		if (k)
			free(k->ins);
		free(k);
		free(buf);
		if (in)
			cs_free(in, 1);
		return NULL;
	}
	const uint8_t *p = buf;
	size_t left = got;
	uint64_t addr = start;
	while (left > 0 && cs_disasm_iter(c->cs, &p, &left, &addr, in)) {
		if (k->n == cap) {
			cap *= 2;
			struct xinsn *nx = realloc(k->ins, cap * sizeof *nx);
			if (!nx)
				break;
			k->ins = nx;
		}
		struct xinsn *x = &k->ins[k->n++];
		memset(x, 0, sizeof *x);
		x->addr = in->address;
		x->size = (uint8_t)in->size;
		classify(c->cs, in, x);
	}
	cs_free(in, 1);
	free(buf);
	k->start = start;
	k->end = k->n ? k->ins[k->n - 1].addr + k->ins[k->n - 1].size : start;
	return k;
}

static struct cst_fncache_entry *make_code(void *u, uint64_t start, uint64_t end)
{
	struct code *k = decode(u, get_cache(u), start, end);
	return k ? &k->link : NULL;
}

static struct code *get_code(struct cst_unwind *u, const struct cst_func *fn)
{
	struct cache *c = get_cache(u);
	return c ? (struct code *)cst_fncache_get(&c->fns, fn->start, fn->end, make_code, u) : NULL;
}

/* Index of the instruction that contains ADDR, or -1. */
static ptrdiff_t find_insn(const struct code *k, uint64_t addr)
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

/* ---- the analysis -------------------------------------------------------------------- */

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
					succ[ns++] = (size_t)find_insn(k, x->target);
				break;
			case K_JCC:
				if (i + 1 < k->n)
					succ[ns++] = i + 1;
				if (x->target >= k->start && x->target < k->end)
					succ[ns++] = (size_t)find_insn(k, x->target);
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

static int analyse(struct cst_unwind *u, const struct cst_func *fn, uint64_t pc, struct cst_row *row)
{
	struct code *k = get_code(u, fn);
	if (!k)
		return -CST_E_DECODE;
	if (!k->st)
		analyse_code(k);
	if (!k->st)
		return -CST_E_NOMEM;
	ptrdiff_t i = find_insn(k, pc);
	if (i < 0 || !k->st[i].seen)
		return -CST_E_DECODE;
	const struct xstate *s = &k->st[i];
	memset(row, 0, sizeof *row);
	if (s->fp == F_FRAME) {
		row->cfa_reg = RBP;
		row->cfa_off = s->rbp_off;
	} else if (s->h != H_UNKNOWN) {
		row->cfa_reg = RSP;
		row->cfa_off = s->h;
	} else {
		return -CST_E_DECODE;
	}
	row->ra_off = -8;
	row->fp_rule = s->fp == F_CALLER ? CST_FP_SAME : s->fp == F_LOST ? CST_FP_UNKNOWN : CST_FP_SAVED;
	row->fp_off = -(int64_t)s->save_off;
	row->frame_record = s->fp == F_FRAME && s->rbp_off == 16 && s->save_off == 16;
	return 0;
}

/* ---- call sites and tail jumps ------------------------------------------------------- */

static int call_before(struct cst_unwind *u, const struct cst_func *fn, uint64_t ra,
		       struct cst_call_site *site)
{
	if (fn && fn->start < ra) {
		struct code *k = get_code(u, fn);
		ptrdiff_t i = k ? find_insn(k, ra - 1) : -1;
		if (i >= 0 && k->ins[i].addr + k->ins[i].size == ra) {
			const struct xinsn *x = &k->ins[i];
			if (x->kind != K_CALL && x->kind != K_CALL_IND)
				return -CST_E_DECODE;
			site->addr = x->addr;
			site->direct = x->kind == K_CALL;
			site->target = x->target;
			return 0;
		}
		if (k && ra <= k->end)
			return -CST_E_DECODE;
	}
	/* No function bounds: the 5-byte direct call, e8 rel32 (Intel SDM vol. 2, CALL). */
	uint8_t b[5];
	if (ra < 5 || cst_target_read(u->env->target, ra - 5, b, 5) < 0 || b[0] != 0xe8)
		return -CST_E_DECODE;
	site->addr = ra - 5;
	site->direct = true;
	site->target = ra + (uint64_t)(int64_t)cst_le32s(b + 1);
	return 0;
}

static int tail_targets(struct cst_unwind *u, const struct cst_func *fn, uint64_t *targets,
			uint64_t *jumps, int max)
{
	struct code *k = get_code(u, fn);
	if (!k)
		return -CST_E_DECODE;
	uint64_t end = fn->end ? fn->end : k->end;
	int n = 0;
	for (size_t i = 0; i < k->n && n < max; i++) {
		const struct xinsn *x = &k->ins[i];
		if ((x->kind == K_JMP || x->kind == K_JCC) && (x->target < fn->start || x->target >= end)) {
			int j;
			for (j = 0; j < n && targets[j] != x->target; j++)
				;
			if (j < n)
				continue;
			targets[n] = x->target;
			jumps[n] = x->addr;
			n++;
		}
	}
	return n;
}

/* A PLT entry: [endbr64;] [bnd] jmp *slot(%rip).  The slot holds the resolved address. */
/* The memory slot an indirect jump at ADDR goes through, 0 when ADDR is not such a jump. */
static uint64_t stub_slot(struct cst_unwind *u, struct cache *c, uint64_t addr)
{
	uint8_t b[16];
	if (!c || !c->cst_ok || cst_target_read(u->env->target, addr, b, sizeof b) < 0)
		return 0;
	cs_insn *in = cs_malloc(c->cs);
	if (!in)
		return 0;
	const uint8_t *p = b;
	size_t left = sizeof b;
	uint64_t a = addr;
	uint64_t slot = 0;
	for (int i = 0; i < 2 && cs_disasm_iter(c->cs, &p, &left, &a, in); i++) {
		if (in->id == X86_INS_ENDBR64)
			continue;
		struct xinsn x;
		memset(&x, 0, sizeof x);
		classify(c->cs, in, &x);
		if (x.kind == K_JMP_IND)
			slot = x.target;
		break;
	}
	cs_free(in, 1);
	return slot;
}

/* Every frame's call site is checked for a stub: the decoded instruction is kept per
 * address. */
static int resolve_stub(struct cst_unwind *u, uint64_t addr, uint64_t *dest)
{
	struct cache *c = get_cache(u);
	if (!c)
		return 0;
	const struct stub_memo *m = cst_memo_get(c->stubs, addr);
	struct stub_memo v;
	if (m) {
		v = *m;
	} else {
		v.slot = stub_slot(u, c, addr);
		cst_memo_put(c->stubs, addr, &v);
	}
	return v.slot && cst_target_read_word(u->env->target, v.slot, 8, dest) == 0 && *dest ? 1 : 0;
}

/* ---- function entries of stripped code without CFI ----------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static bool push_u64(uint64_t **v, size_t *n, size_t *cap, uint64_t x)
{
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 1024;
		uint64_t *nv = realloc(*v, nc * sizeof *nv);
		if (!nv)
			return false;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = x;
	return true;
}

static size_t sort_unique(uint64_t *v, size_t n)
{
	if (n < 2)
		return n;            /* V may be NULL when nothing was collected */
	qsort(v, n, sizeof *v, cmp_u64);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

/* Decodes [lo, hi) and collects function entries: the targets of direct calls (e8 rel32),
 * of RIP-relative lea (a code address taken: main in _start, callbacks), and then, until
 * nothing changes, the targets of direct jumps that leave the function holding the jump
 * (tail calls to functions that are never called directly). */
static void build_entries(struct cst_unwind *u, struct cache *c, struct entry_table *e)
{
	size_t len = (size_t)(e->hi - e->lo), cap = 0, njumps = 0, jcap = 0;
	uint8_t *buf = malloc(len);
	uint64_t *jumps = NULL;               /* pairs: jump address, target */
	cs_insn *in = c->cst_ok ? cs_malloc(c->cs) : NULL;
	if (!buf || !in)
		goto out;
	for (size_t off = 0; off < len; off += 4096) {
		size_t n = len - off < 4096 ? len - off : 4096;
		if (cst_target_read(u->env->target, e->lo + off, buf + off, n) < 0)
			memset(buf + off, 0xcc, n);      /* unreadable: int3, decodes to nothing */
	}
	cs_option(c->cs, CS_OPT_DETAIL, CS_OPT_OFF);
	const uint8_t *p = buf;
	size_t left = len;
	uint64_t addr = e->lo;
	while (left > 0) {
		if (!cs_disasm_iter(c->cs, &p, &left, &addr, in)) {
			p++, left--, addr++;
			continue;
		}
		uint64_t t = 0, end = in->address + in->size;
		const uint8_t *b = in->bytes;
		bool jump = false;
		if (in->id == X86_INS_CALL && in->size == 5 && b[0] == 0xe8)
			t = end + (uint64_t)(int64_t)cst_le32s(b + 1);
		else if (in->id == X86_INS_LEA && in->size == 7 && (b[0] & 0xf8) == 0x48 && b[1] == 0x8d &&
			 (b[2] & 0xc7) == 0x05)
			t = end + (uint64_t)(int64_t)cst_le32s(b + 3);
		else if (in->size == 5 && b[0] == 0xe9)                        /* jmp rel32 */
			t = end + (uint64_t)(int64_t)cst_le32s(b + 1), jump = true;
		else if (in->size == 2 && (b[0] == 0xeb || (b[0] & 0xf0) == 0x70)) /* jmp/jcc rel8 */
			t = end + (uint64_t)(int64_t)(int8_t)b[1], jump = true;
		else if (in->size == 6 && b[0] == 0x0f && (b[1] & 0xf0) == 0x80) /* jcc rel32 */
			t = end + (uint64_t)(int64_t)cst_le32s(b + 2), jump = true;
		if (t < e->lo || t >= e->hi)
			continue;
		if (jump) {
			if (!push_u64(&jumps, &njumps, &jcap, in->address) ||
			    !push_u64(&jumps, &njumps, &jcap, t))
				break;
		} else if (!push_u64(&e->starts, &e->n, &cap, t)) {
			break;
		}
	}
	e->n = e->starts ? sort_unique(e->starts, e->n) : 0;
	/* New entries of a round are looked up only from the next round on, so that every
	 * lookup sees a sorted table. */
	uint64_t *found = NULL;
	size_t nfound = 0, fcap = 0;
	for (int round = 0; round < 16; round++) {
		nfound = 0;
		for (size_t i = 0; i + 1 < njumps; i += 2) {
			size_t k = cst_upper_bound(e->starts, e->n, jumps[i]);
			if (k == 0)
				continue;
			uint64_t fstart = e->starts[k - 1], fend = k < e->n ? e->starts[k] : e->hi;
			uint64_t t = jumps[i + 1];
			if ((t < fstart || t >= fend) && !push_u64(&found, &nfound, &fcap, t))
				break;
		}
		size_t before = e->n;
		for (size_t i = 0; i < nfound; i++)
			if (!push_u64(&e->starts, &e->n, &cap, found[i]))
				break;
		e->n = sort_unique(e->starts, e->n);
		if (e->n == before)
			break;
	}
	free(found);
out:
	if (c->cst_ok)
		cs_option(c->cs, CS_OPT_DETAIL, CS_OPT_ON);
	if (in)
		cs_free(in, 1);
	free(jumps);
	free(buf);
}

static int guess_func(struct cst_unwind *u, uint64_t addr, struct cst_func *fn)
{
	struct cache *c = get_cache(u);
	uint64_t lo, hi;
	if (!c || !u->env->syms || !cst_symbols_exec_range(u->env->syms, addr, &lo, &hi) ||
	    hi - lo > MAX_EXEC_BYTES)
		return -CST_E_NO_FUNC;
	struct entry_table *e = NULL;
	for (int i = 0; i < c->nentries; i++)
		if (c->entries[i].lo == lo)
			e = &c->entries[i];
	if (!e) {
		if (c->nentries == MAX_ENTRY_TABLES)
			return -CST_E_NO_FUNC;
		e = &c->entries[c->nentries++];
		memset(e, 0, sizeof *e);
		e->lo = lo;
		e->hi = hi;
		build_entries(u, c, e);
	}
	size_t l = cst_upper_bound(e->starts, e->n, addr);
	if (l == 0)
		return -CST_E_NO_FUNC;
	memset(fn, 0, sizeof *fn);
	fn->start = e->starts[l - 1];
	fn->end = l < e->n ? e->starts[l] : hi;
	return 0;
}

const struct cst_arch cst_arch_x86_64 = {
	.name = "x86_64",
	.elf_machine = EM_X86_64,
	.elf_class = ELFCLASS64,
	.big_endian = false,
	.addr_size = 8,
	.pc_reg = RIP,
	.sp_reg = RSP,
	.fp_reg = RBP,
	.nregs = NREGS,
	.reg_names = reg_names,
	.prstatus = prstatus,
	.analyse = analyse,
	.call_before = call_before,
	.tail_targets = tail_targets,
	.resolve_stub = resolve_stub,
	.guess_func = guess_func,
	.cache_free = cache_free,
};

const struct cst_arch *cst_arch_find(int machine, int elf_class)
{
	static const struct cst_arch *const all[] = { &cst_arch_x86_64, &cst_arch_sparc64,
						      &cst_arch_sparc32plus, &cst_arch_sparc32 };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (all[i]->elf_machine == machine && all[i]->elf_class == elf_class)
			return all[i];
	return NULL;
}

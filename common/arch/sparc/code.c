/* SPARC instructions: decoding a function once, following its control flow (delay slots
 * included) to know at every instruction whether `save` is in effect and which registers
 * still hold the address of the call that entered it; call sites and tail calls.
 *
 * Every word is decoded with capstone (CS_ARCH_SPARC, big-endian, V9), which tells an
 * instruction from data.  capstone 4 reports no written registers for SPARC and decodes
 * the V9 `return` as `rett`, so the fields that matter (rd, op3, displacements) are read
 * from the word itself, as laid out in The SPARC Architecture Manual, Version 9, Appendix
 * A and E (opcode maps):
 *
 *	op = w<31:30>: 1 CALL disp30; 0 branches (op2 = w<24:22>) and SETHI;
 *	2 arithmetic, JMPL, RETURN, SAVE, RESTORE, Tcc (op3 = w<24:19>); 3 loads/stores.
 *	rd = w<29:25>, rs1 = w<18:14>, i = w<13>, rs2 = w<4:0>, simm13 = w<12:0>.
 *
 * Control transfers are delayed: the instruction after a branch, call or jump (its delay
 * slot) runs before the target, unless the annul bit drops it (a taken `ba,a`, an untaken
 * conditional `b<cc>,a`). */
#include "sparc.h"
#include "dataflow.h"
#include "entries.h"
#include "error.h"
#include "fncache.h"
#include "symbols.h"
#include "unwind.h"

#include <capstone.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

enum kind {
	K_OTHER, K_INVALID, K_HALT, K_CALL, K_JMPL, K_RETURN, K_SAVE, K_RESTORE, K_BRANCH,
};

#define NO_REG 0xff

struct sinsn {
	uint64_t addr;
	uint64_t target;        /* CALL and branch targets */
	uint8_t kind;
	uint8_t rd;             /* integer register written, NO_REG when none */
	uint8_t rd2;            /* second register written (ldd), NO_REG when none */
	uint8_t src;            /* rd becomes a copy of this register (mov), NO_REG when not a copy */
	uint8_t rs1;
	bool annul, always, never;
};

struct wstate {
	uint8_t window;         /* enum sparc_window */
	uint32_t ra_regs;       /* as in struct sparc_at_pc */
};

struct code {
	struct cst_fncache_entry link;  /* first: the cache's chain */
	uint64_t start, end;
	bool analysed;          /* flow holds the analysis */
	struct cst_dataflow flow;       /* struct wstate per instruction */
	size_t n;
	struct sinsn ins[];     /* one per 4-byte word */
};

#define MAX_FUNC_BYTES (256 * 1024)
#define UNKNOWN_SIZE_BYTES (16 * 1024)

struct cache {
	csh cs;
	bool cs_ok;
	struct cst_fncache fns;
	struct cst_entries *entries;     /* guessed function entries (arch/sparc/entries.c) */
};

static void free_code(struct cst_fncache_entry *e)
{
	struct code *k = (struct code *)e;
	cst_dataflow_free(&k->flow);
	free(k);
}

void cst_sparc_cache_free(void *p)
{
	struct cache *c = p;
	if (!c)
		return;
	cst_fncache_clear(&c->fns, free_code);
	cst_entries_free(c->entries);
	if (c->cs_ok)
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
	c->cs_ok = cs_open(CS_ARCH_SPARC, CS_MODE_BIG_ENDIAN | CS_MODE_V9, &c->cs) == CS_ERR_OK;
	u->env->arch_cache = c;
	return c;
}

static int64_t sext(uint32_t v, unsigned bits)
{
	uint64_t m = 1ull << (bits - 1);
	return (int64_t)(((uint64_t)v ^ m) - m);
}

static uint64_t addr_mask(const struct cst_unwind *u)
{
	return u->env->arch->addr_size == 4 ? 0xffffffffull : ~0ull;
}

/* Fills X from word W at ADDR (DECODED: capstone accepted it). */
static void classify(uint32_t w, uint64_t addr, bool decoded, uint64_t mask, struct sinsn *x)
{
	unsigned op = w >> 30, rd = (w >> 25) & 31, op2 = (w >> 22) & 7, op3 = (w >> 19) & 63;
	unsigned rs1 = (w >> 14) & 31, imm = (w >> 13) & 1, rs2 = w & 31;
	memset(x, 0, sizeof *x);
	x->addr = addr;
	x->rd = x->rd2 = x->src = NO_REG;
	x->rs1 = (uint8_t)rs1;
	x->kind = K_OTHER;
	if (!decoded) {
		x->kind = K_INVALID;
		return;
	}
	if (op == 1) {                                    /* CALL: writes %o7 */
		x->kind = K_CALL;
		x->target = (addr + (uint64_t)(sext(w & 0x3fffffff, 30) * 4)) & mask;
		return;
	}
	if (op == 0) {
		int64_t disp;
		unsigned cond = (w >> 25) & 15;
		switch (op2) {
		case 0: x->kind = K_HALT; return;                        /* ILLTRAP */
		case 4: if (rd) x->rd = (uint8_t)rd; return;             /* SETHI (NOP when rd 0) */
		case 2: case 6: disp = sext(w & 0x3fffff, 22); break;    /* Bicc, FBfcc */
		case 1: case 5: disp = sext(w & 0x7ffff, 19); break;     /* BPcc, FBPfcc */
		case 3:                                                  /* BPr */
			disp = sext(((w >> 20) & 3) << 14 | (w & 0x3fff), 16);
			cond = 1;                                        /* always conditional */
			break;
		default: return;
		}
		x->kind = K_BRANCH;
		x->annul = (w >> 29) & 1;
		x->always = cond == 8;
		x->never = cond == 0;
		x->target = (addr + (uint64_t)(disp * 4)) & mask;
		return;
	}
	if (op == 2) {
		switch (op3) {
		case 0x38: x->kind = K_JMPL; if (rd) x->rd = (uint8_t)rd; return;
		case 0x39: x->kind = K_RETURN; return;
		case 0x3c: x->kind = K_SAVE; if (rd) x->rd = (uint8_t)rd; return;
		case 0x3d: x->kind = K_RESTORE; if (rd) x->rd = (uint8_t)rd; break;
		case 0x30: case 0x31: case 0x32: case 0x33: case 0x34: case 0x35:
		case 0x3a: case 0x3b: case 0x3e: case 0x3f:
			return;          /* WRasr, SAVED, WRPR, FPop, Tcc, FLUSH, DONE: no integer rd */
		default:
			if (rd) x->rd = (uint8_t)rd;
			break;
		}
		/* copies: or/add rs1, %g0 (or 0), rd and or %g0, rs2, rd (`mov`); restore too */
		if (op3 == 0x02 || op3 == 0x00 || op3 == 0x3d) {
			if (imm ? (w & 0x1fff) == 0 : rs2 == 0)
				x->src = (uint8_t)rs1;
			else if (!imm && rs1 == 0)
				x->src = (uint8_t)rs2;
		}
		return;
	}
	/* op 3: loads write rd (V9 A.27-A.30: LDUW..LDX, LDSTUB, SWAP, CASA, CASXA, and the
	 * alternate-space forms); LDD writes an even/odd pair. */
	if (op3 < 0x20 && ((op3 & 0x0f) <= 0x02 || ((op3 & 0x0f) >= 0x08 && (op3 & 0x0f) <= 0x0b) ||
			   (op3 & 0x0f) == 0x0d || (op3 & 0x0f) == 0x0f)) {
		if (rd) x->rd = (uint8_t)rd;
	} else if (op3 < 0x20 && (op3 & 0x0f) == 0x03) {
		x->rd = (uint8_t)(rd & ~1u);
		x->rd2 = (uint8_t)(rd | 1u);
		if (x->rd == 0)
			x->rd = NO_REG;
	} else if (op3 == 0x3c || op3 == 0x3e) {
		if (rd) x->rd = (uint8_t)rd;
	}
}

static bool is_dcti(const struct sinsn *x)
{
	return x->kind == K_CALL || x->kind == K_JMPL || x->kind == K_RETURN || x->kind == K_BRANCH;
}

/* Reads [start, end) of the target and decodes it word by word. */
static struct code *decode(struct cst_unwind *u, struct cache *c, uint64_t start, uint64_t end)
{
	if (!c->cs_ok || (start & 3))
		return NULL;
	if (end <= start || end - start > MAX_FUNC_BYTES)
		end = start + (end <= start ? UNKNOWN_SIZE_BYTES : MAX_FUNC_BYTES);
	size_t len = (size_t)(end - start) & ~(size_t)3;
	uint8_t *buf = malloc(len ? len : 4);
	if (!buf)
		return NULL;
	size_t got = cst_read_code(u->env->target, start, buf, len, 4);
	struct code *k = calloc(1, sizeof *k + (got / 4) * sizeof k->ins[0]);
	cs_insn *in = k ? cs_malloc(c->cs) : NULL;
	if (!in) {
		free(k);
		free(buf);
		return NULL;
	}
	uint64_t mask = addr_mask(u);
	for (size_t off = 0; off + 4 <= got; off += 4) {
		const uint8_t *p = buf + off;
		size_t left = 4;
		uint64_t a = start + off;
		bool ok = cs_disasm_iter(c->cs, &p, &left, &a, in);
		uint32_t w = (uint32_t)buf[off] << 24 | (uint32_t)buf[off + 1] << 16 |
			     (uint32_t)buf[off + 2] << 8 | buf[off + 3];
		classify(w, start + off, ok, mask, &k->ins[k->n++]);
	}
	cs_free(in, 1);
	free(buf);
	k->start = start;
	k->end = start + 4 * k->n;
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

static ptrdiff_t index_of(const struct code *k, uint64_t addr)
{
	if (addr < k->start || addr >= k->end || (addr & 3))
		return -1;
	return (ptrdiff_t)((addr - k->start) / 4);
}

/* ---- the analysis ------------------------------------------------------------------- */

#define G_BITS 0x000000feu      /* %g1-%g7: globals are not windowed */
#define O_BITS 0x0000ff00u
#define I_BITS 0xff000000u

static uint32_t write_reg(uint32_t m, unsigned r, bool copy)
{
	if (r >= 32)
		return m;
	m &= ~(1u << r);
	if (copy && r != 0)
		m |= 1u << r;
	return m;
}

static struct wstate transfer(struct wstate s, const struct sinsn *x)
{
	bool copy = x->src != NO_REG && x->src < 32 && ((s.ra_regs >> x->src) & 1);
	switch (x->kind) {
	case K_SAVE:         /* the outs become the ins; locals and outs are new */
		if (s.window == SW_CALLER) {
			s.window = SW_OWN;
			s.ra_regs = (s.ra_regs & G_BITS) | ((s.ra_regs & O_BITS) << 16);
		} else {
			s.window = SW_UNKNOWN;
			s.ra_regs = 0;
		}
		s.ra_regs = write_reg(s.ra_regs, x->rd, false);
		break;
	case K_RESTORE:      /* the ins become the outs again; rd is written in that window */
	case K_RETURN:
		if (s.window == SW_OWN) {
			s.window = SW_CALLER;
			s.ra_regs = (s.ra_regs & G_BITS) | ((s.ra_regs & I_BITS) >> 16);
		} else {
			s.window = SW_UNKNOWN;
			s.ra_regs = 0;
		}
		if (x->kind == K_RESTORE)
			s.ra_regs = write_reg(s.ra_regs, x->rd, copy);
		break;
	case K_CALL:
		s.ra_regs = write_reg(s.ra_regs, SPARC_O7, false);
		break;
	default:
		s.ra_regs = write_reg(s.ra_regs, x->rd, copy);
		s.ra_regs = write_reg(s.ra_regs, x->rd2, false);
		break;
	}
	return s;
}

/* True when the instruction after a CALL (its delay slot X) makes it a tail call: the
 * callee returns to our caller, either because `restore` gives the caller's window back or
 * because %o7 is set again to the caller's return address. */
static bool tail_delay(const struct sinsn *x)
{
	return x->kind == K_RESTORE || x->rd == SPARC_O7;
}

/* Successors of instruction I; returns their count (at most 2). */
static int successors(const struct code *k, size_t i, size_t *succ)
{
	const struct sinsn *x = &k->ins[i];
	int n = 0;
#define ADD(j) do { size_t j_ = (j); if (j_ < k->n) succ[n++] = j_; } while (0)
#define TARGET(b) do { ptrdiff_t t_ = index_of(k, (b)->target); if (t_ >= 0) succ[n++] = (size_t)t_; } while (0)
	if (is_dcti(x)) {
		if (x->kind == K_BRANCH && x->annul) {
			if (x->always)
				TARGET(x);
			else if (x->never)
				ADD(i + 2);
			else {
				ADD(i + 1);
				ADD(i + 2);
			}
		} else {
			ADD(i + 1);
		}
		return n;
	}
	const struct sinsn *b = i > 0 ? &k->ins[i - 1] : NULL;
	if (b && is_dcti(b)) {                 /* X is the delay slot of B */
		switch (b->kind) {
		case K_CALL:
			if (tail_delay(x))
				break;
			ADD(i + 1);
			/* 32-bit ABI: a call returning a structure is followed by `unimp size`
			 * and returns past it (SPARC psABI, "Function Calling Sequence") */
			if (i + 1 < k->n && k->ins[i + 1].kind == K_HALT)
				ADD(i + 2);
			break;
		case K_JMPL:
			if (b->rd == SPARC_O7)         /* an indirect call */
				ADD(i + 1);
			break;
		case K_BRANCH:
			if (!b->never)
				TARGET(b);
			if (!b->always)
				ADD(i + 1);
			break;
		default:
			break;                          /* RETURN */
		}
		return n;
	}
	if (x->kind == K_HALT || x->kind == K_INVALID)
		return 0;
	ADD(i + 1);
	return n;
#undef ADD
#undef TARGET
}

/* ---- the hooks of unwind/dataflow.h ------------------------------------------------------ */

static ptrdiff_t flow_index_of(const void *code, uint64_t addr)
{
	return index_of(code, addr);
}

static int step(const void *code, size_t i, const void *in, void *out, size_t *succ)
{
	const struct code *k = code;
	*(struct wstate *)out = transfer(*(const struct wstate *)in, &k->ins[i]);
	return successors(k, i, succ);
}

/* Copies of the return address survive where every path keeps them; the window is known
 * where every path agrees. */
static bool merge(void *dst, const void *src)
{
	struct wstate *d = dst, m = *d;
	const struct wstate *s = src;
	if (m.window != s->window)
		m.window = SW_UNKNOWN;
	m.ra_regs &= s->ra_regs;
	if (m.window == d->window && m.ra_regs == d->ra_regs)
		return false;
	*d = m;
	return true;
}

/* A jump through a table: jmpl to %g0 that is not a return (through %o7 or %i7). */
static bool table_jump(const void *code, size_t i)
{
	const struct sinsn *x = &((const struct code *)code)->ins[i];
	return x->kind == K_JMPL && x->rd == NO_REG && x->rs1 != SPARC_O7 && x->rs1 != SPARC_I7;
}

static const struct cst_dataflow_ops flow_ops = {
	.state_size = sizeof(struct wstate),
	.index_of = flow_index_of,
	.step = step,
	.merge = merge,
	.table_jump = table_jump,
};

int cst_sparc_at_pc(struct cst_unwind *u, const struct cst_func *fn, uint64_t pc, struct sparc_at_pc *at)
{
	struct code *k = get_code(u, fn);
	if (!k)
		return -CST_E_DECODE;
	if (!k->analysed) {
		static const struct wstate entry = { .window = SW_CALLER, .ra_regs = 1u << SPARC_O7 };
		k->analysed = true;
		if (cst_dataflow_run(&k->flow, &flow_ops, k, k->n, &entry) < 0)
			cst_dataflow_free(&k->flow);
	}
	if (!k->flow.states)
		return -CST_E_NOMEM;
	const struct wstate *s = cst_dataflow_at(&k->flow, pc);
	if (!s)
		return -CST_E_DECODE;
	at->window = (enum sparc_window)s->window;
	at->ra_regs = s->ra_regs;
	return 0;
}

struct cst_entries **cst_sparc_entries_slot(struct cst_unwind *u)
{
	struct cache *c = get_cache(u);
	return c ? &c->entries : NULL;
}

bool cst_sparc_transfer(uint32_t w, uint64_t addr, uint64_t mask, bool *call, uint64_t *target)
{
	struct sinsn x;
	classify(w, addr, true, mask, &x);
	*call = x.kind == K_CALL;
	*target = x.target;
	return x.kind == K_CALL || (x.kind == K_BRANCH && !x.never);
}

int cst_sparc_barrier(uint32_t w)
{
	struct sinsn x;
	classify(w, 0, true, ~0ull, &x);
	if (x.kind == K_BRANCH && x.always)
		return x.annul ? 2 : 1;
	return (x.kind == K_JMPL && x.rd == NO_REG) || x.kind == K_RETURN ? 1 : 0;
}

/* ---- call sites and tail calls --------------------------------------------------------- */

/* The call that returns to RA is the instruction 8 bytes before it (the call, then its
 * delay slot): CALL (direct) or JMPL with rd = %o7 (indirect). */
int cst_sparc_call_before(struct cst_unwind *u, const struct cst_func *fn, uint64_t ra,
			  struct cst_call_site *site)
{
	uint64_t w;
	if (ra < 8 || (ra & 3) || cst_target_read_word(u->env->target, ra - 8, 4, &w) < 0)
		return -CST_E_DECODE;
	struct sinsn x;
	classify((uint32_t)w, ra - 8, true, addr_mask(u), &x);
	site->addr = ra - 8;
	site->reg = -1;
	site->slot = 0;
	if (x.kind == K_CALL) {
		site->direct = true;
		site->target = x.target;
		return 0;
	}
	if (x.kind == K_JMPL && x.rd == SPARC_O7) {
		site->direct = false;
		return 0;
	}
	return -CST_E_DECODE;
}

/* At most this many distinct GOT pointers per module (one is usual): past it nothing is
 * known of the module. */
#define MAX_GOT_POINTERS 4

struct built {
	void (*add)(void *arg, uint64_t v);
	void *arg;
	bool pic;                          /* a shared object or PIE */
	uint64_t mask;                     /* addr_mask */
	uint64_t got[MAX_GOT_POINTERS];    /* PIC: the GOT pointers the code sets up (target addresses) */
	int ngot;
	bool too_many;                     /* more GOT pointers than MAX_GOT_POINTERS */
	bool pairs;                        /* PIC: a sethi and an add/or/xor of its register seen */
	/* the high part each register was last given by a sethi (a register another
	 * instruction writes keeps it: a value too many only widens the set) */
	uint64_t high[32];
	bool set[32];
};

/* One instruction W at target address A (NEXT: the word after it, the delay slot) of a
 * pass over the code: the first pass of PIC code (PASS 0) finds the GOT pointers, the
 * other adds the values built. */
static void built_value(struct built *b, int pass, uint64_t a, uint32_t w, uint32_t next)
{
	unsigned op = w >> 30, rd = w >> 25 & 31, op2 = w >> 22 & 7, op3 = w >> 19 & 63;
	unsigned rs1 = w >> 14 & 31;
	if (op == 1 && b->pic && pass == 0 && b->set[SPARC_L7] &&
	    (next >> 30) == 2 && (next >> 25 & 31) == SPARC_L7 && (next >> 19 & 63) == 0x00 &&
	    (next >> 14 & 31) == SPARC_L7 && (next >> 13 & 1)) {
		/* gcc's PIC register set-up: `sethi %hi(X), %l7; call T; add %l7, %lo(X), %l7`
		 * with T `retl; add %o7, %l7, %l7`: %l7 = the call's address + X, the GOT */
		int64_t simm = (int64_t)(next & 0x1fff) - ((next & 0x1000) ? 0x2000 : 0);
		uint64_t got = (a + b->high[SPARC_L7] + (uint64_t)simm) & b->mask;
		int i;
		for (i = 0; i < b->ngot && b->got[i] != got; i++)
			;
		if (i == b->ngot && b->ngot == MAX_GOT_POINTERS)
			b->too_many = true;
		else if (i == b->ngot)
			b->got[b->ngot++] = got;
	}
	if (op == 0 && op2 == 4 && rd != 0) {          /* SETHI imm22, rd */
		b->high[rd] = (uint64_t)(w & 0x3fffff) << 10;
		b->set[rd] = true;
		if (!b->pic)
			b->add(b->arg, b->high[rd]);
	} else if (op == 2 && (w >> 13 & 1) && b->set[rs1] &&
		   (op3 == 0x00 || op3 == 0x02 || op3 == 0x03)) {   /* ADD, OR, XOR simm13 */
		int64_t simm = (int64_t)(w & 0x1fff) - ((w & 0x1000) ? 0x2000 : 0);
		uint64_t v = op3 == 0x00 ? b->high[rs1] + (uint64_t)simm :
			     op3 == 0x02 ? b->high[rs1] | (uint64_t)simm : b->high[rs1] ^ (uint64_t)simm;
		if (!b->pic)
			b->add(b->arg, v & 0xffffffffull);
		b->pairs = true;
		/* PIC code builds an offset from the GOT (the linker's relaxed
		 * %gdop_hix22/%gdop_lox10, a negative one through xor) and adds the GOT
		 * pointer to it */
		for (int i = 0; pass == 1 && i < b->ngot; i++)
			b->add(b->arg, (b->got[i] + v) & b->mask);
	}
}

/* Runs PASS of built_value over the code in [LO, HI) (target addresses), read through BUF
 * (CHUNK + 4 bytes).  Returns 0 or -CST_E_MEMORY. */
static int built_pass(struct cst_unwind *u, struct built *b, int pass, uint64_t lo, uint64_t hi,
		      uint8_t *buf, size_t chunk)
{
	memset(b->set, 0, sizeof b->set);
	lo &= ~3ull;
	for (uint64_t a = lo; a < hi; a += chunk) {
		size_t len = hi - a < chunk ? (size_t)(hi - a) & ~(size_t)3 : chunk;
		if (len == 0)
			break;
		/* the word after the chunk too: the delay slot of its last instruction */
		size_t got = len + (a + len + 4 <= hi ? 4 : 0);
		if (cst_target_read(u->env->target, a, buf, got) < 0)
			return -CST_E_MEMORY;
		if (got == len)
			memset(buf + len, 0, 4);
		for (size_t i = 0; i + 4 <= len; i += 4) {
			const uint8_t *p = buf + i;
			uint32_t w = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
			uint32_t next = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];
			built_value(b, pass, a + i, w, next);
		}
	}
	return 0;
}

int cst_sparc_code_addresses(struct cst_unwind *u, uint64_t lo, uint64_t hi,
			     void (*add)(void *arg, uint64_t v), void *arg)
{
	enum { CHUNK = 65536 };
	uint64_t bias;
	Elf *elf = u->env->syms ? cst_symbols_module_elf(u->env->syms, lo, &bias) : NULL;
	GElf_Ehdr eh;
	size_t nph;
	if (!elf || !gelf_getehdr(elf, &eh) || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) ||
	    (eh.e_type == ET_EXEC && hi > (1ull << 32)) || elf_getphdrnum(elf, &nph) != 0)
		return -CST_E_DECODE;
	uint8_t *buf = malloc(CHUNK + 4);
	struct built *b = calloc(1, sizeof *b);
	if (!buf || !b) {
		free(buf);
		free(b);
		return -CST_E_NOMEM;
	}
	*b = (struct built){ .add = add, .arg = arg, .pic = eh.e_type == ET_DYN, .mask = addr_mask(u) };
	int rc = 0;
	/* PIC: the GOT pointers, from the module's code (its executable segments that are
	 * not writable: SPARC's writable one holds the PLT and data) */
	for (size_t i = 0; b->pic && i < nph && rc == 0; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    !(ph.p_flags & PF_W))
			rc = built_pass(u, b, 0, ph.p_vaddr + bias, ph.p_vaddr + bias + ph.p_memsz, buf, CHUNK);
	}
	/* PIC code that builds values with no GOT pointer known, or with too many: the
	 * addresses it takes cannot be told */
	if (rc == 0 && b->pic && (b->too_many || (b->pairs && b->ngot == 0)))
		rc = -CST_E_DECODE;
	if (rc == 0)
		rc = built_pass(u, b, 1, lo, hi, buf, CHUNK);
	free(buf);
	free(b);
	return rc;
}

/* Tail calls as gcc emits them: `call T` with `restore` in its delay slot (after `save`);
 * `mov %o7,%g1; call T; mov %g1,%o7` (a leaf: %o7 is put back in the delay slot); a branch
 * to another function (`mov %o7,%g1; b T`, or a plain `b T`). */
int cst_sparc_tail_targets(struct cst_unwind *u, const struct cst_func *fn, uint64_t *targets,
			   uint64_t *jumps, int max)
{
	struct code *k = get_code(u, fn);
	if (!k)
		return -CST_E_DECODE;
	uint64_t end = fn->end ? fn->end : k->end;
	int n = 0;
	for (size_t i = 0; i < k->n && n < max; i++) {
		const struct sinsn *x = &k->ins[i];
		bool tail = false;
		if (x->kind == K_BRANCH && !x->never)
			tail = x->target < fn->start || x->target >= end;
		else if (x->kind == K_CALL && i + 1 < k->n)
			tail = tail_delay(&k->ins[i + 1]);
		if (!tail)
			continue;
		int j;
		for (j = 0; j < n && targets[j] != x->target; j++)
			;
		if (j < n) {
			jumps[j] = fn->start;      /* several jumps lead there */
			continue;
		}
		targets[n] = x->target;
		jumps[n] = x->addr;
		n++;
	}
	return n;
}

/* A PLT entry, by running its straight-line code on the registers it sets (at most 8
 * instructions: SETHI, OR, ADD, SLLX, then JMPL to %g0 or a BA).  The dynamic linker
 * patches a bound entry into either `ba,a function` (a near function) or an absolute
 * address built in %g1/%g5 and a `jmpl %g1 + %g5, %g0` (glibc sysdeps/sparc/sparc64/
 * dl-plt.h, sparc64_fixup_plt; sparc32/dl-plt.h).  An entry not bound yet branches back
 * into the PLT, to the resolver: then it is not resolved (0). */
int cst_sparc_resolve_stub(struct cst_unwind *u, uint64_t addr, uint64_t *dest)
{
	uint64_t mask = addr_mask(u), val[32] = { 0 };
	uint32_t known = 1;                               /* %g0 */
	if (addr & 3)
		return 0;
	for (int n = 0; n < 8; n++) {
		uint64_t w64, pc = addr + 4 * (uint64_t)n;
		if (cst_target_read_word(u->env->target, pc, 4, &w64) < 0)
			return 0;
		uint32_t w = (uint32_t)w64;
		unsigned op = w >> 30, rd = (w >> 25) & 31, op3 = (w >> 19) & 63, rs1 = (w >> 14) & 31;
		bool imm = (w >> 13) & 1;
		uint64_t b = imm ? (uint64_t)sext(w & 0x1fff, 13) : val[w & 31];
		bool b_known = imm || ((known >> (w & 31)) & 1), a_known = (known >> rs1) & 1;
		uint64_t r;
		if (op == 0 && ((w >> 22) & 7) == 4) {            /* SETHI */
			r = (uint64_t)(w & 0x3fffff) << 10;
		} else if (op == 2 && (op3 == 0x02 || op3 == 0x00 || op3 == 0x25) && a_known && b_known) {
			r = op3 == 0x02 ? val[rs1] | b : op3 == 0x00 ? val[rs1] + b :
			    (w >> 12) & 1 ? val[rs1] << (b & 63) : (val[rs1] << (b & 31)) & 0xffffffffull;
		} else if (op == 2 && op3 == 0x38 && rd == 0 && a_known && b_known) {
			*dest = (val[rs1] + b) & mask;            /* JMPL to %g0 */
			return *dest != 0 && u->env->syms && cst_symbols_in_module(u->env->syms, *dest);
		} else {
			struct sinsn x;
			classify(w, pc, true, mask, &x);
			if (x.kind != K_BRANCH || !x.always)
				return 0;
			struct cst_func here, there;
			if (!u->env->syms || cst_symbols_func(u->env->syms, x.target, &there) < 0)
				return 0;
			/* a branch inside the PLT (to its first, resolving entry) is not a binding */
			if (cst_symbols_func(u->env->syms, addr, &here) == 0 && here.start == there.start)
				return 0;
			*dest = x.target;
			return 1;
		}
		if (rd) {
			val[rd] = r & mask;
			known |= 1u << rd;
		}
	}
	return 0;
}

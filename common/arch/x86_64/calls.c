/* x86-64 call sites, tail jumps and PLT stubs. */
#include "x86_64.h"
#include "error.h"
#include "symbols.h"
#include "util.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

int cst_x86_64_call_before(struct cst_unwind *u, const struct cst_func *fn, uint64_t ra,
		       struct cst_call_site *site)
{
	if (fn && fn->start < ra) {
		/* the instructions up to RA are those of the whole function's decoding */
		struct code *k = cst_x86_64_code_through(u, fn, ra - 1);
		ptrdiff_t i = k ? cst_x86_64_find_insn(k, ra - 1) : -1;
		if (i >= 0 && k->ins[i].addr + k->ins[i].size == ra) {
			const struct xinsn *x = &k->ins[i];
			if (x->kind != K_CALL && x->kind != K_CALL_IND)
				return -CST_E_DECODE;
			site->addr = x->addr;
			site->direct = x->kind == K_CALL;
			site->target = x->target;
			site->reg = x->kind == K_CALL_IND && x->call_reg ? x->call_reg : -1;
			site->slot = x->kind == K_CALL_IND ? x->target : 0;
			if (x->kind == K_CALL_IND && x->mem_base) {
				site->base_reg = x->mem_base - 1;
				site->index_reg = x->mem_index - 1;
				site->scale = x->mem_scale;
				site->disp = x->imm;
			}
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
	site->reg = -1;
	site->slot = 0;
	site->target = ra + (uint64_t)(int64_t)cst_le32s(b + 1);
	return 0;
}

int cst_x86_64_tail_targets(struct cst_unwind *u, const struct cst_func *fn, uint64_t *targets,
			uint64_t *jumps, int max)
{
	struct code *k = cst_x86_64_code(u, fn);
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
			if (j < n) {
				jumps[j] = fn->start;      /* several jumps lead there */
				continue;
			}
			targets[n] = x->target;
			jumps[n] = x->addr;
			n++;
		}
	}
	return n;
}

int cst_x86_64_reg_writes(struct cst_unwind *u, const struct cst_func *fn, uint64_t *written,
			  uint64_t *targets, int max)
{
	struct code *k = fn->end > fn->start ? cst_x86_64_code(u, fn) : NULL;
	if (!k || k->start != fn->start || k->end < fn->end)
		return -CST_E_DECODE;
	uint64_t w = 0;
	int n = 0;
	for (size_t i = 0; i < k->n && k->ins[i].addr < fn->end; i++) {
		const struct xinsn *x = &k->ins[i];
		if (x->kind == K_CALL_IND || x->kind == K_JMP_IND)
			return -CST_E_DECODE;
		w |= x->writes;
		bool out = x->target < fn->start || x->target >= fn->end;
		if (x->kind == K_CALL || ((x->kind == K_JMP || x->kind == K_JCC) && out)) {
			int j;
			for (j = 0; j < n && targets[j] != x->target; j++)
				;
			if (j < n)
				continue;
			if (n == max)
				return -CST_E_DECODE;
			targets[n++] = x->target;
		}
	}
	*written = w;
	return n;
}

/* Linear decoding, CHUNK bytes read at a time; an instruction cut at a chunk's end is
 * decoded again from the next chunk.  Bytes that decode to nothing are skipped one by one
 * (padding, data in code): linear decoding of gcc's code falls back in step within a few
 * instructions. */
int cst_x86_64_code_addresses(struct cst_unwind *u, uint64_t lo, uint64_t hi,
			      void (*add)(void *arg, uint64_t v), void *arg)
{
	enum { CHUNK = 65536, MAX_INSN = 15 };      /* Intel SDM vol. 2, 2.3.11: 15 bytes at most */
	struct cache *c = cst_x86_64_cache(u);
	uint8_t *buf = malloc(CHUNK);
	cs_insn *in = c && c->cst_ok ? cs_malloc(c->cs) : NULL;
	int rc = 0;
	for (uint64_t a = lo; in && buf && a < hi;) {
		size_t len = hi - a < CHUNK ? (size_t)(hi - a) : CHUNK;
		if (cst_target_read(u->env->target, a, buf, len) < 0) {
			rc = -CST_E_MEMORY;
			break;
		}
		const uint8_t *p = buf;
		size_t left = len;
		uint64_t addr = a;
		while (left > 0 && (left >= MAX_INSN || a + len == hi)) {
			if (!cs_disasm_iter(c->cs, &p, &left, &addr, in)) {
				p++, left--, addr++;
				continue;
			}
			const cs_x86 *d = &in->detail->x86;
			bool branch = cs_insn_group(c->cs, in, CS_GRP_JUMP) || cs_insn_group(c->cs, in, CS_GRP_CALL);
			for (int i = 0; i < d->op_count && !branch; i++) {
				const cs_x86_op *o = &d->operands[i];
				if (o->type == X86_OP_IMM)
					add(arg, (uint64_t)o->imm);
				else if (o->type == X86_OP_MEM && o->mem.base == X86_REG_RIP && in->id == X86_INS_LEA)
					add(arg, in->address + in->size + (uint64_t)o->mem.disp);
			}
		}
		a = addr;
	}
	if (!in || !buf)
		rc = rc ? rc : -CST_E_NOMEM;
	if (in)
		cs_free(in, 1);
	free(buf);
	return rc;
}

/* A PLT entry: [endbr64;] [bnd] jmp *slot(%rip).  The slot holds the resolved address. */
/* The memory slot an indirect jump at ADDR goes through, 0 when ADDR is not such a jump. */
static uint64_t stub_slot(struct cst_unwind *u, struct cache *c, uint64_t addr)
{
	uint8_t b[16];
	if (!c || !c->cst_ok || cst_target_read(u->env->target, addr, b, sizeof b) < 0)
		return 0;
	/* The two forms most addresses asked about take, told from their bytes as capstone
	 * decodes them (Intel SDM vol. 2): after an optional endbr64 (f3 0f 1e fa), a linkage
	 * stub's jmp *disp32(%rip) (ff 25 disp32) or a function's push %rbp (55). */
	size_t at = memcmp(b, "\xf3\x0f\x1e\xfa", 4) == 0 ? 4 : 0;
	if (b[at] == 0xff && b[at + 1] == 0x25)
		return addr + at + 6 + (uint64_t)(int64_t)cst_le32s(b + at + 2);
	if (b[at] == 0x55)
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
		cst_x86_64_classify(c->cs, in, &x);
		if (x.kind == K_JMP_IND)
			slot = x.target;
		break;
	}
	cs_free(in, 1);
	return slot;
}

/* Every frame's call site is checked for a stub: the decoded instruction is kept per
 * address. */
int cst_x86_64_resolve_stub(struct cst_unwind *u, uint64_t addr, uint64_t *dest)
{
	struct cache *c = cst_x86_64_cache(u);
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

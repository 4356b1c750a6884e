/* x86-64 function entries in stripped code without CFI. */
#include "x86_64.h"
#include "error.h"
#include "symbols.h"
#include "util.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

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

int cst_x86_64_guess_func(struct cst_unwind *u, uint64_t addr, struct cst_func *fn)
{
	struct cache *c = cst_x86_64_cache(u);
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

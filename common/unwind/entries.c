/* Guessed function entries of executable segments (entries.h): one sorted table per
 * segment, in a list. */
#include "entries.h"
#include "error.h"
#include "symbols.h"
#include "unwind.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define READ_CHUNK 4096         /* bytes read at a time: an unreadable chunk is filled */

struct cst_entries {            /* the table of one segment */
	uint64_t lo, hi;        /* the segment [lo, hi), target addresses */
	uint64_t *starts;       /* sorted, unique */
	size_t n, cap;
	struct cst_entries *next;
};

void cst_entries_free(struct cst_entries *e)
{
	while (e) {
		struct cst_entries *next = e->next;
		free(e->starts);
		free(e);
		e = next;
	}
}

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

/* Index past the entry of the function holding ADDR in E (so the function is
 * [starts[k - 1], starts[k] or hi)), or 0 when no entry lies below ADDR within the ops'
 * max_func_bytes. */
static size_t func_of(const struct cst_entries *e, const struct cst_entries_ops *ops, uint64_t addr)
{
	size_t k = cst_upper_bound(e->starts, e->n, addr);
	if (k == 0)
		return 0;
	uint64_t aligned = addr - (addr - e->lo) % ops->unit;
	if (ops->max_func_bytes && aligned - e->starts[k - 1] > ops->max_func_bytes)
		return 0;
	return k;
}

/* Decodes the segment and collects its entries, then the targets of jumps that leave their
 * function, round by round: the entries a round finds are looked up only from the next
 * round on, so that every lookup sees a sorted table. */
static void build(struct cst_unwind *u, const struct cst_entries_ops *ops, void *ctx, struct cst_entries *e)
{
	size_t len = (size_t)(e->hi - e->lo), njumps = 0, jcap = 0;
	uint8_t *buf = malloc(len ? len : 1);
	uint64_t *jumps = NULL;               /* pairs: jump address, target */
	if (!buf)
		return;
	if (ops->segment_start && len >= ops->unit && !push_u64(&e->starts, &e->n, &e->cap, e->lo))
		goto out;
	if (ops->begin && !ops->begin(ctx))
		goto out;
	for (size_t off = 0; off < len; off += READ_CHUNK) {
		size_t n = len - off < READ_CHUNK ? len - off : READ_CHUNK;
		if (cst_target_read(u->env->target, e->lo + off, buf + off, n) < 0)
			memset(buf + off, ops->fill, n);
	}
	for (size_t off = 0; len - off >= ops->unit;) {
		enum cst_entry_ref ref = CST_REF_NONE;
		uint64_t t = 0;
		size_t size = ops->decode(ctx, buf + off, len - off, e->lo + off, &ref, &t);
		if (size == 0 || size > len - off) {
			off += ops->unit;
			continue;
		}
		uint64_t at = e->lo + off;
		off += size;
		if (ref == CST_REF_NONE || t < e->lo || t >= e->hi)
			continue;
		if (ref == CST_REF_JUMP) {
			if (!push_u64(&jumps, &njumps, &jcap, at) || !push_u64(&jumps, &njumps, &jcap, t))
				break;
		} else if (!push_u64(&e->starts, &e->n, &e->cap, t)) {
			break;
		}
	}
	if (ops->end)
		ops->end(ctx);
	e->n = sort_unique(e->starts, e->n);
	uint64_t *found = NULL;
	size_t nfound = 0, fcap = 0;
	for (int round = 0; round < CST_ENTRIES_MAX_ROUNDS; round++) {
		nfound = 0;
		for (size_t i = 0; i + 1 < njumps; i += 2) {
			size_t k = func_of(e, ops, jumps[i]);
			if (k == 0)
				continue;
			uint64_t fstart = e->starts[k - 1], fend = k < e->n ? e->starts[k] : e->hi;
			uint64_t t = jumps[i + 1];
			if ((t < fstart || t >= fend) && !push_u64(&found, &nfound, &fcap, t))
				break;
		}
		size_t before = e->n;
		for (size_t i = 0; i < nfound; i++)
			if (!push_u64(&e->starts, &e->n, &e->cap, found[i]))
				break;
		e->n = sort_unique(e->starts, e->n);
		if (e->n == before)
			break;
	}
	free(found);
out:
	free(jumps);
	free(buf);
}

int cst_entries_func(struct cst_entries **cache, struct cst_unwind *u, const struct cst_entries_ops *ops,
		     void *ctx, uint64_t addr, struct cst_func *fn)
{
	uint64_t lo, hi;
	if (!u->env->syms || !cst_symbols_exec_range(u->env->syms, addr, &lo, &hi) ||
	    hi - lo > CST_ENTRIES_MAX_SEGMENT_BYTES || lo % ops->unit)
		return -CST_E_NO_FUNC;
	struct cst_entries *e = *cache;
	int ntables = 0;
	for (; e && e->lo != lo; e = e->next)
		ntables++;
	if (!e) {
		if (ntables >= CST_ENTRIES_MAX_TABLES || !(e = calloc(1, sizeof *e)))
			return -CST_E_NO_FUNC;
		e->lo = lo;
		e->hi = hi;
		build(u, ops, ctx, e);
		e->next = *cache;
		*cache = e;
	}
	size_t k = addr >= lo && addr < hi ? func_of(e, ops, addr) : 0;
	if (k == 0)
		return -CST_E_NO_FUNC;
	memset(fn, 0, sizeof *fn);
	fn->start = e->starts[k - 1];
	fn->end = k < e->n ? e->starts[k] : hi;
	return 0;
}

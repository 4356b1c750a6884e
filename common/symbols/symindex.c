/* A module's symbol table sorted by address (symindex.h). */
#include "symindex.h"
#include "util.h"

#include <stdbool.h>
#include <stdlib.h>

#define MAX_SCAN 256          /* entries looked at below an address before libdwfl is asked */
#define MAX_CANDIDATES 32
#define SMALL_TABLE 128       /* symbols sorted by insertion: a small library's table */

struct entry {
	uint64_t size;
	uint64_t maxend;      /* the highest end (address + size) of this entry and all below it */
	int idx;              /* index in libdwfl's symbol table */
	int binding;          /* binding_rank */
};

struct cst_symindex {
	size_t n;
	int first_global;     /* dwfl_module_getsymtab_first_global */
	uint64_t *addr;       /* sorted: cst_upper_bound searches it */
	struct entry *e;      /* parallel to addr */
};

/* Global before weak before local, as libdwfl ranks bindings (others lowest). */
static int binding_rank(const GElf_Sym *s)
{
	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL: return 3;
	case STB_WEAK:   return 2;
	case STB_LOCAL:  return 1;
	default:         return 0;
	}
}

/* Whether libdwfl's lookup considers symbol SYM named NAME at all. */
static bool eligible(const char *name, const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);
	return name && name[0] && sym->st_shndx != SHN_UNDEF &&
	       type != STT_SECTION && type != STT_FILE && type != STT_TLS;
}

struct sortable {
	uint64_t addr;
	struct entry e;
};

/* Sorts V[0..N) by address, keeping table order among equal addresses: for a big table a
 * least-significant digit radix sort, a byte a pass, passes where every address has the
 * same byte skipped (qsort's comparisons were most of the time spent building the index).
 * Which bytes differ is found in one pass first: a module's addresses differ in two or
 * three low bytes. */
static int sort_by_addr(struct sortable **v, size_t n)
{
	if (n <= SMALL_TABLE) {
		/* insertion sort, stable too: a radix pass costs its 256 counters whatever N */
		struct sortable *a = *v;
		for (size_t i = 1; i < n; i++) {
			struct sortable x = a[i];
			size_t j = i;
			for (; j > 0 && a[j - 1].addr > x.addr; j--)
				a[j] = a[j - 1];
			a[j] = x;
		}
		return 0;
	}
	struct sortable *tmp = malloc((n ? n : 1) * sizeof *tmp);
	if (!tmp)
		return -1;
	uint64_t any = 0, all = ~0ull;
	for (size_t i = 0; i < n; i++) {
		any |= (*v)[i].addr;
		all &= (*v)[i].addr;
	}
	for (int shift = 0; shift < 64; shift += 8) {
		if (((any ^ all) >> shift & 0xff) == 0)
			continue;                    /* every address has this byte */
		size_t count[257] = { 0 };
		for (size_t i = 0; i < n; i++)
			count[((*v)[i].addr >> shift & 0xff) + 1]++;
		for (int d = 0; d < 256; d++)
			count[d + 1] += count[d];
		for (size_t i = 0; i < n; i++)
			tmp[count[(*v)[i].addr >> shift & 0xff]++] = (*v)[i];
		struct sortable *t = *v;
		*v = tmp;
		tmp = t;
	}
	free(tmp);
	return 0;
}

struct cst_symindex *cst_symindex_build(Dwfl_Module *mod)
{
	int nsyms = dwfl_module_getsymtab(mod);
	int fg = dwfl_module_getsymtab_first_global(mod);
	if (nsyms <= 1 || fg < 0)
		return NULL;
	struct sortable *v = malloc((size_t)nsyms * sizeof *v);
	struct cst_symindex *ix = calloc(1, sizeof *ix);
	if (!v || !ix)
		goto fail;
	size_t n = 0;
	for (int i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);
		if (!eligible(name, &sym))
			continue;
		v[n].addr = addr;
		v[n].e = (struct entry){ .size = sym.st_size, .idx = i, .binding = binding_rank(&sym) };
		n++;
	}
	if (sort_by_addr(&v, n) < 0)
		goto fail;
	ix->addr = malloc((n ? n : 1) * sizeof *ix->addr);
	ix->e = malloc((n ? n : 1) * sizeof *ix->e);
	if (!ix->addr || !ix->e)
		goto fail;
	uint64_t maxend = 0;
	for (size_t k = 0; k < n; k++) {
		uint64_t end = v[k].addr + v[k].e.size;
		if (end < v[k].addr)
			end = UINT64_MAX;            /* a hostile size: it contains everything above */
		if (end > maxend)
			maxend = end;
		ix->addr[k] = v[k].addr;
		ix->e[k] = v[k].e;
		ix->e[k].maxend = maxend;
	}
	ix->n = n;
	ix->first_global = fg;
	free(v);
	return ix;
fail:
	free(v);
	cst_symindex_free(ix);
	return NULL;
}

void cst_symindex_free(struct cst_symindex *ix)
{
	if (!ix)
		return;
	free(ix->addr);
	free(ix->e);
	free(ix);
}

static int by_idx(const void *a, const void *b)
{
	const size_t *x = a, *y = b;
	return (*x > *y) - (*x < *y);
}

/* The pass over candidates C (indices into IX, in symbol table order) whose table index
 * lies in [LO, HI): the entry libdwfl's rule keeps, or -1. */
static long choose(const struct cst_symindex *ix, const size_t *c, int nc, int lo, int hi, long best)
{
	for (int k = 0; k < nc; k++) {
		const struct entry *e = &ix->e[c[k]];
		if (e->idx < lo || e->idx >= hi)
			continue;
		if (best < 0) {
			best = (long)c[k];
			continue;
		}
		const struct entry *b = &ix->e[best];
		uint64_t ba = ix->addr[best], ea = ix->addr[c[k]];
		if (ba < ea || b->binding < e->binding)
			best = (long)c[k];
		else if (ba == ea && ((b->size > e->size && b->binding <= e->binding) ||
				      (b->size >= e->size && b->binding < e->binding)))
			best = (long)c[k];
	}
	return best;
}

const char *cst_symindex_addrinfo(const struct cst_symindex *ix, Dwfl_Module *mod, uint64_t addr,
				  GElf_Off *off, GElf_Sym *sym)
{
	if (!ix || ix->n == 0)
		goto ask_libdwfl;
	size_t ub = cst_upper_bound(ix->addr, ix->n, addr);
	size_t cand[MAX_CANDIDATES];
	int nc = 0;
	bool sizeless_global_here = false;
	size_t scanned = 0;
	for (size_t k = ub; k-- > 0 && ix->e[k].maxend > addr;) {
		const struct entry *e = &ix->e[k];
		if (++scanned > MAX_SCAN || nc == MAX_CANDIDATES)
			goto ask_libdwfl;
		if (e->size && addr - ix->addr[k] < e->size)
			cand[nc++] = k;
	}
	for (size_t k = ub; k-- > 0 && ix->addr[k] == addr;)
		if (ix->e[k].size == 0 && ix->e[k].idx >= ix->first_global)
			sizeless_global_here = true;
	qsort(cand, (size_t)nc, sizeof *cand, by_idx);
	int fg = ix->first_global;
	long best = choose(ix, cand, nc, fg ? fg : 1, INT32_MAX, -1);
	if (best < 0 && sizeless_global_here)
		goto ask_libdwfl;       /* an exact global label keeps libdwfl out of the locals */
	if (best < 0 && fg > 1)
		best = choose(ix, cand, nc, 1, fg, -1);
	if (best < 0)
		goto ask_libdwfl;       /* only sizeless symbols can match: libdwfl's own fallback */
	GElf_Addr value;
	const char *name = dwfl_module_getsym_info(mod, ix->e[best].idx, sym, &value, NULL, NULL, NULL);
	if (!name)
		goto ask_libdwfl;
	*off = addr - value;
	return name;
ask_libdwfl:
	return dwfl_module_addrinfo(mod, addr, off, sym, NULL, NULL, NULL);
}

/* DWARF call-site records of one module.  See callsite.h. */
#include "callsite.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RECORDS 4000000                  /* per compilation unit */
#define MAX_UNITS   4096                     /* compilation units read per module */
#define MAX_DEPTH   64

#ifndef DW_TAG_call_site
#define DW_TAG_call_site 0x48                 /* DWARF 5, 7.5.4 */
#endif
#ifndef DW_TAG_GNU_call_site
#define DW_TAG_GNU_call_site 0x4109
#endif

enum rec_kind { REC_NONE, REC_ADDR, REC_REG, REC_ORIGIN };

struct rec {
	uint64_t ra;             /* the return address (for a tail call, the address after the jump) */
	uint64_t fn;             /* entry of the function that makes the call, 0 when unknown */
	uint64_t addr;           /* REC_ADDR: the entry called; REC_ORIGIN: the origin DIE's offset */
	int64_t offset;          /* REC_REG */
	int reg;                 /* REC_REG */
	uint8_t kind;            /* enum rec_kind */
	bool tail;
};

/* A subprogram DIE with an entry: by its own offset, and by its abstract origin's. */
struct sub {
	uint64_t die;
	uint64_t entry;
};

/* The records of one compilation unit, both ways sorted. */
struct cu_table {
	uint64_t cu;             /* the unit's DIE offset */
	struct rec *by_ra, *by_fn;
	size_t n;
};

struct cst_callsites {
	Dwfl_Module *mod;
	struct cu_table *cus;
	size_t ncus, cap;
};

struct builder {
	struct rec *recs;
	size_t n, cap;
	struct sub *subs;
	size_t nsubs, subcap;
	uint64_t bias;
	bool failed;
};

static bool grow(void **p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return true;
	size_t c = *cap ? *cap * 2 : 256;
	void *q = realloc(*p, c * size);
	if (!q)
		return false;
	*p = q;
	*cap = c;
	return true;
}

/* The entry of a function DIE: its low_pc, or the start of its first range (a function
 * split in hot and cold parts lists the hot part, where it is entered, first). */
static bool die_entry(Dwarf_Die *die, uint64_t *entry)
{
	Dwarf_Addr lo, base, start, end;
	if (dwarf_lowpc(die, &lo) == 0) {
		*entry = lo;
		return true;
	}
	if (dwarf_ranges(die, 0, &base, &start, &end) > 0) {
		*entry = start;
		return true;
	}
	return false;
}

static void add_sub(struct builder *b, uint64_t die, uint64_t entry)
{
	if (!grow((void **)&b->subs, &b->subcap, b->nsubs, sizeof *b->subs)) {
		b->failed = true;
		return;
	}
	b->subs[b->nsubs++] = (struct sub){ die, entry };
}

static bool attr_addr(Dwarf_Die *die, unsigned name, uint64_t *out)
{
	Dwarf_Attribute a;
	Dwarf_Addr v;
	if (!dwarf_attr(die, name, &a) || dwarf_formaddr(&a, &v) != 0)
		return false;
	*out = v;
	return true;
}

static bool attr_flag(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute a;
	bool v;
	return dwarf_attr(die, name, &a) && dwarf_formflag(&a, &v) == 0 && v;
}

/* The record of call-site DIE DIE inside the function whose entry is FN. */
static void add_call_site(struct builder *b, Dwarf_Die *die, int tag, uint64_t fn)
{
	struct rec r = { .fn = fn, .kind = REC_NONE };
	if (!(tag == DW_TAG_call_site ? attr_addr(die, DW_AT_call_return_pc, &r.ra)
				     : attr_addr(die, DW_AT_low_pc, &r.ra)))
		return;
	r.ra += b->bias;
	r.tail = attr_flag(die, DW_AT_call_tail_call) || attr_flag(die, DW_AT_GNU_tail_call);
	Dwarf_Attribute a;
	Dwarf_Die origin;
	if ((dwarf_attr(die, DW_AT_call_origin, &a) || dwarf_attr(die, DW_AT_abstract_origin, &a)) &&
	    dwarf_formref_die(&a, &origin)) {
		r.kind = REC_ORIGIN;
		r.addr = dwarf_dieoffset(&origin);
	} else if (dwarf_attr(die, DW_AT_call_target, &a) || dwarf_attr(die, DW_AT_GNU_call_site_target, &a)) {
		Dwarf_Op *ops;
		size_t nops;
		if (dwarf_getlocation(&a, &ops, &nops) == 0 && nops == 1) {
			if (ops[0].atom == DW_OP_addr) {
				r.kind = REC_ADDR;
				r.addr = ops[0].number + b->bias;
			} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
				r.kind = REC_REG;
				r.reg = ops[0].atom - DW_OP_breg0;
				r.offset = (int64_t)ops[0].number;
			}
		}
	}
	if (b->n >= MAX_RECORDS || !grow((void **)&b->recs, &b->cap, b->n, sizeof *b->recs)) {
		b->failed = b->n < MAX_RECORDS;
		return;
	}
	b->recs[b->n++] = r;
}

/* Reads the children of PARENT, inside the function whose entry is FN (0: none yet). */
static void walk(struct builder *b, Dwarf_Die *parent, uint64_t fn, int depth)
{
	Dwarf_Die die;
	if (depth >= MAX_DEPTH || b->failed || dwarf_child(parent, &die) != 0)
		return;
	do {
		int tag = dwarf_tag(&die);
		uint64_t inner = fn;
		if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site) {
			add_call_site(b, &die, tag, fn);
			continue;           /* its children are its parameters */
		}
		if (tag == DW_TAG_subprogram) {
			uint64_t entry;
			if (die_entry(&die, &entry)) {
				inner = entry + b->bias;
				add_sub(b, dwarf_dieoffset(&die), inner);
				Dwarf_Attribute a;
				Dwarf_Die origin;
				if ((dwarf_attr(&die, DW_AT_abstract_origin, &a) ||
				     dwarf_attr(&die, DW_AT_specification, &a)) && dwarf_formref_die(&a, &origin))
					add_sub(b, dwarf_dieoffset(&origin), inner);
			} else {
				inner = 0;      /* an abstract or declared function: no code of its own */
			}
		}
		if (dwarf_haschildren(&die) > 0)
			walk(b, &die, inner, depth + 1);
	} while (!b->failed && dwarf_siblingof(&die, &die) == 0);
}

static int cmp_sub(const void *x, const void *y)
{
	const struct sub *a = x, *b = y;
	return a->die != b->die ? (a->die > b->die) - (a->die < b->die)
				: (a->entry > b->entry) - (a->entry < b->entry);
}

static int cmp_ra(const void *x, const void *y)
{
	const struct rec *a = x, *b = y;
	return (a->ra > b->ra) - (a->ra < b->ra);
}

static int cmp_fn(const void *x, const void *y)
{
	const struct rec *a = x, *b = y;
	return a->fn != b->fn ? (a->fn > b->fn) - (a->fn < b->fn) : cmp_ra(x, y);
}

/* The entry of the function DIE at offset DIE: known only when exactly one entry is
 * recorded for it (an abstract function with several concrete copies names none). */
static bool resolve_origin(const struct builder *b, uint64_t die, uint64_t *entry)
{
	size_t lo = 0, hi = b->nsubs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->subs[mid].die < die)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == b->nsubs || b->subs[lo].die != die)
		return false;
	for (size_t i = lo + 1; i < b->nsubs && b->subs[i].die == die; i++)
		if (b->subs[i].entry != b->subs[lo].entry)
			return false;
	*entry = b->subs[lo].entry;
	return true;
}

/* Reads the records of compilation unit CU into T.  Returns false when memory ran out. */
static bool read_cu(Dwarf_Die *cu, uint64_t bias, struct cu_table *t)
{
	struct builder b = { .bias = bias };
	walk(&b, cu, 0, 0);
	bool ok = !b.failed;
	if (ok && b.n > 0) {
		t->by_ra = malloc(b.n * sizeof *t->by_ra);
		t->by_fn = malloc(b.n * sizeof *t->by_fn);
		ok = t->by_ra && t->by_fn;
	}
	if (ok && b.n > 0) {
		if (b.nsubs > 1)     /* b.subs is NULL when no function of the unit has code */
			qsort(b.subs, b.nsubs, sizeof *b.subs, cmp_sub);
		for (size_t i = 0; i < b.n; i++) {
			struct rec *r = &b.recs[i];
			if (r->kind == REC_ORIGIN)
				r->kind = resolve_origin(&b, r->addr, &r->addr) ? REC_ADDR : REC_NONE;
		}
		t->n = b.n;
		memcpy(t->by_ra, b.recs, b.n * sizeof *b.recs);
		memcpy(t->by_fn, b.recs, b.n * sizeof *b.recs);
		qsort(t->by_ra, b.n, sizeof *t->by_ra, cmp_ra);
		qsort(t->by_fn, b.n, sizeof *t->by_fn, cmp_fn);
	}
	free(b.recs);
	free(b.subs);
	return ok;
}

/* The table of the compilation unit that covers target address ADDR, read on first use;
 * NULL when no unit covers it, or it cannot be read. */
static const struct cu_table *unit_at(struct cst_callsites *cs, uint64_t addr)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = cs ? dwfl_module_addrdie(cs->mod, addr, &bias) : NULL;
	if (!cu)
		return NULL;
	uint64_t off = dwarf_dieoffset(cu);
	for (size_t i = 0; i < cs->ncus; i++)
		if (cs->cus[i].cu == off)
			return &cs->cus[i];
	if (cs->ncus == MAX_UNITS)
		return NULL;
	if (cs->ncus == cs->cap) {
		size_t cap = cs->cap ? cs->cap * 2 : 16;
		struct cu_table *p = realloc(cs->cus, cap * sizeof *p);
		if (!p)
			return NULL;
		cs->cus = p;
		cs->cap = cap;
	}
	struct cu_table *t = &cs->cus[cs->ncus];
	memset(t, 0, sizeof *t);
	t->cu = off;
	if (!read_cu(cu, bias, t)) {
		free(t->by_ra);
		free(t->by_fn);
		memset(t, 0, sizeof *t);
		t->cu = off;          /* kept empty: memory ran out, nothing is known from it */
	}
	cs->ncus++;
	return t;
}

struct cst_callsites *cst_callsites_new(Dwfl_Module *mod)
{
	struct cst_callsites *cs = calloc(1, sizeof *cs);
	if (cs)
		cs->mod = mod;
	return cs;
}

void cst_callsites_free(struct cst_callsites *cs)
{
	if (!cs)
		return;
	for (size_t i = 0; i < cs->ncus; i++) {
		free(cs->cus[i].by_ra);
		free(cs->cus[i].by_fn);
	}
	free(cs->cus);
	free(cs);
}

/* The first record of A (N of them, sorted by KEY) whose key is not below V. */
static size_t lower_bound(const struct rec *a, size_t n, uint64_t v, bool by_fn)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((by_fn ? a[mid].fn : a[mid].ra) < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool cst_callsites_target(struct cst_callsites *cs, uint64_t ra, struct cst_call_target *out)
{
	const struct cu_table *t = ra ? unit_at(cs, ra - 1) : NULL;    /* the call is before RA */
	if (!t)
		return false;
	size_t i = lower_bound(t->by_ra, t->n, ra, false);
	/* one record for the call, not a tail call (whose "return address" follows a jump) */
	if (i == t->n || t->by_ra[i].ra != ra || t->by_ra[i].tail ||
	    (i + 1 < t->n && t->by_ra[i + 1].ra == ra))
		return false;
	const struct rec *r = &t->by_ra[i];
	if (r->kind == REC_ADDR) {
		*out = (struct cst_call_target){ .kind = CST_TARGET_ADDR, .addr = r->addr };
		return true;
	}
	if (r->kind == REC_REG) {
		*out = (struct cst_call_target){ .kind = CST_TARGET_REG, .reg = r->reg, .offset = r->offset };
		return true;
	}
	return false;
}

int cst_callsites_tail_calls(struct cst_callsites *cs, uint64_t fn_start, uint64_t *targets, int max)
{
	const struct cu_table *t = fn_start ? unit_at(cs, fn_start) : NULL;
	if (!t)
		return -1;
	size_t i = lower_bound(t->by_fn, t->n, fn_start, true);
	if (i == t->n || t->by_fn[i].fn != fn_start)
		return -1;
	int n = 0;
	for (; i < t->n && t->by_fn[i].fn == fn_start; i++) {
		const struct rec *r = &t->by_fn[i];
		if (!r->tail)
			continue;
		if (r->kind != REC_ADDR)
			return -1;
		if (n == max)
			return -1;
		targets[n++] = r->addr;
	}
	return n;
}

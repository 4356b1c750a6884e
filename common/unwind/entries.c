/* Guessed function entries of executable segments (entries.h): one sorted table per
 * segment, in a list. */
#include "entries.h"
#include "error.h"
#include "symbols.h"
#include "unwind.h"
#include "util.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#define READ_CHUNK 4096         /* bytes read at a time: an unreadable chunk is filled */
#define MAX_CODE_SECTIONS 64    /* executable sections told apart; more: the whole segment */

struct cst_entries {            /* the table of one segment */
	uint64_t lo, hi;        /* the segment [lo, hi), target addresses */
	uint64_t *starts;       /* sorted, unique */
	size_t n, cap;
	uint64_t *uncertain;    /* sorted: the starts whose function's bounds are uncertain */
	size_t nuncertain;
	uint64_t *falls_in;     /* sorted: the starts, not certain, that the code before them
				 * runs on into (no transfer or padding between) */
	size_t nfalls_in;
	struct cst_entries *next;
};

struct vec {
	uint64_t *v;
	size_t n, cap;
};

void cst_entries_free(struct cst_entries *e)
{
	while (e) {
		struct cst_entries *next = e->next;
		free(e->starts);
		free(e->uncertain);
		free(e->falls_in);
		free(e);
		e = next;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static bool push(struct vec *v, uint64_t x)
{
	if (v->n == v->cap) {
		size_t nc = v->cap ? 2 * v->cap : 1024;
		uint64_t *nv = realloc(v->v, nc * sizeof *nv);
		if (!nv)
			return false;
		v->v = nv;
		v->cap = nc;
	}
	v->v[v->n++] = x;
	return true;
}

static void sort_unique(struct vec *v)
{
	if (v->n < 2)
		return;              /* v->v may be NULL when nothing was collected */
	qsort(v->v, v->n, sizeof *v->v, cmp_u64);
	size_t k = 0;
	for (size_t i = 0; i < v->n; i++)
		if (k == 0 || v->v[k - 1] != v->v[i])
			v->v[k++] = v->v[i];
	v->n = k;
}

static bool in_sorted(const uint64_t *v, size_t n, uint64_t x)
{
	size_t k = cst_upper_bound(v, n, x);
	return k > 0 && v[k - 1] == x;
}

/* Appends every element of FROM to TO, sorted and unique after.  Returns false when out of
 * memory (TO holds part of FROM). */
static bool merge(struct vec *to, const struct vec *from)
{
	bool ok = true;
	for (size_t i = 0; i < from->n && ok; i++)
		ok = push(to, from->v[i]);
	sort_unique(to);             /* sorted even when memory ran out */
	return ok;
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

/* What the decoding of a segment collects. */
struct scan {
	struct vec certain;     /* call targets, .dynsym, the ELF entry point */
	struct vec cands;       /* addresses taken, data words */
	struct vec taken;       /* the same, kept when prologue shapes join cands */
	struct vec prologues;   /* prologue shapes after a barrier or padding */
	struct vec indirect;    /* indirect jumps, sorted */
	struct vec gaps;        /* code after a barrier (and padding) */
	struct vec jumps;       /* pairs: a direct jump's address, its target */
	struct vec jtargets;    /* the jumps' targets, sorted */
	struct vec tables;      /* pairs: where a switch table's address is taken, the table */
	uint8_t *boundary;      /* a bit per unit: an instruction starts there */
	uint8_t *fallen;        /* a bit per unit: the instruction there follows one that is
				 * no transfer and no padding */
	uint64_t code_lo[MAX_CODE_SECTIONS], code_hi[MAX_CODE_SECTIONS];
	int ncode;              /* executable sections in the segment; 0: all of it is code */
};

static bool is_code(const struct scan *s, uint64_t a)
{
	if (s->ncode == 0)
		return true;
	for (int i = 0; i < s->ncode; i++)
		if (a >= s->code_lo[i] && a < s->code_hi[i])
			return true;
	return false;
}

/* Removes from C (sorted) the candidates that a jump of S->jumps crosses: a jump from one
 * side of a candidate to the other (the jump's own address included on the far side), whose
 * target is none of TARGETS (sorted: entries and candidates; a jump to one of them may be
 * a tail call) and that no entry of SEP (sorted) separates from its target (such a jump
 * leaves its function and says nothing of the candidates it passes). */
static void drop_crossed(const struct scan *s, struct vec *c, const struct vec *sep, const struct vec *targets)
{
	if (c->n == 0)
		return;
	long *diff = calloc(c->n + 1, sizeof *diff);
	if (!diff) {
		c->n = 0;            /* nothing is kept that could not be checked */
		return;
	}
	for (size_t i = 0; i + 1 < s->jumps.n; i += 2) {
		uint64_t from = s->jumps.v[i], to = s->jumps.v[i + 1];
		if (in_sorted(targets->v, targets->n, to))
			continue;
		uint64_t lo = from < to ? from : to, hi = from < to ? to : from;
		size_t k = cst_upper_bound(sep->v, sep->n, lo);
		if (k < sep->n && sep->v[k] <= hi)
			continue;
		diff[cst_upper_bound(c->v, c->n, lo)]++;
		diff[cst_upper_bound(c->v, c->n, hi)]--;
	}
	long run = 0;
	size_t k = 0;
	for (size_t i = 0; i < c->n; i++) {
		run += diff[i];
		if (run == 0)
			c->v[k++] = c->v[i];
	}
	c->n = k;
	free(diff);
}

/* Keeps in C only what is not in SORTED (C sorted after). */
static void drop_known(struct vec *c, const struct vec *sorted)
{
	sort_unique(c);
	size_t k = 0;
	for (size_t i = 0; i < c->n; i++)
		if (!in_sorted(sorted->v, sorted->n, c->v[i]))
			c->v[k++] = c->v[i];
	c->n = k;
}

/* Whether a data section's words may hold code addresses: allocated, not code, holding
 * bits (.data, .data.rel.ro, .rodata, .got, .init_array, .dynamic), not unwind tables. */
static bool data_section(const GElf_Shdr *sh, const char *name)
{
	if (!(sh->sh_flags & SHF_ALLOC) || (sh->sh_flags & SHF_EXECINSTR) || sh->sh_size == 0)
		return false;
	if (sh->sh_type != SHT_PROGBITS && sh->sh_type != SHT_INIT_ARRAY && sh->sh_type != SHT_FINI_ARRAY &&
	    sh->sh_type != SHT_PREINIT_ARRAY && sh->sh_type != SHT_DYNAMIC)
		return false;
	return !name || (strncmp(name, ".eh_frame", 9) != 0 && strcmp(name, ".gcc_except_table") != 0);
}

/* The words of a data section [ADDR, ADDR + SIZE) (target addresses) that point into the
 * segment, into S->cands: read from the target (relocated as the program sees them), from
 * the file where the target has no bytes.  *BUDGET bounds the bytes read. */
static void data_words(struct cst_unwind *u, const struct cst_entries *e, struct scan *s, Elf_Scn *scn,
		       uint64_t addr, uint64_t size, unsigned word, bool big, uint64_t *budget)
{
	uint8_t buf[READ_CHUNK];
	Elf_Data *file = NULL;
	for (uint64_t off = 0; off + word <= size && *budget >= sizeof buf; off += sizeof buf) {
		size_t n = size - off < sizeof buf ? (size_t)(size - off) : sizeof buf;
		*budget -= sizeof buf;
		if (cst_target_read(u->env->target, addr + off, buf, n) < 0) {
			if (!file && !(file = elf_getdata(scn, NULL)))
				return;
			if (!file->d_buf || off >= file->d_size)
				return;
			n = file->d_size - off < n ? (size_t)(file->d_size - off) : n;
			memcpy(buf, (const uint8_t *)file->d_buf + off, n);
		}
		for (size_t i = (word - (addr + off) % word) % word; i + word <= n; i += word) {
			uint64_t v = cst_word(buf + i, word, big);
			if (v >= e->lo && v < e->hi && !push(&s->cands, v))
				return;
		}
	}
}

/* What the module's ELF file says: its entry point and .dynsym functions (certain), the
 * code addresses in its data sections (candidates), its executable sections. */
static void from_module(struct cst_unwind *u, const struct cst_entries *e, struct scan *s)
{
	uint64_t bias;
	Elf *elf = cst_symbols_module_elf(u->env->syms, e->lo, &bias);
	GElf_Ehdr eh;
	size_t shstrndx;
	if (!elf || !gelf_getehdr(elf, &eh))
		return;
	if (eh.e_entry && eh.e_entry + bias >= e->lo && eh.e_entry + bias < e->hi)
		push(&s->certain, eh.e_entry + bias);
	unsigned word = eh.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	bool big = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		shstrndx = 0;
	uint64_t budget = CST_ENTRIES_MAX_SEGMENT_BYTES;
	bool many = false;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *name = shstrndx ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		uint64_t a = sh.sh_addr + bias;
		if ((sh.sh_flags & SHF_ALLOC) && (sh.sh_flags & SHF_EXECINSTR) && sh.sh_type != SHT_NOBITS &&
		    a < e->hi && a + sh.sh_size > e->lo) {
			if (s->ncode < MAX_CODE_SECTIONS) {
				s->code_lo[s->ncode] = a;
				s->code_hi[s->ncode++] = a + sh.sh_size;
			} else {
				many = true;
			}
		} else if (sh.sh_type == SHT_DYNSYM) {
			Elf_Data *d = elf_getdata(scn, NULL);
			GElf_Sym sym;
			for (int i = 0; d && gelf_getsym(d, i, &sym); i++) {
				int type = GELF_ST_TYPE(sym.st_info);
				uint64_t v = sym.st_value + bias;
				if ((type == STT_FUNC || type == STT_GNU_IFUNC) && sym.st_shndx != SHN_UNDEF &&
				    v >= e->lo && v < e->hi && !push(&s->certain, v))
					break;
			}
		} else if (data_section(&sh, name)) {
			data_words(u, e, s, scn, a, sh.sh_size, word, big, &budget);
		}
	}
	if (many)
		s->ncode = 0;
}

/* Decodes the segment [e->lo, e->hi) from BUF into S. */
static void decode_all(const struct cst_entries_ops *ops, void *ctx, const struct cst_entries *e,
		       const uint8_t *buf, struct scan *s)
{
	size_t len = (size_t)(e->hi - e->lo);
	bool prev_barrier = true, pad_run = false, prev_pad = false;   /* a segment starts clean */
	uint64_t table_at = 0, table = 0;       /* the last address taken outside the segment */
	for (size_t off = 0; len - off >= ops->unit;) {
		uint64_t at = e->lo + off;
		struct cst_entry_insn in = { .ref = CST_REF_NONE };
		size_t size = is_code(s, at) ? ops->decode(ctx, buf + off, len - off, at, &in) : 0;
		if (size == 0 || size > len - off) {
			off += ops->unit;
			prev_barrier = true;          /* not code: what follows starts anew */
			pad_run = prev_pad = false;
			continue;
		}
		off += size;
		size_t bit = (size_t)(at - e->lo) / ops->unit;
		s->boundary[bit / 8] |= (uint8_t)(1u << bit % 8);
		if (!prev_barrier && !prev_pad)
			s->fallen[bit / 8] |= (uint8_t)(1u << bit % 8);
		if (!in.padding) {
			if (in.prologue && (prev_barrier || prev_pad) && !push(&s->prologues, at))
				return;
			if ((pad_run || (prev_barrier && !ops->gap_needs_padding)) && !push(&s->gaps, at))
				return;
		}
		if (in.indirect_jump && ops->indirect_jumps && !push(&s->indirect, at))
			return;
		pad_run = in.padding && (pad_run || prev_barrier);
		prev_barrier = in.barrier;
		prev_pad = in.padding;
		if (ops->offset_tables && in.register_jump && table_at && at - table_at <= CST_ENTRIES_TABLE_REACH &&
		    (!push(&s->tables, table_at) || !push(&s->tables, table)))
			return;
		if (in.ref == CST_REF_ADDR && (in.target < e->lo || in.target >= e->hi)) {
			table_at = at;
			table = in.target;
		}
		if (in.ref == CST_REF_NONE || in.target < e->lo || in.target >= e->hi ||
		    (in.target - e->lo) % ops->unit)
			continue;
		bool ok = true;
		if (in.ref == CST_REF_JUMP)
			ok = push(&s->jumps, at) && push(&s->jumps, in.target) && push(&s->jtargets, in.target);
		else
			ok = push(in.ref == CST_REF_ENTRY ? &s->certain : &s->cands, in.target);
		if (!ok)
			return;
	}
}

/* Whether A is an instruction boundary in code. */
static bool boundary_at(const struct cst_entries_ops *ops, const struct cst_entries *e, const struct scan *s,
			uint64_t a)
{
	size_t bit = (size_t)(a - e->lo) / ops->unit;
	return a >= e->lo && a < e->hi && is_code(s, a) && (s->boundary[bit / 8] >> bit % 8 & 1);
}

/* The cases of the switch tables in S->tables, as jumps from the table's load: a table's
 * offsets are read until one leads outside the segment's code or between two instructions
 * (the end of the table); a case outside the certain entries around the load (in a part of
 * the function placed elsewhere) is left out.  S->certain is sorted. */
static void table_cases(struct cst_unwind *u, const struct cst_entries_ops *ops, const struct cst_entries *e,
			struct scan *s)
{
	static const size_t sizes[] = { 4 * CST_ENTRIES_MAX_CASES, 256, 16 };
	uint8_t buf[4 * CST_ENTRIES_MAX_CASES];
	for (size_t i = 0; i + 1 < s->tables.n; i += 2) {
		uint64_t at = s->tables.v[i], table = s->tables.v[i + 1];
		size_t n = 0;
		for (size_t k = 0; k < sizeof sizes / sizeof sizes[0] && n == 0; k++)
			if (cst_target_read(u->env->target, table, buf, sizes[k]) == 0)
				n = sizes[k] / 4;
		size_t c = cst_upper_bound(s->certain.v, s->certain.n, at);
		uint64_t lo = c > 0 ? s->certain.v[c - 1] : e->lo, hi = c < s->certain.n ? s->certain.v[c] : e->hi;
		for (size_t k = 0; k < n; k++) {
			uint64_t t = table + (uint64_t)(int64_t)(int32_t)cst_word(buf + 4 * k, 4, false);
			if (!boundary_at(ops, e, s, t))
				break;
			if (t >= lo && t < hi &&
			    (!push(&s->jumps, at) || !push(&s->jumps, t) || !push(&s->jtargets, t)))
				return;
		}
	}
}

/* Keeps of V only instruction boundaries in code. */
static void keep_boundaries(const struct cst_entries_ops *ops, const struct cst_entries *e, const struct scan *s,
			    struct vec *v)
{
	size_t k = 0;
	for (size_t i = 0; i < v->n; i++)
		if (boundary_at(ops, e, s, v->v[i]))
			v->v[k++] = v->v[i];
	v->n = k;
}

/* The targets of jumps that leave the function holding them, round by round: the entries a
 * round finds are looked up only from the next round on, so that every lookup sees a
 * sorted table.  A jump to one of LANDINGS (sorted) may be a tail call too: it crosses
 * nothing. */
static void jump_rounds(const struct cst_entries_ops *ops, struct cst_entries *e, const struct scan *s,
			const struct vec *landings)
{
	struct vec found = { 0 };
	for (int round = 0; round < CST_ENTRIES_MAX_ROUNDS; round++) {
		found.n = 0;
		for (size_t i = 0; i + 1 < s->jumps.n; i += 2) {
			size_t k = func_of(e, ops, s->jumps.v[i]);
			if (k == 0)
				continue;
			uint64_t fstart = e->starts[k - 1], fend = k < e->n ? e->starts[k] : e->hi;
			uint64_t t = s->jumps.v[i + 1];
			if ((t < fstart || t >= fend) && !push(&found, t))
				break;
		}
		struct vec known = { .v = e->starts, .n = e->n, .cap = e->cap };
		drop_known(&found, &known);
		struct vec targets = { 0 };
		if (!merge(&targets, &known) || !merge(&targets, &found) || !merge(&targets, landings)) {
			free(targets.v);
			break;
		}
		drop_crossed(s, &found, &known, &targets);
		free(targets.v);
		bool ok = found.n > 0 && merge(&known, &found);
		e->starts = known.v;          /* merge may have moved it, even when it failed */
		e->n = known.n;
		e->cap = known.cap;
		if (!ok)
			break;
	}
	free(found.v);
}

/* Appends to ALL (sorted) the candidates of TAKEN (sorted: addresses taken, data words) that
 * SHAPES (sorted: prologue shapes) also holds, sorted and unique after: two sources that
 * agree, an entry that a jump crossing it does not disprove (that jump is a tail call, to a
 * function not called directly).  Returns false when out of memory. */
static bool strong(struct vec *all, const struct vec *taken, const struct vec *shapes)
{
	bool ok = true;
	for (size_t i = 0; i < taken->n && ok; i++)
		if (in_sorted(shapes->v, shapes->n, taken->v[i]))
			ok = push(all, taken->v[i]);
	sort_unique(all);
	return ok;
}

/* Appends to KEPT the candidates of CROSSED (sorted) that S->taken holds, that follow a
 * transfer (S->gaps, sorted), that no direct jump reaches, and whose function in E holds no
 * indirect jump: without one, nothing in the function goes to a label by its address, so
 * the address taken is a function's.  KEPT is sorted after.  Returns false when out of
 * memory. */
static bool taken_apart(const struct cst_entries_ops *ops, const struct cst_entries *e, const struct scan *s,
			const struct vec *crossed, struct vec *kept)
{
	bool ok = true;
	for (size_t i = 0; i < crossed->n && ok && ops->indirect_jumps; i++) {
		uint64_t c = crossed->v[i];
		if (in_sorted(kept->v, kept->n, c) || !in_sorted(s->taken.v, s->taken.n, c) ||
		    !in_sorted(s->gaps.v, s->gaps.n, c) || in_sorted(s->jtargets.v, s->jtargets.n, c))
			continue;
		size_t k = func_of(e, ops, c);
		uint64_t fstart = k ? e->starts[k - 1] : e->lo, fend = k < e->n ? e->starts[k] : e->hi;
		size_t j = cst_upper_bound(s->indirect.v, s->indirect.n, fstart - 1);
		if (k && (j == s->indirect.n || s->indirect.v[j] >= fend))
			ok = push(kept, c);
	}
	sort_unique(kept);
	return ok;
}

/* Adds to E's entries the candidates of S->cands (sorted) that no jump crosses, then the
 * targets of jumps leaving their function (jump_rounds), and again the candidates that the
 * entries found since separate from the jumps that crossed them (or taken_apart keeps),
 * until a round adds none. */
static void add_uncrossed(const struct cst_entries_ops *ops, struct cst_entries *e, const struct scan *s,
			  const struct vec *landings)
{
	struct vec rest = { 0 }, targets = { 0 }, crossed = { 0 };
	for (int round = 0; round < CST_ENTRIES_MAX_ROUNDS; round++) {
		struct vec known = { .v = e->starts, .n = e->n, .cap = e->cap };
		rest.n = targets.n = crossed.n = 0;
		if (!merge(&rest, &s->cands))
			break;
		drop_known(&rest, &known);
		if (!merge(&targets, &known) || !merge(&targets, &rest) || !merge(&crossed, &rest))
			break;
		drop_crossed(s, &rest, &known, &targets);
		if (!taken_apart(ops, e, s, &crossed, &rest))
			break;
		if (round > 0 && rest.n == 0)
			break;
		bool ok = rest.n == 0 || merge(&known, &rest);
		e->starts = known.v;  /* merge may have moved it, even when it failed */
		e->n = known.n;
		e->cap = known.cap;
		if (!ok)
			break;
		jump_rounds(ops, e, s, landings);
	}
	free(rest.v);
	free(targets.v);
	free(crossed.v);
}

/* Decodes the segment and collects its entries (entries.h). */
static void build(struct cst_unwind *u, const struct cst_entries_ops *ops, void *ctx, struct cst_entries *e)
{
	size_t len = (size_t)(e->hi - e->lo);
	uint8_t *buf = malloc(len ? len : 1);
	struct scan s = { .boundary = calloc(len / ops->unit / 8 + 1, 1), .fallen = calloc(len / ops->unit / 8 + 1, 1) };
	if (!buf || !s.boundary || !s.fallen)
		goto out;
	if (ops->segment_start && len >= ops->unit && !push(&s.certain, e->lo))
		goto out;
	from_module(u, e, &s);
	if (ops->begin && !ops->begin(ctx))
		goto out;
	for (size_t off = 0; off < len; off += READ_CHUNK) {
		size_t n = len - off < READ_CHUNK ? len - off : READ_CHUNK;
		if (cst_target_read(u->env->target, e->lo + off, buf + off, n) < 0)
			memset(buf + off, ops->fill, n);
	}
	decode_all(ops, ctx, e, buf, &s);
	if (ops->end)
		ops->end(ctx);

	/* certain entries and the candidates that are taken and prologue-shaped, then the
	 * other candidates no jump crosses */
	sort_unique(&s.certain);
	table_cases(u, ops, e, &s);
	sort_unique(&s.jtargets);
	keep_boundaries(ops, e, &s, &s.cands);
	keep_boundaries(ops, e, &s, &s.prologues);
	drop_known(&s.cands, &s.certain);
	drop_known(&s.prologues, &s.certain);
	sort_unique(&s.gaps);
	struct vec all = { 0 };
	if (!merge(&all, &s.certain) || !strong(&all, &s.cands, &s.prologues) || !merge(&s.taken, &s.cands) ||
	    !merge(&s.cands, &s.prologues))
		goto done;
	e->starts = all.v;
	e->n = all.n;
	e->cap = all.cap;
	all.v = NULL;
	/* Landings: jump targets after a barrier that nothing below them reaches or crosses and
	 * no jump from above passes.  Code there is entered only by backward jumps, as a
	 * function tail-called from a function placed after it is (a leaf tail chain laid out
	 * callee first: the chain's middle jumps back across its own entry). */
	struct vec landings = { 0 }, known0 = { .v = e->starts, .n = e->n, .cap = e->cap };
	for (size_t i = 0; i < s.gaps.n; i++)
		if (in_sorted(s.jtargets.v, s.jtargets.n, s.gaps.v[i]) && !push(&landings, s.gaps.v[i]))
			landings.n = 0;
	sort_unique(&landings);
	drop_crossed(&s, &landings, &known0, &(struct vec){ 0 });
	add_uncrossed(ops, e, &s, &landings);
	free(landings.v);

	/* code after a barrier that no jump reaches or crosses: a function of uncertain bounds */
	struct vec known = { .v = e->starts, .n = e->n, .cap = e->cap };
	drop_known(&s.gaps, &known);
	size_t k = 0;
	for (size_t i = 0; i < s.gaps.n; i++)
		if (!in_sorted(s.jtargets.v, s.jtargets.n, s.gaps.v[i]))
			s.gaps.v[k++] = s.gaps.v[i];
	s.gaps.n = k;
	drop_crossed(&s, &s.gaps, &known, &known);
	bool ok = s.gaps.n > 0 && merge(&known, &s.gaps);
	e->starts = known.v;                  /* merge may have moved it, even when it failed */
	e->n = known.n;
	e->cap = known.cap;
	if (ok) {
		e->uncertain = s.gaps.v;
		e->nuncertain = s.gaps.n;
		s.gaps.v = NULL;
	}

	/* the starts that code falls into: a function there may be a piece of the one below */
	struct vec falls = { 0 };
	for (size_t i = 0; i < e->n; i++) {
		size_t bit = (size_t)(e->starts[i] - e->lo) / ops->unit;
		if ((s.fallen[bit / 8] >> bit % 8 & 1) && !in_sorted(s.certain.v, s.certain.n, e->starts[i]) &&
		    !push(&falls, e->starts[i]))
			break;
	}
	e->falls_in = falls.v;
	e->nfalls_in = falls.n;
done:
	free(all.v);
out:
	free(s.certain.v);
	free(s.cands.v);
	free(s.prologues.v);
	free(s.taken.v);
	free(s.indirect.v);
	free(s.gaps.v);
	free(s.jumps.v);
	free(s.jtargets.v);
	free(s.tables.v);
	free(s.boundary);
	free(s.fallen);
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
	fn->uncertain = in_sorted(e->uncertain, e->nuncertain, fn->start);
	fn->module = dwfl_addrmodule(cst_symbols_dwfl(u->env->syms), addr);
	fn->falls_in = in_sorted(e->falls_in, e->nfalls_in, fn->start);
	return 0;
}

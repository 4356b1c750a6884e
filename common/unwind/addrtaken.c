/* The functions whose address a module takes.  See addrtaken.h. */
#include "addrtaken.h"
#include "memo.h"
#include "unwind.h"
#include "util.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MODULES    64                       /* modules whose sets are kept */
#define MAX_BYTES      (64u << 20)              /* code and data read per module */
#define MAX_CODE       (1u << 20)               /* code decoded per module: the C library's
						 * 1.6 MB would cost a tenth of a second */
#define CHUNK          65536
#define MAX_RESULTS    65536                    /* inferences remembered */

struct entry {
	Dwfl_Module *mod;
	struct cst_addrtaken *set;      /* NULL: not known whole */
};

struct cache {
	struct entry e[MAX_MODULES];
	int n;
	struct cst_memo *results;
};

struct builder {
	uint64_t *addr;
	size_t n, cap;
	uint64_t code_lo[8], code_hi[8];   /* the executable PT_LOAD segments, target addresses */
	int ncode;
	bool failed;
};

static bool in_code(const struct builder *b, uint64_t v)
{
	for (int i = 0; i < b->ncode; i++)
		if (v >= b->code_lo[i] && v < b->code_hi[i])
			return true;
	return false;
}

static void add(void *arg, uint64_t v)
{
	struct builder *b = arg;
	if (b->failed || !in_code(b, v))
		return;
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		uint64_t *p = realloc(b->addr, cap * sizeof *p);
		if (!p) {
			b->failed = true;
			return;
		}
		b->addr = p;
		b->cap = cap;
	}
	b->addr[b->n++] = v;
}

/* Every aligned word of [LO, HI) in the target's memory that is a code address of the
 * module.  A page that cannot be read makes the set unknown. */
static void scan_data(struct cst_unwind *u, struct builder *b, uint64_t lo, uint64_t hi)
{
	unsigned w = u->env->arch->addr_size;
	uint8_t *buf = malloc(CHUNK);
	if (!buf) {
		b->failed = true;
		return;
	}
	lo = (lo + w - 1) / w * w;
	for (uint64_t a = lo; a < hi && !b->failed; a += CHUNK) {
		size_t len = hi - a < CHUNK ? (size_t)(hi - a) / w * w : CHUNK;
		if (len == 0)
			break;
		if (cst_target_read(u->env->target, a, buf, len) < 0) {
			b->failed = true;
			break;
		}
		for (size_t i = 0; i + w <= len; i += w) {
			add(b, cst_word(buf + i, w, u->env->arch->big_endian));
		}
	}
	free(buf);
}

/* The functions MOD's .dynsym defines (exported: another module may take their address). */
static void scan_dynsym(struct builder *b, Elf *elf, uint64_t bias)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || sh.sh_entsize == 0)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = d ? d->d_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym s;
			if (gelf_getsym(d, (int)i, &s) && s.st_shndx != SHN_UNDEF &&
			    (GELF_ST_TYPE(s.st_info) == STT_FUNC || GELF_ST_TYPE(s.st_info) == STT_GNU_IFUNC))
				add(b, s.st_value + bias);
		}
	}
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, c = *(const uint64_t *)y;
	return (a > c) - (a < c);
}

static struct cst_addrtaken *build(struct cst_unwind *u, Dwfl_Module *mod)
{
	const struct cst_arch *a = u->env->arch;
	Dwarf_Addr bias;
	Elf *elf = a->code_addresses ? dwfl_module_getelf(mod, &bias) : NULL;
	size_t nph;
	if (!elf || elf_getphdrnum(elf, &nph) != 0)
		return NULL;
	struct builder b = { 0 };
	uint64_t total = 0, code = 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		total += ph.p_memsz;
		if (ph.p_flags & PF_X) {
			if (b.ncode == 8)
				return NULL;
			b.code_lo[b.ncode] = ph.p_vaddr + bias;
			b.code_hi[b.ncode++] = ph.p_vaddr + bias + ph.p_memsz;
			code += ph.p_memsz;
		}
	}
	if (total > MAX_BYTES || code > MAX_CODE || b.ncode == 0)
		return NULL;
	for (size_t i = 0; i < nph && !b.failed; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		uint64_t lo = ph.p_vaddr + bias, hi = lo + ph.p_memsz;
		if (ph.p_flags & PF_X)
			b.failed = a->code_addresses(u, lo, hi, add, &b) < 0;
		/* a writable segment that is also executable holds data too (SPARC's data
		 * segment holds the PLT) */
		if (!b.failed && (!(ph.p_flags & PF_X) || (ph.p_flags & PF_W)))
			scan_data(u, &b, lo, hi);
	}
	if (!b.failed)
		scan_dynsym(&b, elf, bias);
	struct cst_addrtaken *set = b.failed ? NULL : malloc(sizeof *set);
	if (!set) {
		free(b.addr);
		return NULL;
	}
	if (b.n > 1)         /* b.addr is NULL when nothing was collected */
		qsort(b.addr, b.n, sizeof *b.addr, cmp_u64);
	size_t n = 0;
	for (size_t i = 0; i < b.n; i++)
		if (n == 0 || b.addr[n - 1] != b.addr[i])
			b.addr[n++] = b.addr[i];
	set->addr = b.addr;
	set->n = n;
	return set;
}

const struct cst_addrtaken *cst_addrtaken_of(struct cst_unwind *u, Dwfl_Module *mod)
{
	struct cache *c = u->env->tail_cache;
	if (!c && !(c = u->env->tail_cache = calloc(1, sizeof *c)))
		return NULL;
	for (int i = 0; i < c->n; i++)
		if (c->e[i].mod == mod)
			return c->e[i].set;
	struct cst_addrtaken *set = build(u, mod);
	if (c->n < MAX_MODULES)
		c->e[c->n++] = (struct entry){ mod, set };
	else if (set) {
		free(set->addr);          /* not kept: built again when asked again */
		free(set);
		return NULL;
	}
	return set;
}

struct cst_memo *cst_addrtaken_results(struct cst_unwind *u, size_t value_size)
{
	struct cache *c = u->env->tail_cache;
	if (!c && !(c = u->env->tail_cache = calloc(1, sizeof *c)))
		return NULL;
	if (!c->results)
		c->results = cst_memo_new(value_size, MAX_RESULTS);
	return c->results;
}

bool cst_addrtaken_has(const struct cst_addrtaken *set, uint64_t addr)
{
	return set && set->n > 0 && bsearch(&addr, set->addr, set->n, sizeof addr, cmp_u64) != NULL;
}

void cst_addrtaken_cache_free(struct cst_unwind_env *env)
{
	struct cache *c = env->tail_cache;
	if (!c)
		return;
	for (int i = 0; i < c->n; i++)
		if (c->e[i].set) {
			free(c->e[i].set->addr);
			free(c->e[i].set);
		}
	cst_memo_free(c->results);
	free(c);
	env->tail_cache = NULL;
}

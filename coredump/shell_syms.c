/* The shell's symbol table: every function and object symbol of the core's modules (from
 * libdwfl's symbol tables), sorted by name, for completion and for names in address
 * expressions; and "<function+offset>" labels for addresses.  A C++ or Rust symbol is in
 * the table twice, mangled and demangled ("app::crash_null(int*)"); a demangled name is
 * also found without its parameter list ("app::crash_null"), as gdb finds it. */
#include "shell_int.h"
#include "demangle.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct collect {
	struct shell_sym *v;
	size_t n, cap;
};

/* Adds NAME (malloc'ed, taken) at ADDR.  Returns 0, or -1 when out of memory. */
static int add(struct collect *c, char *name, uint64_t addr)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 1024;
		struct shell_sym *v = realloc(c->v, cap * sizeof *v);
		if (!v) {
			free(name);
			return -1;
		}
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = (struct shell_sym){ .name = name, .addr = addr };
	return 0;
}

static int add_module(Dwfl_Module *mod, void **userdata, const char *mname, Dwarf_Addr start, void *arg)
{
	struct collect *c = arg;
	int n = dwfl_module_getsymtab(mod);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		if (!name || !*name || !addr || sym.st_shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT))
			continue;
		char *copy = strndup(name, strcspn(name, "@"));   /* "memcpy@@GLIBC_2.14" -> "memcpy" */
		if (!copy || add(c, copy, addr) < 0)
			return DWARF_CB_ABORT;
		char *readable = cst_symbols_display_name(copy);
		if (readable && add(c, readable, addr) < 0)
			return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

static int by_name(const void *a, const void *b)
{
	const struct shell_sym *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->addr > y->addr) - (x->addr < y->addr);
}

void shell_syms_load(struct shell *sh)
{
	if (sh->syms_loaded)
		return;
	sh->syms_loaded = true;
	if (!sh->syms)
		return;
	struct collect c = { 0 };
	dwfl_getmodules(cst_symbols_dwfl(sh->syms), add_module, &c, 0);
	if (c.n)
		qsort(c.v, c.n, sizeof *c.v, by_name);
	/* one entry per name: the lowest address (the executable's before a library's copy
	 * is not guaranteed; a name defined twice is rare in a process) */
	size_t k = 0;
	for (size_t i = 0; i < c.n; i++) {
		if (k && strcmp(c.v[k - 1].name, c.v[i].name) == 0) {
			free((char *)c.v[i].name);
			continue;
		}
		c.v[k++] = c.v[i];
	}
	sh->syms_tab = c.v;
	sh->nsyms = k;
}

size_t shell_sym_lower_bound(const struct shell *sh, const char *name)
{
	size_t lo = 0, hi = sh->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(sh->syms_tab[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool shell_sym_lookup(struct shell *sh, const char *name, uint64_t *addr)
{
	shell_syms_load(sh);
	size_t i = shell_sym_lower_bound(sh, name), n = strlen(name);
	if (i < sh->nsyms && strcmp(sh->syms_tab[i].name, name) == 0) {
		*addr = sh->syms_tab[i].addr;
		return true;
	}
	/* "app::run" for "app::run(int)": the first name whose parameter list starts right
	 * after NAME (overloads: the lowest in sort order, as gdb asks which one) */
	for (; i < sh->nsyms && strncmp(sh->syms_tab[i].name, name, n) == 0; i++) {
		if (sh->syms_tab[i].name[n] == '(' && cst_demangle_unparamed_len(sh->syms_tab[i].name) == n) {
			*addr = sh->syms_tab[i].addr;
			return true;
		}
	}
	return false;
}

void shell_sym_label(struct shell *sh, uint64_t addr, char *buf, size_t len)
{
	buf[0] = 0;
	if (!sh->syms)
		return;
	struct cst_location loc;
	cst_symbols_locate(sh->syms, addr, addr, &loc);
	if (!loc.function)
		return;
	if (loc.offset)
		snprintf(buf, len, "<%s+%" PRIu64 ">", loc.function, loc.offset);
	else
		snprintf(buf, len, "<%s>", loc.function);
}

void shell_syms_free(struct shell *sh)
{
	for (size_t i = 0; i < sh->nsyms; i++)
		free((char *)sh->syms_tab[i].name);
	free(sh->syms_tab);
	sh->syms_tab = NULL;
	sh->nsyms = 0;
}

/* The shell's symbol table: every function and object symbol of the core's modules (from
 * libdwfl's symbol tables), sorted by name, for completion and for names in address
 * expressions; and "<function+offset>" labels for addresses. */
#include "shell_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct collect {
	struct shell_sym *v;
	size_t n, cap;
};

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
		if (c->n == c->cap) {
			size_t cap = c->cap ? 2 * c->cap : 1024;
			struct shell_sym *v = realloc(c->v, cap * sizeof *v);
			if (!v)
				return DWARF_CB_ABORT;
			c->v = v;
			c->cap = cap;
		}
		char *copy = strndup(name, strcspn(name, "@"));   /* "memcpy@@GLIBC_2.14" -> "memcpy" */
		if (!copy)
			return DWARF_CB_ABORT;
		c->v[c->n++] = (struct shell_sym){ .name = copy, .addr = addr };
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

bool shell_sym_lookup(struct shell *sh, const char *name, uint64_t *addr)
{
	shell_syms_load(sh);
	size_t lo = 0, hi = sh->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(sh->syms_tab[mid].name, name);
		if (c == 0) {
			*addr = sh->syms_tab[mid].addr;
			return true;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
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

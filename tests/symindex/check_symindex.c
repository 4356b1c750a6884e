/* check_symindex FILE...: compares corestack's symbol index (common/symindex.c) with
 * libdwfl's own dwfl_module_addrinfo on each ELF FILE: at every eligible symbol's start, its
 * middle, its last byte and the byte before it, and at addresses spread over the symbols'
 * span.  At most MAX_PROBES addresses a file (libdwfl's lookup reads the whole table each
 * time).  Prints "FILE: N addresses, M differ" and each difference; exits 1 when any differ,
 * 2 when a file cannot be read. */
#include "symindex.h"

#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PROBES 6000

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static int differ;

static void probe(const struct cst_symindex *ix, Dwfl_Module *mod, const char *file, GElf_Addr a)
{
	GElf_Off o1 = 0, o2 = 0;
	GElf_Sym s1, s2;
	const char *n1 = cst_symindex_addrinfo(ix, mod, a, &o1, &s1);
	const char *n2 = dwfl_module_addrinfo(mod, a, &o2, &s2, NULL, NULL, NULL);
	if ((n1 == NULL) != (n2 == NULL) || (n1 && (strcmp(n1, n2) || o1 != o2))) {
		if (differ++ < 20)
			printf("%s: 0x%llx: index %s+%llu, libdwfl %s+%llu\n", file, (unsigned long long)a,
			       n1 ? n1 : "(none)", (unsigned long long)o1, n2 ? n2 : "(none)",
			       (unsigned long long)o2);
	}
}

int main(int argc, char **argv)
{
	int status = 0;
	for (int f = 1; f < argc; f++) {
		Dwfl *dwfl = dwfl_begin(&callbacks);
		Dwfl_Module *mod = dwfl ? dwfl_report_offline(dwfl, argv[f], argv[f], -1) : NULL;
		if (!mod) {
			fprintf(stderr, "%s: %s\n", argv[f], dwfl_errmsg(-1));
			status = 2;
			continue;
		}
		dwfl_report_end(dwfl, NULL, NULL);
		struct cst_symindex *ix = cst_symindex_build(mod);
		int n = dwfl_module_getsymtab(mod);
		int step = n > MAX_PROBES / 5 ? n / (MAX_PROBES / 5) : 1;
		int probes = 0, before = differ;
		GElf_Addr lo = ~0ull, hi = 0;
		for (int i = 1; i < n; i += step) {
			GElf_Sym sym;
			GElf_Addr a;
			const char *name = dwfl_module_getsym_info(mod, i, &sym, &a, NULL, NULL, NULL);
			if (!name || sym.st_shndx == SHN_UNDEF)
				continue;
			GElf_Addr at[4] = { a, a + sym.st_size / 2, a + (sym.st_size ? sym.st_size - 1 : 0), a - 1 };
			for (int k = 0; k < 4; k++, probes++)
				probe(ix, mod, argv[f], at[k]);
			if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && a < lo)
				lo = a;
			if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && a + sym.st_size > hi)
				hi = a + sym.st_size;
		}
		for (GElf_Addr a = lo; lo < hi && a < hi; a += (hi - lo) / (MAX_PROBES / 5) + 1, probes++)
			probe(ix, mod, argv[f], a);
		printf("%s: %d addresses, %d differ\n", argv[f], probes, differ - before);
		cst_symindex_free(ix);
		dwfl_end(dwfl);
	}
	return status ? status : differ ? 1 : 0;
}

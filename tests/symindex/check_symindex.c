/* check_symindex FILE...: compares corestack's symbol index (common/symindex.c) with
 * libdwfl's own dwfl_module_addrinfo on each ELF FILE: at every eligible symbol's start, its
 * middle, its last byte and the byte before it, and at addresses spread over the symbols'
 * span.  At most MAX_PROBES addresses a file (libdwfl's lookup reads the whole table each
 * time).  Prints "FILE: N addresses, M differ" and each difference; exits 1 when any differ,
 * 2 when a file cannot be read. */
#include "symindex_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PROBES 6000

static int differ;

static void probe(const struct symindex_file *f, const char *file, GElf_Addr a)
{
	struct symindex_answer x, d;
	if (!symindex_agree(f, a, &x, &d) && differ++ < 20)
		printf("%s: 0x%llx: index %s+%llu, libdwfl %s+%llu\n", file, (unsigned long long)a,
		       x.name ? x.name : "(none)", (unsigned long long)x.off, d.name ? d.name : "(none)",
		       (unsigned long long)d.off);
}

int main(int argc, char **argv)
{
	int status = 0;
	for (int i = 1; i < argc; i++) {
		const char *file = argv[i];
		struct symindex_file f;
		if (symindex_file_open(&f, file, file) < 0) {
			fprintf(stderr, "%s: %s\n", file, dwfl_errmsg(-1));
			status = 2;
			continue;
		}
		int n = dwfl_module_getsymtab(f.mod);
		int step = n > MAX_PROBES / 5 ? n / (MAX_PROBES / 5) : 1;
		int probes = 0, before = differ;
		GElf_Addr lo = ~0ull, hi = 0;
		for (int k = 1; k < n; k += step) {
			GElf_Sym sym;
			GElf_Addr a;
			const char *name = dwfl_module_getsym_info(f.mod, k, &sym, &a, NULL, NULL, NULL);
			if (!name || sym.st_shndx == SHN_UNDEF)
				continue;
			GElf_Addr at[4] = { a, a + sym.st_size / 2, a + (sym.st_size ? sym.st_size - 1 : 0), a - 1 };
			for (int j = 0; j < 4; j++, probes++)
				probe(&f, file, at[j]);
			if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && a < lo)
				lo = a;
			if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && a + sym.st_size > hi)
				hi = a + sym.st_size;
		}
		for (GElf_Addr a = lo; lo < hi && a < hi; a += (hi - lo) / (MAX_PROBES / 5) + 1, probes++)
			probe(&f, file, a);
		printf("%s: %d addresses, %d differ\n", file, probes, differ - before);
		symindex_file_close(&f);
	}
	return status ? status : differ ? 1 : 0;
}

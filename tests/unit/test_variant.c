/* CPU-variant names (common/symbols/variant.c) against the installed glibc: every function of
 * libc.so.6's and libm.so.6's full symbol tables (.symtab of their debug files, libc6-dbg,
 * found by build-id under /usr/lib/debug/.build-id) whose name carries an instruction-set
 * word (sse, ssse3, avx, evex, erms, fma, ...; a wider net than the rule's own) must be
 * recognised, and must map to a name the library exports (.dynsym); no exported name may be
 * taken for a variant.  The libraries are the ones this program runs with.  Usage:
 * test_variant [DIR] (DIR unused). */
#include "symbols.h"
#include "variant.h"
#include "unit.h"

#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <regex.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct names { char **v; size_t n; };

static void add(struct names *s, const char *name)
{
	s->v = realloc(s->v, (s->n + 1) * sizeof *s->v);
	s->v[s->n++] = strdup(name);
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool has(const struct names *s, const char *name)
{
	return bsearch(&name, s->v, s->n, sizeof *s->v, cmp) != NULL;
}

/* The defined names of symbol table TYPE (SHT_SYMTAB or SHT_DYNSYM) of file PATH, FUNC and
 * IFUNC only, versions cut; the GNU build-id into BID (hex) when BID is not NULL.  False when
 * the file cannot be read. */
static bool read_syms(const char *path, Elf64_Word type, struct names *out, char *bid)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t shstrndx;
	if (!e || elf_getshdrstrndx(e, &shstrndx) < 0) {
		close(fd);
		return false;
	}
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		if (bid && sh.sh_type == SHT_NOTE) {
			GElf_Nhdr nh;
			size_t off = 0, no, dsc;
			while ((off = gelf_getnote(d, off, &nh, &no, &dsc)) > 0)
				if (nh.n_type == NT_GNU_BUILD_ID)
					for (size_t i = 0; i < nh.n_descsz; i++)
						sprintf(bid + 2 * i, "%02x", ((unsigned char *)d->d_buf)[dsc + i]);
		}
		if (sh.sh_type != type)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			gelf_getsym(d, (int)i, &sym);
			int t = GELF_ST_TYPE(sym.st_info);
			if (sym.st_shndx == SHN_UNDEF || (t != STT_FUNC && t != STT_GNU_IFUNC))
				continue;
			char name[512];
			snprintf(name, sizeof name, "%s", elf_strptr(e, sh.sh_link, sym.st_name));
			char *at = strchr(name, '@');
			if (at)
				*at = 0;
			if (*name)
				add(out, name);
		}
	}
	elf_end(e);
	close(fd);
	qsort(out->v, out->n, sizeof *out->v, cmp);
	return true;
}

static char libc_path[4096];

static int find_libc(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *s = strrchr(info->dlpi_name, '/');
	if (s && strcmp(s, "/libc.so.6") == 0)
		snprintf(libc_path, sizeof libc_path, "%s", info->dlpi_name);
	return 0;
}

static void check_library(const char *path, const regex_t *isa)
{
	struct names dyn = { 0 }, full = { 0 };
	char bid[128] = "";
	const char *lib = strrchr(path, '/') + 1;
	if (!read_syms(path, SHT_DYNSYM, &dyn, bid) || strlen(bid) < 4) {
		printf("FAIL variant-%s: cannot read %s or its build-id\n", lib, path);
		return;
	}
	char dbg[4200];
	snprintf(dbg, sizeof dbg, "/usr/lib/debug/.build-id/%.2s/%s.debug", bid, bid + 2);
	if (!read_syms(dbg, SHT_SYMTAB, &full, NULL) || full.n == 0) {
		printf("SKIP variant-%s: no %s (libc6-dbg)\n", lib, dbg);
		return;
	}
	unsigned variants = 0;
	unit_begin("variant-%s-names-map-to-exported", lib);
	for (size_t i = 0; i < full.n; i++) {
		char base[512], called[512];
		cst_symbols_base_name(full.v[i], base, sizeof base);
		if (regexec(isa, base, 0, NULL, 0) != 0)
			continue;
		variants++;
		bool v = cst_symbols_cpu_variant(base, called, sizeof called);
		if (!unit_expect(v, "%s is not recognised as a CPU variant", full.v[i]))
			break;
		if (!unit_expect(has(&dyn, called), "%s maps to %s, which %s does not export", full.v[i],
				 called, lib))
			break;
	}
	unit_expect(variants >= 20, "only %u variant names in %s", variants, dbg);
	unit_end();
	printf("    %s: %u variant names, each the variant of an exported function\n", lib, variants);
	unit_begin("variant-%s-exported-names-kept", lib);
	for (size_t i = 0; i < dyn.n; i++) {
		char called[512];
		if (!unit_expect(!cst_symbols_cpu_variant(dyn.v[i], called, sizeof called),
				 "exported %s taken for a variant of %s", dyn.v[i], called))
			break;
	}
	unit_end();
	for (size_t i = 0; i < dyn.n; i++)
		free(dyn.v[i]);
	for (size_t i = 0; i < full.n; i++)
		free(full.v[i]);
	free(dyn.v);
	free(full.v);
}

int main(int argc, char **argv)
{
	elf_version(EV_CURRENT);
	/* any "_word" naming an instruction-set extension after the first word of the name */
	regex_t isa;
	if (regcomp(&isa, "^_*[^_].*_(sse[0-9_]*|ssse3|avx[0-9]*|evex[0-9]*|erms|fma[0-9]*)(_|$)|^__.*_generic$",
		    REG_EXTENDED | REG_NOSUB) != 0)
		return 2;
	dl_iterate_phdr(find_libc, NULL);
	if (!*libc_path) {
		printf("FAIL variant-libc: libc.so.6 is not loaded\n");
		return 1;
	}
	check_library(libc_path, &isa);
	char libm[4200];
	snprintf(libm, sizeof libm, "%.*s/libm.so.6", (int)(strrchr(libc_path, '/') - libc_path), libc_path);
	check_library(libm, &isa);

	static const struct { const char *name, *called; } cases[] = {
		{ "__strlen_evex", "strlen" }, { "__memcpy_avx_unaligned_erms", "memcpy" },
		{ "__strchr_sse2", "strchr" }, { "__strchr_sse2_no_bsf", "strchr" },
		{ "__memmove_chk_avx512_no_vzeroupper", "__memmove_chk" },
		{ "__strcasecmp_l_sse42", "strcasecmp_l" }, { "__wcsnlen_sse4_1", "wcsnlen" },
		{ "__ieee754_exp_fma", "exp" }, { "__memcmpeq_evex", "__memcmpeq" },
		{ "__GI___strlen_sse2", "strlen" },
		{ "strlen", NULL }, { "__strlen", NULL }, { "__memcpy_chk", NULL }, { "parse_avx", NULL },
		{ "__do_sse2", "do" }, { "__x_sse2_fast", NULL }, { "__avx2", NULL }, { "___avx2_x", NULL },
	};
	unit_begin("variant-rule-cases");
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char got[64] = "";
		bool v = cst_symbols_cpu_variant(cases[i].name, got, sizeof got);
		unit_expect(cases[i].called ? v && strcmp(got, cases[i].called) == 0 : !v, "%s: got %s, want %s",
			    cases[i].name, v ? got : "(not a variant)", cases[i].called ? cases[i].called : "(not a variant)");
	}
	unit_end();
	regfree(&isa);
	return unit_exit();
}

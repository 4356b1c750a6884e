/* The symbol index (common/symbols/symindex.c): the nearest-symbol rule on a hand-made
 * symbol table (symindex_syms.s, linked at 0x500000): aliases of one address (global, then
 * weak, then local), the smaller of two symbols at one address, globals searched before
 * locals, a local no global contains, zero-size labels, and addresses before the first
 * symbol, between symbols and after the last.  Each answer must also be libdwfl's own
 * (dwfl_module_addrinfo), which the index stands in for.  Usage: test_symindex DIR (where
 * symindex_syms.elf is). */
#include "symindex_file.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>

#define B 0x500000ull

/* NULL: no symbol */
static const struct { uint64_t off; const char *name; uint64_t sym_off; const char *why; } probes[] = {
	{ 0x010, "same_global", 0x10, "aliases: the global wins over weak and local" },
	{ 0x02f, "same_global", 0x10, "aliases, last byte" },
	{ 0x100, "small", 0x100, "same start: the smaller size wins" },
	{ 0x10f, "small", 0x100, "same start, last byte of the smaller" },
	{ 0x110, "big", 0x100, "past the smaller: only the bigger contains it" },
	{ 0x13f, "big", 0x100, "last byte of the bigger" },
	{ 0x244, "outer", 0x200, "a global contains it: the closer local is not searched" },
	{ 0x284, "inner_global", 0x280, "two globals contain it: the closest start" },
	{ 0x290, "outer", 0x200, "past the inner global" },
	{ 0x404, "lonely_local", 0x400, "no global contains it: the local" },
	{ 0x510, "last", 0x510, "the last sized symbol" },
};

/* The glue: the index's answer for ADDR (IX NULL: the lookup without an index). */
static const char *index_lookup(const struct cst_symindex *ix, Dwfl_Module *mod, uint64_t addr,
				GElf_Off *off)
{
	GElf_Sym sym;
	return cst_symindex_addrinfo(ix, mod, addr, off, &sym);
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* The index and libdwfl agree at ADDR; returns the index's answer. */
static const char *agree(const struct symindex_file *f, uint64_t addr)
{
	struct symindex_answer a, b;
	bool ok = symindex_agree(f, addr, &a, &b);
	unit_expect(ok, "at +0x%llx the index says %s+0x%llx, libdwfl %s+0x%llx",
		    (unsigned long long)(addr - B), a.name ? a.name : "(none)", (unsigned long long)a.off,
		    b.name ? b.name : "(none)", (unsigned long long)b.off);
	return a.name;
}

int main(int argc, char **argv)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/symindex_syms.elf", argc > 1 ? argv[1] : ".");
	struct symindex_file f;
	if (symindex_file_open(&f, "syms", path) < 0) {
		printf("FAIL symindex_unit: cannot read %s: %s\n", path, dwfl_errmsg(-1));
		return 1;
	}
	Dwfl_Module *mod = f.mod;
	const struct cst_symindex *ix = f.ix;
	unit_begin("symindex_build");
	unit_expect(ix != NULL, "no index built");
	unit_end();

	for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
		unit_begin("symindex_%s_at_%llx", probes[i].name, (unsigned long long)probes[i].off);
		uint64_t addr = B + probes[i].off;
		GElf_Off off = 0;
		const char *got = index_lookup(ix, mod, addr, &off);
		unit_expect(same(got, probes[i].name), "%s: got %s", probes[i].why, got ? got : "(none)");
		EXPECT_EQ(off, addr - (B + probes[i].sym_off), "offset");
		agree(&f, addr);
		unit_end();
	}

	/* Addresses no sized symbol contains go to libdwfl's own rule (sizeless labels): the
	 * index must give the same answer, whatever it is. */
	static const uint64_t gaps[] = { 0x000, 0x008, 0x030, 0x0ff, 0x150, 0x300, 0x3ff, 0x420,
					 0x500, 0x508, 0x520, 0x5ff };
	unit_begin("symindex_gaps_as_libdwfl");
	for (size_t i = 0; i < sizeof gaps / sizeof gaps[0]; i++)
		agree(&f, B + gaps[i]);
	unit_end();

	unit_begin("symindex_outside_module");
	GElf_Off off;
	const char *before = index_lookup(ix, mod, B - 1, &off);
	unit_expect(!before, "before the module: %s", before);
	/* far past the last function: never it (libdwfl may name a sizeless label: _end) */
	const char *after = agree(&f, B + 0x10000);
	unit_expect(!same(after, "last"), "far after the last symbol: %s", after);
	unit_end();

	/* Without an index (NULL: no symbol table, or no memory) the lookup is libdwfl's. */
	unit_begin("symindex_null_index");
	const char *n = index_lookup(NULL, mod, B + 0x284, &off);
	unit_expect(same(n, "inner_global"), "got %s", n ? n : "(none)");
	unit_end();

	symindex_file_close(&f);
	return unit_exit();
}

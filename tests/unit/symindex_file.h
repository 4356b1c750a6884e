/* A file read as a libdwfl offline module, with corestack's symbol index of it
 * (common/symbols/symindex.h), and the two nearest-symbol lookups at one address: the
 * index's (cst_symindex_addrinfo) and libdwfl's own (dwfl_module_addrinfo), which the index
 * stands in for.  Shared by tests/unit/test_symindex.c (a hand-made symbol table) and
 * tests/symindex/check_symindex.c (real programs and libraries). */
#ifndef CST_UNIT_SYMINDEX_FILE_H
#define CST_UNIT_SYMINDEX_FILE_H

#include "symindex.h"

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

struct symindex_file {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct cst_symindex *ix;     /* NULL when it could not be built */
};

/* Opens the ELF file PATH as module NAME, loaded at its link-time addresses, and builds its
 * index.  Returns 0, or -1 with libdwfl's reason in dwfl_errmsg(-1) and nothing held. */
int symindex_file_open(struct symindex_file *f, const char *name, const char *path);
void symindex_file_close(struct symindex_file *f);

/* One lookup's answer: the symbol's name (NULL: no symbol) and ADDR's offset from it in
 * bytes. */
struct symindex_answer {
	const char *name;
	GElf_Off off;
};

/* The index's answer (*IX) and libdwfl's (*DW) at target address ADDR; true when they agree:
 * both no symbol, or the same name at the same offset. */
bool symindex_agree(const struct symindex_file *f, uint64_t addr, struct symindex_answer *ix,
		    struct symindex_answer *dw);

#endif

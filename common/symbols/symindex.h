/* A module's symbol table sorted by address, for the nearest-symbol lookup.
 *
 * libdwfl's dwfl_module_addrinfo (elfutils 0.188) reads the whole symbol table on every
 * call: some 13,000 symbols for glibc with its debug file, a quarter of a millisecond a
 * lookup.  The index is built once per module from the same table (dwfl_module_getsym_info)
 * and picks among the symbols that contain the address with libdwfl's rule:
 *   - the closest start wins, then the stronger binding (global, then weak, then local),
 *     then, at the same start and binding, the smaller size, then the first in the table;
 *   - global and weak symbols are searched first (from dwfl_module_getsymtab_first_global
 *     on), local ones only when none of those contains the address.
 * Addresses no sized symbol contains (assembly labels without st_size, symbols of absolute
 * sections) are left to dwfl_module_addrinfo itself.  tests/t_symindex.sh compares the two
 * on every function start and sampled addresses of the test programs and of libc. */
#ifndef CST_SYMINDEX_H
#define CST_SYMINDEX_H

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdint.h>

struct cst_symindex;

/* Builds MOD's index.  Returns NULL when MOD has no symbol table or memory ran out (the
 * caller then asks libdwfl directly). */
struct cst_symindex *cst_symindex_build(Dwfl_Module *mod);

/* The symbol of MOD (whose index is IX, may be NULL) nearest below target address ADDR, as
 * dwfl_module_addrinfo returns it: its name (owned by libdwfl), *OFF = ADDR - its address,
 * *SYM its symbol table entry; NULL when no symbol contains ADDR. */
const char *cst_symindex_addrinfo(const struct cst_symindex *ix, Dwfl_Module *mod, uint64_t addr,
				  GElf_Off *off, GElf_Sym *sym);

void cst_symindex_free(struct cst_symindex *ix);

#endif

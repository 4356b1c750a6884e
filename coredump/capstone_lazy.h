/* The CLI's capstone, loaded (dlopen) when the first disassembler is opened rather than when
 * corestack starts.
 *
 * capstone's tables hold tens of thousands of pointers that the dynamic linker relocates in
 * every process that loads it, hundreds of pages written before main (bench/README.md has
 * the cost).  A walk decodes from its first thread on, but by then the child that reads a
 * large core's notes runs beside it (common/target/core.h), so the load overlaps the note
 * pass instead of delaying its start; and a run that decodes nothing (a usage error, a core
 * that cannot be opened) does not load it at all.
 *
 * capstone_lazy.c defines the capstone functions the project calls (cs_open, cs_close,
 * cs_option, cs_malloc, cs_free, cs_disasm_iter, cs_insn_group, cs_regs_access, cs_strerror,
 * with capstone.h's prototypes), so callers are unchanged; the corestack binary is linked
 * without -lcapstone (Makefile).  Each forwards to the library's own function, found with
 * dlsym once the library is loaded.  cs_open loads it: when it cannot be loaded (no such
 * file, a file without capstone's functions, no descriptor left), a line on standard error
 * says so once, "corestack: libcapstone.so.N: could not be loaded (WHY); ...", cs_open
 * returns CS_ERR_MEM (the walk goes on without instruction analysis, as when capstone
 * cannot open a disassembler; the exit status does not change) and cs_strerror says which
 * file could not be loaded and why.  The others do nothing and return failure
 * (CS_ERR_HANDLE, NULL, false) before a successful load: they are called only with what
 * cs_open gave.  Single-threaded, as the CLI is. */
#ifndef CST_CAPSTONE_LAZY_H
#define CST_CAPSTONE_LAZY_H
#include <capstone/capstone.h>

#endif

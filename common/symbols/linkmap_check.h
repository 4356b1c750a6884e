/* Whether a core may be handed to libdwfl's walk of its link_map.
 *
 * For a core without NT_FILE, dwfl_core_file_report finds the modules through the link_map
 * in the core's memory (dwfl_link_map_report): NT_AUXV's AT_PHDR, AT_PHNUM and AT_PHENT
 * give the program's program headers, its PT_DYNAMIC the DT_DEBUG entry.  Two of that
 * walk's early returns in elfutils 0.188 (libdwfl/link_map.c) keep the buffer its memory
 * callback read for them, so a core that leads there leaks memory each time it is opened:
 *   - AT_PHNUM times AT_PHENT overflows 64 bits;
 *   - the PT_DYNAMIC of those program headers is shorter than one dynamic entry (8 bytes of
 *     an Elf32_Dyn, 16 of an Elf64_Dyn) but not empty.
 * libdwfl reads the last "CORE" NT_AUXV note of the core, guesses its word size and byte
 * order from its contents, and takes the last value of each type: every such note and
 * every word size and byte order is checked here.  The kernel writes AT_PHNUM from the
 * program's 16-bit e_phnum: a larger one is refused too, which bounds the headers read. */
#ifndef CST_LINKMAP_CHECK_H
#define CST_LINKMAP_CHECK_H

#include <stdbool.h>
#include <stddef.h>

struct cst_core;

/* True when the link_map of core C may be walked by libdwfl; false with a one-line reason
 * in WHY (LEN bytes) when it would lead the walk into such a return.  Reads C's notes (all
 * of its PT_NOTE segments, which the caller bounds) and at most 65535 program headers of
 * C's memory. */
bool cst_linkmap_check(struct cst_core *c, char *why, size_t len);

#endif

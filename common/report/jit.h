/* JIT frames named from a perf map: code no module covers. */
#ifndef CST_JIT_H
#define CST_JIT_H

#include <stdint.h>
#include "perfmap.h"
#include "symbols.h"

/* When perf map M (NULL: none) covers lookup address LOOKUP (a target virtual address),
 * names LOC's function from it, with its offset from PC in bytes, and returns the map's
 * path (valid while M is open); else returns NULL and leaves LOC alone. */
const char *bt_jit_locate(const struct cst_perfmap *m, uint64_t lookup, uint64_t pc,
			  struct cst_location *loc);

#endif

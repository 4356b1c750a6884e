/* JIT frames named from a perf map.  See jit.h. */
#include "jit.h"

const char *bt_jit_locate(const struct cst_perfmap *m, uint64_t lookup, uint64_t pc,
			  struct cst_location *loc)
{
	uint64_t start;
	const char *name = m ? cst_perfmap_lookup(m, lookup, &start) : NULL;
	if (!name)
		return NULL;
	loc->function = name;
	loc->offset = pc - start;
	return cst_perfmap_path(m);
}

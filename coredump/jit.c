/* JIT frames named from a perf map.  See files.h. */
#include "files.h"

static const struct cst_perfmap *perfmap;

void bt_jit_use(const struct cst_perfmap *m)
{
	perfmap = m;
}

const char *bt_jit_locate(uint64_t lookup, uint64_t pc, struct cst_location *loc)
{
	uint64_t start;
	const char *name = perfmap ? cst_perfmap_lookup(perfmap, lookup, &start) : NULL;
	if (!name)
		return NULL;
	loc->function = name;
	loc->offset = pc - start;
	return cst_perfmap_path(perfmap);
}

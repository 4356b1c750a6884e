/* perf's map files for JIT code: names for code that no ELF module covers.
 *
 * A JIT (node/V8 with --perf-basic-prof, the JVM's perf-map-agent, Python 3.12 -X perf,
 * LuaJIT) appends one line per compiled function to /tmp/perf-PID.map:
 *     START SIZE NAME
 * START and SIZE in hexadecimal (with or without 0x), NAME the rest of the line (Linux
 * tools/perf/Documentation/jit-interface.txt).  When code is recompiled at an address, the
 * later line describes it. */
#ifndef CST_PERFMAP_H
#define CST_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bounds on what a map file can make us read or keep. */
#define CST_PERFMAP_MAX_BYTES   (256ull << 20) /* bytes of the file read at most */
#define CST_PERFMAP_MAX_ENTRIES 4000000        /* lines kept at most */
#define CST_PERFMAP_MAX_NAME    512            /* bytes of a name kept at most */

struct cst_perfmap;

/* Reads map file PATH.  Lines that do not parse (no START, no SIZE, size 0, an end past
 * 2^64, no name) are skipped and counted; a longer name is cut at CST_PERFMAP_MAX_NAME
 * bytes and its control characters are replaced by '?'.  With CHECK_OWNER, the file must be a regular file owned by the current user or
 * root (as perf requires of /tmp/perf-PID.map, which any user could plant).  Returns 0, or
 * -CST_E_NOENT / -CST_E_PERM / -CST_E_IO / -CST_E_NOMEM with a one-line reason in ERR.
 * Reading stops at CST_PERFMAP_MAX_BYTES or CST_PERFMAP_MAX_ENTRIES (see
 * cst_perfmap_truncated). */
int cst_perfmap_open(const char *path, bool check_owner, struct cst_perfmap **out, char *err, size_t errlen);
void cst_perfmap_close(struct cst_perfmap *m);

/* The name of the JIT function containing target address ADDR (the latest line of the
 * file that covers it), its start in *START; NULL when no line covers ADDR.  The string
 * lives until M is closed. */
const char *cst_perfmap_lookup(const struct cst_perfmap *m, uint64_t addr, uint64_t *start);

const char *cst_perfmap_path(const struct cst_perfmap *m);
size_t cst_perfmap_entries(const struct cst_perfmap *m);
size_t cst_perfmap_bad_lines(const struct cst_perfmap *m);
/* True when reading stopped at a bound before the end of the file. */
bool cst_perfmap_truncated(const struct cst_perfmap *m);

#endif

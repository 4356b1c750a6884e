/* The mappings of a live process, from /proc/PID/maps (proc(5)). */
#ifndef CST_PROCMAPS_H
#define CST_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cst_procmap {
	uint64_t start, end;     /* target virtual addresses, [start, end) */
	uint64_t offset;         /* file offset in bytes */
	unsigned dev_major, dev_minor;
	uint64_t ino;            /* 0 for memory no file backs */
	bool exec;               /* the 'x' permission */
	char *name;              /* the path or pseudo-name ("[heap]", "[anon:NAME]"), "" for none */
};

/* Reads /proc/PID/maps into *OUT (*N entries, in the file's order: by address), each name
 * malloc'd; free with cst_procmaps_free.  Returns 0, -CST_E_NOENT when the file cannot be
 * opened, -CST_E_NOMEM; a line that does not parse is skipped. */
int cst_procmaps_read(pid_t pid, struct cst_procmap **out, size_t *n);
void cst_procmaps_free(struct cst_procmap *m, size_t n);

/* Whether M is executable memory no file backs: no path, or a name given by prctl
 * (PR_SET_VMA_ANON_NAME, "[anon:NAME]"); the kernel's own "[vdso]" and "[vsyscall]" are
 * not. */
bool cst_procmap_anon_code(const struct cst_procmap *m);

#endif

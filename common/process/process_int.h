/* Internal to common/process/: the process object's fields and the helpers its opening
 * files share.  See process.h. */
#ifndef CST_PROCESS_INT_H
#define CST_PROCESS_INT_H

#include "process.h"
#include "live.h"

struct cst_process {
	const struct cst_arch *arch;
	struct cst_core *core;           /* a core file, else NULL */
	struct cst_live *live;           /* a live process we attached to, else NULL */
	pid_t pid;
	char *executable;                /* malloc'd (live), or NULL; a core's is the core's own */
	struct cst_symbols *syms;
	char syms_error[256];            /* why syms is NULL, "" when it is not */
	struct cst_perfmap *perfmap;
	struct cst_target *own_target;   /* the core's or the attached process's memory */
	struct cst_unwind_env env;
};

/* A zeroed process of architecture ARCH; NULL when out of memory. */
struct cst_process *cst_process_new(const struct cst_arch *arch);

#endif

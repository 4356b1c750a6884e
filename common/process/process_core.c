/* A process image from an ELF core file.  See process.h. */
#include "process_int.h"
#include "error.h"

#include <stdio.h>

int cst_process_open_core(struct cst_process **out, const char *path,
			  const struct cst_core_options *opt, char *err, size_t errlen)
{
	struct cst_core *core;
	*out = NULL;
	int rc = cst_core_open(path, opt, &core, err, errlen);
	if (rc < 0)
		return rc;
	struct cst_process *p = cst_process_new(cst_core_arch(core));
	if (!p) {
		cst_core_close(core);
		return cst_fail(err, errlen, -CST_E_NOMEM, "out of memory");
	}
	p->core = core;
	p->pid = cst_core_pid(core);
	p->own_target = cst_core_target(core);
	p->env.target = p->own_target;
	if (cst_symbols_open_core(&p->syms, core, p->syms_error, sizeof p->syms_error) == 0)
		p->syms_error[0] = 0;
	p->env.syms = p->syms;
	*out = p;
	return 0;
}

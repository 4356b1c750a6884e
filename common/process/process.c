/* What every process image shares: symbols, target, perf map, accessors.  See process.h. */
#include "process_int.h"
#include "error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cst_process *cst_process_new(const struct cst_arch *arch)
{
	struct cst_process *p = calloc(1, sizeof *p);
	if (p) {
		p->arch = arch;
		p->env.arch = arch;
	}
	return p;
}

int cst_process_open_external(struct cst_process **out, const struct cst_arch *arch, char *err,
			      size_t errlen)
{
	*out = cst_process_new(arch);
	return *out ? 0 : cst_fail(err, errlen, -CST_E_NOMEM, "out of memory");
}

void cst_process_close(struct cst_process *p)
{
	if (!p)
		return;
	cst_unwind_env_free(&p->env);
	cst_symbols_close(p->syms);
	cst_perfmap_close(p->perfmap);
	if (p->live)
		cst_live_detach(p->live);
	if (p->core)
		cst_core_close(p->core);
	free(p->executable);
	free(p);
}

int cst_process_report_files(struct cst_process *p, size_t n, const char *const *paths,
			     const uint64_t *biases, char *err, size_t errlen)
{
	/* the decoded functions and CFI rows cached belong to the old modules */
	cst_unwind_env_free(&p->env);
	cst_symbols_close(p->syms);
	p->syms = NULL;
	p->env.syms = NULL;
	int rc = cst_symbols_open_files(&p->syms, n, paths, biases, err, errlen);
	snprintf(p->syms_error, sizeof p->syms_error, "%s", rc < 0 ? err : "");
	p->env.syms = p->syms;
	return rc;
}

void cst_process_set_target(struct cst_process *p, struct cst_target *t)
{
	p->env.target = t ? t : p->own_target;
}

const struct cst_target *cst_process_own_target(const struct cst_process *p)
{
	return p->own_target;
}

void cst_process_set_perfmap(struct cst_process *p, struct cst_perfmap *m)
{
	cst_perfmap_close(p->perfmap);
	p->perfmap = m;
	p->env.jit = m;
}

const struct cst_arch *cst_process_arch(const struct cst_process *p) { return p->arch; }
struct cst_unwind_env *cst_process_env(struct cst_process *p) { return &p->env; }
struct cst_symbols *cst_process_symbols(const struct cst_process *p) { return p->syms; }
struct cst_core *cst_process_core(const struct cst_process *p) { return p->core; }
pid_t cst_process_pid(const struct cst_process *p) { return p->pid; }

const char *cst_process_symbols_error(const struct cst_process *p)
{
	return p->syms ? NULL : p->syms_error[0] ? p->syms_error : "no modules reported";
}

const char *cst_process_executable(const struct cst_process *p)
{
	return p->core ? cst_core_executable(p->core) : p->executable;
}

size_t cst_process_nthreads(const struct cst_process *p)
{
	return p->core ? cst_core_nthreads(p->core) : p->live ? cst_live_nthreads(p->live) : 0;
}

size_t cst_process_nskipped(const struct cst_process *p)
{
	return p->live ? cst_live_nskipped(p->live) : 0;
}

int cst_process_skipped(const struct cst_process *p, size_t i)
{
	return p->live ? cst_live_skipped(p->live, i) : 0;
}

int cst_process_thread(const struct cst_process *p, size_t i, struct cst_process_thread *t)
{
	/* a core's first thread is there before the notes read beside it (core.h) */
	if (p->core ? i != 0 && i >= cst_process_nthreads(p) : i >= cst_process_nthreads(p))
		return -CST_E_INVAL;
	if (p->core) {
		const struct cst_core_thread *c = cst_core_thread(p->core, i);
		if (!c)
			return -CST_E_INVAL;
		const struct cst_core_signal *sig = cst_core_signal(p->core);
		*t = (struct cst_process_thread){
			.tid = c->tid, .regs = &c->regs, .crashed = c->crashed,
			.cursig = c->crashed && sig->present ? sig->signo : c->cursig,
		};
	} else {
		const struct cst_live_thread *l = cst_live_thread(p->live, i);
		*t = (struct cst_process_thread){ .tid = l->tid, .regs = &l->regs };
	}
	return 0;
}

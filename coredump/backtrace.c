/* Walking and symbolizing one thread.  See backtrace.h. */
#include "backtrace.h"
#include "error.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bt_walk(struct cst_unwind_env *env, const struct cst_regs *regs, struct bt_thread *t)
{
	struct cst_unwind u;
	t->frames = NULL;
	t->n = 0;
	size_t cap = 0;
	int rc = cst_unwind_start(&u, env, regs);
	if (rc < 0) {
		t->rc = rc;
		snprintf(t->stop, sizeof t->stop, "no registers for this thread");
		return 0;
	}
	struct cst_frame f;
	while ((rc = cst_unwind_next(&u, &f)) > 0) {
		if (t->n == cap) {
			cap = cap ? 2 * cap : 32;
			struct bt_frame *p = realloc(t->frames, cap * sizeof *p);
			if (!p)
				return -CST_E_NOMEM;
			t->frames = p;
		}
		struct bt_frame *b = &t->frames[t->n++];
		b->f = f;
		cst_symbols_locate(env->syms, f.lookup_pc, f.pc, &b->loc);
	}
	t->rc = rc;
	snprintf(t->stop, sizeof t->stop, "%s", cst_unwind_stop_reason(&u));
	return 0;
}

void bt_thread_free(struct bt_thread *t)
{
	free(t->frames);
	t->frames = NULL;
	t->n = 0;
}

const char *bt_signal_name(int signo)
{
	static __thread char buf[32];
	const char *abbrev = signo > 0 && signo < 65 ? sigabbrev_np(signo) : NULL;
	if (abbrev)
		snprintf(buf, sizeof buf, "SIG%s", abbrev);
	else
		snprintf(buf, sizeof buf, "signal %d", signo);
	return buf;
}

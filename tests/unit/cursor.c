/* The glue to the unwind cursor (cursor.h). */
#include "cursor.h"

#include <stdlib.h>

int unit_caller(const struct cst_arch *a, struct cst_target *target, const struct cst_regs *regs,
		const struct cst_func *fn, struct cst_frame out[2], int *rc)
{
	struct cst_unwind_env env = { .arch = a, .target = target };
	struct cst_unwind *u = calloc(1, sizeof *u);
	int n = 0;
	*rc = -1;
	if (!u || cst_unwind_start(u, &env, regs) < 0)
		goto done;
	/* With no symbols the cursor knows no function: frame 0's is given here, as a
	 * symbol table would have given it (the cursor looks it up once per frame). */
	if (fn) {
		u->cur_fn = *fn;
		u->cur_fn_state = 1;
	}
	if (cst_unwind_next(u, &out[0]) != 1)
		goto done;
	n = 1;
	*rc = cst_unwind_next(u, &out[1]);
	if (*rc == 1)
		n = 2;
done:
	cst_unwind_env_free(&env);
	free(u);
	return n;
}

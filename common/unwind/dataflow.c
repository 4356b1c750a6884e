/* The forward data flow of dataflow.h: a worklist (a stack, each instruction queued once at
 * a time) over instruction indices. */
#include "dataflow.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

enum { REACHED = 1, QUEUED = 2 };

static unsigned char *state(const struct cst_dataflow *df, size_t i)
{
	return df->states + i * df->ops->state_size;
}

int cst_dataflow_run(struct cst_dataflow *df, const struct cst_dataflow_ops *ops, const void *code,
		     size_t n, const void *entry)
{
	size_t sz = ops->state_size;
	memset(df, 0, sizeof *df);
	df->ops = ops;
	df->code = code;
	df->n = n;
	df->flags = calloc(n ? n : 1, 1);
	df->states = malloc((n ? n : 1) * sz);
	size_t *work = malloc((n + 1) * sizeof *work);
	unsigned char *out = malloc(sz);
	if (!df->flags || !df->states || !work || !out) {
		free(work);
		free(out);
		return -CST_E_NOMEM;
	}
	size_t nwork = 0;
#define PUSH(i) do { if (!(df->flags[i] & QUEUED)) { df->flags[i] |= QUEUED; work[nwork++] = (i); } } while (0)
	if (n) {
		memcpy(state(df, 0), entry, sz);
		df->flags[0] = REACHED;
		PUSH(0);
	}
	/* table_jump: the last reached jump-table jump below `scan`, which follows `seed` */
	size_t budget = CST_DATAFLOW_VISITS_PER_INSN * (n + 1), seed = 0, scan = 0;
	ptrdiff_t table_jump = -1;
	for (;;) {
		while (nwork > 0 && budget > 0) {
			budget--;
			size_t i = work[--nwork], succ[CST_DATAFLOW_MAX_SUCC];
			df->flags[i] &= (uint8_t)~QUEUED;
			int ns = ops->step(code, i, state(df, i), out, succ);
			for (int m = 0; m < ns && m < CST_DATAFLOW_MAX_SUCC; m++) {
				size_t t = succ[m];
				if (t >= n)
					continue;
				if (df->flags[t] & REACHED) {
					if (ops->merge(state(df, t), out))
						PUSH(t);
					continue;
				}
				memcpy(state(df, t), out, sz);
				df->flags[t] |= REACHED;
				if (t < scan && (ptrdiff_t)t > table_jump && ops->table_jump(code, t))
					table_jump = (ptrdiff_t)t;
				PUSH(t);
			}
		}
		while (seed < n && (df->flags[seed] & REACHED))
			seed++;
		if (seed >= n || budget == 0)
			break;
		for (; scan < seed; scan++)
			if ((df->flags[scan] & REACHED) && ops->table_jump(code, scan))
				table_jump = (ptrdiff_t)scan;
		if (table_jump >= 0) {
			memcpy(state(df, seed), state(df, (size_t)table_jump), sz);
			if (ops->seeded)
				ops->seeded(state(df, seed));
			df->flags[seed] |= REACHED;
			PUSH(seed);
		}
		seed++;
	}
#undef PUSH
	free(work);
	free(out);
	return 0;
}

const void *cst_dataflow_at(const struct cst_dataflow *df, uint64_t pc)
{
	if (!df->flags || !df->states)
		return NULL;
	ptrdiff_t i = df->ops->index_of(df->code, pc);
	if (i < 0 || (size_t)i >= df->n || !(df->flags[i] & REACHED))
		return NULL;
	return state(df, (size_t)i);
}

void cst_dataflow_free(struct cst_dataflow *df)
{
	free(df->flags);
	free(df->states);
	df->flags = NULL;
	df->states = NULL;
}

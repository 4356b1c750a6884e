/* A forward data flow over one function's instructions, shared by the architectures'
 * instruction analyses: arch/x86_64/analysis.c (stack height, where the caller's rbp is) and
 * arch/sparc/code.c (register window, copies of the return address).
 *
 * It sits in unwind/ beside the decoded-function cache (fncache.h) because, like the cache,
 * it knows no instruction set.  An architecture decodes a function once, through the
 * target's memory, into its own array of instructions in address order (index 0 is the
 * entry; that array also serves call_before and tail_targets), and hands the engine hooks
 * that work on indices into the array: an instruction is decoded once however often the
 * flow visits it, and the states are one array beside it.
 *
 * The flow starts at the entry with the architecture's entry state and runs a worklist to a
 * fixed point.  Where paths join, the architecture's merge keeps what the states agree on
 * and makes the rest unknown, so the state at a pc holds on every path that reaches it.
 * Code no path reaches (the cases of a switch, reached through a jump table) gets the state
 * at the nearest jump-table jump before it.  A budget of CST_DATAFLOW_VISITS_PER_INSN visits
 * per instruction bounds the work on any input (a merge only loses information, so a state
 * changes a few times at most; the budget is for hooks whose states take long to settle). */
#ifndef CST_DATAFLOW_H
#define CST_DATAFLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CST_DATAFLOW_MAX_SUCC 4
#define CST_DATAFLOW_VISITS_PER_INSN 64

struct cst_dataflow_ops {
	size_t state_size;      /* bytes of the architecture's abstract state */

	/* Index of the instruction of CODE that contains target address ADDR, or -1. */
	ptrdiff_t (*index_of)(const void *code, uint64_t addr);

	/* Applies instruction I of CODE to state IN, giving OUT (the state after it), and
	 * stores in SUCC the indices of the instructions that may run next (at most
	 * CST_DATAFLOW_MAX_SUCC; indices past the function are ignored).  Returns their
	 * count.  Delay slots, annulled branches and calls that may not return are the
	 * hook's affair. */
	int (*step)(const void *code, size_t i, const void *in, void *out, size_t *succ);

	/* Joins SRC, a state arriving at an instruction, into DST, the state already there:
	 * the parts on which they disagree become unknown.  Returns true when DST changed. */
	bool (*merge)(void *dst, const void *src);

	/* True when instruction I of CODE is an indirect jump that is not a return (a jump
	 * through a table). */
	bool (*table_jump)(const void *code, size_t i);

	/* Adjusts a state copied from a jump-table jump to code no path reaches; NULL when
	 * the copy needs no change. */
	void (*seeded)(void *state);
};

/* The result of a flow: one state per instruction. */
struct cst_dataflow {
	const struct cst_dataflow_ops *ops;
	const void *code;
	size_t n;               /* instructions */
	uint8_t *flags;         /* per instruction: reached, queued */
	unsigned char *states;  /* n states of ops->state_size bytes */
};

/* Runs the flow over the N instructions of CODE from ENTRY, the state before instruction 0,
 * into DF (which the caller frees with cst_dataflow_free, also after a failure).  CODE must
 * outlive DF.  Returns 0 or -CST_E_NOMEM. */
int cst_dataflow_run(struct cst_dataflow *df, const struct cst_dataflow_ops *ops, const void *code,
		     size_t n, const void *entry);

/* The state before the instruction containing target address PC, or NULL when PC is not an
 * instruction of the function or no path (nor jump table) reaches it. */
const void *cst_dataflow_at(const struct cst_dataflow *df, uint64_t pc);

void cst_dataflow_free(struct cst_dataflow *df);

#endif

/* The glue between the unit tests and the unwind cursor: one function, so that the tests'
 * assertions (caller registers, found_by, markers) do not depend on the cursor's insides. */
#ifndef CST_UNIT_CURSOR_H
#define CST_UNIT_CURSOR_H

#include "unwind.h"

/* Walks from context REGS (frame 0) in TARGET with architecture A, frame 0 being inside
 * function FN (NULL: unknown), with no symbols, modules or CFI.  Stores frame 0 in OUT[0]
 * and its caller, when one is found, in OUT[1].  Returns the number of frames stored (1 or
 * 2); *RC gets cst_unwind_next's result for the caller (1, 0 or a negative code). */
int unit_caller(const struct cst_arch *a, struct cst_target *target, const struct cst_regs *regs,
		const struct cst_func *fn, struct cst_frame out[2], int *rc);

#endif

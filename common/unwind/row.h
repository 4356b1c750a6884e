/* A rule row: where a caller's registers are at one pc of its callee, in the terms of a row
 * of a CFI table (DWARF 5 section 6.4.1).  Every strategy that computes registers from rules
 * produces one: the CFI decoder (cfi.c, from libdw's Dwarf_Frame), the architecture's
 * instruction analysis (arch->analyse) and the frame-pointer rule (a constant row); one
 * function, cst_row_apply, computes the caller from it. */
#ifndef CST_ROW_H
#define CST_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>
#include "regs.h"

struct cst_unwind;

/* How one register of the caller is found (DWARF 5 section 6.4.1, "register rules"). */
enum cst_rule_kind {
	CST_RULE_UNDEFINED,      /* not recoverable (the zero rule) */
	CST_RULE_SAME,           /* same value as in the callee */
	CST_RULE_OFFSET,         /* saved at CFA + n */
	CST_RULE_VAL_OFFSET,     /* the value CFA + n */
	CST_RULE_REGISTER,       /* the callee's register n */
	CST_RULE_EXPR,           /* saved at the address the expression computes (CFA pushed first) */
	CST_RULE_VAL_EXPR,       /* the value the expression computes (CFA pushed first) */
};

struct cst_rule {
	uint8_t kind;            /* enum cst_rule_kind */
	uint32_t nops;           /* CST_RULE_EXPR, CST_RULE_VAL_EXPR: operations in ops */
	int64_t n;               /* bytes from the CFA, or a DWARF register number */
	const Dwarf_Op *ops;     /* the expression, owned by the CFI it came from */
};

/* Saved registers a plain row (cst_row.plain) lists: x86-64 saves at most rbx, rbp, r12-r15
 * and the return address. */
#define CST_ROW_SAVED 8

enum cst_cfa_kind {
	CST_CFA_NONE,            /* no usable CFA rule */
	CST_CFA_REG,             /* register cfa_reg + cfa_off */
	CST_CFA_EXPR,            /* the value cfa_ops computes */
};

struct cst_row {
	uint8_t cfa_kind;        /* enum cst_cfa_kind */
	int cfa_reg;             /* DWARF register number */
	int64_t cfa_off;         /* bytes */
	const Dwarf_Op *cfa_ops; /* owned by the CFI it came from */
	size_t cfa_nops;
	int ra_col;              /* the return-address column, when it is not the pc's slot (SPARC
				  * %o7: the caller resumes arch->ra_offset bytes after its value);
				  * -1 when the pc's own rule gives the return address */
	int8_t frame_record;     /* 1: the callee's frame record is set up (fp = CFA - 2 words,
				  * the caller's fp saved there), 0: it is not, -1: decided from
				  * the callee's registers when the row is applied (CFI) */
	bool indexed;            /* DEFINED, SAME, SAVED and AT_CFA are set (cst_row_index); false in a
				  * row zeroed or built field by field: every register's rule is
				  * looked at */
	bool plain;              /* set by cst_row_index: the CFA is a register (0..63) plus an
				  * offset, every rule is SAME, OFFSET or VAL_OFFSET, and at most
				  * CST_ROW_SAVED registers are saved (a frame record's row, most
				  * CFI rows): applied without the general loop */
	uint8_t nsaved;          /* a plain row's saved registers, lowest first: SAVED_REG[i] at */
	uint8_t saved_reg[CST_ROW_SAVED];  /* CFA + SAVED_OFF[i] bytes */
	int64_t saved_off[CST_ROW_SAVED];
	uint64_t defined;        /* bit r: reg[r] is not CST_RULE_UNDEFINED */
	uint64_t same;           /* bit r: reg[r] is CST_RULE_SAME (most of a row's rules: the
				  * preserved registers a function leaves alone), copied at once */
	uint64_t saved;          /* bit r: reg[r] is CST_RULE_OFFSET */
	uint64_t at_cfa;         /* bit r: reg[r] is CST_RULE_VAL_OFFSET */
	struct cst_rule reg[CST_NREGS];  /* by DWARF number; only the architecture's registers,
					  * 0..arch->nregs-1, are read (a strategy may leave the
					  * rest unset) */
};

/* How one register of a frame was recovered from the frame below it (the distinction gdb
 * keeps in frame-unwind.h: got_memory, got_register, got_optimized).  Shown by the
 * interactive shell's `info frame`. */
enum cst_reg_how {
	CST_REG_UNKNOWN,         /* not recovered, or by a strategy that does not record it */
	CST_REG_CONTEXT,         /* the thread's registers (frame 0 or a live context) */
	CST_REG_SAME,            /* the callee's value, unchanged (CFI same-value) */
	CST_REG_SAVED,           /* read from the target at where[] */
	CST_REG_CFA,             /* the callee's canonical frame address (the stack pointer) */
	CST_REG_COMPUTED,        /* computed by a CFI expression or from another register */
};

struct cst_reg_origin {
	uint8_t how[CST_NREGS];     /* enum cst_reg_how, by DWARF number */
	uint64_t where[CST_NREGS];  /* target address read, for CST_REG_SAVED */
	uint64_t callee_cfa;        /* the CFA of the frame these registers were recovered from;
				     * 0 when the strategy does not apply a row */
};

/* Computes the caller of the frame whose registers are IN with ROW (expressions see module
 * load bias BIAS for DW_OP_addr).  Fills OUT (registers the row recovers; the stack pointer
 * is the CFA less arch->stack_bias, x86-64 psABI 3.6.2 and SPARC V9's 2047), *CFA, and
 * *FRAME_RECORD (see cst_row.frame_record); records in ORIGIN, when not NULL, how each
 * register was recovered.  A register whose rule cannot be evaluated, or whose save slot
 * cannot be read, is left invalid; the return address is not: its failed read is
 * -CST_E_MEMORY.  Returns 1, 0 when the row leaves the return address undefined (the
 * outermost frame), -CST_E_MEMORY (the fault noted on U), or -CST_E_CFI when the CFA cannot
 * be computed. */
int cst_row_apply(struct cst_unwind *u, const struct cst_row *row, uint64_t bias,
		  const struct cst_regs *in, struct cst_regs *out, uint64_t *cfa,
		  bool *frame_record, struct cst_reg_origin *origin);

/* Sets ROW's DEFINED, SAME, SAVED, AT_CFA and PLAIN (with its list) from its rules for registers 0..NREGS-1 (NREGS <= 64), for a
 * row kept and applied many times: cst_row_apply then looks at those rules alone.  ROW's
 * rules must not change after. */
void cst_row_index(struct cst_row *row, int nregs);

/* Converts libdw's row FRAME into ROW: registers 0..NREGS-1 (DWARF numbers); those past
 * NREGS and those libdw cannot describe are undefined; expressions stay owned by FRAME's CFI.
 * In cfi.c. */
void cst_cfi_row(Dwarf_Frame *frame, int nregs, struct cst_row *row);

/* Evaluates the DWARF expression OPS (NOPS operations, DWARF 5 section 2.5) with the
 * registers REGS, CFA for DW_OP_call_frame_cfa (pushed first when PUSH_CFA), and BIAS added
 * to DW_OP_addr.  Stores the top of the stack in *RESULT and sets *IS_VALUE when the
 * expression gives a value rather than an address (DW_OP_stack_value, DW_OP_regN).  Returns
 * 0, -CST_E_MEMORY (the fault noted on U) or -CST_E_CFI for an operation it does not know,
 * an unknown register or a stack underflow.  In cfi.c. */
int cst_cfi_eval(struct cst_unwind *u, const Dwarf_Op *ops, size_t nops, const struct cst_regs *regs,
		 uint64_t cfa, bool push_cfa, uint64_t bias, uint64_t *result, bool *is_value);

#endif

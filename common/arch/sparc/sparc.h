/* SPARC (V9 64-bit and V8+/V8 32-bit) internals shared by arch/sparc/sparc.c (registers, cores,
 * the window step, signal frames) and arch/sparc/code.c (instruction decoding and the
 * per-function analysis).
 *
 * DWARF register numbers (SPARC psABI, "DWARF Register Number Mapping"; the same in gcc's
 * sparc.h and libdw's sparc backend): 0-7 %g0-%g7, 8-15 %o0-%o7 (14 = %sp), 16-23 %l0-%l7,
 * 24-31 %i0-%i7 (30 = %fp, 31 = %i7).  The pc has no DWARF number (libdw keeps it apart);
 * corestack keeps it in slot 32, the first one past the registers it unwinds (DWARF 32
 * would be %f0: floating-point registers are never unwound, so the slot is free).
 *
 * A register window, as the kernel flushes it before dumping (and as every save area on
 * the stack holds it): 16 words at %sp (+ 2047, the V9 stack bias, when %sp is odd):
 *
 *	%sp+bias ->	%l0 ... %l7	the window's locals
 *			%i0 ... %i7	its ins: %i6 = %fp = the caller's %sp,
 *					%i7 = the address of the call that entered it
 *
 * After `save` a function's ins are its caller's outs, so the caller's %sp is %i6 and it
 * resumes at %i7 + 8 (the call and its delay slot).  Before `save` (or in a function with
 * none, a leaf) the function still runs in its caller's window: the caller resumes at
 * %o7 + 8, as long as nothing has written %o7 since the entry. */
#ifndef CST_ARCH_SPARC_H
#define CST_ARCH_SPARC_H

#include <stdbool.h>
#include <stdint.h>
#include "arch.h"

enum {
	SPARC_G0 = 0, SPARC_G1 = 1, SPARC_O0 = 8, SPARC_SP = 14, SPARC_O7 = 15,
	SPARC_L0 = 16, SPARC_L7 = 23, SPARC_I0 = 24, SPARC_FP = 30, SPARC_I7 = 31,
	SPARC_PC = 32,
	SPARC_NREGS = 32,
};

/* V9 stack bias (SPARC Compliance Definition 2.4.1, "Stack Frame": %sp and %fp point 2047
 * bytes below the frame in 64-bit code; an odd %sp marks a biased frame). */
#define SPARC_STACK_BIAS 2047

/* Where a function's caller is, at one pc, from the analysis of its instructions. */
enum sparc_window { SW_CALLER, SW_OWN, SW_UNKNOWN };
struct sparc_at_pc {
	enum sparc_window window;  /* SW_CALLER: no `save` in effect, the caller's window is live */
	uint32_t ra_regs;          /* bit n: DWARF register n holds the address of the call that
				    * entered the function (%o7 at the entry) */
};

/* Analyses function FN (decoded with capstone, once, cached in the unwind environment) and
 * stores the state before the instruction at PC in *AT.  Returns 0, -CST_E_DECODE when PC is
 * not an instruction of FN reached from its entry, or -CST_E_NOMEM. */
int cst_sparc_at_pc(struct cst_unwind *u, const struct cst_func *fn, uint64_t pc, struct sparc_at_pc *at);

/* True when word W at ADDR is a CALL (*CALL set) or a branch that may be taken, with its
 * target in *TARGET (masked with MASK, the address size). */
bool cst_sparc_transfer(uint32_t w, uint64_t addr, uint64_t mask, bool *call, uint64_t *target);
/* Whether control never goes on past instruction word W: 1 after its delay slot (ba, ret,
 * retl, return, jmp), 2 at once (ba,a annuls its delay slot), 0 when it may (SPARC V9
 * manual, A.4 and A.24). */
int cst_sparc_barrier(uint32_t w);

/* Where the guessed function entries of stripped code are kept (in the unwind
 * environment's arch cache, for unwind/entries.h); NULL when out of memory. */
struct cst_entries;
struct cst_entries **cst_sparc_entries_slot(struct cst_unwind *u);

/* guess_func (arch.h) for SPARC: arch/sparc/entries.c. */
int cst_sparc_guess_func(struct cst_unwind *u, uint64_t addr, struct cst_func *fn);

/* Hooks of arch/sparc/code.c (see arch.h for their contracts). */
int cst_sparc_call_before(struct cst_unwind *u, const struct cst_func *fn, uint64_t ra,
			  struct cst_call_site *site);
/* The arch table's code_addresses (contract in arch.h): the addresses `sethi %hi(X), r`
 * and an `or`/`add`/`xor` of r with %lo(X) build, the medlow code model of a position-
 * dependent executable (SPARC V9 manual, Appendix G, "set"); in a shared object or PIE,
 * the GOT pointer plus each value so built (offsets from the GOT: the SPARC psABI's
 * R_SPARC_GOTDATA_HIX22/LOX10, which the linker relaxes to them), the GOT pointer from
 * gcc's set-up in the module's code (`sethi %hi(X), %l7; call T; add %l7, %lo(X), %l7`,
 * T adding %o7).  -CST_E_DECODE: an executable above 4 GiB, or PIC code that builds values
 * but sets up no GOT pointer so, or more than four (its addresses cannot be told). */
int cst_sparc_code_addresses(struct cst_unwind *u, uint64_t lo, uint64_t hi,
			     void (*add)(void *arg, uint64_t v), void *arg);
int cst_sparc_tail_targets(struct cst_unwind *u, const struct cst_func *fn, uint64_t *targets,
			   uint64_t *jumps, int max);
int cst_sparc_resolve_stub(struct cst_unwind *u, uint64_t addr, uint64_t *dest);
void cst_sparc_cache_free(void *cache);

#endif

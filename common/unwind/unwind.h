/* The unwind cursor.  The caller owns a struct cst_unwind and drives it:
 *
 *	struct cst_unwind u;
 *	struct cst_frame f;
 *	cst_unwind_start(&u, &env, &regs);
 *	while ((rc = cst_unwind_next(&u, &f)) > 0)
 *		print(&f);
 *	// rc == 0: clean end at the outermost frame; rc < 0: the walk stopped early,
 *	// cst_unwind_stop_reason(&u) says why.
 *
 * Strategies are tried in order for each caller: CFI (.eh_frame / .debug_frame), then the
 * function's own instructions (prologue/epilogue analysis), then the frame-pointer chain.
 * The strategy that finds a frame is recorded in it (found_by).  After each real caller is
 * found, the call instruction before its return address is decoded: a direct call to a
 * function other than the callee's means the target tail-called away; the functions on the
 * tail-call path are handed out as frames of their own, marked CST_MARK_LOST_TAIL_CALL.
 * The caller of an innermost frame whose function had no frame record at its pc (leaf,
 * prologue, epilogue) is marked CST_MARK_RECOVERED_CALLER: a frame-pointer walk skips it. */
#ifndef CST_UNWIND_H
#define CST_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include "arch.h"
#include "regs.h"
#include "symbols.h"
#include "target.h"

#define CST_FOUND_BY(X) \
	X(CST_FOUND_CONTEXT,   "context",           "the thread's registers") \
	X(CST_FOUND_CFI,       "cfi",               "call frame information (.eh_frame/.debug_frame)") \
	X(CST_FOUND_FP,        "frame-pointer",     "the previous frame's frame pointer") \
	X(CST_FOUND_PROLOGUE,  "prologue-analysis", "the callee's instructions: return address on the stack") \
	X(CST_FOUND_TAIL_CALL, "tail-call",         "the call instruction before the caller's return address") \
	X(CST_FOUND_WINDOW,    "register-window",   "the register window saved at the stack pointer") \
	X(CST_FOUND_RETURN_REG,"return-register",   "the return-address register of a leaf")

enum cst_found_by {
#define CST_FOUND_ENUM(e, tok, desc) e,
	CST_FOUND_BY(CST_FOUND_ENUM)
#undef CST_FOUND_ENUM
};

/* Short stable token ("cfi") and long description of a provenance. */
const char *cst_found_by_token(enum cst_found_by f);
const char *cst_found_by_description(enum cst_found_by f);

enum cst_marker { CST_MARK_NONE, CST_MARK_RECOVERED_CALLER, CST_MARK_LOST_TAIL_CALL };
/* "recovered caller", "lost tail call", or NULL for CST_MARK_NONE. */
const char *cst_marker_name(enum cst_marker m);

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
	uint64_t callee_cfa;        /* the CFA of the frame these registers were recovered from */
};

static inline void cst_origin_set(struct cst_reg_origin *o, int reg, enum cst_reg_how how, uint64_t where)
{
	if (reg >= 0 && reg < CST_NREGS) {
		o->how[reg] = (uint8_t)how;
		o->where[reg] = where;
	}
}

struct cst_frame {
	unsigned index;          /* 0 = innermost */
	uint64_t pc;             /* resume address (return address for callers) */
	uint64_t lookup_pc;      /* address for symbol and CFI lookup: pc - 1 for callers */
	uint64_t sp;             /* stack pointer in this frame; 0 when unknown */
	uint64_t cfa;            /* canonical frame address, 0 until the frame is unwound: it is
				  * found with the frame's caller, after the frame was handed out,
				  * so a handed-out frame has 0 here; see callee_cfa */
	uint64_t callee_cfa;     /* the CFA of the frame this one was unwound from (the next real
				  * frame inward), found in the same step; 0 for the innermost
				  * frame and for inserted (lost tail call) frames */
	enum cst_found_by found_by;
	enum cst_marker marker;
	bool signal_frame;       /* the frame of a signal trampoline (its caller was interrupted) */
	char note[112];          /* detail for -v: ambiguous tail-call paths and the like */
	struct cst_regs regs;     /* registers by DWARF number, valid bits set where known */
	struct cst_reg_origin origin;  /* how each register in regs was recovered */
};

/* Why a walk ended. */
enum cst_stop {
	CST_STOP_NONE,            /* still walking */
	CST_STOP_OUTERMOST,       /* clean end: outermost frame */
	CST_STOP_READ,            /* a memory read failed */
	CST_STOP_SP,              /* the stack pointer did not grow */
	CST_STOP_LIMIT,           /* the frame limit */
	CST_STOP_NO_RULE,         /* no strategy could find the caller */
};

struct cst_perfmap;

struct cst_unwind_env {
	const struct cst_arch *arch;
	struct cst_target *target;
	struct cst_symbols *syms;
	unsigned max_frames;     /* 0: the default, 1024 */
	void *arch_cache;        /* decoded functions; owned by the arch, freed by cst_unwind_env_free */
	const struct cst_perfmap *jit;   /* JIT code a perf map names (code outside modules), or NULL */
	void *cfi_cache;         /* decoded CFI rows (cfi.c), freed by cst_unwind_env_free */
};

#define CST_MAX_TAIL_DEPTH 8

struct cst_unwind {
	struct cst_unwind_env *env;
	struct cst_frame slot[2]; /* the last real frame found (slot[cur]) and the one its caller
				   * is built in: a step swaps them instead of copying */
	int cur;
	struct cst_func cur_fn;   /* cur's function, once looked up */
	int cur_fn_state;         /* 0 not looked up yet, 1 cur_fn known, -1 no function known */
	bool cur_is_context;     /* cur's registers are a full context (frame 0 or interrupted) */
	struct cst_frame queue[CST_MAX_TAIL_DEPTH + 2];
	int qhead, qlen;
	unsigned nframes;        /* frames handed out */
	bool started;
	enum cst_stop stop;
	char stop_detail[128];
	struct cst_reg_origin step_origin;  /* what cst_cfi_step recorded for the caller it computed */
};

/* Prepares a walk of the thread whose registers are REGS (DWARF numbers; pc, sp and fp of
 * ENV->arch must be valid).  Returns 0, or -CST_E_INVAL when pc or sp is missing. */
int cst_unwind_start(struct cst_unwind *u, struct cst_unwind_env *env, const struct cst_regs *regs);

/* Like cst_unwind_start, for a frame that another unwinder found: REGS are a caller's
 * registers (pc is a return address, looked up one byte back) and not a full context, so
 * its caller gets no recovered-caller marker.  Returns 0, or -CST_E_INVAL when pc or sp is
 * missing or pc is 0. */
int cst_unwind_start_caller(struct cst_unwind *u, struct cst_unwind_env *env, const struct cst_regs *regs);

/* Stores the next frame, outward, in *F.  Returns 1 with a frame, 0 at the clean end of the
 * walk (the outermost frame was the last one), or a negative code when the walk stopped
 * early (-CST_E_MEMORY: a failed read; -CST_E_LIMIT: the frame limit or a stack pointer that
 * did not grow; -CST_E_NO_FUNC: no rule found the caller).  After the end every call
 * returns the same value. */
int cst_unwind_next(struct cst_unwind *u, struct cst_frame *f);

/* One line saying why the walk ended: "outermost frame", "cannot read memory at 0x...". */
const char *cst_unwind_stop_reason(const struct cst_unwind *u);

/* Releases what ENV's architecture cached (decoded functions). */
void cst_unwind_env_free(struct cst_unwind_env *env);

/* Internal to common/: the CFI step (cfi.c).  Computes the caller of the frame whose
 * registers are IN with the CFI row FRAME (module load bias BIAS).  Fills OUT and *CFA;
 * *FP_RECORD is set when the callee's frame record is set up (fp = CFA - 2 words and the
 * caller's fp is saved there).  Returns 1, 0 when the return address is undefined
 * (outermost frame), -CST_E_MEMORY, or -CST_E_CFI for an expression it cannot evaluate.
 * How each register of OUT was recovered is recorded in U->step_origin. */
int cst_cfi_step(struct cst_unwind *u, Dwarf_Frame *frame, uint64_t bias,
		const struct cst_regs *in, struct cst_regs *out, uint64_t *cfa, bool *fp_record);

/* Internal to common/: frees ENV->cfi_cache (cfi.c). */
void cst_cfi_cache_free(struct cst_unwind_env *env);

/* Internal to common/: the function containing ADDR from symbols, CFI bounds, or the
 * architecture's guess (arch->guess_func).  Returns 0 or -CST_E_NO_FUNC. */
int cst_unwind_func(struct cst_unwind *u, uint64_t addr, struct cst_func *fn);

/* Address of the failed read, for stop reasons (set by the steps). */
void cst_unwind_note_fault(struct cst_unwind *u, uint64_t addr);

#endif

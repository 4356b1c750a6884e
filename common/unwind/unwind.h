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
 * Each architecture lists its strategies in order (its ladder, struct cst_strategy); for each
 * caller the cursor tries them top to bottom and the first that finds the caller owns it.
 * x86-64: CFI (.eh_frame / .debug_frame), the function's own instructions (prologue and
 * epilogue analysis), the frame-pointer chain.  SPARC: the return-address register of a leaf
 * (context frames), CFI, the signal frame, the register window.  The strategy that finds a
 * frame is recorded in it (found_by).  After each real caller is found, the call instruction
 * before its return address is decoded: a call to a function other than the callee's (a
 * direct call, or an indirect one whose target a DWARF call-site record, a callee-saved
 * register, a word that callee-saved registers address or a read-only slot names) means
 * the target tail-called away; the functions on the tail-call path are handed out as
 * frames of their own, marked CST_MARK_LOST_TAIL_CALL.  Behind an indirect call that
 * nothing names, the path may be inferred from the entries of the read-only table it
 * indexed (one leads to the callee, or the index register the innermost frame still
 * holds selects one), else from the functions whose address the module takes (addrtaken.h;
 * CST_FOUND_TAIL_INFERRED).  The caller of an innermost frame
 * whose function had no frame record at its pc (leaf, prologue, epilogue) is marked
 * CST_MARK_RECOVERED_CALLER: a frame-pointer walk skips it. */
#ifndef CST_UNWIND_H
#define CST_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include "arch.h"
#include "regs.h"
#include "row.h"
#include "symbols.h"
#include "target.h"

#define CST_FOUND_BY(X) \
	X(CST_FOUND_CONTEXT,   "context",           "the thread's registers") \
	X(CST_FOUND_CFI,       "cfi",               "call frame information (.eh_frame/.debug_frame)") \
	X(CST_FOUND_FP,        "frame-pointer",     "the previous frame's frame pointer") \
	X(CST_FOUND_PROLOGUE,  "prologue-analysis", "the callee's instructions: return address on the stack") \
	X(CST_FOUND_TAIL_CALL, "tail-call",         "the call instruction before the caller's return address") \
	X(CST_FOUND_TAIL_INFERRED, "tail-call-inferred", "inferred behind an indirect call: the one function it could have entered that tail-jumps to the callee") \
	X(CST_FOUND_WINDOW,    "register-window",   "the register window saved at the stack pointer") \
	X(CST_FOUND_RETURN_REG,"return-register",   "the return-address register of a leaf") \
	X(CST_FOUND_SIGNAL,    "signal-frame",      "the kernel's signal frame: the interrupted registers")

enum cst_found_by {
#define CST_FOUND_ENUM(e, tok, desc) e,
	CST_FOUND_BY(CST_FOUND_ENUM)
#undef CST_FOUND_ENUM
};

/* Whether a frame found so is one the cursor inserted (a lost tail call, a caller named by
 * the call before a return address): it has no registers of its own. */
static inline bool cst_found_inserted(enum cst_found_by f)
{
	return f == CST_FOUND_TAIL_CALL || f == CST_FOUND_TAIL_INFERRED;
}

/* Short stable token ("cfi") and long description of a provenance. */
const char *cst_found_by_token(enum cst_found_by f);
const char *cst_found_by_description(enum cst_found_by f);

enum cst_marker { CST_MARK_NONE, CST_MARK_RECOVERED_CALLER, CST_MARK_LOST_TAIL_CALL };
/* "recovered caller", "lost tail call", or NULL for CST_MARK_NONE. */
const char *cst_marker_name(enum cst_marker m);

#define CST_NOTE_SIZE 112

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
	char note[CST_NOTE_SIZE]; /* detail for -v: ambiguous tail-call paths and the like */
	struct cst_regs regs;     /* registers by DWARF number, valid bits set where known; how
				  * each was recovered: cst_unwind_explain */
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
struct cst_ra_record;

struct cst_unwind_env {
	const struct cst_arch *arch;
	struct cst_target *target;
	struct cst_symbols *syms;
	unsigned max_frames;     /* 0: the default, 1024; read when a walk starts */
	void *arch_cache;        /* decoded functions; owned by the arch, freed by cst_unwind_env_free */
	const struct cst_perfmap *jit;   /* JIT code a perf map names (code outside modules), or NULL */
	void *cfi_cache;         /* decoded CFI rows (cfi.c), freed by cst_unwind_env_free */
	void *tail_cache;        /* address-taken functions per module (addrtaken.c), freed by
				  * cst_unwind_env_free */
	void *addr_cache;        /* what the cursor found at each return address and each
				  * function lookup address (unwind.c), freed by
				  * cst_unwind_env_free; it reads the target's memory, so it
				  * belongs to one target */
};

#define CST_MAX_TAIL_DEPTH 8

/* A frame the cursor inserts between a callee and its caller (a lost tail call, or a caller
 * named by the call before a return address): it has no registers of its own. */
struct cst_inserted_frame {
	uint64_t pc;             /* the tail jump, or the called function's entry */
	uint64_t sp;             /* the callee's CFA: the inserted frame's sp and CFA */
	enum cst_found_by found_by;  /* CST_FOUND_TAIL_CALL or CST_FOUND_TAIL_INFERRED */
	enum cst_marker marker;
	char note[CST_NOTE_SIZE];
};

struct cst_unwind {
	struct cst_unwind_env *env;
	struct cst_frame slot[2]; /* the last real frame found (*cur) and the one its caller is
				   * built in: a step swaps them instead of copying */
	struct cst_frame *cur;    /* one of slot (the cursor is not copied), or the frame
				   * cst_unwind_next_kept stored last */
	struct cst_func cur_fn;   /* cur's function, once looked up */
	int cur_fn_state;         /* 0 not looked up yet, 1 cur_fn known, 2 it is cur_rec's
				   * function (not copied), -1 no function known */
	struct cst_ra_record *cur_rec;  /* what is remembered of cur's return address and lookup
					 * address (unwind.c), or NULL */
	struct cst_ra_record *plain_rec;  /* cur_rec when the next step may be a plain one (its
					   * rung's row plain, cur an ordinary caller, the walk
					   * going on with no frame waiting), else NULL */
	bool cur_is_context;     /* cur's registers are a full context (frame 0 or interrupted) */
	bool cur_pending;        /* *cur is handed out after the inserted frames */
	bool span_words;         /* cst_target_span_words of the target and its address size,
				  * found once per walk; false (every word read through the back
				  * end) in a cursor not started */
	struct cst_inserted_frame queue[CST_MAX_TAIL_DEPTH + 1];
	int qhead, qlen;
	unsigned nframes;        /* frames handed out */
	unsigned max_frames;     /* env->max_frames, or the default, when the walk started */
	bool started;
	enum cst_stop stop;
	char stop_detail[128];
};

/* ---- the strategy ladder ---------------------------------------------------------------- */

/* What a strategy reports besides the caller's frame.  The cursor sets it up once per caller
 * (fp_record true, the rest false) and each strategy tried writes what it knows. */
struct cst_step {
	struct cst_reg_origin *origin;  /* in: where a strategy that applies a rule row records
					 * how each register was recovered (cst_unwind_explain),
					 * or NULL during a walk */
	bool fp_record;          /* out: the callee's frame record (x86-64), or register window
				  * (SPARC), was set up at its pc: false makes the caller of a
				  * context frame a recovered caller */
	bool caller_skipped;     /* out: the frame found is the caller of the callee's caller,
				  * which could not be found */
	bool same_sp;            /* out: the caller shares the callee's stack pointer (it runs in
				  * the callee's register window): the stack check lets it pass */
};

/* One rung: finds the caller of F (the cursor's current frame; FN its function, NULL when
 * unknown) into C: C's registers, note, and found_by when it differs from the rung's; F->cfa
 * when the strategy knows it.  C arrives cleared with the rung's found_by.  Returns 1 with a
 * frame, 0 when F is the outermost frame, -CST_E_DECODE when the strategy does not apply
 * (the next rung is tried), or another negative code that ends the walk (-CST_E_MEMORY, the
 * fault noted on U). */
typedef int cst_strategy_fn(struct cst_unwind *u, struct cst_frame *f, const struct cst_func *fn,
			    struct cst_frame *c, struct cst_step *out);

enum cst_strategy_flags {
	CST_STRATEGY_CONTEXT = 1,        /* only for a context frame (frame 0, or interrupted) */
	CST_STRATEGY_SIGNAL = 2,         /* only for a signal frame */
	CST_STRATEGY_NOT_SIGNAL = 4,     /* not for a signal frame (the architecture reads it) */
};

struct cst_strategy {
	cst_strategy_fn *step;   /* NULL ends the ladder */
	enum cst_found_by found_by;  /* stamped on the frames it finds */
	unsigned flags;          /* enum cst_strategy_flags */
};

/* Strategies every architecture may list (their contract is cst_strategy_fn's):
 * cst_cfi_step: the CFI row at F's lookup pc (cfi.c); an expression it cannot evaluate does
 * not apply.
 * cst_analysis_step: the rule row arch->analyse finds in FN's instructions; a row with the
 * frame record set up stamps CST_FOUND_FP.
 * cst_fp_step: the frame-pointer chain: the return address at fp + 1 word, the caller's fp
 * at fp (a constant row); fp 0 is the outermost frame (_start and thread entries clear it);
 * no frame pointer ends the walk. */
cst_strategy_fn cst_cfi_step, cst_analysis_step, cst_fp_step;

/* For a strategy that found rule row ROW for F: C's registers and F->cfa from it, with
 * *FRAME_RECORD as cst_row_apply sets it.  Returns 1, -CST_E_DECODE when the row does not
 * give the caller (no return address, a CFA it cannot compute), or -CST_E_MEMORY. */
int cst_row_step(struct cst_unwind *u, const struct cst_row *row, struct cst_frame *f,
		 struct cst_frame *c, struct cst_step *out, bool *frame_record);


/* Prepares a walk of the thread whose registers are REGS (DWARF numbers; pc, sp and fp of
 * ENV->arch must be valid).  Returns 0, or -CST_E_INVAL when pc or sp is missing. */
int cst_unwind_start(struct cst_unwind *u, struct cst_unwind_env *env, const struct cst_regs *regs);

/* Like cst_unwind_start, for a frame that another unwinder found: REGS are a caller's
 * registers (pc is a return address, looked up one byte back) and not a full context, so
 * its caller gets no recovered-caller marker.  Returns 0, or -CST_E_INVAL when pc or sp is
 * missing or pc is 0. */
int cst_unwind_start_caller(struct cst_unwind *u, struct cst_unwind_env *env, const struct cst_regs *regs);

/* Copies frame FROM to TO as the walk hands frames out: the bytes of FROM's note past an
 * empty note's terminator and the values behind its invalid registers are not copied (TO's
 * stay as they were). */
void cst_frame_copy(struct cst_frame *to, const struct cst_frame *from);

/* Stores the next frame, outward, in *F.  Returns 1 with a frame, 0 at the clean end of the
 * walk (the outermost frame was the last one), or a negative code when the walk stopped
 * early (-CST_E_MEMORY: a failed read; -CST_E_LIMIT: the frame limit or a stack pointer that
 * did not grow; -CST_E_NO_FUNC: no rule found the caller).  After the end every call
 * returns the same value. */
int cst_unwind_next(struct cst_unwind *u, struct cst_frame *f);

/* Like cst_unwind_next, for a caller that keeps the frames it is given: the caller's frame
 * is built in *F itself, and the cursor goes on from it there, without a copy of its own.
 * Until the next call the caller leaves the frame stored in *F in place and unchanged (it
 * may read it), or calls cst_unwind_keep before it moves or changes it.  F may be the frame
 * the last call stored.  A walk uses this or cst_unwind_next, not both. */
int cst_unwind_next_kept(struct cst_unwind *u, struct cst_frame *f);

/* The cursor copies the frame cst_unwind_next_kept last stored, where it goes on from, into
 * a slot of its own: the caller may move or change that frame after.  Nothing to do
 * otherwise. */
void cst_unwind_keep(struct cst_unwind *u);

/* One line saying why the walk ended: "outermost frame", "cannot read memory at 0x...". */
const char *cst_unwind_stop_reason(const struct cst_unwind *u);

/* Releases what ENV's architecture cached (decoded functions). */
void cst_unwind_env_free(struct cst_unwind_env *env);

/* How each register of CALLER was recovered from CALLEE (the frame it was unwound from:
 * the previous frame handed out that is not a lost tail call), into *ORIGIN: the strategy
 * recorded in CALLER->found_by is run again on CALLEE's registers.  A context frame's
 * registers are CST_REG_CONTEXT (CALLEE is not read and may be NULL); strategies that do not
 * apply a rule row (register windows, tail calls) record nothing (CST_REG_UNKNOWN, callee_cfa
 * 0).  Reads the target's memory as the walk did.  Returns 0, or -CST_E_INVAL when CALLEE is
 * needed and NULL. */
int cst_unwind_explain(struct cst_unwind_env *env, const struct cst_frame *callee,
		       const struct cst_frame *caller, struct cst_reg_origin *origin);

/* Internal to common/: frees ENV->cfi_cache (cfi.c). */
void cst_cfi_cache_free(struct cst_unwind_env *env);

/* Internal to common/: the CFI row at PC, converted (row.h), in *ROW with the load bias of
 * its module in *BIAS; *OWNED when the caller must free it (a row that is not kept).
 * Returns 1, 0 when PC has no CFI, or -CST_E_NOMEM.  In cfi.c. */
int cst_cfi_row_at(struct cst_unwind *u, uint64_t pc, const struct cst_row **row, uint64_t *bias,
		   bool *owned);

/* Internal to common/: cst_cfi_row_at at F's lookup pc, remembered with F's return address
 * when F is U's current frame. */
int cst_unwind_cfi_row(struct cst_unwind *u, const struct cst_frame *f, const struct cst_row **row,
		       uint64_t *bias, bool *owned);

/* Internal to common/: the function containing ADDR from symbols, CFI bounds, or the
 * architecture's guess (arch->guess_func).  Returns 0 or -CST_E_NO_FUNC. */
int cst_unwind_func(struct cst_unwind *u, uint64_t addr, struct cst_func *fn);

/* Address of the failed read, for stop reasons (set by the steps). */
void cst_unwind_note_fault(struct cst_unwind *u, uint64_t addr);

#endif

/* The unwind cursor: strategies in order, termination rules, markers.  See unwind.h. */
#include "unwind.h"
#include "error.h"
#include "perfmap.h"

#include <elfutils/libdw.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#define DEFAULT_MAX_FRAMES 1024

static const char *const found_tokens[] = {
#define CST_FOUND_TOK(e, tok, desc) [e] = tok,
	CST_FOUND_BY(CST_FOUND_TOK)
#undef CST_FOUND_TOK
};
static const char *const found_descs[] = {
#define CST_FOUND_DESC(e, tok, desc) [e] = desc,
	CST_FOUND_BY(CST_FOUND_DESC)
#undef CST_FOUND_DESC
};

const char *cst_found_by_token(enum cst_found_by f) { return found_tokens[f]; }
const char *cst_found_by_description(enum cst_found_by f) { return found_descs[f]; }

const char *cst_marker_name(enum cst_marker m)
{
	return m == CST_MARK_RECOVERED_CALLER ? "recovered caller" :
	       m == CST_MARK_LOST_TAIL_CALL ? "lost tail call" : NULL;
}

void cst_unwind_note_fault(struct cst_unwind *u, uint64_t addr)
{
	snprintf(u->stop_detail, sizeof u->stop_detail, "cannot read memory at 0x%" PRIx64, addr);
}

/* Clears F as a new frame: the fields, no valid register and no register origin (the values
 * behind the valid bits are left as they are: the frame is large and a walk clears one per
 * step). */
static void frame_reset(struct cst_frame *f)
{
	memset(f, 0, offsetof(struct cst_frame, regs));
	cst_regs_clear(&f->regs);
	memset(f->origin.how, 0, sizeof f->origin.how);
	f->origin.callee_cfa = 0;
}

static struct cst_frame *cur_frame(struct cst_unwind *u)
{
	return &u->slot[u->cur];
}

int cst_unwind_start(struct cst_unwind *u, struct cst_unwind_env *env, const struct cst_regs *regs)
{
	/* field by field: the cursor's queue of frames needs no clearing */
	u->env = env;
	u->cur = 0;
	u->cur_fn_state = 0;
	u->cur_is_context = false;
	u->qhead = u->qlen = 0;
	u->nframes = 0;
	u->started = false;
	u->stop = CST_STOP_NONE;
	u->stop_detail[0] = 0;
	memset(&u->step_origin, 0, sizeof u->step_origin);
	const struct cst_arch *a = env->arch;
	struct cst_frame *f = cur_frame(u);
	frame_reset(f);
	f->regs = *regs;
	if (!cst_reg_get(regs, a->pc_reg, &f->pc) || !cst_reg_get(regs, a->sp_reg, &f->sp))
		return -CST_E_INVAL;
	f->lookup_pc = f->pc;
	f->found_by = CST_FOUND_CONTEXT;
	for (int r = 0; r < CST_NREGS; r++)
		if (cst_reg_valid(regs, r))
			cst_origin_set(&f->origin, r, CST_REG_CONTEXT, 0);
	u->cur_is_context = true;
	return 0;
}

int cst_unwind_start_caller(struct cst_unwind *u, struct cst_unwind_env *env, const struct cst_regs *regs)
{
	int rc = cst_unwind_start(u, env, regs);
	if (rc < 0)
		return rc;
	struct cst_frame *f = cur_frame(u);
	if (f->pc == 0)
		return -CST_E_INVAL;
	f->lookup_pc = f->pc - 1;
	u->cur_is_context = false;
	return 0;
}

const char *cst_unwind_stop_reason(const struct cst_unwind *u)
{
	switch (u->stop) {
	case CST_STOP_NONE:      return "not finished";
	case CST_STOP_OUTERMOST: return "outermost frame";
	case CST_STOP_LIMIT:     return u->stop_detail;
	case CST_STOP_SP:        return u->stop_detail;
	case CST_STOP_READ:      return u->stop_detail[0] ? u->stop_detail : "cannot read memory";
	case CST_STOP_NO_RULE:   return u->stop_detail;
	}
	return "?";
}

static int stop(struct cst_unwind *u, enum cst_stop why, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int stop(struct cst_unwind *u, enum cst_stop why, int code, const char *fmt, ...)
{
	u->stop = why;
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(u->stop_detail, sizeof u->stop_detail, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* The function containing ADDR: symbols, CFI bounds, or the architecture's guess for
 * stripped code without CFI. */
int cst_unwind_func(struct cst_unwind *u, uint64_t addr, struct cst_func *fn)
{
	if (!u->env->syms)
		return -CST_E_NO_FUNC;
	if (cst_symbols_func(u->env->syms, addr, fn) == 0)
		return 0;
	if (u->env->arch->guess_func && u->env->arch->guess_func(u, addr, fn) == 0)
		return 0;
	return -CST_E_NO_FUNC;
}

/* The function of the current frame: looked up once per frame, for the outermost check,
 * the instruction analysis and the tail-call check. */
static const struct cst_func *cur_func(struct cst_unwind *u)
{
	if (u->cur_fn_state == 0)
		u->cur_fn_state = cst_unwind_func(u, cur_frame(u)->lookup_pc, &u->cur_fn) == 0 ? 1 : -1;
	return u->cur_fn_state > 0 ? &u->cur_fn : NULL;
}

/* ---- finding the caller ---------------------------------------------------------- */

/* Applies a rule row (from the instruction analysis or the frame-pointer rule) to F. */
static int apply_row(struct cst_unwind *u, const struct cst_frame *f, const struct cst_row *row,
		     struct cst_frame *c)
{
	const struct cst_arch *a = u->env->arch;
	uint64_t base, ra, fp;
	if (!cst_reg_get(&f->regs, row->cfa_reg, &base))
		return -CST_E_NO_FUNC;
	uint64_t cfa = base + (uint64_t)row->cfa_off;
	if (cst_target_read_word(u->env->target, cfa + (uint64_t)row->ra_off, a->addr_size, &ra) < 0) {
		cst_unwind_note_fault(u, cfa + (uint64_t)row->ra_off);
		return -CST_E_MEMORY;
	}
	cst_regs_clear(&c->regs);
	cst_reg_set(&c->regs, a->pc_reg, ra);
	cst_origin_set(&c->origin, a->pc_reg, CST_REG_SAVED, cfa + (uint64_t)row->ra_off);
	cst_reg_set(&c->regs, a->sp_reg, cfa);
	cst_origin_set(&c->origin, a->sp_reg, CST_REG_CFA, 0);
	c->origin.callee_cfa = cfa;
	if (row->fp_rule == CST_FP_SAME && cst_reg_get(&f->regs, a->fp_reg, &fp)) {
		cst_reg_set(&c->regs, a->fp_reg, fp);
		cst_origin_set(&c->origin, a->fp_reg, CST_REG_SAME, 0);
	} else if (row->fp_rule == CST_FP_SAVED &&
		   cst_target_read_word(u->env->target, cfa + (uint64_t)row->fp_off, a->addr_size, &fp) == 0) {
		cst_reg_set(&c->regs, a->fp_reg, fp);
		cst_origin_set(&c->origin, a->fp_reg, CST_REG_SAVED, cfa + (uint64_t)row->fp_off);
	}
	c->cfa = cfa;
	return 1;
}

/* Finds the caller of F (the cursor's current frame).  Returns 1 (C filled, *FP_RECORD says whether F's frame record was
 * set up, *CALLER_SKIPPED that C is the caller of F's unknown caller), 0 at the outermost
 * frame, or a negative code. */
static int find_caller(struct cst_unwind *u, struct cst_frame *f, struct cst_frame *c, bool *fp_record,
		       bool *caller_skipped)
{
	const struct cst_arch *a = u->env->arch;
	*fp_record = true;
	*caller_skipped = false;
	frame_reset(c);

	/* 0. leaf context, from the instructions (SPARC) */
	if (a->leaf_step && u->cur_is_context) {
		bool saved = true;
		int rc = a->leaf_step(u, f, cur_func(u), c, &saved, caller_skipped);
		if (rc != -CST_E_DECODE) {
			*fp_record = saved;
			return rc;
		}
	}

	/* 1. CFI (not for a signal frame the architecture's step reads itself) */
	uint64_t bias;
	Dwarf_Frame *row = u->env->syms && !(a->step && f->signal_frame) ?
			   cst_symbols_cfi_cached(u->env->syms, f->lookup_pc, &bias) : NULL;
	if (row) {
		uint64_t cfa = 0;
		int rc = cst_cfi_step(u, row, bias, &f->regs, &c->regs, &cfa, fp_record);
		if (rc == 0)
			return 0;
		if (rc > 0) {
			f->cfa = cfa;
			c->found_by = CST_FOUND_CFI;
			c->origin = u->step_origin;
			c->origin.callee_cfa = cfa;
			return 1;
		}
		if (rc == -CST_E_MEMORY)
			return rc;
		/* an expression we cannot evaluate: try the other strategies */
	}

	/* 2. the architecture's own step (SPARC register windows) */
	if (a->step) {
		bool saved = true;
		int rc = a->step(u, f, cur_func(u), c, &saved, caller_skipped);
		*fp_record = saved;
		return rc;
	}

	/* 3. the function's instructions */
	const struct cst_func *fn = a->analyse ? cur_func(u) : NULL;
	if (fn) {
		struct cst_row r;
		if (a->analyse(u, fn, f->lookup_pc, &r) == 0) {
			int rc = apply_row(u, f, &r, c);
			if (rc > 0) {
				f->cfa = c->cfa;
				*fp_record = r.frame_record;
				c->found_by = r.frame_record ? CST_FOUND_FP : CST_FOUND_PROLOGUE;
				return 1;
			}
			if (rc == -CST_E_MEMORY)
				return rc;
		}
	}

	/* 4. the frame-pointer chain: return address at fp + 1 word, caller's fp at fp. */
	uint64_t fp;
	if (!cst_reg_get(&f->regs, a->fp_reg, &fp))
		return stop(u, CST_STOP_NO_RULE, -CST_E_NO_FUNC,
			    "no unwind rule for pc 0x%" PRIx64 " and no frame pointer", f->pc);
	if (fp == 0)
		return 0;      /* _start and thread entry clear the frame pointer */
	struct cst_row r = {
		.cfa_reg = a->fp_reg, .cfa_off = 2 * a->addr_size, .ra_off = -(int64_t)a->addr_size,
		.fp_rule = CST_FP_SAVED, .fp_off = -2 * (int64_t)a->addr_size, .frame_record = true,
	};
	int rc = apply_row(u, f, &r, c);
	if (rc > 0) {
		f->cfa = c->cfa;
		c->found_by = CST_FOUND_FP;
	}
	return rc;
}

/* ---- lost tail calls ------------------------------------------------------------- */

static bool same_function(const struct cst_func *x, const struct cst_func *y)
{
	if (x->start == y->start)
		return true;
	if (!x->name || !y->name)
		return false;
	char bx[256], by[256];
	return strcmp(cst_symbols_base_name(x->name, bx, sizeof bx),
		      cst_symbols_base_name(y->name, by, sizeof by)) == 0;
}

/* Follows linkage stubs (PLT entries) from ADDR to the function they reach. */
static uint64_t through_stubs(struct cst_unwind *u, uint64_t addr)
{
	uint64_t dest;
	for (int i = 0; i < 4 && u->env->arch->resolve_stub &&
			u->env->arch->resolve_stub(u, addr, &dest) == 1; i++)
		addr = dest;
	return addr;
}

struct path_search {
	const struct cst_func *callee;
	uint64_t path[CST_MAX_TAIL_DEPTH];     /* functions, outermost first */
	uint64_t jumps[CST_MAX_TAIL_DEPTH];    /* the tail jump inside each */
	uint64_t found[CST_MAX_TAIL_DEPTH];
	uint64_t found_jumps[CST_MAX_TAIL_DEPTH];
	int found_len;
	int paths;                            /* complete paths found, capped at 2 */
	unsigned budget;                      /* functions examined, bounded */
};

/* Depth-first search for tail-jump paths from FN_ADDR to the callee's function. */
static void search_paths(struct cst_unwind *u, struct path_search *ps, uint64_t fn_addr, int depth)
{
	if (ps->paths >= 2 || depth >= CST_MAX_TAIL_DEPTH || ps->budget-- == 0)
		return;
	struct cst_func fn;
	if (cst_unwind_func(u, fn_addr, &fn) < 0 || fn.start != fn_addr)
		return;
	for (int i = 0; i < depth; i++)
		if (ps->path[i] == fn_addr)
			return;                       /* a loop of tail calls */
	ps->path[depth] = fn_addr;
	uint64_t targets[CST_MAX_TAIL_TARGETS], jumps[CST_MAX_TAIL_TARGETS];
	int n = u->env->arch->tail_targets ? u->env->arch->tail_targets(u, &fn, targets, jumps,
									  CST_MAX_TAIL_TARGETS) : 0;
	for (int i = 0; i < n && ps->paths < 2; i++) {
		uint64_t t = through_stubs(u, targets[i]);
		ps->jumps[depth] = jumps[i];
		struct cst_func tf;
		if (cst_unwind_func(u, t, &tf) == 0 && same_function(&tf, ps->callee)) {
			if (ps->paths++ == 0) {
				memcpy(ps->found, ps->path, sizeof ps->path);
				memcpy(ps->found_jumps, ps->jumps, sizeof ps->jumps);
				ps->found_len = depth + 1;
			}
			continue;
		}
		search_paths(u, ps, t, depth + 1);
	}
}

static void queue_push(struct cst_unwind *u, const struct cst_frame *f)
{
	int n = (int)(sizeof u->queue / sizeof u->queue[0]);
	if (u->qlen < n)
		u->queue[(u->qhead + u->qlen++) % n] = *f;
}

/* Queues the frames of the functions that tail-called away between callee F (function
 * CALLEE) and caller C (function CALLER, NULL when unknown). */
static void find_lost_tail_calls(struct cst_unwind *u, const struct cst_frame *f, const struct cst_func *callee,
				 const struct cst_frame *c, const struct cst_func *caller, bool skipped)
{
	const struct cst_arch *a = u->env->arch;
	if (!u->env->syms || !a->call_before || c->signal_frame || f->signal_frame || !callee)
		return;
	struct cst_call_site site;
	if (a->call_before(u, caller, c->pc, &site) < 0 || !site.direct)
		return;
	uint64_t t = through_stubs(u, site.target);
	struct cst_func tf;
	if (cst_unwind_func(u, t, &tf) < 0 || same_function(&tf, callee))
		return;
	if (tf.start != t)
		return;                                   /* not a function entry: not a call we know */

	struct path_search ps = { .callee = callee, .budget = 256 };
	search_paths(u, &ps, t, 0);
	struct cst_frame s;
	frame_reset(&s);
	s.found_by = CST_FOUND_TAIL_CALL;
	s.marker = CST_MARK_LOST_TAIL_CALL;
	s.sp = f->cfa;
	s.cfa = f->cfa;
	if (ps.paths == 1) {
		/* innermost first: the last function on the path jumped to the callee */
		for (int i = ps.found_len - 1; i >= 0; i--) {
			s.pc = s.lookup_pc = ps.found_jumps[i];
			if (i == 0)
				snprintf(s.note, sizeof s.note, "called at 0x%" PRIx64 ", left by a tail jump",
					 site.addr);
			else
				snprintf(s.note, sizeof s.note, "reached and left by tail jumps");
			queue_push(u, &s);
		}
	} else if (skipped && ps.paths == 0) {
		/* F's caller was not found (leaf context, return register overwritten): the
		 * function C called is that caller (DTrace ustack() discussion, case 3). */
		s.pc = s.lookup_pc = t;
		s.marker = CST_MARK_RECOVERED_CALLER;
		snprintf(s.note, sizeof s.note, "called at 0x%" PRIx64 "; the callee's own return address was lost",
			 site.addr);
		queue_push(u, &s);
	} else {
		s.pc = s.lookup_pc = t;
		snprintf(s.note, sizeof s.note, ps.paths > 1 ?
			 "called at 0x%" PRIx64 "; several tail-call paths lead on, only this one is certain" :
			 "called at 0x%" PRIx64 "; the tail-call path from it is not known", site.addr);
		queue_push(u, &s);
	}
}

/* Functions that begin a thread's stack: the walk ends cleanly after them even when their
 * CFI does not say so (glibc: sysdeps/x86_64/start.S, clone.S, clone3.S). */
static bool outermost_function(struct cst_unwind *u)
{
	static const char *const names[] = { "_start", "__clone", "clone", "__clone3", "clone3",
					     "_dl_start_user", NULL };
	const struct cst_func *fn = cur_func(u);
	if (!fn || !fn->name)
		return false;
	char base[256];
	cst_symbols_base_name(fn->name, base, sizeof base);
	for (int i = 0; names[i]; i++)
		if (strcmp(base, names[i]) == 0)
			return true;
	return false;
}

/* ---- the step ---------------------------------------------------------------------- */

static int finish(struct cst_unwind *u)
{
	return u->stop == CST_STOP_OUTERMOST ? 0 :
	       u->stop == CST_STOP_READ ? -CST_E_MEMORY :
	       u->stop == CST_STOP_NO_RULE ? -CST_E_NO_FUNC : -CST_E_LIMIT;
}

/* Hands frame F out as the walk's next frame: copied to OUT, numbered.  Returns 1. */
static int emit(struct cst_unwind *u, const struct cst_frame *f, struct cst_frame *out)
{
	*out = *f;
	out->index = u->nframes++;
	return 1;
}

/* Hands out the first queued frame. */
static int hand_out(struct cst_unwind *u, struct cst_frame *out)
{
	int n = (int)(sizeof u->queue / sizeof u->queue[0]);
	int k = u->qhead;
	u->qhead = (u->qhead + 1) % n;
	u->qlen--;
	return emit(u, &u->queue[k], out);
}

int cst_unwind_next(struct cst_unwind *u, struct cst_frame *out)
{
	const struct cst_arch *a = u->env->arch;
	unsigned max = u->env->max_frames ? u->env->max_frames : DEFAULT_MAX_FRAMES;
	if (u->qlen > 0)
		return hand_out(u, out);
	if (u->stop != CST_STOP_NONE)
		return finish(u);
	if (!u->started) {
		u->started = true;
		return emit(u, cur_frame(u), out);
	}
	if (u->nframes >= max)
		return stop(u, CST_STOP_LIMIT, -CST_E_LIMIT, "frame limit (%u) reached", max);

	struct cst_frame *f = cur_frame(u), *c = &u->slot[!u->cur];
	bool fp_record, skipped;
	u->stop_detail[0] = 0;
	if (outermost_function(u))
		return stop(u, CST_STOP_OUTERMOST, 0, NULL);
	int rc = find_caller(u, f, c, &fp_record, &skipped);
	if (rc == 0)
		return stop(u, CST_STOP_OUTERMOST, 0, NULL);
	if (rc < 0) {
		if (u->stop != CST_STOP_NONE)
			return finish(u);
		if (rc == -CST_E_MEMORY)
			return stop(u, CST_STOP_READ, rc, NULL);
		return stop(u, CST_STOP_NO_RULE, rc, "no unwind rule for pc 0x%" PRIx64, f->pc);
	}
	cst_reg_get(&c->regs, a->pc_reg, &c->pc);
	cst_reg_get(&c->regs, a->sp_reg, &c->sp);
	/* The stack check comes first: a zero return address read from a frame below the
	 * callee's is garbage, not the outermost frame.  A caller in the same register window
	 * (SPARC leaf context) keeps the callee's %sp. */
	bool same_window = a->register_windows && u->cur_is_context && !fp_record && c->sp == f->sp;
	if (c->sp <= f->sp && !f->signal_frame && !same_window)
		return stop(u, CST_STOP_SP, -CST_E_LIMIT,
			    "stack pointer did not grow (0x%" PRIx64 " after 0x%" PRIx64 ")", c->sp, f->sp);
	if (c->pc == 0)
		return stop(u, CST_STOP_OUTERMOST, 0, NULL);
	if (u->env->syms && !cst_symbols_in_module(u->env->syms, c->pc) &&
	    !(u->env->jit && cst_perfmap_lookup(u->env->jit, c->pc - 1, NULL)))
		return stop(u, CST_STOP_NO_RULE, -CST_E_NO_FUNC,
			    "return address 0x%" PRIx64 " is outside every module", c->pc);

	/* A caller's return address may be the first byte of the next function: look it up one
	 * byte back, unless the frame below is a signal trampoline (the pc is exact). */
	c->lookup_pc = f->signal_frame ? c->pc : a->ra_offset ? c->pc - a->ra_offset : c->pc - 1;
	if (a->signal_frame && a->signal_frame(u, c->pc)) {
		c->signal_frame = true;
		c->lookup_pc = c->pc;
	}
	uint64_t bias;
	Dwarf_Frame *crow = u->env->syms ? cst_symbols_cfi_cached(u->env->syms, c->pc, &bias) : NULL;
	if (crow) {
		Dwarf_Addr s, e;
		bool sig = false;
		dwarf_frame_info(crow, &s, &e, &sig);
		if (sig) {
			c->signal_frame = true;
			c->lookup_pc = c->pc;
		}
	}
	if (u->cur_is_context && !fp_record)
		c->marker = CST_MARK_RECOVERED_CALLER;
	/* the callee's CFA is known now; the caller's own only when its caller is found */
	c->callee_cfa = f->cfa;
	c->cfa = 0;
	struct cst_func caller;
	int caller_state = cst_unwind_func(u, c->lookup_pc, &caller) == 0 ? 1 : -1;
	find_lost_tail_calls(u, f, cur_func(u), c, caller_state > 0 ? &caller : NULL, skipped);
	bool interrupted = f->signal_frame;
	u->cur = !u->cur;              /* C is the current frame now */
	u->cur_fn = caller;
	u->cur_fn_state = caller_state;
	u->cur_is_context = interrupted;
	if (u->qlen == 0)
		return emit(u, c, out);
	queue_push(u, c);
	return hand_out(u, out);
}

void cst_unwind_env_free(struct cst_unwind_env *env)
{
	if (env->arch && env->arch->cache_free && env->arch_cache)
		env->arch->cache_free(env->arch_cache);
	env->arch_cache = NULL;
	cst_cfi_cache_free(env);
}

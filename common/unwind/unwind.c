/* The unwind cursor: the architecture's strategy ladder, termination rules, markers.  See
 * unwind.h. */
#include "unwind.h"
#include "addrtaken.h"
#include "callsite.h"
#include "error.h"
#include "memo.h"
#include "perfmap.h"
#include "row_plain.h"

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

/* Copies FROM's fields before its note, and the note's first bytes, to TO, or clears them
 * when FROM is NULL (which empties TO's note): four 16-byte moves written out, where the compiler
 * may make a memcpy or memset of those bytes a string instruction, by the code around it.  The rest of
 * TO's note is left as it is. */
static inline void frame_head(struct cst_frame *to, const struct cst_frame *from)
{
	_Static_assert(offsetof(struct cst_frame, note) <= 4 * sizeof(cst_pair16) &&
		       offsetof(struct cst_frame, note) + CST_NOTE_SIZE >= 4 * sizeof(cst_pair16),
		       "the fields before the note end in the note's first 16-byte move");
	cst_pair16 *t = (cst_pair16 *)to;
	if (!from) {
		const cst_pair16 z = { 0, 0 };
		t[0] = z; t[1] = z; t[2] = z; t[3] = z;
		return;
	}
	const cst_pair16 *f = (const cst_pair16 *)from;
	cst_pair16 a = f[0], b = f[1], c = f[2], d = f[3];
	t[0] = a; t[1] = b; t[2] = c; t[3] = d;
}

/* Clears F as a new frame: the fields, an empty note and no valid register (the note's
 * bytes past its end and the values behind the valid bits are left as they are: a walk
 * clears one frame per step). */
static void frame_reset(struct cst_frame *f)
{
	frame_head(f, NULL);
	cst_regs_clear(&f->regs);
}

static struct cst_frame *cur_frame(struct cst_unwind *u)
{
	return u->cur;
}

/* The slot the current frame's caller is built in: the other one, or the first when the
 * current frame is the caller's (cst_unwind_next_kept). */
static inline struct cst_frame *next_frame(struct cst_unwind *u)
{
	return u->cur == &u->slot[0] ? &u->slot[1] : &u->slot[0];
}

static inline const struct cst_func *cur_func(struct cst_unwind *u);

static struct cst_ra_record *context_record(struct cst_unwind *u, uint64_t pc);

int cst_unwind_start(struct cst_unwind *u, struct cst_unwind_env *env, const struct cst_regs *regs)
{
	/* field by field: the cursor's queue of frames needs no clearing */
	u->env = env;
	u->cur = &u->slot[0];
	u->cur_fn_state = 0;
	u->cur_rec = NULL;
	u->plain_rec = NULL;
	u->cur_is_context = false;
	u->cur_pending = false;
	u->span_words = env->target && cst_target_span_words(env->target, env->arch->addr_size);
	u->qhead = u->qlen = 0;
	u->nframes = 0;
	u->max_frames = env->max_frames ? env->max_frames : DEFAULT_MAX_FRAMES;
	u->started = false;
	u->stop = CST_STOP_NONE;
	u->stop_detail[0] = 0;
	const struct cst_arch *a = env->arch;
	struct cst_frame *f = cur_frame(u);
	frame_reset(f);
	cst_regs_copy(&f->regs, regs);
	if (!cst_reg_get(regs, a->pc_reg, &f->pc) || !cst_reg_get(regs, a->sp_reg, &f->sp))
		return -CST_E_INVAL;
	f->lookup_pc = f->pc;
	f->found_by = CST_FOUND_CONTEXT;
	u->cur_is_context = true;
	u->cur_rec = context_record(u, f->pc);
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
	u->cur_rec = NULL;
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

/* ---- what is known of an address, remembered ------------------------------------- */

/* The threads of a core share most of their return addresses, and what the cursor asks of
 * a return address or of a frame's function depends on the address alone (the code there,
 * the modules, the CFI): each is found once per address and kept in env->addr_cache,
 * bounded (memo.h): a core's threads stop at a few thousand distinct addresses, a hostile
 * core's at as many as it likes, and past the bound an address is asked again each time. */
#define MAX_ADDR_FACTS (64 * 1024)

/* Records of threads' innermost frames kept at most (a few hundred bytes each): the threads of
 * a process stop at a few pcs (its waits in the C library, a crash), and the records serve
 * the threads that share one; a hostile core whose every thread stops somewhere else gets
 * its innermost frames looked up address by address past this bound. */
#define MAX_CONTEXT_RECORDS (4 * 1024)

struct addr_cache {
	struct cst_memo *ras;    /* struct cst_ra_record * by return address */
	struct cst_memo *ctx;    /* struct cst_ra_record * by the pc of a thread's innermost
				  * frame (its lookup address: RA_FACTS unused), at most
				  * MAX_CONTEXT_RECORDS */
	struct ra_block *blocks; /* where the records are, newest first */
	struct cst_memo *fn;     /* struct fn_facts by function lookup address, for frames
				  * looked up at an exact pc (frame 0, a signal's callers) */
	struct cst_memo *records;  /* struct record_facts by return address */
	struct cst_memo *rows;   /* struct analysed by lookup address */
	struct cst_memo *targets;  /* struct target_facts by the entry a call target resolves to */
};

struct ra_facts {
	bool known;              /* known_code(pc, pc - 1) */
	bool signal_frame;       /* the architecture's signal_frame: a signal restorer's code */
	bool cfi_signal;         /* the CFI row of the pc is marked as a signal frame's */
};

struct record_facts {
	bool found;              /* the return address has a DWARF call-site record naming
				  * the function called (callsite.h) */
	struct cst_call_target ct;
};

/* The rule row arch->analyse found at a lookup address, in its function (the rules of the
 * architecture's registers only, row.h), or NULL: no answer there. */
struct analysed {
	uint64_t fn_start;
	struct cst_row *row;
};

/* Rows of the instruction analysis kept at most (each a few hundred bytes to 1 KiB). */
#define MAX_ANALYSED_ROWS (16 * 1024)

struct target_facts {
	uint64_t entry;          /* the target followed through linkage stubs (through_stubs) */
	bool found;              /* FN is the function at ENTRY (cst_unwind_func) */
	struct cst_func fn;
};

struct fn_facts {
	bool outermost;          /* one of arch->outermost */
	bool stack_switch;       /* one of arch->stack_switches: ends a walk that reached it
				  * by a return address */
	bool fault_callee;       /* one of arch->fault_callees */
};

/* Callers remembered per record: a function called through a pointer from a few places. */
#define RA_CALLERS 4

struct caller_link {
	uint64_t ra;             /* REC's return address (0: no link yet), compared without
				  * reading REC */
	struct cst_ra_record *rec;   /* the caller's record, NULL: none yet */
	bool plain;              /* the step from a frame at the record that holds the link to
				  * a caller at REC (its lookup address REC's) needs nothing but
				  * the caller's registers: what the rest of it decides, the two
				  * records decided before */
};

/* What the cursor learns of one return address RA and of the function around its lookup
 * address (RA less one byte, or arch->ra_offset bytes: a caller's), all of which depends
 * on those addresses alone: a step asks for its caller's record once and finds there what
 * it would otherwise look up address by address.  Each part is filled the first time it is
 * asked for, as the lookups it replaces would have run. */
struct cst_ra_record {
	uint64_t ra, lookup;
	struct ra_facts ra_facts;        /* of RA */
	int8_t fn_state;         /* 0 not looked up, 1 FN is the function at LOOKUP, -1 none */
	int8_t cfi_state;        /* 0 not looked up (or a row that is not kept), 1 CFI_ROW is the
				  * CFI row at LOOKUP, -1 none there */
	int8_t call_state;       /* 0 not decoded, 1 CALL_RC and SITE are call_before's at RA */
	int8_t row_state;        /* 0 not analysed (or a row that is not kept), 1 ROW is
				  * analysed_row_at's at LOOKUP */
	int8_t target_state;     /* 0 not resolved, 1 the direct call's target is known: ENTRY
				  * and TARGET_FN (TARGET_FOUND) */
	bool target_found;
	struct caller_link callers[RA_CALLERS];  /* the records last found for the caller of
						  * a frame at RA: the threads that share a return
						  * address mostly share their caller's, or one of a
						  * few */
	uint8_t next_caller;     /* the link replaced next */
	int8_t rung;             /* RUNG_NONE, or the rung that found the caller at LOOKUP with
				  * RUNG_ROW while every rung above it declined for what LOOKUP
				  * alone decides (struct rung_plan) */
	bool rung_cfi;           /* RUNG is the CFI rung (else the analysis rung) */
	bool rung_plain;         /* RUNG_ROW is plain (row.h): a step may go through plain_step */
	bool context;            /* the record of a thread's innermost frame (context_record),
				  * whose frames are all context frames; else a return address's,
				  * whose frames are ordinary callers but for a signal's */
	uint8_t rung_found_by;   /* RUNG's found_by (enum cst_found_by) */
	uint8_t rung_found[2];   /* the found_by of a caller RUNG finds, by the frame-record flag
				  * its row sets (rung_found_by) */
	const struct cst_row *rung_row;
	uint64_t rung_bias;
	struct fn_facts facts;   /* FN's, when fn_state is 1 */
	int call_rc;
	uint64_t cfi_bias;
	const struct cst_row *cfi_row;
	const struct cst_row *row;       /* NULL: the analysis gives no answer there */
	uint64_t entry;
	struct cst_call_site site;
	struct cst_func fn, target_fn;
};

/* Records are allocated RA_BLOCK at a time and freed with the cache. */
#define RA_BLOCK 256

struct ra_block {
	struct ra_block *next;
	size_t used;
	struct cst_ra_record rec[RA_BLOCK];
};

static struct addr_cache *addr_cache(struct cst_unwind *u)
{
	struct cst_unwind_env *env = u->env;
	if (!env->addr_cache) {
		struct addr_cache *ac = calloc(1, sizeof *ac);
		if (!ac)
			return NULL;
		ac->ras = cst_memo_new(sizeof(struct cst_ra_record *), MAX_ADDR_FACTS);
		ac->ctx = cst_memo_new(sizeof(struct cst_ra_record *), MAX_CONTEXT_RECORDS);
		ac->fn = cst_memo_new(sizeof(struct fn_facts), MAX_ADDR_FACTS);
		ac->records = cst_memo_new(sizeof(struct record_facts), MAX_ADDR_FACTS);
		ac->rows = cst_memo_new(sizeof(struct analysed), MAX_ANALYSED_ROWS);
		ac->targets = cst_memo_new(sizeof(struct target_facts), MAX_ADDR_FACTS);
		env->addr_cache = ac;
	}
	return env->addr_cache;
}

static void free_analysed(uint64_t key, void *value, void *arg)
{
	free(((struct analysed *)value)->row);
}

static void addr_cache_free(struct cst_unwind_env *env)
{
	struct addr_cache *ac = env->addr_cache;
	if (ac) {
		cst_memo_each(ac->rows, free_analysed, NULL);
		cst_memo_free(ac->rows);
		cst_memo_free(ac->ras);
		cst_memo_free(ac->ctx);
		for (struct ra_block *b = ac->blocks, *next; b; b = next) {
			next = b->next;
			free(b);
		}
		cst_memo_free(ac->fn);
		cst_memo_free(ac->records);
		cst_memo_free(ac->targets);
		free(ac);
	}
	env->addr_cache = NULL;
}

/* arch->call_before for return address RA in FN, the function of RA's lookup address (the
 * callers ask only there), remembered in RA's record R (NULL: not remembered, the site is
 * decoded into *BUF).  Returns the call site, or NULL when no call ends at RA. */
static const struct cst_call_site *call_before(struct cst_unwind *u, struct cst_ra_record *r,
					       const struct cst_func *fn, uint64_t ra,
					       struct cst_call_site *buf)
{
	static const struct cst_call_site none = { .reg = -1, .base_reg = -1, .index_reg = -1 };
	if (!r) {
		*buf = none;
		return u->env->arch->call_before(u, fn, ra, buf) < 0 ? NULL : buf;
	}
	if (r->call_state == 0) {
		r->site = none;
		r->call_rc = u->env->arch->call_before(u, fn, ra, &r->site);
		r->call_state = 1;
	}
	return r->call_rc < 0 ? NULL : &r->site;
}

/* The DWARF call-site record of return address RA (cst_callsites_target), remembered. */
static bool call_record(struct cst_unwind *u, uint64_t ra, struct cst_call_target *ct)
{
	struct addr_cache *ac = addr_cache(u);
	const struct record_facts *m = ac ? cst_memo_get(ac->records, ra) : NULL;
	struct record_facts v = { .found = false };
	if (m) {
		v = *m;
	} else {
		v.found = cst_callsites_target(cst_symbols_callsites(u->env->syms, ra), ra, &v.ct);
		if (ac)
			cst_memo_put(ac->records, ra, &v);
	}
	if (v.found)
		*ct = v.ct;
	return v.found;
}

/* ---- finding the caller ---------------------------------------------------------- */

int cst_row_step(struct cst_unwind *u, const struct cst_row *row, struct cst_frame *f,
		 struct cst_frame *c, struct cst_step *out, bool *frame_record)
{
	uint64_t cfa;
	int rc = cst_row_apply(u, row, 0, &f->regs, &c->regs, &cfa, frame_record, out->origin);
	if (rc == 0 || rc == -CST_E_CFI)
		return -CST_E_DECODE;
	if (rc < 0)
		return rc;
	f->cfa = cfa;
	return 1;
}

/* The rule row arch->analyse finds at PC in FN: remembered per PC (FN is PC's function), or
 * ROW filled when it is not kept.  NULL when the analysis gives no answer there.  *KEPT: the
 * answer is the one remembered (valid as long as the cache). */
static const struct cst_row *analysed_row_at(struct cst_unwind *u, const struct cst_func *fn, uint64_t pc,
					     struct cst_row *row, bool *kept)
{
	struct addr_cache *ac = addr_cache(u);
	const struct analysed *m = ac ? cst_memo_get(ac->rows, pc) : NULL;
	*kept = false;
	if (m && m->fn_start == fn->start) {
		*kept = true;
		return m->row;
	}
	int rc = u->env->arch->analyse(u, fn, pc, row);
	if (m || !ac || (rc < 0 && rc != -CST_E_DECODE))
		return rc < 0 ? NULL : row;          /* not kept: another function, or no memory */
	struct analysed v = { .fn_start = fn->start, .row = NULL };
	if (rc == 0) {
		size_t size = offsetof(struct cst_row, reg) + (size_t)u->env->arch->nregs * sizeof row->reg[0];
		if (size > sizeof *row || !(v.row = malloc(size)))
			return row;
		memcpy(v.row, row, size);
		cst_row_index(v.row, u->env->arch->nregs);
	}
	if (!cst_memo_put(ac->rows, pc, &v)) {
		free(v.row);
		return rc < 0 ? NULL : row;
	}
	*kept = true;
	return v.row;
}

/* analysed_row_at for the lookup address of record R (NULL: not remembered there), FN its
 * function. */
static const struct cst_row *analysed_row(struct cst_unwind *u, struct cst_ra_record *r,
					  const struct cst_func *fn, uint64_t pc, struct cst_row *row)
{
	if (r && r->row_state == 1)
		return r->row;
	bool kept;
	const struct cst_row *got = analysed_row_at(u, fn, pc, row, &kept);
	if (r && kept) {
		r->row_state = 1;
		r->row = got;
	}
	return got;
}

/* The record of F's return address when F is the cursor's current frame and has one. */
static struct cst_ra_record *frame_record_of(struct cst_unwind *u, const struct cst_frame *f)
{
	return f == cur_frame(u) ? u->cur_rec : NULL;
}

int cst_analysis_step(struct cst_unwind *u, struct cst_frame *f, const struct cst_func *fn,
		      struct cst_frame *c, struct cst_step *out)
{
	struct cst_row row;
	bool frame_record;
	const struct cst_arch *a = u->env->arch;
	struct cst_call_site site;
	if (!a->analyse || !fn)
		return -CST_E_DECODE;
	/* A return address (looked up one byte back) follows a call.  Where no call ends at
	 * it, the state the analysis finds there is not the caller's at a return: V8 returns
	 * into the first byte of a builtin (a deoptimized frame), whose byte before is the
	 * padding after the function before it. */
	struct cst_ra_record *rec = frame_record_of(u, f);
	if (f->lookup_pc + 1 == f->pc && a->call_before && !call_before(u, rec, fn, f->pc, &site))
		return -CST_E_DECODE;
	const struct cst_row *r = analysed_row(u, rec, fn, f->lookup_pc, &row);
	if (!r)
		return -CST_E_DECODE;
	int rc = cst_row_step(u, r, f, c, out, &frame_record);
	if (rc < 0)
		return rc;
	out->fp_record = frame_record;
	if (frame_record)
		c->found_by = CST_FOUND_FP;
	return 1;
}

int cst_fp_step(struct cst_unwind *u, struct cst_frame *f, const struct cst_func *fn,
		struct cst_frame *c, struct cst_step *out)
{
	const struct cst_arch *a = u->env->arch;
	uint64_t fp, cfa;
	bool frame_record;
	if (!cst_reg_get(&f->regs, a->fp_reg, &fp))
		return stop(u, CST_STOP_NO_RULE, -CST_E_NO_FUNC,
			    "no unwind rule for pc 0x%" PRIx64 " and no frame pointer", f->pc);
	if (fp == 0)
		return 0;      /* _start and thread entry clear the frame pointer */
	/* CFA = fp + 2 words; the return address at CFA - 1 word, the caller's fp at CFA - 2 */
	struct cst_row row = {
		.cfa_kind = CST_CFA_REG, .cfa_reg = a->fp_reg, .cfa_off = 2 * a->addr_size,
		.ra_col = -1, .frame_record = 1,
	};
	row.reg[a->pc_reg] = (struct cst_rule){ .kind = CST_RULE_OFFSET, .n = -(int64_t)a->addr_size };
	row.reg[a->fp_reg] = (struct cst_rule){ .kind = CST_RULE_OFFSET, .n = -2 * (int64_t)a->addr_size };
	/* out->fp_record stays as the strategies above left it */
	int rc = cst_row_apply(u, &row, 0, &f->regs, &c->regs, &cfa, &frame_record, out->origin);
	if (rc > 0)
		f->cfa = cfa;
	return rc == 0 || rc == -CST_E_CFI ? -CST_E_NO_FUNC : rc;
}

/* Whether rung S of the ladder is tried for F. */
static bool applies(const struct cst_strategy *s, const struct cst_frame *f, bool context)
{
	return !((s->flags & CST_STRATEGY_CONTEXT) && !context) &&
	       !((s->flags & CST_STRATEGY_SIGNAL) && !f->signal_frame) &&
	       !((s->flags & CST_STRATEGY_NOT_SIGNAL) && f->signal_frame);
}

/* Whether rung S, which declined for F, did so for what F's lookup address alone decides
 * (R is F's record): the CFI rung where there is no CFI. */
static bool declined_by_address(const struct cst_strategy *s, const struct cst_ra_record *r)
{
	return s->step == cst_cfi_step && r->cfi_state < 0;
}

/* Remembers in R that rung S of the ladder (index I) found the caller of a frame at R's
 * lookup address, every rung above it having declined by address alone, when the row it
 * applied is kept: the CFI rung's row, or the analysis rung's (whose check of the call
 * before the return address depends on the address alone). */
static void remember_rung(struct cst_ra_record *r, const struct cst_strategy *s, int i)
{
	if (i >= INT8_MAX)
		return;
	if (s->step == cst_cfi_step && r->cfi_state > 0) {
		r->rung_row = r->cfi_row;
		r->rung_bias = r->cfi_bias;
	} else if (s->step == cst_analysis_step && r->row_state == 1 && r->row) {
		r->rung_row = r->row;
		r->rung_bias = 0;
	} else {
		return;
	}
	r->rung_cfi = s->step == cst_cfi_step;
	r->rung_found_by = (uint8_t)s->found_by;
	r->rung_found[0] = r->rung_found_by;
	r->rung_found[1] = r->rung_cfi ? r->rung_found_by : (uint8_t)CST_FOUND_FP;
	r->rung = (int8_t)(i + 1);
	r->rung_plain = r->rung_row->plain;
}

/* The found_by of a caller that the rung remembered in R found, its row having set
 * FRAME_RECORD: the analysis rung's frame with the callee's frame record set up is found by
 * the frame-pointer chain (as cst_analysis_step stamps it). */
static inline enum cst_found_by rung_found_by(const struct cst_ra_record *r, bool frame_record)
{
	return (enum cst_found_by)r->rung_found[frame_record];
}

/* The rung remembered in R (remember_rung) run again on F: its row applied as that rung
 * applies it, with the same results.  When it declines, the ladder goes on at the rung
 * after it. */
static inline __attribute__((always_inline)) int remembered_rung(struct cst_unwind *u, const struct cst_ra_record *r, struct cst_frame *f,
			   struct cst_frame *c, struct cst_step *out)
{
	uint64_t cfa;
	bool frame_record;
	c->found_by = r->rung_found_by;
	/* a plain row (most rows) applied inline: this is most steps of a walk */
	int rc = r->rung_row->plain ?
		 cst_row_apply_plain(u, r->rung_row, &f->regs, &c->regs, &cfa, &frame_record, false) :
		 cst_row_apply(u, r->rung_row, r->rung_bias, &f->regs, &c->regs, &cfa, &frame_record, NULL);
	if (r->rung_cfi) {
		/* as cst_cfi_step: its frame-record flag is the row's even when it fails */
		out->fp_record = frame_record;
		if (rc > 0)
			f->cfa = cfa;
		return rc == -CST_E_CFI ? -CST_E_DECODE : rc;
	}
	/* as cst_analysis_step */
	if (rc == 0 || rc == -CST_E_CFI)
		return -CST_E_DECODE;
	if (rc < 0)
		return rc;
	f->cfa = cfa;
	out->fp_record = frame_record;
	c->found_by = rung_found_by(r, frame_record);
	return 1;
}

/* The ladder from rung S down, for F (function FN), whose record R (NULL: none, or not to
 * be remembered) learns the rung that answers when every rung above it declined by address
 * alone.  Returns as climb. */
static int climb_from(struct cst_unwind *u, struct cst_frame *f, const struct cst_func *fn, bool context,
		      struct cst_frame *c, struct cst_step *out, const struct cst_strategy *s,
		      struct cst_ra_record *r)
{
	bool by_address = r != NULL;
	for (; s && s->step; s++) {
		if (!applies(s, f, context))
			continue;
		c->found_by = s->found_by;
		int rc = s->step(u, f, fn, c, out);
		if (rc != -CST_E_DECODE) {
			if (rc > 0 && by_address)
				remember_rung(r, s, (int)(s - u->env->arch->ladder));
			return rc;
		}
		by_address = by_address && declined_by_address(s, r);
	}
	return -CST_E_NO_FUNC;
}

/* Finds the caller of F, the current frame, with the architecture's ladder, top to bottom:
 * the first strategy that finds a frame owns it.  Returns 1 (C filled, OUT as the strategy
 * left it), 0 at the outermost frame, or a negative code.  A frame at a return address whose
 * record names the rung that answers there goes to it at once: the rungs above it decline
 * there whatever the registers, and its row needs no function.  Inline in the step, where
 * most frames go no further than that rung. */
static inline __attribute__((always_inline)) int climb(struct cst_unwind *u, struct cst_frame *f, bool context,
			struct cst_frame *c, struct cst_step *out)
{
	out->fp_record = true;
	out->caller_skipped = false;
	out->same_sp = false;
	frame_reset(c);
	/* the rungs that apply depend on the frame's kind too: a record's rung serves the
	 * frames of the kind it was made for, ordinary callers or innermost frames */
	struct cst_ra_record *r = f->signal_frame ? NULL : frame_record_of(u, f);
	if (r && r->context != context)
		r = NULL;
	if (r && r->rung) {
		int rc = remembered_rung(u, r, f, c, out);
		return rc != -CST_E_DECODE ? rc :
		       climb_from(u, f, cur_func(u), context, c, out, &u->env->arch->ladder[r->rung], NULL);
	}
	return climb_from(u, f, cur_func(u), context, c, out, u->env->arch->ladder, r);
}

int cst_unwind_explain(struct cst_unwind_env *env, const struct cst_frame *callee,
		       const struct cst_frame *caller, struct cst_reg_origin *origin)
{
	memset(origin, 0, sizeof *origin);
	switch (caller->found_by) {
	case CST_FOUND_CONTEXT:
		for (int r = 0; r < CST_NREGS; r++)
			if (cst_reg_valid(&caller->regs, r))
				origin->how[r] = CST_REG_CONTEXT;
		return 0;
	case CST_FOUND_CFI: case CST_FOUND_FP: case CST_FOUND_PROLOGUE: case CST_FOUND_SIGNAL:
		break;
	default:
		return 0;                 /* the strategy applies no rule row */
	}
	if (!callee)
		return -CST_E_INVAL;
	/* the step again, in a cursor of its own at CALLEE */
	struct cst_unwind u;
	if (cst_unwind_start(&u, env, &callee->regs) < 0)
		return 0;
	struct cst_frame *f = cur_frame(&u), *c = next_frame(&u);
	*f = *callee;
	u.cur_rec = NULL;          /* CALLEE's lookup address may not be its pc */
	struct cst_step out = { .origin = origin };
	int rc = climb(&u, f, callee->found_by == CST_FOUND_CONTEXT, c, &out);
	if (rc <= 0 || c->found_by != caller->found_by)
		memset(origin, 0, sizeof *origin);
	return 0;
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

#define MAX_PIECES 16    /* fallen-into entries followed down from one function */

/* Whether guessed bounds X and Y, two functions by their starts, may be pieces of one
 * function: from the higher one down to the lower, start by start, code falls into every
 * entry (entries.h), so that nothing tells the pieces apart.  A frame is never split into
 * pieces of itself: neither is inserted as a lost tail call beside a frame of the other. */
static bool pieces_of_one(struct cst_unwind *u, const struct cst_func *x, const struct cst_func *y)
{
	if (x->start == y->start)
		return false;
	const struct cst_func *lo = x->start < y->start ? x : y;
	struct cst_func f = x->start < y->start ? *y : *x;
	for (int i = 0; i < MAX_PIECES && f.falls_in && f.start > lo->start; i++)
		if (cst_unwind_func(u, f.start - 1, &f) < 0)
			return false;
	return f.start == lo->start;
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

/* The function a call to TARGET enters, through linkage stubs: its entry in *ENTRY, and
 * whether *FN (its function) is known.  The stubs are followed each time (a stub's GOT slot
 * changes when a live process binds it lazily); the function is remembered per entry. */
static bool call_target_func_at(struct cst_unwind *u, uint64_t target, uint64_t *entry, struct cst_func *fn)
{
	struct addr_cache *ac = addr_cache(u);
	uint64_t resolved = through_stubs(u, target);
	const struct target_facts *m = ac ? cst_memo_get(ac->targets, resolved) : NULL;
	struct target_facts v;
	if (m) {
		v = *m;
	} else {
		v.entry = resolved;
		v.found = cst_unwind_func(u, v.entry, &v.fn) == 0;
		if (ac)
			cst_memo_put(ac->targets, resolved, &v);
	}
	*entry = v.entry;
	if (v.found)
		*fn = v.fn;
	return v.found;
}

/* call_target_func_at for the target of the direct call before the return address of
 * record R (NULL: not remembered), kept there when the target's memory does not change
 * (the linkage stubs it went through stay bound as they were). */
static bool call_target_func(struct cst_unwind *u, struct cst_ra_record *r, uint64_t target,
			     uint64_t *entry, struct cst_func *fn)
{
	if (!r || !u->env->target->ops->fixed)
		return call_target_func_at(u, target, entry, fn);
	if (r->target_state == 0) {
		r->target_found = call_target_func_at(u, target, &r->entry, &r->target_fn);
		r->target_state = 1;
	}
	*entry = r->entry;
	if (r->target_found)
		*fn = r->target_fn;
	return r->target_found;
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
	bool cut;                             /* the budget ended a branch: paths may be missed */
	bool deep;                            /* the depth ended a branch: longer paths may be */
};

/* Whether the jump of FN to TARGET (reaching T through linkage stubs) may be a tail call
 * when FN's DWARF call-site records list its tail calls, RECORDED (N entries): it is one of
 * them or a copy of one (gcc's clones, `.constprop.0`, may have no record of their own), or
 * it stays in FN (a jump to a split part of it, such as FN.cold, which has records of its
 * own under FN's entry). */
static bool tail_call_recorded(struct cst_unwind *u, const struct cst_func *fn, uint64_t target,
			       uint64_t t, const uint64_t *recorded, int n)
{
	struct cst_func tf, rf;
	if (cst_unwind_func(u, t, &tf) < 0 || same_function(&tf, fn))
		return true;
	for (int i = 0; i < n; i++)
		if (recorded[i] == target || recorded[i] == t ||
		    (cst_unwind_func(u, recorded[i], &rf) == 0 && same_function(&rf, &tf)))
			return true;
	return false;
}

/* Depth-first search for tail-jump paths from FN_ADDR to the callee's function. */
static void search_paths(struct cst_unwind *u, struct path_search *ps, uint64_t fn_addr, int depth)
{
	if (ps->paths >= 2)
		return;
	if (depth >= CST_MAX_TAIL_DEPTH || ps->budget == 0) {
		ps->deep |= depth >= CST_MAX_TAIL_DEPTH;
		ps->cut |= ps->budget == 0;
		return;
	}
	ps->budget--;
	struct cst_func fn;
	if (cst_unwind_func(u, fn_addr, &fn) < 0 || fn.start != fn_addr)
		return;
	for (int i = 0; i < depth; i++)
		if (ps->path[i] == fn_addr)
			return;                       /* a loop of tail calls */
	ps->path[depth] = fn_addr;
	uint64_t targets[CST_MAX_TAIL_TARGETS], jumps[CST_MAX_TAIL_TARGETS];
	uint64_t recorded[CST_MAX_TAIL_TARGETS];
	int n = u->env->arch->tail_targets ? u->env->arch->tail_targets(u, &fn, targets, jumps,
									  CST_MAX_TAIL_TARGETS) : 0;
	int nrec = cst_callsites_tail_calls(cst_symbols_callsites(u->env->syms, fn_addr), fn_addr,
					    recorded, CST_MAX_TAIL_TARGETS);
	for (int i = 0; i < n && ps->paths < 2; i++) {
		uint64_t t = through_stubs(u, targets[i]);
		if (nrec >= 0 && !tail_call_recorded(u, &fn, targets[i], t, recorded, nrec))
			continue;
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

/* Whether the lost tail calls of path PS (functions, outermost first) may be pieces of the
 * callee's function, of the caller's (CALLER, NULL when unknown) or of each other. */
static bool path_in_pieces(struct cst_unwind *u, const struct path_search *ps, const struct cst_func *caller)
{
	struct cst_func prev = { 0 };
	for (int i = 0; i < ps->found_len; i++) {
		struct cst_func fn;
		if (cst_unwind_func(u, ps->found[i], &fn) < 0)
			continue;
		if (pieces_of_one(u, &fn, ps->callee) || (caller && pieces_of_one(u, &fn, caller)) ||
		    (i > 0 && pieces_of_one(u, &fn, &prev)))
			return true;
		prev = fn;
	}
	return false;
}

static void queue_push(struct cst_unwind *u, const struct cst_inserted_frame *f)
{
	int n = (int)(sizeof u->queue / sizeof u->queue[0]);
	if (u->qlen < n)
		u->queue[(u->qhead + u->qlen++) % n] = *f;
}

/* Whether REG (a DWARF number) keeps its value across calls on U's architecture. */
static bool preserved(const struct cst_unwind *u, int reg)
{
	return reg >= 0 && reg < 64 && (u->env->arch->preserved_regs >> reg & 1);
}

/* The function the indirect call SITE, which returns to caller C, called, when something
 * names it: the DWARF call-site record of C's return address (its origin, a constant
 * address, or a preserved register plus an offset), else the preserved register the call
 * went through, else the word it read when preserved registers address it (the word
 * holding the target still: read-only, or a function's entry), else the read-only word at a
 * fixed address it read (a GOT slot).  A preserved register of C holds at the return
 * address what it held at the call; C's registers are known only where its strategy recovered them (CFI: the psABI's
 * callee-saved registers are the same value unless saved).  Returns true with *T and, in
 * HOW (LEN bytes), " through ..." for the note. */
static bool indirect_target(struct cst_unwind *u, const struct cst_frame *c, const struct cst_call_site *site,
			    uint64_t *t, char *how, size_t len)
{
	const char *const *names = u->env->arch->reg_names;
	struct cst_call_target ct;
	uint64_t v;
	if (call_record(u, c->pc, &ct)) {
		if (ct.kind == CST_TARGET_ADDR) {
			*t = ct.addr;
			snprintf(how, len, " (its call-site record names it)");
			return true;
		}
		if (preserved(u, ct.reg) && cst_reg_get(&c->regs, ct.reg, &v)) {
			*t = v + (uint64_t)ct.offset;
			snprintf(how, len, " (its call-site record: %%%s%+" PRId64 ")", names[ct.reg], ct.offset);
			return true;
		}
	}
	if (preserved(u, site->reg) && cst_reg_get(&c->regs, site->reg, &v)) {
		*t = v;
		snprintf(how, len, " through %%%s", names[site->reg]);
		return true;
	}
	uint64_t base, index = 0, w;
	struct cst_func tf;
	if (preserved(u, site->base_reg) && cst_reg_get(&c->regs, site->base_reg, &base) &&
	    (site->index_reg < 0 || (preserved(u, site->index_reg) &&
				     cst_reg_get(&c->regs, site->index_reg, &index)))) {
		/* both registers hold at the return address what they held at the call: the
		 * word it read is known; it holds the target still when the memory is read-only,
		 * or when it holds a function's entry */
		uint64_t slot = base + (uint64_t)site->disp +
				(site->index_reg < 0 ? 0 : index * (uint64_t)site->scale);
		if (cst_target_read_word(u->env->target, slot, u->env->arch->addr_size, &w) == 0 && w &&
		    (cst_symbols_read_only(u->env->syms, slot) ||
		     (cst_unwind_func(u, w, &tf) == 0 && tf.start == w))) {
			*t = w;
			snprintf(how, len, " through the word at 0x%" PRIx64, slot);
			return true;
		}
	}
	if (site->slot && cst_symbols_read_only(u->env->syms, site->slot) &&
	    cst_target_read_word(u->env->target, site->slot, u->env->arch->addr_size, &v) == 0 && v) {
		*t = v;
		snprintf(how, len, " through its read-only slot 0x%" PRIx64, site->slot);
		return true;
	}
	return false;
}

/* Functions of an address-taken set examined at most, and function examinations in all,
 * per inference: past them nothing is inferred. */
#define MAX_INFER_CANDIDATES 4096
#define MAX_INFER_BUDGET 16384

/* The one path by which one of the N functions at CAND (entry addresses, sorted or not)
 * reaches CALLEE, in *FOUND (found_len 0: none): when exactly one of them reaches it, by
 * exactly one path, every search complete, and CALLEE's function is not among them.
 * ps.callee is not kept. */
static void unique_path(struct cst_unwind *u, const struct cst_func *callee, const uint64_t *cand, size_t n,
			struct path_search *found)
{
	int candidates = 0;
	unsigned budget = MAX_INFER_BUDGET;
	struct path_search one = { .found_len = 0 };
	for (size_t i = 0; i < n; i++) {
		struct cst_func af;
		if (cst_unwind_func(u, cand[i], &af) < 0 || af.start != cand[i])
			continue;
		if (same_function(&af, callee))
			return;                      /* the call may have entered the callee */
		struct path_search ps = { .callee = callee, .budget = budget < 256 ? budget : 256 };
		unsigned given = ps.budget;
		search_paths(u, &ps, af.start, 0);
		budget -= given - ps.budget;
		if (ps.cut || ps.deep || ps.paths > 1 || (ps.paths == 1 && ++candidates > 1))
			return;
		if (ps.paths == 1)
			one = ps;
	}
	if (candidates == 1) {
		*found = one;
		found->callee = NULL;
	}
}

/* The one path by which the address-taken functions of CALLEE's module reach it, as
 * infer_lost_tail_calls says, in *FOUND (found_len 0: none).  ps.callee is not kept. */
static void infer_path(struct cst_unwind *u, const struct cst_func *callee, struct path_search *found)
{
	const struct cst_addrtaken *set = callee->module ? cst_addrtaken_of(u, callee->module) : NULL;
	if (!set || set->n > MAX_INFER_CANDIDATES || cst_addrtaken_has(set, callee->start))
		return;
	unique_path(u, callee, set->addr, set->n, found);
}

/* Words of a table of function pointers read at most. */
#define MAX_TABLE_WORDS 1024

/* Functions examined at most when following what code may run after a call (reg_untouched). */
#define MAX_UNTOUCHED_FUNCS 64

struct untouched {
	uint64_t seen[MAX_UNTOUCHED_FUNCS];  /* entries examined, each once */
	int n;
};

/* Whether no code run from the entry ADDR of a function of module MOD writes register REG (a
 * DWARF number): neither its own instructions (the arch's reg_writes) nor those of the
 * functions it calls or jumps to, followed through every direct call and jump.  False when
 * any of that code is another module's or a linkage stub's, has guessed bounds, cannot be
 * decoded or names no target (an indirect call or jump), or when more than
 * MAX_UNTOUCHED_FUNCS functions in all would be examined through UT. */
static bool reg_untouched(struct cst_unwind *u, Dwfl_Module *mod, uint64_t addr, int reg, struct untouched *ut)
{
	for (int i = 0; i < ut->n; i++)
		if (ut->seen[i] == addr)
			return true;              /* examined, or being examined higher up */
	if (ut->n == MAX_UNTOUCHED_FUNCS)
		return false;
	ut->seen[ut->n++] = addr;
	struct cst_func fn;
	uint64_t written, targets[CST_MAX_TAIL_TARGETS];
	if (cst_unwind_func(u, addr, &fn) < 0 || fn.start != addr || fn.module != mod || fn.uncertain ||
	    fn.falls_in)
		return false;
	int n = u->env->arch->reg_writes(u, &fn, &written, targets, CST_MAX_TAIL_TARGETS);
	if (n < 0 || (written >> reg & 1))
		return false;
	for (int i = 0; i < n; i++)
		if (!reg_untouched(u, mod, targets[i], reg, ut))
			return false;
	return true;
}

/* The table call SITE read the word at BASE + disp + index * scale, inside the table
 * [START, START + SIZE) whose code words are WORDS (N); the index register does not hold
 * the index at the return address (caller-saved: x86-64 psABI 3.2.1), and several entries
 * lead to CALLEE.  When F, CALLEE's frame, is the innermost one (the thread's registers at
 * the stop) and no code that can have run since the call writes the index register, F's
 * value of it is the index: no instruction of any entry that leads to CALLEE nor of
 * anything those entries call or jump to (the paths of tail jumps from them and all they
 * call), nor of CALLEE and what it calls.  The word it selects must be one of those
 * entries; its one path to CALLEE goes in *FOUND (found_len 0: none). */
static void surviving_index(struct cst_unwind *u, const struct cst_frame *f, const struct cst_func *callee,
			    const struct cst_call_site *site, uint64_t base, uint64_t start, uint64_t size,
			    const uint64_t *words, size_t n, struct path_search *found)
{
	unsigned w = u->env->arch->addr_size;
	int reg = site->index_reg;
	uint64_t index, v;
	if (!u->env->arch->reg_writes || f->found_by != CST_FOUND_CONTEXT || f->lookup_pc != f->pc ||
	    !cst_reg_get(&f->regs, reg, &index))
		return;
	uint64_t slot = base + (uint64_t)site->disp + index * (uint64_t)site->scale;
	if (slot < start || slot > start + size - w || cst_target_read_word(u->env->target, slot, w, &v) < 0)
		return;
	struct untouched ut = { .n = 0 };
	struct path_search chosen = { .found_len = 0 };
	bool listed = false;
	unsigned budget = MAX_INFER_BUDGET;
	for (size_t i = 0; i < n; i++) {
		struct cst_func af;
		if (cst_unwind_func(u, words[i], &af) < 0 || af.start != words[i])
			return;
		struct path_search ps = { .callee = callee, .budget = budget < 256 ? budget : 256 };
		unsigned given = ps.budget;
		bool direct = same_function(&af, callee);
		if (!direct)
			search_paths(u, &ps, af.start, 0);
		budget -= given - ps.budget;
		if (!direct && ps.paths == 0 && (ps.cut || ps.deep))
			return;                   /* it may lead to CALLEE by a path not followed */
		if (!direct && ps.paths == 0)
			continue;                 /* not a candidate */
		if (!reg_untouched(u, callee->module, af.start, reg, &ut))
			return;
		if (words[i] == v) {
			listed = true;
			if (!direct && ps.paths == 1 && !ps.cut && !ps.deep)
				chosen = ps;
		}
	}
	if (!listed || chosen.found_len == 0 || !reg_untouched(u, callee->module, callee->start, reg, &ut))
		return;
	*found = chosen;
	found->callee = NULL;
}

/* The indirect call SITE through disp(%base,%index,scale), returning to caller C, whose base
 * register C still holds and whose index it does not: the word it read is one of the table
 * that the base addresses, when a data object of the module (its symbol) covers that
 * address and lies in read-only memory (its words are what they were at the call).  The
 * table's words at the call's stride are its possible targets: those that are code must
 * be functions' entries (a call through another word would have faulted).  Returns true with
 * the one path of unique_path in *FOUND, else of surviving_index (*BY_INDEX set), and the
 * table's start in *TABLE. */
static bool table_path(struct cst_unwind *u, const struct cst_frame *f, const struct cst_frame *c,
		       const struct cst_func *callee, const struct cst_call_site *site,
		       struct path_search *found, uint64_t *table, bool *by_index)
{
	unsigned w = u->env->arch->addr_size;
	uint64_t base, start, size, words[MAX_TABLE_WORDS];
	if (!preserved(u, site->base_reg) || !cst_reg_get(&c->regs, site->base_reg, &base) ||
	    site->index_reg < 0 || site->scale < (int)w)
		return false;
	uint64_t at = base + (uint64_t)site->disp;
	if (!cst_symbols_object(u->env->syms, at, &start, &size) || size / (uint64_t)site->scale > MAX_TABLE_WORDS ||
	    !cst_symbols_read_only(u->env->syms, start) || !cst_symbols_read_only(u->env->syms, start + size - 1))
		return false;
	size_t n = 0;
	uint64_t first = start + (at - start) % (uint64_t)site->scale;
	for (uint64_t a = first; a + w <= start + size; a += (uint64_t)site->scale) {
		uint64_t v;
		struct cst_func tf;
		if (cst_target_read_word(u->env->target, a, w, &v) < 0)
			return false;
		uint64_t lo, hi;
		if (v == 0 || !cst_symbols_exec_range(u->env->syms, v, &lo, &hi))
			continue;             /* not code: a call through it would have faulted */
		if (cst_unwind_func(u, v, &tf) < 0 || tf.start != v)
			return false;         /* code the search cannot follow */
		words[n++] = v;
	}
	*found = (struct path_search){ .found_len = 0 };
	unique_path(u, callee, words, n, found);
	*by_index = false;
	if (found->found_len == 0) {
		surviving_index(u, f, callee, site, base, start, size, words, n, found);
		*by_index = true;
	}
	*table = start;
	return found->found_len > 0;
}

/* The indirect call SITE that nothing names (NULL: the kernel's entry into a signal handler),
 * returning to caller C, before callee F (function CALLEE): the function it entered is one
 * of the read-only table the call indexed (table_path), else one whose address the
 * program takes (addrtaken.h).  When exactly
 * one address-taken function of the callee's module reaches the callee's function, by
 * exactly one path of tail jumps (every search complete: 8 deep, within its budget), and
 * the callee's function is not address-taken itself (the call may have entered it), the
 * path is queued, found by CST_FOUND_TAIL_INFERRED.  A function of another module that
 * tail-jumps into this one reaches an exported function, which is address-taken. */
static void infer_lost_tail_calls(struct cst_unwind *u, const struct cst_frame *f, const struct cst_func *callee,
				  const struct cst_frame *c, const struct cst_call_site *site)
{
	struct path_search found = { .found_len = 0 };
	uint64_t table = 0;
	bool by_index = false;
	if (!site || !table_path(u, f, c, callee, site, &found, &table, &by_index)) {
		struct cst_memo *memo = cst_addrtaken_results(u, sizeof(struct path_search));
		const struct path_search *m = cst_memo_get(memo, callee->start);
		if (m) {
			found = *m;
		} else {
			infer_path(u, callee, &found);
			cst_memo_put(memo, callee->start, &found);
		}
		table = 0;
	}
	if (found.found_len == 0)
		return;
	struct cst_inserted_frame s = { .found_by = CST_FOUND_TAIL_INFERRED, .marker = CST_MARK_LOST_TAIL_CALL,
					.sp = f->cfa };
	for (int i = found.found_len - 1; i >= 0; i--) {
		s.pc = found.found_jumps[i];
		if (i > 0)
			snprintf(s.note, sizeof s.note, "reached and left by tail jumps (inferred)");
		else if (site && table && by_index)
			snprintf(s.note, sizeof s.note, "called at 0x%" PRIx64 " through the table at 0x%" PRIx64
				 ": the entry %%%s selects, untouched since", site->addr, table,
				 u->env->arch->reg_names[site->index_reg]);
		else if (site && table)
			snprintf(s.note, sizeof s.note, "called at 0x%" PRIx64 " through the table at 0x%" PRIx64
				 ": the only entry that leads here", site->addr, table);
		else if (site)
			snprintf(s.note, sizeof s.note, "called at 0x%" PRIx64 " through a pointer: the only "
				 "address-taken function that leads here", site->addr);
		else
			snprintf(s.note, sizeof s.note, "the signal handler: the only address-taken function "
				 "that leads here");
		queue_push(u, &s);
	}
}

/* Whether what indirect_target and table_path find for the indirect call SITE before
 * return address RA depends on no register: neither RA's call-site record nor SITE names a
 * preserved register (they look at no other). */
static bool site_names_no_register(struct cst_unwind *u, uint64_t ra, const struct cst_call_site *site)
{
	struct cst_call_target ct;
	if (call_record(u, ra, &ct) && ct.kind != CST_TARGET_ADDR && preserved(u, ct.reg))
		return false;
	return !preserved(u, site->reg) && !preserved(u, site->base_reg);
}

/* Queues the frames of the functions that tail-called away between callee F (function
 * CALLEE) and caller C (function CALLER, NULL when unknown).  *BY_ADDRESS is set when
 * nothing was queued for what the addresses alone decide (the functions, the code, the
 * target's memory that does not change), whatever the registers: then the same callee and
 * caller records give the same answer. */
static void find_lost_tail_calls(struct cst_unwind *u, const struct cst_frame *f, const struct cst_func *callee,
				 const struct cst_frame *c, const struct cst_func *caller,
				 struct cst_ra_record *crec, bool skipped, bool *by_address)
{
	const struct cst_arch *a = u->env->arch;
	*by_address = false;
	if (u->env->syms && c->signal_frame && !f->signal_frame && callee) {
		infer_lost_tail_calls(u, f, callee, c, NULL);   /* F runs in a signal handler */
		return;
	}
	const bool fixed = u->env->target->ops->fixed;
	if (!u->env->syms || !a->call_before || c->signal_frame || f->signal_frame || !callee) {
		*by_address = fixed;
		return;
	}
	if (c->lookup_pc == c->pc)
		return;                 /* an exact pc (a fault callee's caller) follows no call */
	struct cst_call_site buf;
	const struct cst_call_site *site = call_before(u, crec, caller, c->pc, &buf);
	if (!site) {
		*by_address = fixed;
		return;
	}
	char how[48];
	how[0] = 0;
	uint64_t t = site->target;
	if (!site->direct && !indirect_target(u, c, site, &t, how, sizeof how)) {
		infer_lost_tail_calls(u, f, callee, c, site);
		*by_address = fixed && u->qlen == 0 && site_names_no_register(u, c->pc, site);
		return;
	}
	struct cst_func tf;
	if (!call_target_func(u, site->direct ? crec : NULL, t, &t, &tf) || same_function(&tf, callee) ||
	    pieces_of_one(u, &tf, callee)) {
		*by_address = fixed && site->direct;
		return;
	}
	if (tf.start != t) {
		*by_address = fixed && site->direct;
		return;                                   /* not a function entry: not a call we know */
	}

	struct path_search ps = { .callee = callee, .budget = 256 };
	search_paths(u, &ps, t, 0);
	if (ps.paths == 1 && !ps.cut && path_in_pieces(u, &ps, caller))
		return;
	struct cst_inserted_frame s = { .found_by = CST_FOUND_TAIL_CALL, .marker = CST_MARK_LOST_TAIL_CALL,
					.sp = f->cfa };
	if (ps.paths == 1 && !ps.cut) {
		/* innermost first: the last function on the path jumped to the callee */
		for (int i = ps.found_len - 1; i >= 0; i--) {
			s.pc = ps.found_jumps[i];
			if (i == 0)
				snprintf(s.note, sizeof s.note, "called at 0x%" PRIx64 "%s, left by a tail jump",
					 site->addr, how);
			else
				snprintf(s.note, sizeof s.note, "reached and left by tail jumps");
			queue_push(u, &s);
		}
	} else if (skipped && ps.paths == 0 && !ps.cut) {
		/* F's caller was not found (leaf context, return register overwritten): the
		 * function C called is that caller (DTrace ustack() discussion, case 3). */
		s.pc = t;
		s.marker = CST_MARK_RECOVERED_CALLER;
		snprintf(s.note, sizeof s.note, "called at 0x%" PRIx64 "; the callee's own return address was lost",
			 site->addr);
		queue_push(u, &s);
	} else {
		s.pc = t;
		snprintf(s.note, sizeof s.note, ps.paths > 1 ?
			 "called at 0x%" PRIx64 "%s; several tail-call paths lead on, only this one is certain" :
			 "called at 0x%" PRIx64 "%s; the tail-call path from it is not known", site->addr, how);
		queue_push(u, &s);
	}
}

/* Whether find_lost_tail_calls has nothing to find for the same arguments, seen at once in
 * the common case: the direct call before the caller's return address (its record CREC)
 * entered the callee's function. */
static inline bool entered_callee(const struct cst_frame *c, const struct cst_func *callee,
				  const struct cst_ra_record *crec)
{
	return crec && callee && !c->signal_frame && crec->target_state == 1 && crec->target_found &&
	       crec->target_fn.start == callee->start;
}

/* Whether FN (NULL: none known) is one of NAMES (NULL-terminated, or NULL), its name
 * compared without gcc's clone suffixes and Go's ABI suffix. */
static bool func_listed(const struct cst_func *fn, const char *const *names)
{
	if (!names || !fn || !fn->name)
		return false;
	char base[256];
	cst_symbols_base_name(fn->name, base, sizeof base);
	size_t go = cst_symbols_go_abi_stripped_len(base);
	if (go)
		base[go] = 0;
	for (int i = 0; names[i]; i++)
		if (strcmp(base, names[i]) == 0)
			return true;
	return false;
}

/* Whether the current frame's function is one of NAMES (NULL-terminated, or NULL). */
static bool cur_func_listed(struct cst_unwind *u, const char *const *names)
{
	return func_listed(names ? cur_func(u) : NULL, names);
}

/* The function at record R's lookup address, NULL when none is known; looked up once, with
 * its facts. */
static void record_func_find(struct cst_unwind *u, struct cst_ra_record *r)
{
	r->fn_state = cst_unwind_func(u, r->lookup, &r->fn) == 0 ? 1 : -1;
	const struct cst_func *fn = r->fn_state > 0 ? &r->fn : NULL;
	r->facts.outermost = func_listed(fn, u->env->arch->outermost);
	r->facts.stack_switch = func_listed(fn, u->env->arch->stack_switches);
	r->facts.fault_callee = func_listed(fn, u->env->arch->fault_callees);
}

static inline const struct cst_func *record_func(struct cst_unwind *u, struct cst_ra_record *r)
{
	if (r->fn_state == 0)
		record_func_find(u, r);
	return r->fn_state > 0 ? &r->fn : NULL;
}

/* Looks up the function of the current frame: its record's, or by its lookup address. */
static void cur_func_find(struct cst_unwind *u)
{
	if (u->cur_rec)
		u->cur_fn_state = record_func(u, u->cur_rec) ? 2 : -1;
	else
		u->cur_fn_state = cst_unwind_func(u, cur_frame(u)->lookup_pc, &u->cur_fn) == 0 ? 1 : -1;
}

/* The function of the current frame: looked up once per frame, for the outermost check,
 * the instruction analysis and the tail-call check. */
static inline const struct cst_func *cur_func(struct cst_unwind *u)
{
	if (u->cur_fn_state == 0)
		cur_func_find(u);
	return u->cur_fn_state == 2 ? &u->cur_rec->fn : u->cur_fn_state > 0 ? &u->cur_fn : NULL;
}

/* Whether the current frame's function is one of the architecture's outermost functions
 * and fault callees, remembered per lookup address. */
static struct fn_facts cur_fn_facts(struct cst_unwind *u)
{
	if (u->cur_rec) {
		record_func(u, u->cur_rec);
		return u->cur_rec->facts;
	}
	struct addr_cache *ac = addr_cache(u);
	uint64_t key = cur_frame(u)->lookup_pc;
	const struct fn_facts *m = ac ? cst_memo_get(ac->fn, key) : NULL;
	if (m)
		return *m;
	struct fn_facts v = {
		.outermost = cur_func_listed(u, u->env->arch->outermost),
		.stack_switch = cur_func_listed(u, u->env->arch->stack_switches),
		.fault_callee = cur_func_listed(u, u->env->arch->fault_callees),
	};
	if (ac)
		cst_memo_put(ac->fn, key, &v);
	return v;
}

/* ---- the step ---------------------------------------------------------------------- */

/* Whether PC lies in a module, or LOOKUP in a perf map's JIT code (true without symbols:
 * nothing to tell).  Code known nowhere (a core whose memory is zeros, a jump to a wild
 * address) has no frame to end a walk cleanly, nor a return address to continue it. */
static bool known_code(const struct cst_unwind *u, uint64_t pc, uint64_t lookup)
{
	return !u->env->syms || cst_symbols_in_module(u->env->syms, pc) ||
	       (u->env->jit && cst_perfmap_lookup(u->env->jit, lookup, NULL));
}

/* What is known of return address PC (struct ra_facts). */
static struct ra_facts ra_facts(struct cst_unwind *u, uint64_t pc)
{
	struct ra_facts v = {
		.known = known_code(u, pc, pc - 1),
		.signal_frame = u->env->arch->signal_frame && u->env->arch->signal_frame(u, pc),
	};
	uint64_t bias;
	Dwarf_Frame *row = u->env->syms ? cst_symbols_cfi_cached(u->env->syms, pc, &bias) : NULL;
	if (row) {
		Dwarf_Addr s, e;
		dwarf_frame_info(row, &s, &e, &v.cfi_signal);
	}
	return v;
}

/* Where a caller whose return address is RA is looked up: the call's last byte (or, SPARC,
 * the call itself, arch->ra_offset bytes back), in its own function even when the call
 * ends it. */
static uint64_t caller_lookup(const struct cst_arch *a, uint64_t ra)
{
	return a->ra_offset ? ra - a->ra_offset : ra - 1;
}

/* The record of RA, looked up at LOOKUP, in MEMO (one of ADDR_CACHE's), created when it is
 * not there yet; NULL when it is not kept (no memory, or past the bound: then everything
 * is asked address by address).  *MADE: it was created. */
static struct cst_ra_record *record_in(struct addr_cache *ac, struct cst_memo *memo, uint64_t ra,
				       uint64_t lookup, bool *made)
{
	*made = false;
	struct cst_ra_record *const *m = cst_memo_get(memo, ra);
	if (m)
		return *m;
	struct ra_block *b = ac->blocks;
	if (!b || b->used == RA_BLOCK) {
		if (!(b = malloc(sizeof *b)))
			return NULL;
		b->next = ac->blocks;
		b->used = 0;
		ac->blocks = b;
	}
	struct cst_ra_record *r = &b->rec[b->used];
	if (!cst_memo_put(memo, ra, &r))
		return NULL;
	b->used++;
	memset(r, 0, sizeof *r);
	r->ra = ra;
	r->lookup = lookup;
	*made = true;
	return r;
}

/* The record of return address RA, with its facts (struct ra_facts), or NULL (record_in). */
static struct cst_ra_record *ra_record(struct cst_unwind *u, uint64_t ra)
{
	struct addr_cache *ac = addr_cache(u);
	bool made;
	struct cst_ra_record *r = ac ? record_in(ac, ac->ras, ra, caller_lookup(u->env->arch, ra), &made) : NULL;
	if (r && made)
		r->ra_facts = ra_facts(u, ra);
	return r;
}

/* The record of a thread's innermost frame at PC (its lookup address), or NULL: what the
 * threads that stopped at one pc share is kept as for a return address.  Not without
 * symbols, where the caller may give frame 0's function itself (tests/unit/cursor.c). */
static struct cst_ra_record *context_record(struct cst_unwind *u, uint64_t pc)
{
	struct addr_cache *ac = u->env->syms ? addr_cache(u) : NULL;
	bool made;
	struct cst_ra_record *r = ac ? record_in(ac, ac->ctx, pc, pc, &made) : NULL;
	if (r && made)
		r->context = true;
	return r;
}

/* The link from record FROM to the record of return address RA (not 0), or NULL. */
static inline struct caller_link *caller_link(struct cst_ra_record *from, uint64_t ra)
{
	for (int i = 0; i < RA_CALLERS; i++)
		if (from->callers[i].ra == ra)
			return &from->callers[i];
	return NULL;
}

/* ra_record for return address RA of the current frame's caller, through the links from
 * the current frame's record when one leads there; *LINK: that link, or the one made (NULL
 * when the current frame has no record, or RA none). */
static struct cst_ra_record *caller_record(struct cst_unwind *u, uint64_t ra, struct caller_link **link)
{
	struct cst_ra_record *from = u->cur_rec;
	if (from && (*link = caller_link(from, ra)))
		return (*link)->rec;
	*link = NULL;
	struct cst_ra_record *r = ra_record(u, ra);
	if (from && r) {
		*link = &from->callers[from->next_caller++ % RA_CALLERS];
		**link = (struct caller_link){ .ra = ra, .rec = r, .plain = false };
	}
	return r;
}

int cst_unwind_cfi_row(struct cst_unwind *u, const struct cst_frame *f, const struct cst_row **row,
		       uint64_t *bias, bool *owned)
{
	struct cst_ra_record *r = frame_record_of(u, f);
	if (r && r->cfi_state < 0)
		return 0;
	if (r && r->cfi_state > 0) {
		*row = r->cfi_row;
		*bias = r->cfi_bias;
		*owned = false;
		return 1;
	}
	int rc = cst_cfi_row_at(u, f->lookup_pc, row, bias, owned);
	if (r && rc == 0) {
		r->cfi_state = -1;
	} else if (r && rc > 0 && !*owned) {
		r->cfi_state = 1;
		r->cfi_row = *row;
		r->cfi_bias = *bias;
	}
	return rc;
}

/* Ends the walk at F, found to have no caller: the outermost frame, unless F's code is
 * known nowhere, when nothing says that F began the thread (its frame record, or return
 * address, read as 0 from memory that may hold only zeros). */
static int end_at(struct cst_unwind *u, const struct cst_frame *f)
{
	if (!known_code(u, f->pc, f->lookup_pc))
		return stop(u, CST_STOP_NO_RULE, -CST_E_NO_FUNC,
			    "pc 0x%" PRIx64 " is outside every module: its caller is not known", f->pc);
	return stop(u, CST_STOP_OUTERMOST, 0, NULL);
}

static int finish(struct cst_unwind *u)
{
	return u->stop == CST_STOP_OUTERMOST ? 0 :
	       u->stop == CST_STOP_READ ? -CST_E_MEMORY :
	       u->stop == CST_STOP_NO_RULE ? -CST_E_NO_FUNC : -CST_E_LIMIT;
}

/* cst_frame_copy, inline where the walk hands out every frame */
static inline void frame_copy(struct cst_frame *to, const struct cst_frame *from)
{
	frame_head(to, from);
	if (from->note[0])
		memcpy(to->note, from->note, sizeof to->note);   /* most frames have none */
	cst_regs_copy(&to->regs, &from->regs);
}

void cst_frame_copy(struct cst_frame *to, const struct cst_frame *from)
{
	frame_copy(to, from);
}

void cst_unwind_keep(struct cst_unwind *u)
{
	if (u->cur != &u->slot[0] && u->cur != &u->slot[1]) {
		frame_copy(&u->slot[0], u->cur);
		u->cur = &u->slot[0];
	}
}

/* Hands frame F out as the walk's next frame: copied to OUT, numbered.  Returns 1. */
static inline int emit(struct cst_unwind *u, const struct cst_frame *f, struct cst_frame *out)
{
	frame_copy(out, f);
	out->index = u->nframes++;
	return 1;
}

/* Hands out the first queued frame. */
static int hand_out(struct cst_unwind *u, struct cst_frame *out)
{
	int n = (int)(sizeof u->queue / sizeof u->queue[0]);
	const struct cst_inserted_frame *q = &u->queue[u->qhead];
	u->qhead = (u->qhead + 1) % n;
	u->qlen--;
	frame_reset(out);
	out->index = u->nframes++;
	out->pc = out->lookup_pc = q->pc;
	out->sp = out->cfa = q->sp;
	out->found_by = q->found_by;
	out->marker = q->marker;
	memcpy(out->note, q->note, sizeof out->note);
	return 1;
}

/* Whether the step from the current frame, at record R (NULL: none), may be a plain one
 * (plain_step): R's rung applies a plain row, and the frame is an ordinary caller whose
 * function is not one that ends the walk.  Asked when the frame is handed out, with no
 * frame waiting to be. */
static inline struct cst_ra_record *plain_record(const struct cst_unwind *u, struct cst_ra_record *r)
{
	return r && r->rung_plain && !u->cur_is_context && !u->cur->signal_frame &&
	       r->fn_state != 0 && !r->facts.outermost && !r->facts.stack_switch ? r : NULL;
}

/* plain_record for cst_unwind_next's first try, which reads the saved registers from the
 * target's span alone (U->span_words). */
static inline struct cst_ra_record *first_plain(const struct cst_unwind *u, struct cst_ra_record *r)
{
	return u->span_words ? plain_record(u, r) : NULL;
}

/* Hands out C, the caller of a frame whose CFA is CALLEE_CFA, found at record REC through
 * a plain link (struct caller_link): what the rest of the step decides by the two records
 * alone, decided before.  C is copied to OUT unless it is OUT.  Returns 1. */
static inline int hand_out_linked(struct cst_unwind *u, uint64_t callee_cfa, struct cst_frame *c,
				  struct cst_ra_record *rec, struct cst_frame *out)
{
	c->lookup_pc = rec->lookup;
	c->callee_cfa = callee_cfa;
	c->cfa = 0;
	u->cur = c;                    /* C is the current frame now */
	u->cur_fn_state = 0;           /* REC's, looked up when asked (cur_func) */
	u->cur_rec = rec;
	u->cur_is_context = false;
	u->plain_rec = first_plain(u, rec);
	if (c == out) {
		out->index = u->nframes++;
		return 1;
	}
	return emit(u, c, out);
}

/* The step from the current frame, an ordinary caller whose record R remembers a rung with
 * a plain row (plain_record), when the step is one of those its records decided before: the
 * row gives the caller above it, and a plain link leads from R to the caller's record.
 * Returns 1 with the caller handed out in OUT, or 0 when the step is not such a one: the
 * whole step then runs as for any frame (what was done here is done again, to the same
 * effect: the current frame's registers read, the caller's cleared).  IN_OUT (a constant):
 * the caller is built in OUT itself, which becomes the current frame (OUT is not it). */
static inline __attribute__((always_inline)) int plain_step(struct cst_unwind *u, struct cst_ra_record *r,
		struct cst_frame *out, bool span_only, bool in_out)
{
	if (u->nframes >= u->max_frames)
		return 0;
	struct cst_frame *f = cur_frame(u), *c = in_out ? out : next_frame(u);
	const struct cst_arch *a = u->env->arch;
	uint64_t cfa;
	bool frame_record;
	/* a row that gives the caller defines its return address */
	if (cst_row_apply_plain(u, r->rung_row, &f->regs, &c->regs, &cfa, &frame_record, span_only) <= 0)
		return 0;
	uint64_t pc = c->regs.val[a->pc_reg];
	/* the stack check of cst_unwind_next, for an ordinary caller */
	uint64_t sp = cfa - a->stack_bias;
	struct caller_link *link;
	if (pc == 0 || sp <= f->sp || !(link = caller_link(r, pc)) || !link->plain)
		return 0;
	/* C's fields that the row's application did not write */
	c->pc = pc;
	c->sp = sp;
	c->found_by = rung_found_by(r, frame_record);
	c->marker = CST_MARK_NONE;
	c->signal_frame = false;
	c->note[0] = 0;
	return hand_out_linked(u, cfa, c, link->rec, out);
}

/* The rest of cst_unwind_next's step from F to its caller C, whose registers are found:
 * what the caller's return address (its record REC, reached by LINK; ORDINARY: F is not a
 * signal frame and has a record) and lookup address decide, the lost tail calls between
 * the two (F's facts FF, the rung's report STEP), and the frame handed out in OUT.  Not
 * inlined: most steps end before it, and their code stays small. */
static __attribute__((noinline)) int step_on(struct cst_unwind *u, struct cst_frame *f, struct cst_frame *c,
		struct cst_ra_record *rec, struct caller_link *link, bool ordinary, struct fn_facts ff,
		struct cst_step step, struct cst_frame *out)
{
	const struct cst_arch *a = u->env->arch;
	/* code no file backs (a JIT's), and a copy of a file's code outside its module, are
	 * code too: their frames are found by the frame-pointer chain, but they do not end a
	 * walk cleanly (end_at) */
	struct ra_facts rf = rec ? rec->ra_facts : ra_facts(u, c->pc);
	if (!rf.known) {
		const char *copy = NULL;
		bool anon = cst_target_anon_code(u->env->target, c->pc - 1);
		if (!anon && !(copy = cst_target_copied_code(u->env->target, c->pc - 1)))
			return stop(u, CST_STOP_NO_RULE, -CST_E_NO_FUNC,
				    "return address 0x%" PRIx64 " is outside every module", c->pc);
		if (!c->note[0] && anon)
			snprintf(c->note, sizeof c->note, "code no file backs (JIT or anonymous memory)");
		else if (!c->note[0])
			snprintf(c->note, sizeof c->note, "a copy of %s's code outside its module", copy);
	}

	/* A caller's return address may be the first byte of the next function: look it up one
	 * byte back, unless the frame below is a signal trampoline (the pc is exact). */
	c->lookup_pc = f->signal_frame ? c->pc : caller_lookup(a, c->pc);
	if (ff.fault_callee)
		c->lookup_pc = c->pc;   /* entered as if called at the faulting instruction */
	if (rf.signal_frame || rf.cfi_signal) {
		c->signal_frame = true;
		c->lookup_pc = c->pc;
	}
	/* the callee's CFA is known now; the caller's own only when its caller is found */
	c->callee_cfa = f->cfa;
	c->cfa = 0;
	if (rec && c->lookup_pc != rec->lookup)
		rec = NULL;             /* what it records of the lookup address is another's */
	struct cst_func caller;
	const struct cst_func *caller_fn;
	if (rec) {
		caller_fn = record_func(u, rec);
	} else {
		caller_fn = cst_unwind_func(u, c->lookup_pc, &caller) == 0 ? &caller : NULL;
	}
	/* Bounds guessed from the code's layout alone (entries.h) could make a piece of one
	 * function look like another: no lost tail call is searched there. */
	const struct cst_func *callee_fn = cur_func(u);
	bool plain = false;          /* the rest of the step is decided by the records alone */
	if ((callee_fn && callee_fn->uncertain) || (caller_fn && caller_fn->uncertain))
		snprintf(c->note, sizeof c->note,
			 "function bounds guessed from the code's layout: lost tail calls not searched");
	else if (!entered_callee(c, callee_fn, rec))
		find_lost_tail_calls(u, f, callee_fn, c, caller_fn, rec, step.caller_skipped, &plain);
	else
		plain = true;
	/* the next step from a frame at the callee's record to one at REC goes straight there */
	if (plain && ordinary && link && rec && rf.known && !c->signal_frame && !ff.fault_callee)
		link->plain = true;
	bool interrupted = f->signal_frame;
	u->cur = c;                    /* C is the current frame now */
	if (rec) {
		u->cur_fn_state = caller_fn ? 2 : -1;
	} else {
		if (caller_fn)
			u->cur_fn = caller;
		u->cur_fn_state = caller_fn ? 1 : -1;
	}
	u->cur_rec = rec;
	u->cur_is_context = interrupted;
	if (u->qlen == 0) {
		u->plain_rec = first_plain(u, rec);
		return emit(u, c, out);
	}
	u->cur_pending = true;     /* handed out after the frames inserted before it */
	return hand_out(u, out);
}

/* cst_unwind_next for every step but a plain one: not inlined, so that the plain step's
 * code stays small. */
static __attribute__((noinline)) int next_step(struct cst_unwind *u, struct cst_frame *out)
{
	const struct cst_arch *a = u->env->arch;
	unsigned max = u->max_frames;
	u->plain_rec = NULL;           /* set again when a frame is handed out */
	if (u->qlen > 0)
		return hand_out(u, out);
	if (u->cur_pending) {
		u->cur_pending = false;
		u->plain_rec = first_plain(u, u->cur_rec);
		return emit(u, cur_frame(u), out);
	}
	if (u->stop != CST_STOP_NONE)
		return finish(u);
	if (!u->started) {
		u->started = true;
		return emit(u, cur_frame(u), out);
	}
	if (u->nframes >= max)
		return stop(u, CST_STOP_LIMIT, -CST_E_LIMIT, "frame limit (%u) reached", max);

	/* a plain step whose saved registers are not all in the span */
	struct cst_ra_record *r = plain_record(u, u->cur_rec);
	if (r && plain_step(u, r, out, false, false))
		return 1;
	struct cst_step step = { .origin = NULL };
	u->stop_detail[0] = 0;
	struct fn_facts ff = cur_fn_facts(u);
	if (ff.outermost || (ff.stack_switch && !u->cur_is_context))
		return stop(u, CST_STOP_OUTERMOST, 0, NULL);
	cst_unwind_keep(u);            /* the strategies write the current frame (its CFA) */
	struct cst_frame *f = cur_frame(u), *c = next_frame(u);
	int rc = climb(u, f, u->cur_is_context, c, &step);
	if (rc == 0)
		return end_at(u, f);
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
	 * callee's is garbage, not the outermost frame.  A caller in the callee's register
	 * window (SPARC leaf context) keeps the callee's %sp. */
	if (c->sp <= f->sp && !f->signal_frame && !(step.same_sp && c->sp == f->sp))
		return stop(u, CST_STOP_SP, -CST_E_LIMIT,
			    "stack pointer did not grow (0x%" PRIx64 " after 0x%" PRIx64 ")", c->sp, f->sp);
	if (c->pc == 0)
		return end_at(u, f);
	/* the caller of an innermost frame whose function had no frame record at its pc */
	if (u->cur_is_context && !step.fp_record)
		c->marker = CST_MARK_RECOVERED_CALLER;
	struct caller_link *link;
	struct cst_ra_record *rec = caller_record(u, c->pc, &link);
	const bool ordinary = u->cur_rec && !f->signal_frame;
	if (ordinary && link && link->plain)
		return hand_out_linked(u, f->cfa, c, rec, out);
	return step_on(u, f, c, rec, link, ordinary, ff, step, out);
}

int cst_unwind_next(struct cst_unwind *u, struct cst_frame *out)
{
	/* most steps of a walk: a plain row and a plain link, decided before */
	struct cst_ra_record *r = u->plain_rec;
	if (r && plain_step(u, r, out, true, false))
		return 1;
	return next_step(u, out);
}

int cst_unwind_next_kept(struct cst_unwind *u, struct cst_frame *f)
{
	struct cst_ra_record *r = u->plain_rec;
	if (r && (f == u->cur ? plain_step(u, r, f, true, false) : plain_step(u, r, f, true, true)))
		return 1;
	return next_step(u, f);
}

void cst_unwind_env_free(struct cst_unwind_env *env)
{
	if (env->arch && env->arch->cache_free && env->arch_cache)
		env->arch->cache_free(env->arch_cache);
	env->arch_cache = NULL;
	cst_cfi_cache_free(env);
	cst_addrtaken_cache_free(env);
	addr_cache_free(env);
}

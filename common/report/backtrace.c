/* Walking and symbolizing one thread.  See backtrace.h. */
#include "backtrace.h"
#include "core.h"
#include "escape.h"
#include "error.h"
#include "jit.h"
#include "process.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The cursor's own budget for a walk of at most LIMIT printed frames: it guards against
 * hostile stacks, and leaves room for one real frame past LIMIT, which tells whether the
 * thread goes on. */
static unsigned cursor_budget(unsigned limit)
{
	if (limit == 0)
		return BT_MAX_FRAMES;
	return limit < BT_CURSOR_FRAMES ? BT_CURSOR_FRAMES : limit + 1;
}

/* Frame F's location, JIT map, anonymous code and copy into B, as the walk gives them to
 * the frame itself (its inlined functions aside); returns the count of its inline chain,
 * stored in CHAIN (16 entries).  Not inline: the walk's loop calls it for the frames its
 * cache does not hold. */
static __attribute__((noinline)) int locate(struct cst_unwind_env *env, const struct cst_frame *f,
					    struct bt_frame *b, struct cst_inline chain[16])
{
	int ninl = cst_symbols_frame(env->syms, f->lookup_pc, f->pc, &b->loc, chain, 16);
	b->jit_map = b->loc.module ? NULL : bt_jit_locate(env->jit, f->lookup_pc, f->pc, &b->loc);
	/* a signal trampoline known by its code but not by a symbol (glibc's SPARC
	 * __rt_sigreturn_stub is local): named as gdb names it */
	if (f->signal_frame && !b->loc.function)
		b->loc.function = "<signal handler called>";
	b->anon_code = !b->loc.module && !b->jit_map && cst_target_anon_code(env->target, f->lookup_pc);
	b->copy_of = !b->loc.module && !b->jit_map && !b->anon_code ?
		     cst_target_copied_code(env->target, f->lookup_pc) : NULL;
	return ninl;
}

/* The cache: ADDR_SETS sets of ADDR_WAYS slots, found by lookup address; a new address
 * replaces the slot of its set filled longest ago.  At most ADDR_SETS * ADDR_WAYS *
 * sizeof(struct addr_slot) bytes (about 250 KiB). */
#define ADDR_SETS 256
#define ADDR_WAYS 4

/* Entries of an inline chain kept with its frame: a function inlined into a caller that is
 * itself inlined, and rarely deeper, as glibc's system call wrappers are. */
#define ADDR_CHAIN 3

struct addr_slot {
	uint64_t lookup_pc, pc;
	uint64_t id;             /* bt_frame.located; 0: an empty slot */
	bool signal_frame;
	bool anon_code;
	uint8_t ninl;            /* locate's count of the inline chain: 1 none, else CHAIN's
				  * entries, the frame's own last */
	const char *jit_map, *copy_of;
	struct cst_location loc;
	struct cst_inline chain[ADDR_CHAIN];
};

struct bt_addrs {
	struct addr_slot slot[ADDR_SETS][ADDR_WAYS];
	unsigned next[ADDR_SETS];  /* the way a set's next new address replaces */
};

struct bt_addrs *bt_addrs_new(void)
{
	/* empty slots: a slot's other fields are written before they are read */
	struct bt_addrs *c = malloc(sizeof *c);
	for (size_t i = 0; c && i < ADDR_SETS; i++) {
		for (size_t w = 0; w < ADDR_WAYS; w++)
			c->slot[i][w].id = 0;
		c->next[i] = 0;
	}
	return c;
}

void bt_addrs_free(struct bt_addrs *c)
{
	free(c);
}

/* The last number given to an entry of a cache (bt_frame.located), in any cache of the
 * process: a frame's number stands for the same location in every cache of the process. */
static uint64_t last_located;

/* locate through cache C (NULL: none): what a frame of the same lookup address, pc and
 * kind (signal frame or not) was given before, with its inline chain when that has at most
 * ADDR_CHAIN entries; sets B->located (it stands for the frame's own location: the frames
 * of its inlined functions are made from CHAIN by the caller). */
static int locate_cached(struct cst_unwind_env *env, struct bt_addrs *c, const struct cst_frame *f,
			 struct bt_frame *b, struct cst_inline chain[16])
{
	b->located = 0;
	if (!c)
		return locate(env, f, b, chain);
	unsigned si = (unsigned)(cst_fib_hash(f->lookup_pc) >> 32) & (ADDR_SETS - 1);
	struct addr_slot *set = c->slot[si];
	for (struct addr_slot *s = set; s < set + ADDR_WAYS && s->id; s++)
		if (s->lookup_pc == f->lookup_pc && s->pc == f->pc && s->signal_frame == f->signal_frame) {
			b->loc = s->loc;
			b->jit_map = s->jit_map;
			b->anon_code = s->anon_code;
			b->copy_of = s->copy_of;
			b->located = s->id;
			if (s->ninl <= 1)
				return 0;
			memcpy(chain, s->chain, s->ninl * sizeof *chain);
			return s->ninl;
		}
	int ninl = locate(env, f, b, chain);
	if (ninl <= ADDR_CHAIN) {
		int frames = ninl > 1 ? ninl : 1;    /* the frame and its inlined functions */
		/* the numbers below the frame's own are its inlined functions' (bt_walk) */
		b->located = __atomic_add_fetch(&last_located, (uint64_t)frames, __ATOMIC_RELAXED);
		struct addr_slot *s = &set[c->next[si]++ % ADDR_WAYS];
		*s = (struct addr_slot){
			.lookup_pc = f->lookup_pc, .pc = f->pc, .id = b->located, .signal_frame = f->signal_frame,
			.anon_code = b->anon_code, .jit_map = b->jit_map, .copy_of = b->copy_of, .loc = b->loc,
			.ninl = (uint8_t)frames,
		};
		if (ninl > 1)
			memcpy(s->chain, chain, (size_t)ninl * sizeof *chain);
	}
	return ninl;
}

int bt_walk(struct cst_unwind_env *env, const struct cst_regs *regs, unsigned limit,
	    struct bt_thread *t)
{
	struct cst_unwind u;
	t->arch = env->arch;
	t->n = 0;
	t->limited = false;
	size_t cap = t->frames ? t->cap : 0;
	unsigned budget = env->max_frames;
	env->max_frames = cursor_budget(limit);
	int rc = cst_unwind_start(&u, env, regs);
	if (rc < 0) {
		env->max_frames = budget;
		t->rc = rc;
		snprintf(t->stop, sizeof t->stop, "no registers for this thread");
		return 0;
	}
	struct cst_inline chain[16];
	size_t keep = limit ? limit : SIZE_MAX;   /* frames kept */
	/* the thread's frames and their count kept in locals: every store through a frame
	 * could otherwise change them, as far as the compiler knows */
	struct bt_frame *frames = t->frames;
	size_t n = 0;
	size_t real_start = 0, real_end = 0;  /* the last real frame and its inlined frames */
	/* the cursor builds each frame in the thread's next slot, with room for the frames
	 * of the functions inlined into it, which go before it, and goes on from it there
	 * (cst_unwind_next_kept): it takes the frame back before the frames move; a frame's
	 * number is its index */
	for (;;) {
		if (n + 16 + 1 > cap) {
			cst_unwind_keep(&u);
			cap = cap ? 2 * cap : 32;
			struct bt_frame *p = realloc(frames, cap * sizeof *p);
			if (!p) {
				env->max_frames = budget;
				t->n = n;
				return -CST_E_NOMEM;
			}
			t->frames = frames = p;
			t->cap = cap;
		}
		struct cst_frame *f = &frames[n].f;
		if ((rc = cst_unwind_next_kept(&u, f)) <= 0)
			break;
		/* a frame's CFA is found with its caller: it comes as the caller's callee_cfa,
		 * for the frame and the functions inlined into it (a lost tail call has none) */
		bool real = !cst_found_inserted(f->found_by);
		if (real && f->callee_cfa)
			for (size_t k = real_start; k < real_end; k++)
				frames[k].f.cfa = f->callee_cfa;
		if (!real)
			f->cfa = 0;      /* a real frame comes with none */
		/* past the limit, frames are walked up to the next real one, for the CFA of the
		 * frames before it, and not kept */
		if (n >= keep) {
			t->limited = true;
			if (real)
				break;
			continue;
		}
		/* the frame's location straight into its slot: the cursor's frame is moved after
		 * its inlined functions when it has some */
		struct bt_frame *b = &frames[n];
		size_t first = n;
		int ninl = locate_cached(env, t->addrs, f, b, chain);
		if (ninl > 1) {
			cst_unwind_keep(&u);
			struct bt_frame *own = &frames[n + (size_t)ninl - 1];
			cst_frame_copy(&own->f, &b->f);
			own->loc = b->loc;
			own->jit_map = b->jit_map;
			own->anon_code = b->anon_code;
			own->copy_of = b->copy_of;
			own->located = b->located;
			b = own;
			f = &own->f;
			/* inlined functions first, each a frame of its own at the same pc */
			for (int i = 0; i + 1 < ninl; i++) {
				struct bt_frame *in = &frames[n++];
				cst_frame_copy(&in->f, f);
				in->f.marker = CST_MARK_NONE;
				in->loc = b->loc;
				in->loc.function = chain[i].function;
				in->loc.symbol = chain[i].symbol;
				in->loc.offset = 0;
				in->loc.file = chain[i].file;
				in->loc.line = chain[i].line;
				in->inlined = true;
				in->number = (unsigned)(n - 1);
				in->jit_map = NULL;
				in->anon_code = false;
				in->copy_of = NULL;
				/* the I-th inlined function of an entry has a number of its own */
				in->located = b->located ? b->located - (uint64_t)(ninl - 1 - i) : 0;
			}
			b->loc.file = chain[ninl - 1].file;
			b->loc.line = chain[ninl - 1].line;
		}
		b->inlined = false;
		b->number = (unsigned)n++;
		if (real) {
			real_start = first;
			real_end = n;
		}
	}
	t->n = n;
	env->max_frames = budget;
	if (limit && t->n > limit) {
		t->n = limit;               /* the limit fell among a frame's inlined functions */
		t->limited = true;
	}
	if (t->limited) {
		t->rc = -CST_E_LIMIT;
		snprintf(t->stop, sizeof t->stop, "frame limit (%u) reached", limit);
		return 0;
	}
	t->rc = rc;
	const struct bt_frame *last = t->n ? &t->frames[t->n - 1] : NULL;
	if (rc < 0 && last && last->loc.module && last->loc.no_file) {
		/* without the file there is no CFI: what failed next was a guess */
		char esc[256];
		snprintf(t->stop, sizeof t->stop, "no unwind information for frame #%u: its file %s %s",
			 last->number, cst_esc(last->loc.module, esc, sizeof esc),
			 last->loc.mismatch ? "has another build-id than the core records" : "could not be read");
	} else {
		/* cut as snprintf would, without its cost on every thread */
		const char *why = cst_unwind_stop_reason(&u);
		size_t n = strnlen(why, sizeof t->stop - 1);
		memcpy(t->stop, why, n);
		t->stop[n] = 0;
	}
	return 0;
}

/* The two hex digits of each byte value, for bt_hex */
#define HEX_DIGIT(d) ((d) < 10 ? '0' + (d) : 'a' + (d) - 10)
#define HEX_PAIR(b) HEX_DIGIT((b) >> 4), HEX_DIGIT((b) & 15)
#define HEX_PAIRS4(b) HEX_PAIR(b), HEX_PAIR((b) + 1), HEX_PAIR((b) + 2), HEX_PAIR((b) + 3)
#define HEX_PAIRS16(b) HEX_PAIRS4(b), HEX_PAIRS4((b) + 4), HEX_PAIRS4((b) + 8), HEX_PAIRS4((b) + 12)
#define HEX_PAIRS64(b) HEX_PAIRS16(b), HEX_PAIRS16((b) + 16), HEX_PAIRS16((b) + 32), HEX_PAIRS16((b) + 48)
static const char hex_pairs[512] = {
	HEX_PAIRS64(0), HEX_PAIRS64(64), HEX_PAIRS64(128), HEX_PAIRS64(192),
};

const char *bt_hex(char buf[BT_HEX_SIZE], uint64_t v, int width, int *len)
{
	/* the digits V needs, at least WIDTH and at most 16, written backwards from the end
	 * two at a time: the value's zero digits above its highest pad it */
	int n = (64 - __builtin_clzll(v | 1) + 3) / 4;
	if (n < width)
		n = width < BT_HEX_SIZE - 2 ? width : BT_HEX_SIZE - 2;
	char *p = buf + BT_HEX_SIZE;
	for (int i = 0; i < n / 2; i++, v >>= 8) {
		p -= 2;
		memcpy(p, &hex_pairs[2 * (v & 0xff)], 2);
	}
	if (n & 1)
		*--p = hex_pairs[2 * (v & 15) + 1];
	*--p = 'x';
	*--p = '0';
	*len = n + 2;
	return p;
}

void bt_thread_free(struct bt_thread *t)
{
	free(t->frames);
	t->frames = NULL;
	t->n = 0;
	t->cap = 0;
}

void bt_process_from(struct bt_process *p, struct cst_process *proc, const char *path)
{
	*p = (struct bt_process){
		.core = path, .executable = cst_process_executable(proc), .arch = cst_process_arch(proc),
		.pid = cst_process_pid(proc),
	};
	struct cst_core *core = cst_process_core(proc);
	if (!core)
		return;
	const struct cst_core_signal *sig = cst_core_signal(core);
	const struct cst_core_thread *first = cst_core_thread(core, 0);
	p->fname = cst_core_fname(core);
	p->not_crash = !cst_core_is_crash(core);
	p->psargs = cst_core_psargs(core);
	if (sig->present) {
		p->has_signal = true;
		p->signo = sig->signo;
		p->code = sig->code;
		p->has_addr = sig->has_addr;
		p->addr = sig->addr;
		p->has_sender = sig->has_sender;
		p->sender_pid = sig->sender_pid;
		p->sender_uid = sig->sender_uid;
	} else if (first->cursig) {
		p->has_signal = true;
		p->signo = first->cursig;
	}
}

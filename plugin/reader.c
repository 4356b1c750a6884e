/* corestack-gdb.so: a gdb JIT reader (gdb/jit-reader.h) that unwinds with common/'s cursor.
 *
 * gdb asks the reader to unwind every frame before its own CFI unwinder.  The reader claims
 * a frame only where its rules are exact and gdb's are not better: code without CFI whose
 * caller the instruction analysis or the frame record finds.  Everything else is left to gdb
 * (GDB_FAIL), and so is every frame when the inferior is unknown, of an architecture the
 * reader does not know gdb's register numbers for, or when anything fails to read.
 *
 * The same unwind call serves the `fpbt` command (fpbt.h): the first call after a request
 * carries frame 0's registers; the whole walk is done then, with gdb's memory, and written
 * for gdb to print.  fpbt adds no frames to gdb's frame cache, so the frames of lost tail
 * calls exist only in its output and `finish`, `next` and `step` never see them. */
#include <gdb/jit-reader.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backtrace.h"
#include "error.h"
#include "escape.h"
#include "fpbt.h"
#include "gdb_target.h"
#include "inferior.h"
#include "remote.h"

GDB_DECLARE_GPL_COMPATIBLE_READER

/* gdb's number of cst_regs register R (the architecture's gdb_regs table), or -1. */
static int gdb_regnum(const struct cst_arch *a, int r)
{
	for (int i = 0; i < a->n_gdb_regs; i++)
		if (a->gdb_regs[i].dwarf == r)
			return a->gdb_regs[i].gdb;
	return -1;
}

/* A frame id's stack address from a %sp value: the V9 stack bias added to an odd (biased)
 * %sp, as gdb's sparc64 unwinders build their ids (the notes on gdb 13's JIT reader: its
 * DWARF unwinder reports a caller's %sp unbiased). */
static uint64_t normal_sp(const struct cst_arch *a, uint64_t sp)
{
	return a->stack_bias && (sp & 1) ? sp + a->stack_bias : sp;
}

/* Frame ids of the frames claimed, by the frame's own pc, sp and fp: gdb asks for the id
 * after the unwind call, with the same registers. */
struct claimed {
	uint64_t pc, sp, fp;
	struct gdb_frame_id id;
};
#define NCLAIMED 64

/* The reader's state, reached through gdb_reader_funcs.priv_data: the inferior and the
 * frame ids of the frames claimed last. */
struct reader {
	struct cst_inferior inf;
	struct claimed ids[NCLAIMED];
	unsigned next_id;
};

/* Reads registers 0..nregs-1 of the frame being unwound into R; pc and sp are required.
 * Register 0 comes first: if gdb's architecture is not the inferior's as found (a remote
 * target beside a traced process), its size differs and no other number is asked for. */
static int read_regs(struct gdb_unwind_callbacks *cb, const struct cst_arch *a, struct cst_regs *r)
{
	cst_regs_clear(r);
	for (int i = 0; i < a->n_gdb_regs; i++) {
		uint64_t v;
		int rc = cst_gdb_reg_get(cb, a->gdb_regs[i].gdb, a->addr_size, a->big_endian, &v);
		if (rc == 0)
			cst_reg_set(r, a->gdb_regs[i].dwarf, v);
		else if (rc == -CST_E_ARCH)
			return rc;
	}
	return a->n_gdb_regs > 0 && cst_reg_valid(r, a->pc_reg) && cst_reg_valid(r, a->sp_reg) ? 0 : -CST_E_INVAL;
}

/* What names the inferior's memory for cst_gdb_target_init when it cannot change: a core
 * file (its device, inode and mtime, and the image opened from it), else 0. */
static uint64_t memory_id(const struct cst_inferior *inf)
{
	if (inf->kind != CST_INF_CORE)
		return 0;
	uint64_t h = 1469598103934665603u;
	const uint64_t parts[] = { (uint64_t)inf->gdb_fd_dev, (uint64_t)inf->gdb_fd_ino,
				   (uint64_t)inf->gdb_fd_mtime.tv_sec, (uint64_t)inf->gdb_fd_mtime.tv_nsec,
				   (uint64_t)(uintptr_t)inf->proc };
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		h = (h ^ parts[i]) * 1099511628211u;
	return h ? h : 1;
}

/* ---- fpbt --------------------------------------------------------------------------- */

static void fpbt_answer_walk(struct reader *r, const struct cst_fpbt_request *rq,
			     const struct cst_regs *regs)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (!out)
		return;
	struct cst_unwind_env *env = cst_process_env(r->inf.proc);
	struct bt_thread t = { 0 };
	/* `fpbt 0` prints no frame, as gdb's `bt 0`: one is walked to tell whether any follow */
	unsigned limit = !rq->counted ? 0 : rq->max_frames ? rq->max_frames : 1;
	if (bt_walk(env, regs, limit, &t) < 0) {
		fputs("corestack: out of memory\n", out);
	} else {
		struct bt_options o = { .verbose = rq->verbose, .color = false };
		bt_print_first_text(out, &t, rq->counted, rq->max_frames, &o);
	}
	bt_thread_free(&t);
	if (fclose(out) == 0)
		cst_fpbt_answer(rq->seq, text);
	free(text);
}

/* An error line: ARG escaped (escape.h), as it can name a file of the core or of a remote
 * target; cut to one line of 255 bytes at most. */
static void fpbt_answer_error(unsigned long seq, const char *fmt, const char *arg)
{
	char line[256], esc[256];
	int n = snprintf(line, sizeof line, fmt, cst_esc(arg, esc, sizeof esc));
	if (n < 0)
		return;
	if ((size_t)n > sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n] = '\n';
	line[n + 1] = 0;
	cst_fpbt_answer(seq, line);
}

/* ---- claiming a frame --------------------------------------------------------------- */

struct claim {
	struct cst_regs caller;
	struct gdb_frame_id id;
};

/* Decides whether the reader's rules are exact for the frame whose registers are REGS.
 * Returns 0 with C filled, or -1: gdb's own unwinders take the frame. */
static int decide(struct reader *r, const struct cst_regs *regs, struct claim *c)
{
	struct cst_unwind_env *env = cst_process_env(r->inf.proc);
	const struct cst_arch *a = env->arch;
	uint64_t pc = 0, sp = 0;
	cst_reg_get(regs, a->pc_reg, &pc);
	cst_reg_get(regs, a->sp_reg, &sp);
	if (pc == 0 || !env->syms || !cst_symbols_in_module(env->syms, pc))
		return -1;
	bool context = cst_inferior_is_context(&r->inf, pc, sp);
	uint64_t lookup = context ? pc : pc - 1;

	/* Code with CFI: gdb's DWARF unwinder follows the same CFI and builds the same ids. */
	if (cst_symbols_cfi_cached(env->syms, lookup, NULL))
		return -1;
	struct cst_unwind u;
	if ((context ? cst_unwind_start(&u, env, regs) : cst_unwind_start_caller(&u, env, regs)) < 0)
		return -1;
	struct cst_func fn;
	bool have_fn = cst_unwind_func(&u, lookup, &fn) == 0;
	if (!context) {
		/* a caller's pc must be a return address, or the frame is something else (a
		 * signal's interrupted frame, a frame gdb made up): not ours */
		struct cst_call_site site;
		if (!a->call_before || a->call_before(&u, have_fn ? &fn : NULL, pc, &site) < 0)
			return -1;
	}
	struct cst_frame f;
	if (cst_unwind_next(&u, &f) != 1)
		return -1;
	int rc;
	while ((rc = cst_unwind_next(&u, &f)) == 1 && f.marker == CST_MARK_LOST_TAIL_CALL)
		;
	if (rc != 1 || (f.found_by != CST_FOUND_FP && f.found_by != CST_FOUND_PROLOGUE))
		return -1;
	c->caller = f.regs;
	/* gdb's ids: {CFA, function entry as gdb's symbols give it, 0 without a symbol}; the CFA
	 * is the caller's sp on x86-64 (psABI: the value of %rsp before the call), the caller's
	 * %sp plus the stack bias on sparc64 (its frame base: this frame's %fp after `save`, its
	 * %sp before) */
	c->id.stack_address = normal_sp(a, f.sp);
	c->id.code_address = have_fn && fn.name ? fn.start : 0;
	return 0;
}

static void remember(struct reader *r, const struct cst_regs *regs, const struct gdb_frame_id *id)
{
	const struct cst_arch *a = r->inf.arch;
	struct claimed *k = &r->ids[r->next_id++ % NCLAIMED];
	memset(k, 0, sizeof *k);
	cst_reg_get(regs, a->pc_reg, &k->pc);
	cst_reg_get(regs, a->sp_reg, &k->sp);
	cst_reg_get(regs, a->fp_reg, &k->fp);
	k->id = *id;
}

/* Answers a waiting fpbt request with an error line. */
static void fpbt_fail(bool request, const char *fmt, const char *arg)
{
	struct cst_fpbt_request rq;
	if (request && cst_fpbt_take(&rq) == 0)
		fpbt_answer_error(rq.seq, fmt, arg);
}

/* A remote target: gdb tells the plugin neither the program nor the stop, so before the
 * walk the fpbt command runs the plugin's commands in pre.gdb.  They write the program of
 * `info inferiors` to `program` (the one process they spawn, on a remote target only) and
 * the sysroot to `sysroot`, set `stage` to "located" and ask for frame 0 again, then
 * source flush.gdb: on SPARC, the commands that flush the register windows.  qemu-user keeps
 * the register windows of the callers in its register file, not in their save areas on the
 * stack, and gdb shows only the current window; the selected thread runs one `flushw` (which
 * spills them, as the kernel does before a core dump or a signal): frame 0's pc and npc
 * point at a flushw of the program's modules, it is stepped with the other threads stopped,
 * pc and npc are restored, `stage` becomes "flushed" and frame 0 is asked for again.  Their
 * own output is discarded. */
static void write_locate_script(unsigned long seq)
{
	char script[1024];
	snprintf(script, sizeof script,
		 "pipe info inferiors | sed -n '/^\\*/{s|^[^/]*||;s| *$||;p;q}' > /proc/$PPID/fd/%d/program\n"
		 "dump binary value /proc/self/fd/%d/sysroot $_gdb_setting_str(\"sysroot\")\n"
		 "with language c -- dump binary value /proc/self/fd/%d/stage \"%lu located\"\n"
		 "maintenance flush register-cache\n"
		 "frame apply level 0 -q -s echo\n"
		 "source /proc/self/fd/%d/flush.gdb\n",
		 CST_FPBT_FD, CST_FPBT_FD, CST_FPBT_FD, seq, CST_FPBT_FD);
	cst_fpbt_commands("flush.gdb", seq, "");
	cst_fpbt_set_stage(seq, "locating");
	cst_fpbt_commands("pre.gdb", seq, script);
}

static void write_flush_script(unsigned long seq, uint64_t flushw)
{
	char script[2048];
	snprintf(script, sizeof script,
		 "select-frame 0\n"
		 "set $_corestack_pc = $pc\n"
		 "set $_corestack_npc = $npc\n"
		 "set $pc = %#llx\n"
		 "set $npc = %#llx\n"
		 "set $_corestack_n = 0\n"
		 "while $pc == %#llx && $_corestack_n < 16\n"
		 "  pipe with scheduler-locking on -- stepi | cat > /dev/null\n"
		 "  set $_corestack_n = $_corestack_n + 1\n"
		 "end\n"
		 "set $pc = $_corestack_pc\n"
		 "set $npc = $_corestack_npc\n"
		 "with language c -- dump binary value /proc/self/fd/%d/stage \"%lu flushed\"\n"
		 "maintenance flush register-cache\n"
		 "frame apply level 0 -q -s echo\n",
		 (unsigned long long)flushw, (unsigned long long)flushw + 4, (unsigned long long)flushw,
		 CST_FPBT_FD, seq);
	cst_fpbt_set_stage(seq, "flushing");
	cst_fpbt_commands("flush.gdb", seq, script);
}

/* For request SEQ on a remote target: true when the commands that prepare the walk have run
 * (the program is located, the windows flushed), else writes the next of them and returns
 * false.  USABLE: the inferior is open (its flushw known). */
static bool remote_ready(struct reader *r, unsigned long seq, bool usable)
{
	char stage[32];
	cst_fpbt_stage(seq, stage, sizeof stage);
	if (stage[0] == 0) {
		write_locate_script(seq);
		return false;
	}
	if (strcmp(stage, "locating") == 0 || strcmp(stage, "flushing") == 0)
		return false;            /* the unwinds their own commands make */
	if (strcmp(stage, "located") == 0 && usable && r->inf.flushw) {
		write_flush_script(seq, r->inf.flushw);
		return false;
	}
	return true;
}

static enum gdb_status reader_unwind(struct gdb_reader_funcs *self, struct gdb_unwind_callbacks *cb)
{
	struct reader *r = self->priv_data;
	unsigned long request = cst_fpbt_pending();
	if (!r) {
		fpbt_fail(request, "%s", "corestack: out of memory");
		return GDB_FAIL;
	}
	struct cst_target memory;
	cst_gdb_target_init_direct(&memory, cb->target_read, false);
	int updated = cst_inferior_update(&r->inf, &memory);
	if (updated < 0 && request && r->inf.no_local && !remote_ready(r, request, false))
		return GDB_FAIL;
	if (updated < 0) {
		fpbt_fail(request, "corestack: %s", r->inf.why);
		return GDB_FAIL;
	}
	const struct cst_arch *a = r->inf.arch;
	if (a->n_gdb_regs == 0) {
		fpbt_fail(request, "corestack: no gdb register numbers known for %s", a->name);
		return GDB_FAIL;
	}
	struct cst_regs regs;
	if (read_regs(cb, a, &regs) < 0) {
		fpbt_fail(request, "%s", "corestack: gdb gave no pc or sp for frame 0");
		return GDB_FAIL;
	}
	struct cst_target target;
	cst_gdb_target_init(&target, cb->target_read, a->big_endian, memory_id(&r->inf),
			    cst_inferior_code_facts(&r->inf));
	if (r->inf.kind == CST_INF_REMOTE) {
		char sysroot[4096];
		if (cst_fpbt_read_file("sysroot", sysroot, sizeof sysroot) < 0 || sysroot[0] != '/')
			sysroot[0] = 0;
		if (cst_remote_modules(&r->inf, &target, sysroot) < 0) {
			fpbt_fail(request, "corestack: %s", r->inf.why);
			return GDB_FAIL;
		}
		if (request && !remote_ready(r, request, true))
			request = 0;        /* answered after the commands of pre.gdb */
	}
	cst_process_set_target(r->inf.proc, &target);
	struct cst_fpbt_request rq;
	if (request && cst_fpbt_take(&rq) == 0) {
		if (rq.error[0])
			fpbt_answer_error(rq.seq, "%s", rq.error);
		else
			fpbt_answer_walk(r, &rq, &regs);
	}

	struct claim c;
	enum gdb_status st = GDB_FAIL;
	if (decide(r, &regs, &c) == 0) {
		for (int i = 0; i < a->n_gdb_regs; i++) {
			const struct cst_gdb_reg *g = &a->gdb_regs[i];
			uint64_t v;
			if (cst_reg_get(&c.caller, g->dwarf, &v)) {
				cst_gdb_reg_set(cb, g->gdb, a->addr_size, a->big_endian, v);
				/* the caller resumes at its pc, then the next word (no delay slot pending) */
				if (a->gdb_npc && g->dwarf == a->pc_reg)
					cst_gdb_reg_set(cb, a->gdb_npc, a->addr_size, a->big_endian, v + 4);
			}
		}
		remember(r, &regs, &c.id);
		st = GDB_SUCCESS;
	}
	cst_process_set_target(r->inf.proc, NULL);
	return st;
}

static struct gdb_frame_id reader_frame_id(struct gdb_reader_funcs *self, struct gdb_unwind_callbacks *cb)
{
	struct gdb_frame_id none = { 0, 0 };
	struct reader *r = self->priv_data;
	const struct cst_arch *a = r ? r->inf.arch : NULL;
	if (!a || !r->inf.proc || a->n_gdb_regs == 0)
		return none;
	uint64_t pc = 0, sp = 0, fp = 0;
	if (cst_gdb_reg_get(cb, 0, a->addr_size, a->big_endian, &pc) == -CST_E_ARCH)
		return none;
	cst_gdb_reg_get(cb, gdb_regnum(a, a->pc_reg), a->addr_size, a->big_endian, &pc);
	cst_gdb_reg_get(cb, gdb_regnum(a, a->sp_reg), a->addr_size, a->big_endian, &sp);
	cst_gdb_reg_get(cb, gdb_regnum(a, a->fp_reg), a->addr_size, a->big_endian, &fp);
	for (unsigned i = 0; i < NCLAIMED; i++) {
		const struct claimed *k = &r->ids[(r->next_id - 1 - i) % NCLAIMED];
		if (k->pc == pc && k->sp == sp && k->fp == fp && (k->pc || k->sp))
			return k->id;
	}
	/* not remembered (evicted): decide again with these registers */
	struct cst_regs regs;
	struct claim c;
	struct cst_target target;
	if (read_regs(cb, a, &regs) < 0)
		return none;
	cst_gdb_target_init(&target, cb->target_read, a->big_endian, memory_id(&r->inf),
			    cst_inferior_code_facts(&r->inf));
	cst_process_set_target(r->inf.proc, &target);
	int rc = decide(r, &regs, &c);
	cst_process_set_target(r->inf.proc, NULL);
	if (rc == 0) {
		remember(r, &regs, &c.id);
		return c.id;
	}
	none.stack_address = normal_sp(a, sp);
	none.code_address = pc;
	return none;
}

static enum gdb_status reader_read(struct gdb_reader_funcs *self, struct gdb_symbol_callbacks *cb,
				   void *memory, long memory_sz)
{
	return GDB_FAIL;         /* no JIT debug-info format of its own */
}

static void reader_destroy(struct gdb_reader_funcs *self)
{
	struct reader *r = self->priv_data;
	if (r)
		cst_inferior_close(&r->inf);
	free(r);
	self->priv_data = NULL;
	cst_fpbt_close();
}

static struct gdb_reader_funcs funcs = {
	.reader_version = GDB_READER_INTERFACE_VERSION,
	.priv_data = NULL,
	.read = reader_read,
	.unwind = reader_unwind,
	.get_frame_id = reader_frame_id,
	.destroy = reader_destroy,
};

/* gdb does not call destroy when it exits; the fpbt directory goes when the library is
 * unloaded at exit. */
__attribute__((destructor)) static void reader_at_exit(void)
{
	cst_fpbt_close();
}

struct gdb_reader_funcs *gdb_init_reader(void)
{
	/* without memory for it every unwind call leaves the frame to gdb */
	funcs.priv_data = calloc(1, sizeof(struct reader));
	cst_fpbt_open();
	return &funcs;
}

/* The shell's commands about threads and frames: bt, threads, thread, frame, up, down,
 * info frame, info registers, info sharedlibrary.  Frames are printed by text.c, in the
 * CLI's format. */
#include "shell_int.h"
#include "escape.h"
#include "process.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Parses a decimal count at *S (after blanks) into *V and advances *S.  Returns 1 with a
 * number, 0 when there is none, -1 when it is malformed or above MAX. */
static int parse_count(const char **s, long max, long *v)
{
	const char *p = *s;
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return 0;
	char *end;
	long n = strtol(p, &end, 10);
	if (end == p || (*end && !isspace((unsigned char)*end)) || n < -max || n > max)
		return -1;
	*s = end;
	*v = n;
	return 1;
}

/* A single optional count argument: *V keeps its value when ARGS is empty. */
static int one_count(struct shell *sh, const char *cmd, const char *args, long *v)
{
	long n;
	int rc = parse_count(&args, 1000000, &n);
	if (rc < 0 || (rc > 0 && *args && strspn(args, " \t") != strlen(args)))
		return shell_error(sh, "%s: \"%s\" is not a number", cmd, args);
	if (rc > 0)
		*v = n;
	return rc;
}

int cmd_bt(struct shell *sh, const char *args)
{
	struct bt_options o = sh->bt;
	long limit = 0;
	bool counted = false;
	char word[64];
	for (const char *p = args; *p;) {
		p += strspn(p, " \t");
		size_t n = strcspn(p, " \t");
		if (!n)
			break;
		snprintf(word, sizeof word, "%.*s", (int)n, p);
		const char *w = word;
		if (strcmp(word, "-v") == 0 || strcmp(word, "-verbose") == 0)
			o.verbose = true;
		else if (parse_count(&w, 1000000, &limit) <= 0)
			return shell_error(sh, "backtrace: \"%s\" is neither a frame count nor -v", word);
		else
			counted = true;
		p += n;
	}
	struct bt_thread *t = shell_thread(sh);
	struct bt_thread view = *t;
	if (limit < 0) {
		counted = false;
		if ((size_t)-limit < t->n) {
			view.frames += t->n - (size_t)-limit;   /* the outermost -LIMIT frames, as gdb's bt -N */
			view.n = (size_t)-limit;
		}
	}
	bt_print_thread_header_text(sh->out, &view, &o);
	bt_print_first_text(sh->out, &view, counted, counted ? (size_t)limit : 0, &o);
	return 0;
}

static void thread_line(struct shell *sh, size_t i)
{
	const struct bt_thread *t = shell_thread_at(sh, i);
	fprintf(sh->out, "%c %-4zu %-8d ", i == sh->cur_thread ? '*' : ' ', i + 1, t->tid);
	if (t->crashed)
		fprintf(sh->out, "(crashed: %s) ", cst_signal_name(t->arch, t->cursig));
	struct bt_options o = sh->bt;
	o.verbose = false;
	if (t->n)
		bt_print_frame_text(sh->out, &t->frames[0], &o);
	else
		fprintf(sh->out, "(no frames: %s)\n", t->stop);
}

int cmd_threads(struct shell *sh, const char *args)
{
	fprintf(sh->out, "  Id   Tid\n");
	for (size_t i = 0; i < sh->nthreads; i++)
		thread_line(sh, i);
	return 0;
}

static void show_frame(struct shell *sh)
{
	const struct bt_frame *f = shell_frame(sh);
	struct bt_options o = sh->bt;
	o.verbose = false;
	if (f)
		bt_print_frame_text(sh->out, f, &o);
	else
		fprintf(sh->out, "No frames: %s\n", shell_thread(sh)->stop);
}

int cmd_thread(struct shell *sh, const char *args)
{
	long n = 0;
	int rc = one_count(sh, "thread", args, &n);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		fprintf(sh->out, "[Current thread is %zu (tid %d)]\n", sh->cur_thread + 1,
			shell_tid(sh, sh->cur_thread));
		return 0;
	}
	if (n < 1 || (size_t)n > sh->nthreads)
		return shell_error(sh, "Invalid thread ID: %ld (threads are 1 to %zu)", n, sh->nthreads);
	sh->cur_thread = (size_t)n - 1;
	sh->cur_frame = 0;
	fprintf(sh->out, "[Switching to thread %ld (tid %d)]\n", n, shell_tid(sh, sh->cur_thread));
	show_frame(sh);
	return 0;
}

/* Selects frame N of the current thread and prints it. */
static int select_frame(struct shell *sh, long n)
{
	const struct bt_thread *t = shell_thread(sh);
	if (n < 0 || (size_t)n >= t->n)
		return shell_error(sh, "No frame at level %ld.", n);
	sh->cur_frame = (unsigned)n;
	show_frame(sh);
	return 0;
}

int cmd_frame(struct shell *sh, const char *args)
{
	long n = sh->cur_frame;
	return one_count(sh, "frame", args, &n) < 0 ? -1 : select_frame(sh, n);
}

int cmd_up(struct shell *sh, const char *args)
{
	long n = 1;
	if (one_count(sh, "up", args, &n) < 0)
		return -1;
	const struct bt_thread *t = shell_thread(sh);
	if (t->n == 0 || sh->cur_frame + n >= (long)t->n)
		return shell_error(sh, "Initial frame selected; you cannot go up.");
	return select_frame(sh, sh->cur_frame + n);
}

int cmd_down(struct shell *sh, const char *args)
{
	long n = 1;
	if (one_count(sh, "down", args, &n) < 0)
		return -1;
	if ((long)sh->cur_frame - n < 0)
		return shell_error(sh, "Bottom (innermost) frame selected; you cannot go down.");
	return select_frame(sh, sh->cur_frame - n);
}

/* ---- info frame -------------------------------------------------------------------- */

/* One register of a frame and where its value came from (O: cst_unwind_explain's). */
static void origin_line(struct shell *sh, const struct cst_frame *f, const struct cst_reg_origin *o,
			int r, uint64_t cfa)
{
	const struct cst_arch *a = sh->env->arch;
	uint64_t v;
	if (!cst_reg_get(&f->regs, r, &v))
		return;
	fprintf(sh->out, "  %-4s 0x%016" PRIx64 "  ", a->reg_names[r], v);
	uint64_t w = o->where[r];
	switch ((enum cst_reg_how)o->how[r]) {
	case CST_REG_CONTEXT:  fputs("from the thread's registers (the core's NT_PRSTATUS)", sh->out); break;
	case CST_REG_SAME:     fputs("same value as in the callee", sh->out); break;
	case CST_REG_CFA:      fputs("= the callee's CFA", sh->out); break;
	case CST_REG_COMPUTED: fputs("computed by a CFI expression", sh->out); break;
	case CST_REG_SAVED:
		fprintf(sh->out, "saved at 0x%" PRIx64, w);
		if (cfa)
			fprintf(sh->out, " (CFA%+" PRId64 ")", (int64_t)(w - cfa));
		break;
	case CST_REG_UNKNOWN:  fputs("recovered (rule not recorded)", sh->out); break;
	}
	fputc('\n', sh->out);
}

/* The frame holding the registers of frame I (I itself, or the frame an inlined function
 * was inlined into), and the next real caller after it (not a lost tail call).  Returns
 * the caller's index or -1. */
static long real_caller(const struct bt_thread *t, size_t i, size_t *real)
{
	while (i < t->n && t->frames[i].inlined)
		i++;
	*real = i;
	for (size_t k = i + 1; k < t->n; k++)
		if (!t->frames[k].inlined && !cst_found_inserted(t->frames[k].f.found_by))
			return (long)k;
	return -1;
}

/* The frame that real frame I was unwound from: the previous frame that is neither inlined
 * nor a lost tail call; NULL for the first. */
static const struct cst_frame *real_callee(const struct bt_thread *t, size_t i)
{
	while (i-- > 0)
		if (!t->frames[i].inlined && !cst_found_inserted(t->frames[i].f.found_by))
			return &t->frames[i].f;
	return NULL;
}

int cmd_info_frame(struct shell *sh, const char *args)
{
	const struct bt_thread *t = shell_thread(sh);
	const struct bt_frame *b = shell_frame(sh);
	if (!b)
		return shell_error(sh, "No stack.");
	const struct cst_arch *a = sh->env->arch;
	const struct cst_frame *f = &b->f;
	char e1[1024];
	size_t ri;
	long ci = real_caller(t, sh->cur_frame, &ri);
	/* this frame's CFA: what its caller's registers were recovered with */
	bool tail = cst_found_inserted(f->found_by);
	struct cst_reg_origin own, callers;
	memset(&callers, 0, sizeof callers);
	if (ci >= 0 && !tail)
		cst_unwind_explain(sh->env, &t->frames[ri].f, &t->frames[ci].f, &callers);
	uint64_t cfa = callers.callee_cfa;
	if (tail)
		fprintf(sh->out, "Stack level %u (a lost tail call: no frame of its own on the stack):\n",
			b->number);
	else if (cfa)
		fprintf(sh->out, "Stack level %u, frame at 0x%" PRIx64 ":\n", b->number, cfa);
	else
		fprintf(sh->out, "Stack level %u (CFA not known: the walk did not go past this frame):\n",
			b->number);
	fprintf(sh->out, " pc = 0x%" PRIx64, f->pc);
	if (b->loc.function)
		fprintf(sh->out, " in %s+%" PRIu64, cst_esc(b->loc.function, e1, sizeof e1), b->loc.offset);
	if (b->loc.file)
		fprintf(sh->out, " (%s:%d)", cst_esc(b->loc.file, e1, sizeof e1), b->loc.line);
	if (f->lookup_pc != f->pc)
		fprintf(sh->out, "; looked up at 0x%" PRIx64, f->lookup_pc);
	fputc('\n', sh->out);
	if (b->loc.module)
		fprintf(sh->out, " module %s\n", cst_esc(b->loc.module, e1, sizeof e1));
	fprintf(sh->out, " found by: %s (%s)\n", cst_found_by_token(f->found_by),
		cst_found_by_description(f->found_by));
	const char *m = cst_marker_name(f->marker);
	if (m)
		fprintf(sh->out, " marker: [%s]\n", m);
	if (f->note[0]) {
		fputs(" note: ", sh->out);
		cst_fputs_escaped(f->note, sh->out);
		fputc('\n', sh->out);
	}
	if (f->signal_frame)
		fprintf(sh->out, " signal frame: its caller was interrupted\n");
	if (b->inlined)
		fprintf(sh->out, " inlined into frame %zu: the registers are that frame's\n", ri);
	if (tail) {
		fprintf(sh->out, " a lost tail call: no registers of its own; it was left by the jump at pc\n");
		return 0;
	}
	if (cfa)
		fprintf(sh->out, " CFA: 0x%" PRIx64 "\n", cfa);
	else
		fprintf(sh->out, " CFA: unknown\n");
	if (sh->cur_frame > 0)
		fprintf(sh->out, " called by frame %ld, caller of frame %u\n", ci, sh->cur_frame - 1);
	else if (ci >= 0)
		fprintf(sh->out, " called by frame %ld\n", ci);
	cst_unwind_explain(sh->env, real_callee(t, ri), f, &own);
	int nctx = 0, nvalid = 0;
	for (int r = 0; r < a->nregs; r++) {
		nvalid += cst_reg_valid(&f->regs, r);
		nctx += cst_reg_valid(&f->regs, r) && own.how[r] == CST_REG_CONTEXT;
	}
	if (nctx && nctx == nvalid) {
		fprintf(sh->out, " this frame's registers: all %d from the thread's registers (NT_PRSTATUS)\n", nctx);
	} else {
		fprintf(sh->out, " this frame's registers (%s):\n", cst_found_by_token(f->found_by));
		for (int r = 0; r < a->nregs; r++)
			origin_line(sh, f, &own, r, own.callee_cfa);
	}
	if (ci < 0) {
		fprintf(sh->out, " no caller: %s\n", t->stop);
		return 0;
	}
	const struct cst_frame *c = &t->frames[ci].f;
	fprintf(sh->out, " caller's registers (frame %ld, found by %s), where each came from:\n", ci,
		cst_found_by_token(c->found_by));
	for (int r = 0; r < a->nregs; r++)
		origin_line(sh, c, &callers, r, cfa);
	int unknown = 0;
	for (int r = 0; r < a->nregs; r++)
		unknown += !cst_reg_valid(&c->regs, r);
	if (unknown)
		fprintf(sh->out, "  (%d other registers not recovered)\n", unknown);
	return 0;
}

/* ---- info registers ---------------------------------------------------------------- */

int cmd_info_registers(struct shell *sh, const char *args)
{
	const struct bt_frame *b = shell_frame(sh);
	if (!b)
		return shell_error(sh, "No stack.");
	const struct cst_arch *a = sh->env->arch;
	bool any = *args != 0;
	for (int r = 0; r < a->nregs; r++) {
		if (any) {
			/* the named registers only: "info registers rip rsp", "$" optional */
			bool want = false;
			for (const char *p = args; *p;) {
				p += strspn(p, " \t$");
				size_t n = strcspn(p, " \t");
				if (n && strlen(a->reg_names[r]) == n && strncmp(p, a->reg_names[r], n) == 0)
					want = true;
				p += n;
			}
			if (!want)
				continue;
		}
		uint64_t v;
		if (!cst_reg_get(&b->f.regs, r, &v)) {
			fprintf(sh->out, "%-15s<not saved>\n", a->reg_names[r]);
			continue;
		}
		char label[160];
		shell_sym_label(sh, v, label, sizeof label);
		if (r == a->pc_reg)
			fprintf(sh->out, "%-15s0x%-18" PRIx64 "%s\n", a->reg_names[r], v, label);
		else
			fprintf(sh->out, "%-15s0x%-18" PRIx64 "%" PRId64 "\n", a->reg_names[r], v, (int64_t)v);
	}
	if (any) {
		for (const char *p = args; *p;) {
			p += strspn(p, " \t$");
			size_t n = strcspn(p, " \t");
			bool known = false;
			for (int r = 0; r < a->nregs && n; r++)
				known |= strlen(a->reg_names[r]) == n && strncmp(p, a->reg_names[r], n) == 0;
			if (n && !known)
				shell_error(sh, "Invalid register `%.*s'", (int)n, p);
			p += n;
		}
	}
	return 0;
}

/* ---- info sharedlibrary ------------------------------------------------------------ */

struct module_list {
	struct shell *sh;
	int n;
};

static int print_module(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start, void *arg)
{
	struct module_list *ml = arg;
	struct shell *sh = ml->sh;
	Dwarf_Addr lo, hi;
	dwfl_module_info(mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
	struct cst_location loc;
	cst_symbols_locate(sh->syms, lo, lo, &loc);
	Dwarf_Addr bias;
	bool elf = dwfl_module_getelf(mod, &bias) != NULL;
	bool dwarf = elf && dwfl_module_getdwarf(mod, &bias) != NULL;
	const char *syms = loc.mismatch ? "mismatch" : dwarf ? "Yes+DWARF" : elf ? "Yes" : "No";
	char e1[1024];
	fprintf(sh->out, "0x%016" PRIx64 "  0x%016" PRIx64 "  %-10s %-40s %s\n", (uint64_t)lo, (uint64_t)hi,
		syms, loc.build_id[0] ? loc.build_id : "-", cst_esc(loc.module ? loc.module : name, e1, sizeof e1));
	ml->n++;
	return DWARF_CB_OK;
}

int cmd_info_sharedlibrary(struct shell *sh, const char *args)
{
	if (!sh->syms)
		return shell_error(sh, "No modules: libdwfl could not read the core's modules.");
	fprintf(sh->out, "%-18s  %-18s  %-10s %-40s %s\n", "From", "To", "Syms", "Build-id", "Module");
	struct module_list ml = { .sh = sh };
	dwfl_getmodules(cst_symbols_dwfl(sh->syms), print_module, &ml, 0);
	if (cst_symbols_mismatches(sh->syms))
		fprintf(sh->out, "(mismatch: the file on disk has another build-id than the core records; not used)\n");
	return 0;
}

/* signature: the crash signature of the core, made from its first thread (the crashing one),
 * by the rules of coredump/signature.h, printed "HASH text" as `--signature` prints it. */
int cmd_signature(struct shell *sh, const char *args)
{
	if (*args)
		return shell_error(sh, "signature takes no arguments");
	if (sh->nthreads == 0)
		return shell_error(sh, "No threads.");
	const struct bt_thread *t = shell_thread_at(sh, 0);
	struct bt_signature s;
	if (sig_make(t, sh->sig, sh->env->target, &s) < 0)
		return shell_error(sh, "out of memory");
	char e1[1024];
	fprintf(sh->out, "%s %s\n", s.hash, cst_esc(s.text, e1, sizeof e1));
	fprintf(sh->out, "(thread %d; %u crash-machinery frame%s skipped)\n", s.tid, s.skipped,
		s.skipped == 1 ? "" : "s");
	sig_free(&s);
	return 0;
}

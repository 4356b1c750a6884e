/* Text output, close to gdb's `bt`. */
#include "backtrace.h"

#include <inttypes.h>
#include <string.h>

#define C_RESET  "\033[0m"
#define C_FUNC   "\033[33m"
#define C_MARK   "\033[1;35m"
#define C_BOLD   "\033[1m"
#define C_CRASH  "\033[1;31m"

void bt_print_process_text(FILE *out, const struct bt_process *p)
{
	if (p->core)
		fprintf(out, "core: %s", p->core);
	else
		fprintf(out, "process: %d", p->pid);
	if (p->core && p->pid)
		fprintf(out, "  pid %d", p->pid);
	if (p->executable)
		fprintf(out, "  executable %s", p->executable);
	else if (p->fname && *p->fname)
		fprintf(out, "  command %s", p->fname);
	fprintf(out, "  (%s)\n", p->arch);
	if (p->has_signal) {
		fprintf(out, "signal: %s (%s), si_code %d", bt_signal_name(p->signo),
			bt_signal_text(p->signo), p->code);
		if (p->has_addr)
			fprintf(out, ", fault address 0x%" PRIx64, p->addr);
		fputc('\n', out);
	}
}

static const char *base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path;
}

void bt_print_frame_text(FILE *out, const struct bt_frame *b, const struct bt_options *o)
{
	const struct cst_location *l = &b->loc;
	/* "#N  0x%016x in ", formatted by hand: a core of many threads prints a line per frame */
	char head[64];
	int n = snprintf(head, sizeof head, "#%-2u ", b->number);
	if (b->inlined) {
		memset(head + n, ' ', 22);
	} else {
		static const char hexd[] = "0123456789abcdef";
		memcpy(head + n, "0x", 2);
		for (int i = 0; i < 16; i++)
			head[n + 2 + i] = hexd[(b->f.pc >> (60 - 4 * i)) & 15];
		memcpy(head + n + 18, " in ", 4);
	}
	fwrite(head, 1, (size_t)n + 22, out);
	if (o->color)
		fputs(C_FUNC, out);
	if (l->function)
		fputs(l->function, out);
	else if (l->module)
		fprintf(out, "%s+0x%" PRIx64, base(l->module), b->f.pc - l->module_base);
	else
		fputs("??", out);
	if (o->color)
		fputs(C_RESET, out);
	fputs(" ()", out);
	if (l->file)
		fprintf(out, " at %s:%d", l->file, l->line);
	else if (l->module) {
		fputs(" from ", out);
		fputs(l->module, out);
	}
	else if (b->jit_map)
		fprintf(out, " [JIT] from %s", b->jit_map);
	if (l->mismatch)
		fputs(" (build-id mismatch)", out);
	const char *m = cst_marker_name(b->f.marker);
	if (m)
		fprintf(out, o->color ? "  " C_MARK "[%s]" C_RESET : "  [%s]", m);
	fputc('\n', out);
	if (o->verbose && !b->inlined) {
		fprintf(out, "    found by: %s (%s)", cst_found_by_token(b->f.found_by),
			cst_found_by_description(b->f.found_by));
		if (b->f.cfa)
			fprintf(out, ", cfa 0x%" PRIx64, b->f.cfa);
		if (b->f.note[0])
			fprintf(out, "; %s", b->f.note);
		fputc('\n', out);
	}
}

void bt_print_thread_text(FILE *out, const struct bt_thread *t, const struct bt_options *o)
{
	fprintf(out, o->color ? "\n" C_BOLD "Thread %d" C_RESET : "\nThread %d", t->tid);
	if (t->crashed)
		fprintf(out, o->color ? " (" C_CRASH "crashed: %s" C_RESET ")" : " (crashed: %s)",
			bt_signal_name(t->cursig));
	fputc('\n', out);
	bt_print_frames_text(out, t, o);
}

void bt_print_frames_text(FILE *out, const struct bt_thread *t, const struct bt_options *o)
{
	for (size_t i = 0; i < t->n; i++)
		bt_print_frame_text(out, &t->frames[i], o);
	if (t->rc < 0 || t->n == 0)
		fprintf(out, "(walk stopped: %s)\n", t->stop);
}

/* Text output, close to gdb's `bt`. */
#include "backtrace.h"
#include "escape.h"
#include "process.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define C_RESET  "\033[0m"
#define C_FUNC   "\033[33m"
#define C_MARK   "\033[1;35m"
#define C_BOLD   "\033[1m"
#define C_CRASH  "\033[1;31m"

void bt_print_process_text(FILE *out, const struct bt_process *p)
{
	if (p->core) {
		fputs("core: ", out);
		cst_fputs_escaped(p->core, out);
	} else {
		fprintf(out, "process: %d", p->pid);
	}
	if (p->core && p->pid)
		fprintf(out, "  pid %d", p->pid);
	if (p->executable) {
		fputs("  executable ", out);
		cst_fputs_escaped(p->executable, out);
	} else if (p->fname && *p->fname) {
		fputs("  command ", out);
		cst_fputs_escaped(p->fname, out);
	}
	fprintf(out, "  (%s)\n", p->arch->name);
	if (p->has_signal) {
		fprintf(out, "signal: %s (%s), si_code %d", cst_signal_name(p->arch, p->signo),
			cst_signal_text(p->arch, p->signo), p->code);
		if (p->has_addr)
			fprintf(out, ", fault address 0x%" PRIx64, p->addr);
		if (p->has_sender)
			fprintf(out, ", sent by pid %d%s, uid %u", p->sender_pid,
				p->sender_pid == p->pid ? " (itself)" : "", p->sender_uid);
		fputc('\n', out);
	}
	if (p->core && p->not_crash)
		fputs("not a crash: saved from a stopped process (as gcore does), not dumped for a fatal "
		      "signal\n", out);
}

static const char *base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path;
}

/* A thread's frame lines are put together here and written with one fwrite when it is
 * full or the thread is done: a core of many threads prints a line per frame, and stdio's
 * per-call cost was most of the printing. */
struct line {
	FILE *out;
	size_t n;
	/* Strings put_name found to need no escape: a thread's frames name the same few
	 * functions, files and modules again and again, and every string a thread's frames
	 * point to lives, unchanged, until the thread is printed (the line lives no longer). */
	const char *plain[8];
	unsigned nplain;
	char b[4096];
};

static void line_flush(struct line *l)
{
	if (l->n)
		fwrite(l->b, 1, l->n, l->out);
	l->n = 0;
}

/* put when the line's buffer is full: what it holds is written first */
static void put_flush(struct line *l, const char *s, size_t len)
{
	line_flush(l);
	if (len > sizeof l->b) {
		fwrite(s, 1, len, l->out);
		return;
	}
	memcpy(l->b, s, len);
	l->n = len;
}

static inline void put(struct line *l, const char *s, size_t len)
{
	if (__builtin_expect(l->n + len > sizeof l->b, 0)) {
		put_flush(l, s, len);
		return;
	}
	memcpy(l->b + l->n, s, len);
	l->n += len;
}

static void put_str(struct line *l, const char *s)
{
	put(l, s, strlen(s));
}

/* A string from the core or a file it names: escaped (escape.h) */
static void put_name(struct line *l, const char *s)
{
	size_t len = strlen(s);
	for (unsigned i = 0; i < sizeof l->plain / sizeof l->plain[0]; i++)
		if (l->plain[i] == s) {
			put(l, s, len);
			return;
		}
	if (!cst_needs_escape_len(s, len)) {
		l->plain[l->nplain++ % (sizeof l->plain / sizeof l->plain[0])] = s;
		put(l, s, len);
		return;
	}
	char buf[1024];
	size_t need = cst_escape(buf, sizeof buf, s);
	char *big = need < sizeof buf ? NULL : malloc(need + 1);
	if (big)
		cst_escape(big, need + 1, s);
	put_str(l, big ? big : buf);
	free(big);
}

/* V as bt_hex writes it: "0x", at least WIDTH digits */
static void put_hex(struct line *l, uint64_t v, int width)
{
	char buf[BT_HEX_SIZE];
	int len;
	const char *p = bt_hex(buf, v, width, &len);
	put(l, p, (size_t)len);
}

static void put_dec(struct line *l, long long v)
{
	char d[24];
	int n = 0;
	unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
	do {
		d[23 - n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		d[23 - n++] = '-';
	put(l, d + 24 - n, (size_t)n);
}

/* Frame B's line (and with -v its "found by" line) added to L. */
static void frame_line(struct line *l, const struct bt_frame *b, const struct bt_options *o)
{
	const struct cst_location *loc = &b->loc;
	FILE *out = l->out;
	/* "#%-2u " then the pc as "0x%016x in ", or blanks of that width for an inlined frame */
	put(l, "#", 1);
	size_t start = l->n;
	put_dec(l, b->number);
	if (l->n - start < 2)
		put(l, " ", 1);
	if (b->inlined) {
		put(l, "                       ", 23);
	} else {
		put(l, " ", 1);
		put_hex(l, b->f.pc, 16);
		put(l, " in ", 4);
	}
	if (o->color)
		put_str(l, C_FUNC);
	if (loc->function) {
		put_name(l, loc->function);
	} else if (loc->module) {
		put_name(l, base(loc->module));
		put(l, "+", 1);
		put_hex(l, b->f.pc - loc->module_base, 1);
	} else {
		put(l, "??", 2);
	}
	if (o->color)
		put_str(l, C_RESET);
	put(l, " ()", 3);
	if (loc->file) {
		put(l, " at ", 4);
		put_name(l, loc->file);
		put(l, ":", 1);
		put_dec(l, loc->line);
	} else if (loc->module) {
		put(l, " from ", 6);
		put_name(l, loc->module);
	} else if (b->jit_map) {
		put(l, " [JIT] from ", 12);
		put_name(l, b->jit_map);
	} else if (b->anon_code) {
		put_str(l, " [JIT] from anonymous memory");
	} else if (b->copy_of) {
		put_str(l, " from a copy of ");
		put_name(l, b->copy_of);
	}
	if (loc->mismatch)
		put_str(l, " (build-id mismatch)");
	const char *m = cst_marker_name(b->f.marker);
	if (m) {
		put_str(l, o->color ? "  " C_MARK "[" : "  [");
		put_str(l, m);
		put_str(l, o->color ? "]" C_RESET : "]");
	}
	put(l, "\n", 1);
	if (o->verbose && !b->inlined) {
		line_flush(l);
		fprintf(out, "    found by: %s (%s)", cst_found_by_token(b->f.found_by),
			cst_found_by_description(b->f.found_by));
		if (b->f.cfa)
			fprintf(out, ", cfa 0x%" PRIx64, b->f.cfa);
		if (b->f.note[0]) {
			/* a note can name a module, a path from the core */
			fputs("; ", out);
			cst_fputs_escaped(b->f.note, out);
		}
		fputc('\n', out);
	}
}

void bt_print_frame_text(FILE *out, const struct bt_frame *b, const struct bt_options *o)
{
	struct line l = { .out = out };
	frame_line(&l, b, o);
	line_flush(&l);
}

void bt_print_thread_text(FILE *out, const struct bt_thread *t, const struct bt_options *o)
{
	bt_print_thread_header_text(out, t, o);
	bt_print_frames_text(out, t, o);
}

void bt_print_thread_header_text(FILE *out, const struct bt_thread *t, const struct bt_options *o)
{
	fprintf(out, o->color ? "\n" C_BOLD "Thread %d" C_RESET : "\nThread %d", t->tid);
	if (t->crashed)
		fprintf(out, o->color ? " (" C_CRASH "crashed: %s" C_RESET ")" : " (crashed: %s)",
			cst_signal_name(t->arch, t->cursig));
	fputc('\n', out);
}

void bt_print_first_text(FILE *out, const struct bt_thread *t, bool counted, size_t n,
			 const struct bt_options *o)
{
	if (!counted || n > t->n || (n == t->n && !t->limited)) {
		bt_print_frames_text(out, t, o);
		return;
	}
	for (size_t i = 0; i < n && i < t->n; i++)
		bt_print_frame_text(out, &t->frames[i], o);
	fputs("(More stack frames follow...)\n", out);
}

void bt_print_frames_text(FILE *out, const struct bt_thread *t, const struct bt_options *o)
{
	struct line l = { .out = out };
	for (size_t i = 0; i < t->n; i++)
		frame_line(&l, &t->frames[i], o);
	line_flush(&l);
	if (t->rc < 0 || t->n == 0)
		fprintf(out, "(walk stopped: %s)\n", t->stop);
}

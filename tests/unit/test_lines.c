/* The cache of rendered frame lines (bt_lines, common/report/text.c): threads printed through
 * a cache print the same bytes as without one, twice over (the second time from the
 * cache), for frames that share a pc and differ in one thing the line shows (inlined or
 * not, function, marker, module, load address, file, line, JIT map, anonymous code, copy,
 * build-id mismatch), with colour and without, with -v, with names that need escapes or do
 * not fit a slot, with frame numbers past 99, and with more distinct lines than the cache
 * holds; whole threads that differ from one another in one frame, in their frame numbers or
 * count, printed in turns; frames numbered by a cache of located frames (bt_frame.located)
 * with each marker, and a frame without a number whose key would read as one.  And a line
 * is indeed served from the cache (by its number, for a numbered frame): a frame whose string
 * changed in place (which the cache's contract rules out) still prints its first text. */
#include "backtrace.h"
#include "frames.h"
#include "unit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* T printed with O (its cache or none) into a new string */
static char *print(const struct bt_thread *t, const struct bt_options *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return NULL;
	bt_print_thread_text(m, t, o);
	fclose(m);
	return buf;
}

/* Prints T with and without a cache, with every colour and -v setting, twice each; true when
 * all came out the same. */
static bool same_with_cache(const struct bt_thread *t, struct bt_lines *c, const char *what)
{
	bool ok = true;
	for (int round = 0; round < 2; round++)
		for (int v = 0; v < 2; v++)
			for (int color = 0; color < 2; color++) {
				struct bt_options plain = { .verbose = v, .color = color };
				struct bt_options cached = plain;
				cached.lines = c;
				char *want = print(t, &plain), *got = print(t, &cached);
				ok &= unit_expect(want && got && strcmp(want, got) == 0,
						  "%s, round %d, -v %d, colour %d: got\n%s\nwant\n%s", what,
						  round, v, color, got ? got : "(null)", want ? want : "(null)");
				free(want);
				free(got);
			}
	return ok;
}

int main(void)
{
	static const char *const names[] = { "alpha", "beta", "gamma\nforged #9 line", "\x1b[31mred" };
	static const char *const files[] = { "a.c", "b.c" };
	static const char *const modules[] = { "/lib/libx.so.1", "/usr/bin/prog" };
	static char changing[] = "before";
	char *long_name = long_name_new();

	unit_begin("lines_same_bytes");
	struct bt_lines *c = bt_lines_new();
	unit_expect(c != NULL, "bt_lines_new failed");
	struct bt_thread t = { .tid = 42, .crashed = false };
	const uint64_t pc = 0x401234;
	/* one pc, one thing different each time */
	for (int inl = 0; inl < 2; inl++)
		for (int marker = 0; marker < 3; marker++)
			for (size_t f = 0; f < sizeof names / sizeof names[0]; f++) {
				struct bt_frame *b = add(&t);
				b->f.pc = pc;
				b->f.marker = (enum cst_marker)marker;
				b->inlined = inl;
				b->loc.function = names[f];
				b->loc.file = files[f % 2];
				b->loc.line = 10;
				b->loc.module = modules[0];
				b->loc.module_base = 0x400000;
			}
	for (int k = 0; k < 8; k++) {
		struct bt_frame *b = add(&t);
		b->f.pc = pc;
		b->f.found_by = CST_FOUND_CFI;
		b->f.cfa = 0x7ffd0000 + 16 * (uint64_t)k;
		if (k & 1)
			snprintf(b->f.note, sizeof b->f.note, "note %d\t", k);
		b->loc.module = modules[k % 2];
		b->loc.module_base = 0x400000 + 0x1000 * (uint64_t)(k / 4);
		b->loc.mismatch = k == 2;
	}
	for (int k = 0; k < 4; k++) {   /* another line, then another file */
		struct bt_frame *b = add(&t);
		b->f.pc = pc;
		b->loc.function = names[0];
		b->loc.file = files[k / 2 % 2];
		b->loc.line = 10 + k % 2;
	}
	for (int k = 0; k < 2; k++) {   /* the same, from two modules */
		struct bt_frame *b = add(&t);
		b->f.pc = pc;
		b->loc.function = names[0];
		b->loc.module = modules[k];
	}
	static const char *const maps[] = { "/tmp/perf-1.map", "/tmp/perf-2.map" };
	for (int k = 0; k < 2; k++) {
		struct bt_frame *b = add(&t);
		b->f.pc = pc;
		b->jit_map = maps[k];
		b->loc.function = names[0];
	}
	struct bt_frame *b;
	b = add(&t);
	b->f.pc = pc;
	b->anon_code = true;
	b = add(&t);
	b->f.pc = pc;
	b->copy_of = modules[1];
	b = add(&t);
	b->f.pc = pc;                /* nothing known: "??" */
	b = add(&t);
	b->f.pc = pc;
	b->loc.function = long_name;
	b->loc.file = files[0];
	while (t.n < 130) {          /* frame numbers past 99 */
		b = add(&t);
		b->f.pc = pc + t.n;
		b->loc.function = names[t.n % 2];
		b->loc.file = files[0];
		b->loc.line = (int)t.n;
	}
	same_with_cache(&t, c, "one pc");
	t.crashed = true;
	t.cursig = 11;
	same_with_cache(&t, c, "crashed thread");
	unit_end();

	unit_begin("lines_more_than_held");
	t.n = 0;
	for (int k = 0; k < 5000; k++) {
		b = add(&t);
		b->f.pc = 0x500000 + 5 * (uint64_t)k;
		b->f.marker = (enum cst_marker)(k % 3);
		b->loc.function = names[k % 2];
		b->loc.module = modules[0];
	}
	same_with_cache(&t, c, "5000 pcs");
	unit_end();

	/* whole threads: variations of one thread, printed in turns */
	unit_begin("lines_threads");
	struct bt_thread v[7] = { { .tid = 1 } };
	for (int k = 0; k < 7; k++) {
		v[k].tid = 100 + k;
		size_t n = k == 3 ? 9 : k == 4 ? 300 : k == 5 ? 40 : 10;
		for (size_t i = 0; i < n; i++) {
			b = add(&v[k]);
			b->f.pc = 0x700000 + 16 * (uint64_t)(i % 10);
			b->loc.function = k == 5 ? long_name : names[i % 2];
			b->loc.module = modules[0];
		}
	}
	v[1].frames[6].f.marker = CST_MARK_LOST_TAIL_CALL;   /* one frame differs */
	for (size_t i = 0; i < v[2].n; i++)                 /* numbers that are not indexes */
		v[2].frames[i].number = (unsigned)i + 1;
	v[6].frames[9].loc.module = modules[1];             /* the last frame differs */
	for (int round = 0; round < 3; round++)
		for (int k = 0; k < 7; k++) {
			char what[32];
			int which = (k * 3 + round) % 7;
			snprintf(what, sizeof what, "thread variation %d", which);
			same_with_cache(&v[which], c, what);
		}
	for (int k = 0; k < 7; k++)
		bt_thread_free(&v[k]);
	unit_end();

	/* frames a cache of located frames numbered (bt_frame.located): one number, each
	 * marker; a frame without a number whose key reads as the number's would */
	unit_begin("lines_located");
	t.n = 0;
	for (int k = 0; k < 6; k++) {
		b = add(&t);
		b->f.pc = 0x401000;
		b->f.marker = (enum cst_marker)(k % 3);
		b->located = 7;
		b->loc.function = names[0];
		b->loc.module = modules[0];
	}
	b = add(&t);
	b->f.pc = 7;
	b = add(&t);
	b->f.pc = 0x401000;
	b->loc.function = names[1];
	b->located = 8;
	same_with_cache(&t, c, "located frames");
	/* the number stands for the location: a frame of the same number prints the line of
	 * the first, whatever its own location says (which the number's contract rules out) */
	t.n = 0;
	b = add(&t);
	b->f.pc = 0x401000;
	b->located = 9;
	b->loc.function = names[0];
	b = add(&t);
	b->f.pc = 0x401000;
	b->located = 9;
	b->loc.function = names[1];
	b->number = 0;
	struct bt_options ol = { .lines = c };
	char *both = print(&t, &ol);
	unit_expect(both && strstr(both, names[0]) && !strstr(both, names[1]),
		    "the second frame of number 9 was not printed from the cache:\n%s", both ? both : "(null)");
	free(both);
	unit_end();

	unit_begin("lines_served_from_cache");
	t.n = 0;
	b = add(&t);
	b->f.pc = 0x600000;
	b->loc.function = changing;
	struct bt_options o = { .lines = c };
	char *first = print(&t, &o);
	memcpy(changing, "after!", 6);
	char *second = print(&t, &o);
	o.lines = NULL;
	char *fresh = print(&t, &o);
	unit_expect(first && second && strcmp(first, second) == 0 && strstr(second, "before"),
		    "the second print did not come from the cache:\n%s", second ? second : "(null)");
	unit_expect(fresh && strstr(fresh, "after!"), "without a cache: %s", fresh ? fresh : "(null)");
	free(first);
	free(second);
	free(fresh);
	unit_end();

	bt_lines_free(c);
	bt_thread_free(&t);
	free(long_name);
	return unit_exit();
}

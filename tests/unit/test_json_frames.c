/* The cache of rendered frame locations of the JSON writer (coredump/json_thread.c): threads
 * written through a cache give the same bytes as without one, twice over (the second time
 * from the cache), for frames that share a pc and differ in one thing of their location
 * (inlined or not, function, symbol, offset, module, load address, build-id, mismatch, file,
 * line) or in what follows it (found_by, marker, CFA, note, JIT map); with names that need
 * escapes or do not fit a slot, and more distinct pcs than the cache holds.  And a location
 * is indeed served from the cache: a frame whose string changed in place (which the cache's
 * contract rules out) still gives its first text, and so does a frame of a cache of located
 * frames (bt_frame.located) whose location changed.  A thread written again at other CFAs
 * (of the same and of other lengths, some null) gives what it gives without the cache. */
#include "backtrace.h"
#include "json_thread.h"
#include "frames.h"
#include "unit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* T written with CACHE (NULL: none) into a new string */
static char *write_thread(const struct bt_thread *t, struct bt_json_frames **cache)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return NULL;
	struct jw w;
	jw_init(&w, m, false, 0);
	jw_begin_array(&w);
	bt_json_thread_write(&w, t, cache);
	jw_end_array(&w);
	int rc = jw_finish(&w);
	fclose(m);
	if (rc < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* A writer's sink (jw_set_sink) that gives exactly the room asked for, each time in a new
 * buffer, the text moved there: a writer that kept a pointer into an earlier room, or wrote
 * past the room, writes into freed memory (AddressSanitizer) or loses bytes. */
struct exact_sink {
	char *p;
	size_t len, rooms;
	bool held;
};

static char *exact_room(void *ctx, size_t n, size_t *cap)
{
	struct exact_sink *s = ctx;
	char *p = malloc(s->len + n + 1);
	if (!p)
		return NULL;
	if (s->len)
		memcpy(p, s->p, s->len);
	free(s->p);
	s->p = p;
	s->held = true;
	s->rooms++;
	*cap = n;
	return p + s->len;
}

static void exact_commit(void *ctx, size_t n)
{
	struct exact_sink *s = ctx;
	s->len += n;
	s->held = false;
}

/* T twice in an array, with cache C, written through an exact_sink after a first element
 * written to the writer's FILE; NULL on failure, else the whole text (FILE's, then the
 * sink's) in a new string; *ROOMS the rooms the sink gave. */
static char *write_through_sink(const struct bt_thread *t, struct bt_json_frames **c, size_t *rooms)
{
	char *head = NULL;
	size_t hlen = 0;
	FILE *m = open_memstream(&head, &hlen);
	if (!m)
		return NULL;
	struct exact_sink s = { .p = NULL };
	const struct jw_sink sink = { .room = exact_room, .commit = exact_commit, .ctx = &s };
	struct jw w;
	jw_init(&w, m, false, 0);
	jw_begin_array(&w);
	jw_int(&w, 1);
	int rc = jw_set_sink(&w, &sink);
	bt_json_thread_write(&w, t, c);
	rc |= jw_flush(&w);
	bool held = s.held;
	bt_json_thread_write(&w, t, c);
	jw_end_array(&w);
	rc |= jw_set_sink(&w, NULL);
	rc |= jw_finish(&w);
	fclose(m);
	char *all = rc == 0 && !held && !s.held ? malloc(hlen + s.len + 1) : NULL;
	if (all) {
		memcpy(all, head, hlen);
		memcpy(all + hlen, s.p, s.len);
		all[hlen + s.len] = 0;
	}
	*rooms = s.rooms;
	free(head);
	free(s.p);
	return all;
}

/* Writes T with and without cache C, twice; true when all came out the same. */
static bool same_with_cache(const struct bt_thread *t, struct bt_json_frames **c, const char *what)
{
	bool ok = true;
	for (int round = 0; round < 2; round++) {
		char *want = write_thread(t, NULL), *got = write_thread(t, c);
		ok &= unit_expect(want && got && strcmp(want, got) == 0, "%s, round %d: got\n%s\nwant\n%s",
				  what, round, got ? got : "(null)", want ? want : "(null)");
		free(want);
		free(got);
	}
	return ok;
}

int main(void)
{
	static const char *const names[] = { "alpha", "beta", "gamma\n\"quoted\"", "\x1b[31mred" };
	static const char *const files[] = { "a.c", "b.c" };
	static const char *const modules[] = { "/lib/libx.so.1", "/usr/bin/prog" };
	static char changing[] = "before";
	char *long_name = long_name_new();

	unit_begin("json_frames_same_bytes");
	struct bt_json_frames *c = NULL;
	struct bt_thread t = { .tid = 42 };
	const uint64_t pc = 0x401234;
	/* one pc, one thing of the location different each time */
	for (int inl = 0; inl < 2; inl++)
		for (size_t f = 0; f < sizeof names / sizeof names[0]; f++) {
			struct bt_frame *b = add(&t);
			b->f.pc = pc;
			b->inlined = inl;
			b->loc.function = names[f];
			b->loc.symbol = f == 1 ? names[0] : NULL;
			b->loc.offset = 4 * f;
			b->loc.file = files[f % 2];
			b->loc.line = 10;
			b->loc.module = modules[0];
			b->loc.module_base = 0x400000;
		}
	for (int k = 0; k < 8; k++) {
		struct bt_frame *b = add(&t);
		b->f.pc = pc;
		b->loc.function = names[0];
		b->loc.module = modules[k % 2];
		b->loc.module_base = 0x400000 + 0x1000 * (uint64_t)(k / 4);
		b->loc.mismatch = k == 2;
		if (k >= 5)
			snprintf(b->loc.build_id, sizeof b->loc.build_id, "%040x", k);
		b->loc.line = k == 7 ? 11 : 10;
		b->loc.file = k == 6 ? files[1] : files[0];
	}
	for (int k = 0; k < 6; k++) {   /* the same location, what follows it different */
		struct bt_frame *b = add(&t);
		b->f.pc = pc;
		b->loc.function = names[0];
		b->loc.module = modules[0];
		b->f.found_by = (enum cst_found_by)(k % 3);
		b->f.marker = (enum cst_marker)(k % 3);
		b->f.cfa = k & 1 ? 0x7ffd0000 + 16 * (uint64_t)k : 0;
		if (k & 2)
			snprintf(b->f.note, sizeof b->f.note, "note %d\t", k);
		b->jit_map = k == 5 ? "/tmp/perf-1.map" : NULL;
	}
	struct bt_frame *b = add(&t);
	b->f.pc = pc;                /* nothing known */
	b = add(&t);
	b->f.pc = pc;
	b->loc.function = long_name;   /* longer than a slot */
	b->loc.file = files[0];
	same_with_cache(&t, &c, "one pc");
	unit_expect(c != NULL, "no cache allocated");
	unit_end();

	unit_begin("json_frames_more_than_held");
	t.n = 0;
	for (int k = 0; k < 5000; k++) {
		b = add(&t);
		b->f.pc = 0x500000 + 5 * (uint64_t)k;
		b->loc.function = names[k % 2];
		b->loc.module = modules[0];
		b->loc.module_base = 0x500000;
	}
	same_with_cache(&t, &c, "5000 pcs");
	unit_end();

	unit_begin("json_frames_from_cache");
	t.n = 0;
	b = add(&t);
	b->f.pc = 0x600000;
	b->loc.function = changing;
	char *first = write_thread(&t, &c);
	memcpy(changing, "after!", sizeof changing);
	char *second = write_thread(&t, &c), *fresh = write_thread(&t, NULL);
	unit_expect(first && second && strcmp(first, second) == 0 && strstr(second, "before"),
		    "the second thread was not written from the cache: %s", second ? second : "(null)");
	unit_expect(fresh && strstr(fresh, "after!"), "without a cache: %s", fresh ? fresh : "(null)");
	free(first);
	free(second);
	free(fresh);
	unit_end();

	unit_begin("json_frames_located");
	t.n = 0;
	for (int k = 0; k < 6; k++) {   /* three entries of one pc, each with its own location */
		int e = k % 3;
		b = add(&t);
		b->f.pc = 0x700000;
		b->loc.function = names[e % 2];
		b->loc.file = files[e / 2];
		b->located = (1ull << 40) + (uint64_t)e;
		b->f.found_by = (enum cst_found_by)(k % 4);
		b->f.marker = (enum cst_marker)(k / 2);
	}
	same_with_cache(&t, &c, "entries of one pc");
	t.n = 0;
	b = add(&t);
	b->f.pc = 0x710000;
	b->loc.function = names[0];
	b->located = 1ull << 41;
	first = write_thread(&t, &c);
	b->loc.function = names[1];   /* what an entry's number stands for, changed (ruled out) */
	second = write_thread(&t, &c);
	unit_expect(first && second && strcmp(first, second) == 0,
		    "the frame of a located entry was not written from the cache: %s", second ? second : "(null)");
	free(first);
	free(second);
	unit_end();

	/* a thread written again at other CFAs is copied from the kept one (the word of each
	 * frame: its located entry, or for an inlined frame the slot holding its location),
	 * its CFAs put in; CFAs of another number of digits, or a CFA now null, are written
	 * frame by frame */
	unit_begin("json_frames_kept_threads");
	t.n = 0;
	for (int k = 0; k < 12; k++) {
		b = add(&t);
		b->f.pc = 0x800000 + 16 * (uint64_t)(k / 2 * 2 + (k % 4 == 1));
		b->inlined = k % 4 == 0;         /* inlined into the next frame, at its pc */
		if (b->inlined)
			b->f.pc += 16;
		b->loc.function = names[k % 3];
		b->loc.file = files[k % 2];
		b->loc.line = 20 + k;
		b->loc.module = modules[0];
		b->loc.module_base = 0x800000;
		b->located = b->inlined ? 0 : (1ull << 42) + (uint64_t)k;
		b->f.found_by = (enum cst_found_by)(k % 3);
		b->f.marker = (enum cst_marker)(k % 3);
	}
	static const int64_t moves[] = { 0, 0x10000, 0x40, -0x7ff000000000, 0x20000, 0 };
	for (size_t r = 0; r < sizeof moves / sizeof moves[0]; r++) {
		for (size_t k = 0; k < t.n; k++)
			t.frames[k].f.cfa = k % 5 == 3 && r != 4 ? 0 : 0x7ffd00001000 + 64 * (uint64_t)k + (uint64_t)moves[r];
		char what[64];
		snprintf(what, sizeof what, "kept thread, CFAs moved by %lld", (long long)moves[r]);
		same_with_cache(&t, &c, what);
	}
	unit_end();

	/* a sink: the bytes of a FILE's writer, the rooms given back at each flush */
	unit_begin("json_frames_sink");
	t.n = 0;
	for (int k = 0; k < 40; k++) {
		b = add(&t);
		b->f.pc = 0x720000 + 16 * (uint64_t)(k % 7);
		b->loc.function = k == 13 ? long_name : names[k % 4];
		b->loc.module = modules[k % 2];
		b->f.cfa = 0x7ffd0000 + 32 * (uint64_t)k;
		if (k % 5 == 0)
			snprintf(b->f.note, sizeof b->f.note, "note %d", k);
	}
	char *plain = NULL;
	size_t plen = 0;
	FILE *m = open_memstream(&plain, &plen);
	struct jw w;
	jw_init(&w, m, false, 0);
	jw_begin_array(&w);
	jw_int(&w, 1);
	bt_json_thread_write(&w, &t, NULL);
	bt_json_thread_write(&w, &t, NULL);
	jw_end_array(&w);
	jw_finish(&w);
	fclose(m);
	for (int cached = 0; cached < 2; cached++) {
		size_t rooms = 0;
		char *got = write_through_sink(&t, cached ? &c : NULL, &rooms);
		unit_expect(got && strcmp(got, plain) == 0, "through a sink (cache %d): got\n%s\nwant\n%s", cached,
			    got ? got : "(null)", plain);
		unit_expect(rooms > 40, "the sink gave %zu rooms for 80 frames", rooms);
		free(got);
	}
	free(plain);
	unit_end();

	bt_json_frames_free(c);
	bt_thread_free(&t);
	free(long_name);
	return unit_exit();
}

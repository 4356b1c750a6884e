/* The cache of located frames (bt_addrs, common/report/backtrace.c): the threads of the
 * suite's four-thread core (tests/progs/threads.c, made by tests/run.sh in
 * $CORESTACK_TEST_CORES) walked through a cache get the frames a walk without one gets
 * (location, JIT map, anonymous code, copy, inlined or not, number, and the -v text, and
 * the text through a cache of frame lines, which keys a located frame by its entry), the
 * first time and again from the cache.  And a frame is indeed served from the cache: walked
 * with the symbols gone (which the cache's contract rules out), the innermost frame keeps
 * the function it was given; without the cache it has none.
 * Usage: test_addrs [DIR] ($BUILD/tests/unit), from the repository's top folder.  Without
 * the suite's core, one is made of DIR/../threads-fp with tests/lib/mkcore.py. */
#include "backtrace.h"
#include "process.h"
#include "threads_core.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Whether frames X and Y were located alike; says how they differ when not. */
static bool same_frame(const struct bt_frame *x, const struct bt_frame *y, const char *what, size_t i)
{
	const struct cst_location *a = &x->loc, *b = &y->loc;
	return unit_expect(x->f.pc == y->f.pc && same_str(a->module, b->module) &&
			   a->module_base == b->module_base && strcmp(a->build_id, b->build_id) == 0 &&
			   a->mismatch == b->mismatch && a->no_file == b->no_file &&
			   same_str(a->function, b->function) && same_str(a->symbol, b->symbol) &&
			   a->offset == b->offset && same_str(a->file, b->file) && a->line == b->line &&
			   same_str(x->jit_map, y->jit_map) && x->anon_code == y->anon_code &&
			   same_str(x->copy_of, y->copy_of) && x->inlined == y->inlined &&
			   x->number == y->number,
			   "%s: frame %zu: %s+%#llx in %s, want %s+%#llx in %s", what, i,
			   a->function ? a->function : "??", (unsigned long long)a->offset,
			   a->module ? a->module : "-", b->function ? b->function : "??",
			   (unsigned long long)b->offset, b->module ? b->module : "-");
}

/* Thread I of P walked into T (through T->addrs) and printed with -v, then without -v through
 * LINES (NULL: none), into a new string. */
static char *walk(struct cst_process *p, size_t i, struct bt_thread *t, struct bt_lines *lines)
{
	struct cst_process_thread th;
	cst_process_thread(p, i, &th);
	t->tid = th.tid;
	t->crashed = th.crashed;
	t->cursig = th.cursig;
	if (bt_walk(cst_process_env(p), th.regs, 0, t) < 0)
		return NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (!out)
		return NULL;
	struct bt_options bo = { .verbose = true };
	bt_print_thread_text(out, t, &bo);
	bo = (struct bt_options){ .lines = lines };
	bt_print_thread_text(out, t, &bo);
	fclose(out);
	return text;
}

/* The suite's core of the threads program, opened; NULL (with a FAIL line) when it cannot be. */
static struct cst_process *open_threads_core(const char *dir)
{
	char path[4200], made[4200], err[256];
	struct cst_process *p = NULL;
	if (!threads_core(dir, "addrs", path, sizeof path, made, sizeof made))
		return NULL;
	if (cst_process_open_core(&p, path, NULL, err, sizeof err) < 0)
		printf("FAIL addrs: cannot open %s: %s\n", path, err);
	if (made[0])
		unlink(made);
	return p;
}

int main(int argc, char **argv)
{
	struct cst_process *p = open_threads_core(argc > 1 ? argv[1] : "/tmp");
	if (!p)
		return 1;
	size_t n = cst_process_nthreads(p);
	struct bt_thread plain = { 0 }, cached = { .addrs = bt_addrs_new() };
	struct bt_lines *lines = bt_lines_new();

	unit_begin("addrs_same_frames");
	unit_expect(cached.addrs != NULL && lines != NULL, "bt_addrs_new or bt_lines_new failed");
	unit_expect(n == 4, "%zu threads, the threads program has 4", n);
	for (int round = 0; round < 2 && cached.addrs; round++)
		for (size_t i = 0; i < n; i++) {
			char what[64];
			snprintf(what, sizeof what, "round %d, thread %zu", round, i);
			char *want = walk(p, i, &plain, NULL), *got = walk(p, i, &cached, lines);
			unit_expect(want && got && strcmp(want, got) == 0, "%s: got\n%s\nwant\n%s", what,
				    got ? got : "(null)", want ? want : "(null)");
			unit_expect(plain.n > 1 && cached.n == plain.n, "%s: %zu frames, want %zu", what,
				    cached.n, plain.n);
			size_t located = 0;
			for (size_t k = 0; k < plain.n && k < cached.n; k++) {
				if (!same_frame(&cached.frames[k], &plain.frames[k], what, k))
					break;
				unit_expect(!plain.frames[k].located, "%s: frame %zu located by no cache", what, k);
				located += cached.frames[k].located != 0;
			}
			unit_expect(located > 0, "%s: no frame has the number of a cache's entry", what);
			free(want);
			free(got);
		}
	unit_end();

	unit_begin("addrs_served_from_cache");
	struct cst_unwind_env *env = cst_process_env(p);
	free(walk(p, 0, &cached, NULL));
	const char *function = cached.n ? cached.frames[0].loc.function : NULL;
	unit_expect(function != NULL, "thread 0's innermost frame has no function");
	struct cst_symbols *syms = env->syms;
	env->syms = NULL;
	free(walk(p, 0, &cached, NULL));
	unit_expect(cached.n && same_str(cached.frames[0].loc.function, function),
		    "with the symbols gone, the cache gave %s, want %s",
		    cached.n && cached.frames[0].loc.function ? cached.frames[0].loc.function : "(null)",
		    function ? function : "(null)");
	free(walk(p, 0, &plain, NULL));
	unit_expect(plain.n && !plain.frames[0].loc.function,
		    "without symbols and without the cache, the innermost frame is in %s",
		    plain.n && plain.frames[0].loc.function ? plain.frames[0].loc.function : "??");
	env->syms = syms;
	unit_end();

	bt_addrs_free(cached.addrs);
	bt_lines_free(lines);
	bt_thread_free(&cached);
	bt_thread_free(&plain);
	cst_process_close(p);
	return unit_exit();
}

/* The threads of one core walked by several processes: the parent and JOBS - 1 workers forked
 * from it claim chunks of consecutive threads in order, each the next one when it is ready for
 * one, and the parent puts the workers' text out between its own, so that the output is, byte
 * for byte, what one process walking every thread in order prints.
 *
 * A worker inherits the parent's open core, modules and caches (fork(2) copies them), walks its
 * chunks into memory and sends each chunk's text down a pipe: a header (struct in workers.c)
 * and the text.  Anything a serial run would say besides the frames (a walk stopped early, a
 * warning of the core, a module that does not match, any line on standard error) makes the
 * worker give its chunk back: the parent walks that chunk and every later one itself, as a
 * serial run would, so that its warnings and exit status are a serial run's.  A worker that
 * dies is a chunk given back; one that cannot be started claims nothing. */
#ifndef CST_WORKERS_H
#define CST_WORKERS_H
#include <stddef.h>
#include <stdio.h>

struct jw_sink;

struct workers_walk {
	/* In a worker: walks threads FIRST to END - 1 and prints them to OUT, or, a JSON
	 * writer's bytes, into SINK: the same text as OUT's, without a copy through OUT's
	 * buffers.  Returns 0 when they printed nothing but their frames, 1 when the parent
	 * must walk them again (see above). */
	int (*walk_away)(void *ctx, size_t first, size_t end, FILE *out, const struct jw_sink *sink);
	/* In a worker, before it claims a chunk: walks thread I and prints it to OUT (which is
	 * dropped), as nothing that counts (the thread is not counted as printed), so that what
	 * walks look up is loaded before the parent waits for a chunk.  Returns 1 when the walk
	 * would say anything but frames (the worker then claims nothing), else 0.  May be NULL. */
	int (*warm)(void *ctx, size_t i, FILE *out);
	/* In the parent: walks and prints threads FIRST to END - 1 as a serial run does; returns
	 * 1 when some walk stopped early, else 0. */
	int (*walk_here)(void *ctx, size_t first, size_t end);
	/* In the parent: sends what its buffers hold on to standard output (before a worker's
	 * text goes out after it, and before the fork). */
	void (*flush)(void *ctx);
	/* In the parent: a worker's text of N threads went out. */
	void (*took)(void *ctx, size_t n);
	void *ctx;
};

/* The number of processes for walking NTHREADS threads when --jobs did not say (JOBS 0): the
 * CPUs this process may run on, at most 4, for a core of 256 threads or more; 1 (no worker)
 * below that, where a fork costs more than it saves.  An explicit JOBS is kept. */
unsigned workers_jobs(unsigned jobs, size_t nthreads);

/* Walks threads FIRST to END - 1 with JOBS processes (1: all in this one), their text on
 * standard output (file descriptor 1) in thread order; thread FIRST in this process before
 * any worker is forked.  Returns what walk_here returned for
 * any chunk, or'ed.  Exits with status 2 and a line on standard error when a worker's text was
 * cut off after part of it went out (a worker killed from outside in the middle of a chunk). */
int workers_run(const struct workers_walk *w, size_t first, size_t end, unsigned jobs);

#endif

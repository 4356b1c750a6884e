/* The C bugs of the triage corpus (tests/t_triage_corpus.sh): one bug per mode, each crashing
 * the same way on every run.  Usage: bugs MODE [THREADS]
 *   strlen      a NULL header reaches strlen (glibc's CPU variant of it) from header_len
 *   fpe         handle divides by a zero count (SIGFPE)
 *   assert      handle asserts on a count over its limit (SIGABRT through __assert_fail)
 *   overflow    descend recurses without end (SIGSEGV on the guard page)
 *   doublefree  release frees a buffer twice (glibc's malloc aborts)
 *   worker N    N worker threads; the last one dereferences a NULL job in consume */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink;

NOINLINE size_t header_len(const char *h) { size_t n = strlen(h); sink += (int)n; return n + 2; }
NOINLINE size_t parse_header(const char *h) { size_t n = header_len(h); sink += (int)n; return n; }

NOINLINE int handle(int total, int count, int limit)
{
	assert(count <= limit);
	int r = total / count;
	sink += r;
	return r;
}

NOINLINE int descend(int depth)
{
	volatile char frame[256];
	frame[depth & 255] = (char)depth;
	return descend(depth + 1) + frame[(depth + 1) & 255];
}

NOINLINE void release(char *buf) { free(buf); sink++; }
NOINLINE void drop_twice(void)
{
	char *buf = malloc(64);
	memset(buf, 1, 64);
	release(buf);
	release(buf);
}

struct job { int *value; int last; };
static pthread_barrier_t ready;

NOINLINE int consume(struct job *j) { return *j->value + 1; }
static void *worker(void *arg)
{
	struct job *j = arg;
	pthread_barrier_wait(&ready);
	if (!j->last)
		for (;;)
			pause();
	sink += consume(j);
	return NULL;
}

NOINLINE void run_workers(int n)
{
	static int one = 1;
	pthread_t t[64];
	struct job jobs[64];
	if (n < 1 || n > 64)
		n = 1;
	pthread_barrier_init(&ready, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++) {
		jobs[i] = (struct job){ .value = i == n - 1 ? NULL : &one, .last = i == n - 1 };
		pthread_create(&t[i], NULL, worker, &jobs[i]);
	}
	pthread_barrier_wait(&ready);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	const char *volatile none = NULL;
	volatile int zero = 0, big = 1000;
	int r = 0;
	/* every call is followed by more work, so that none is a tail call */
	if (!strcmp(m, "strlen"))
		r = (int)parse_header(none);
	else if (!strcmp(m, "fpe"))
		r = handle(10, zero, 100);
	else if (!strcmp(m, "assert"))
		r = handle(10, big, 100);
	else if (!strcmp(m, "overflow"))
		r = descend(0);
	else if (!strcmp(m, "doublefree"))
		drop_twice();
	else if (!strcmp(m, "worker"))
		run_workers(argc > 2 ? atoi(argv[2]) : 1);
	sink += r;
	fprintf(stderr, "bugs: no crash for mode %s\n", m);
	return r;
}

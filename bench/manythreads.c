/* manythreads: the benchmark's program.  `manythreads N` starts N threads on small stacks;
 * thread i recurses 17 + i % 21 levels through rec_a/rec_b/rec_c and blocks in read() on a
 * pipe nobody writes (20-40 frames in all, with start_thread, clone3 and the libc frames).
 * Once every thread is blocked, the main thread recurses 24 levels and calls abort(), so
 * the kernel writes a core (about 30 frames on the main thread).  N may be 0. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noipa))
#define STACK_SIZE (64 * 1024)

static volatile int sink;
static atomic_int ready;
static int pipefd[2];

NOINLINE static int rec_a(int depth, int (*leaf)(int));
NOINLINE static int rec_b(int depth, int (*leaf)(int));
NOINLINE static int rec_c(int depth, int (*leaf)(int));

/* One level of recursion each; the work after the call keeps it a real call, not a jump. */
NOINLINE static int rec_a(int depth, int (*leaf)(int))
{
	volatile int local;
	local = sink;
	int r = depth > 0 ? rec_b(depth - 1, leaf) : leaf(depth);
	return r + local + sink;
}

NOINLINE static int rec_b(int depth, int (*leaf)(int))
{
	volatile int local[2];
	local[0] = sink;
	local[1] = 1;
	int r = depth > 0 ? rec_c(depth - 1, leaf) : leaf(depth);
	return r + local[0] + local[1] + sink;
}

NOINLINE static int rec_c(int depth, int (*leaf)(int))
{
	volatile int local;
	local = sink * 3;
	int r = depth > 0 ? rec_a(depth - 1, leaf) : leaf(depth);
	return r ^ local ^ sink;
}

NOINLINE static int block(int depth)
{
	char c;
	atomic_fetch_add(&ready, 1);
	sink = (int)read(pipefd[0], &c, 1);       /* blocks forever */
	return sink + depth;
}

NOINLINE static int crash(int depth)
{
	abort();
	return depth;
}

NOINLINE static void *worker(void *arg)
{
	/* a scheduling barrier: gcc would hoist the address of block above the frame set-up,
	 * which gdb's prologue analysis (the comparison) does not follow */
	__asm__ volatile("" ::: "memory");
	sink = rec_a((int)(long)arg, block);      /* the depth main chose */
	return arg;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
	if (n < 0 || pipe(pipefd) != 0)
		return 2;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	for (long i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, &attr, worker, (void *)(17 + i % 21)) != 0) {
			fprintf(stderr, "manythreads: cannot start thread %ld\n", i);
			return 2;
		}
	}
	while (atomic_load(&ready) < n)
		usleep(1000);
	usleep(20000);                               /* every thread is inside read() */
	return rec_a(24, crash);
}

/* deadlock: a lock-order inversion, caught by a watchdog.
 *
 *   main:       locks A, starts the holder, waits until it holds B, starts 6 workers,
 *               then watchdog() sees no progress and calls abort()   (SIGABRT)
 *   holder:     holder -> lock_both: holds B, blocks on A
 *   6 workers:  worker -> take_b: block on B, all at the same instruction
 *
 * The core has 8 threads; `corestack --group` shows the 6 identical workers once, as
 * "6 threads: ...". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noipa))
#define NWORKERS 6

static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static volatile int holder_has_b;
volatile int progress;

NOINLINE void lock_both(void)
{
	pthread_mutex_lock(&lock_b);
	holder_has_b = 1;
	pthread_mutex_lock(&lock_a);     /* main holds A forever */
	progress++;
}

NOINLINE void *holder(void *arg)
{
	lock_both();
	return arg;
}

NOINLINE void take_b(void)
{
	pthread_mutex_lock(&lock_b);     /* the holder keeps B */
	progress++;
	pthread_mutex_unlock(&lock_b);
}

NOINLINE void *worker(void *arg)
{
	take_b();
	return arg;
}

NOINLINE void watchdog(int seen)
{
	usleep(300000);                  /* let every worker block */
	if (progress == seen) {
		fprintf(stderr, "watchdog: no progress, aborting\n");
		abort();
	}
}

int main(void)
{
	pthread_t h, w[NWORKERS];
	pthread_mutex_lock(&lock_a);
	pthread_create(&h, NULL, holder, NULL);
	while (!holder_has_b)
		usleep(1000);
	for (int i = 0; i < NWORKERS; i++)
		pthread_create(&w[i], NULL, worker, NULL);
	watchdog(progress);
	return 0;
}

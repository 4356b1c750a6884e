/* threads.c: main and three workers.  Each worker runs worker -> twa -> twb -> park and
 * blocks in pause(); then main runs main -> tmfoo -> tmleaf, which crashes (SIGSEGV).
 * A thread blocked in a system call cannot be made to flush its register windows from
 * outside under qemu-user, so park() flushes them itself (flushw in tflush, which has a
 * window of its own so that park's window is flushed too) before it blocks; the kernel
 * would have flushed them when it dumped the core. */
#include "sparc_test.h"

#include <pthread.h>

#define NWORKERS 3

volatile int sink;
int *volatile nowhere;
static volatile int parked;

NOINLINE void tnop(void) { sink++; }
NOINLINE void tflush(void) { __asm__ volatile("flushw" ::: "memory"); tnop(); sink++; }
NOINLINE void park(void)
{
	tflush();
	__atomic_add_fetch(&parked, 1, __ATOMIC_SEQ_CST);
	for (;;)
		pause();
}
NOINLINE void twb(int i) { park(); sink = i; }
NOINLINE void twa(int i) { twb(i + 1); sink = i; }
static void *worker(void *arg) { twa((int)(long)arg); return NULL; }

NOINLINE int tmleaf(int *p) { *p = 9; return 1; }
NOINLINE int tmfoo(int x) { return tmleaf(nowhere) + x; }

int main(void)
{
	pthread_t t[NWORKERS];

	for (long i = 0; i < NWORKERS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i))
			return 1;
	while (parked < NWORKERS)
		usleep(1000);
	usleep(200000);                 /* let the last one reach pause() */
	sink = tmfoo(1);
	return 0;
}

/* A pool of threads blocked under chains of inlined functions, for tests/t_json.sh.
 *
 * Thread I recurses I / 4 % 3 levels, then calls through one of four functions that inline
 * a chain of 1 to 4 functions of their own (always_inline), so that its blocked frame has
 * inline chains of 2 to 5 entries in the middle of its stack.  Every fifth thread runs on a
 * stack mapped below 4 GiB, whose addresses have fewer hex digits than those of the
 * others.  Threads of the same I % 12 walk the same code at other stack addresses.  After
 * a second main aborts, for its core.
 *
 * Usage: inline_pool [NTHREADS] (default 40). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile int released;

__attribute__((noinline)) static void wait_here(int depth)
{
	while (!released)
		pause();
	__asm__ volatile("" : : "r"(depth) : "memory");
}

/* each one inlined into its caller, the chain one deeper at each step */
static inline __attribute__((always_inline)) void chain1(int d)
{
	wait_here(d);
	__asm__ volatile("");
}
static inline __attribute__((always_inline)) void chain2(int d)
{
	chain1(d + 1);
	__asm__ volatile("");
}
static inline __attribute__((always_inline)) void chain3(int d)
{
	chain2(d + 1);
	__asm__ volatile("");
}
static inline __attribute__((always_inline)) void chain4(int d)
{
	chain3(d + 1);
	__asm__ volatile("");
}

__attribute__((noinline)) static void via1(int d) { chain1(d); __asm__ volatile(""); }
__attribute__((noinline)) static void via2(int d) { chain2(d); __asm__ volatile(""); }
__attribute__((noinline)) static void via3(int d) { chain3(d); __asm__ volatile(""); }
__attribute__((noinline)) static void via4(int d) { chain4(d); __asm__ volatile(""); }

__attribute__((noinline)) static void descend(int kind, int levels)
{
	if (levels > 0)
		descend(kind, levels - 1);
	else if (kind == 0)
		via1(levels);
	else if (kind == 1)
		via2(levels);
	else if (kind == 2)
		via3(levels);
	else
		via4(levels);
	__asm__ volatile("");
}

static void *pool_thread(void *arg)
{
	long i = (long)arg;
	descend((int)(i % 4), (int)(i / 4 % 3));
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 40;
	for (long i = 0; i < n; i++) {
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		if (i % 5 == 4) {
			/* 1 MiB at 256 MiB + 2 MiB * I: CFAs of 8 hex digits, not 12 */
			size_t size = (size_t)1 << 20;
			void *want = (void *)(uintptr_t)(0x10000000UL + (unsigned long)i * (2UL << 20));
			void *stack = mmap(want, size, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (stack != MAP_FAILED)
				pthread_attr_setstack(&attr, stack, size);
		}
		pthread_t t;
		if (pthread_create(&t, &attr, pool_thread, (void *)i) != 0)
			return 1;
		pthread_attr_destroy(&attr);
	}
	sleep(1);
	abort();
}

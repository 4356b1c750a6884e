/* deep: the benchmark's deep stack.  `deep N` recurses N levels through rec_a/rec_b on the
 * main thread and calls abort() at the bottom, so the kernel writes a core with N + a few
 * frames on one thread (about 48 bytes of stack per level: run it with a stack limit that
 * holds them). */
#include <stdlib.h>

#define NOINLINE __attribute__((noinline, noipa))

static volatile int sink;

NOINLINE static int rec_b(long depth);

/* One level each; the work after the call keeps it a real call, not a jump. */
NOINLINE static int rec_a(long depth)
{
	volatile int local = sink;
	int r = depth > 0 ? rec_b(depth - 1) : (abort(), 0);
	return r + local + sink;
}

NOINLINE static int rec_b(long depth)
{
	volatile int local = sink * 3;
	int r = depth > 0 ? rec_a(depth - 1) : (abort(), 0);
	return r ^ local ^ sink;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
	return n < 0 ? 2 : rec_a(n);
}

/* abort_leaf: abort() from a function without a frame record.
 *
 *   main -> apply_setting -> check_range -> abort -> raise -> ...   (SIGABRT)
 *
 * Built without frame pointers and without CFI (examples/triage.mk): check_range has no frame
 * of its own, so a frame-pointer walk loses apply_setting.  The signature skips the crash
 * machinery (abort, raise, pthread_kill, ...) and starts at check_range. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline, noipa))

volatile int sink;

NOINLINE int check_range(int v)
{
	if (v < 0 || v > 100)
		abort();                 /* the assertion of a careful programmer */
	return v * 2;
}

NOINLINE int apply_setting(int v)
{
	int r = check_range(v + 120);
	sink = r;
	return r + sink;
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", apply_setting(argc));
	return 0;
}

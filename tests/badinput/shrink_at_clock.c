/* shrink_at_clock.so: an LD_PRELOAD shim for tests/t_badinput.sh.  When SHRINK_PATH and
 * SHRINK_CALL (a count) are set, the file SHRINK_PATH is truncated to 0 bytes at the
 * SHRINK_CALL-th call of clock_gettime: the CLI asks the clock after each thread it prints
 * (coredump/main.c, flush_threads), so the file loses its content right after that many
 * threads, deterministically. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int clock_gettime(clockid_t id, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);
	static int calls;
	if (!real)
		real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	const char *path = getenv("SHRINK_PATH"), *at = getenv("SHRINK_CALL");
	if (path && at && ++calls == atoi(at)) {
		if (truncate(path, 0) != 0)
			abort();
		unsetenv("SHRINK_PATH");
	}
	return real(id, ts);
}

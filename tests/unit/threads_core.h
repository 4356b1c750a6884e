/* The suite's core of the four-thread program (tests/progs/threads.c), for the unit tests
 * that walk a real core (test_core_cold, test_addrs). */
#ifndef CST_UNIT_THREADS_CORE_H
#define CST_UNIT_THREADS_CORE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define THREADS_CORE_NAME "fp_crash_threads.core"   /* tests/run.sh's key of "crash threads", fp */

/* The path of the core in PATH (LEN bytes): tests/run.sh's, in $CORESTACK_TEST_CORES, else
 * one made of DIR/../threads-fp with tests/lib/mkcore.py into DIR/NAME.PID.made.core, whose
 * path also goes to MADE (the caller removes it; "" when none was made).  Run from the
 * repository's top folder.  Prints "FAIL NAME: ..." and returns false when none can be made. */
static inline bool threads_core(const char *dir, const char *name, char *path, size_t len, char *made,
				size_t made_len)
{
	const char *cores = getenv("CORESTACK_TEST_CORES");
	made[0] = 0;
	snprintf(path, len, "%s/%s", cores ? cores : "", THREADS_CORE_NAME);
	if (cores && access(path, R_OK) == 0)
		return true;
	char cmd[9000];
	snprintf(made, made_len, "%s/%s.%d.made.core", dir, name, (int)getpid());
	snprintf(cmd, sizeof cmd, "python3 tests/lib/mkcore.py crash '%s' '%s/../threads-fp' >/dev/null",
		 made, dir);
	if (system(cmd) != 0) {
		printf("FAIL %s: no core of the threads program: %s failed\n", name, cmd);
		return false;
	}
	snprintf(path, len, "%s", made);
	return true;
}

#endif

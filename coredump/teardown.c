/* The process's memory torn down after its exit status is out.  See teardown.h. */
#include "teardown.h"
#include "live.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Linux 5.9 and 5.3; numbers from the kernel's table shared by every architecture since
 * 5.1 (include/uapi/asm-generic/unistd.h) */
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#ifndef UNDER_ASAN
/* The child's stack, in the memory it shares with this process (which never runs on it). */
static char child_stack[16384] __attribute__((aligned(64)));

/* The child: it shares this process's memory and thread-local storage, so it makes system
 * calls and nothing else (errno, which a failed one sets, is read no more by this process,
 * which is exiting).  ARG is this process's pid. */
static int hold_memory(void *arg)
{
	pid_t parent = (pid_t)(intptr_t)arg;
	if (syscall(SYS_close_range, 0U, ~0U, 0U) != 0)
		return 0;
	struct pollfd exited = { .fd = (int)syscall(SYS_pidfd_open, parent, 0U), .events = POLLIN };
	/* the pidfd is the parent's only while the parent is still this child's parent: a pid
	 * is not reused while its process lives */
	if (exited.fd < 0 || syscall(SYS_getppid) != parent)
		return 0;
	syscall(SYS_ppoll, &exited, 1UL, NULL, NULL, 0UL);
	return 0;
}

/* Why no child may be made: valgrind runs this process (its preloaded library), or a
 * debugger or tracer is attached; NULL when one may. */
static const char *watched(void)
{
	const char *preload = getenv("LD_PRELOAD");
	if (preload && strstr(preload, "vgpreload"))
		return "valgrind";
	return cst_live_tracer(getpid()) > 0 ? "traced" : NULL;
}
#endif

void teardown_after_exit(void)
{
	pid_t child = -1;
	int err = 0;
#ifdef UNDER_ASAN
	const char *none = "sanitizer";
#else
	const char *none = watched();
	if (!none) {
		child = clone(hold_memory, child_stack + sizeof child_stack, CLONE_VM | SIGCHLD,
			      (void *)(intptr_t)getpid());
		err = errno;
	}
#endif
	const char *log = getenv("CORESTACK_TEARDOWN_LOG");
	FILE *f = log && *log ? fopen(log, "ae") : NULL;
	if (f) {
		if (child > 0)
			fprintf(f, "child %d\n", (int)child);
		else if (none)
			fprintf(f, "none: %s\n", none);
		else
			fprintf(f, "none: clone: %s\n", strerror(err));
		fclose(f);
	}
}

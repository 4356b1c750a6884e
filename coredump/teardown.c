/* The process's memory torn down after its exit status is out.  See teardown.h. */
#include "teardown.h"

#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_close_range
#define SYS_close_range 436     /* Linux 5.9, the same number on every architecture */
#endif

/* The child's stack, in the memory it shares with this process (which never runs on it). */
static char child_stack[16384] __attribute__((aligned(64)));

/* The child: it shares this process's memory and thread-local storage, so it makes system
 * calls and nothing else (errno, which a failed one sets, is this process's own and is
 * read no more).  ARG is this process's pid. */
static int hold_memory(void *arg)
{
	if (syscall(SYS_close_range, 0U, ~0U, 0U) != 0 ||
	    syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0L, 0L, 0L) != 0 ||
	    syscall(SYS_getppid) != (long)(intptr_t)arg)
		return 0;       /* without a descriptor closed or a death to wait for: exit now */
	for (;;)
		syscall(SYS_pause);
}

void teardown_after_exit(void)
{
#ifndef __SANITIZE_ADDRESS__
	(void)clone(hold_memory, child_stack + sizeof child_stack, CLONE_VM | SIGCHLD,
		    (void *)(intptr_t)getpid());
#endif
}

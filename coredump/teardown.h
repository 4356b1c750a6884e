/* The process's memory torn down after its exit status is out. */
#ifndef CST_TEARDOWN_H
#define CST_TEARDOWN_H

/* Leaves the teardown of this process's address space (its heap, the library and debug files
 * it mapped: about 1 ms on a core of 10,000 threads) to a child that shares it: the kernel
 * tears an address space down when its last user exits, and that is then the child, once
 * this process exited and its parent has its status.  The child (clone(2) with CLONE_VM, on
 * a stack of its own) closes its copies of every file descriptor, so that a reader of this
 * process's output sees its end when this process exits, waits for this process's exit (a
 * pidfd, Linux 5.3) and exits with status 0; without a pidfd it exits at once.  Call it
 * last, with nothing left to do but the exit.  It does nothing under a tracer (gdb or strace
 * would take the child for a fork and act on the memory it shares), under valgrind (which
 * does not run such a child) or AddressSanitizer (whose leak check runs at the exit), and
 * when the child cannot be made; it never fails.  CORESTACK_TEARDOWN_LOG=FILE (a test hook)
 * appends "child PID" to FILE, or "none: " and why: "sanitizer", "traced", "valgrind",
 * "clone: " and the error. */
void teardown_after_exit(void);

#endif

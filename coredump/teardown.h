/* The process's memory torn down after its exit status is out. */
#ifndef CST_TEARDOWN_H
#define CST_TEARDOWN_H

/* Leaves the teardown of this process's address space (its heap, the library and debug files
 * it mapped: about 1 ms on a core of 10,000 threads) to a child that shares it: the kernel
 * tears an address space down when its last user exits, and that is then the child, once
 * this process exited and its parent has its status.  The child (clone(2) with CLONE_VM, on
 * a stack of its own) first closes its copies of every file descriptor, so that a reader of
 * this process's output sees its end when this process exits, then waits for this process's
 * death (PR_SET_PDEATHSIG) and exits.  Call it last, with nothing left to do but the exit;
 * it does nothing when the child cannot be made, and never fails.  Not under
 * AddressSanitizer, whose leak check runs at the exit. */
void teardown_after_exit(void);

#endif

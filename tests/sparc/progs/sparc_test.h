/* sparc_test.h: helpers shared by the SPARC test programs (tests/sparc/progs).  Every
 * function of a test is NOINLINE so that the call structure in the source is the one in
 * the binary: a call stays a call, `return f(x);` stays a tail call, and a function that
 * calls nothing stays a leaf (no `save`) in the builds that allow it (-O2 without PIE). */
#ifndef SPARC_TEST_H
#define SPARC_TEST_H

#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

/* Read and written through volatile so that the compiler cannot fold the arithmetic. */
extern volatile int sink;

/* Writes a message on stderr and exits with status 2 (an unknown case name). */
static inline int usage(const char *prog)
{
	static const char msg[] = ": unknown case\n";
	write(2, prog, strlen(prog));
	write(2, msg, sizeof msg - 1);
	return 2;
}

#endif

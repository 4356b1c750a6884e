/* signals.c: signals and crashes.  `signals CASE`:
 *   handler      main -> sgfoo -> sgvictim, whose store through a null pointer raises
 *                SIGSEGV; the handler sghandler -> sghleaf runs on the same stack
 *   handlerleaf  the same with the leaf sgleafvictim (no window) as the victim
 *   segv         main -> svfoo -> svleaf: SIGSEGV in a leaf, no handler
 *   segvnl       main -> svfoo2 -> svnonleaf: SIGSEGV in a function with a window
 *   abort        main -> abfoo -> abbar -> abort() */
#include "sparc_test.h"

#include <signal.h>
#include <stdlib.h>

volatile int sink;
int *volatile nowhere;              /* a null pointer the compiler cannot see through */

NOINLINE int shelper(int x) { return x + sink; }

NOINLINE int sghleaf(int sig) { sink = sig; return sig + sink; }
static void sghandler(int sig, siginfo_t *si, void *ctx)
{
	(void)si; (void)ctx;
	sink = sghleaf(sig);
	_exit(3);
}

NOINLINE int sgvictim(int *p) { int r = shelper(3); *p = r; return r + 1; }
NOINLINE int sgleafvictim(int *p) { *p = 1; return 2; }
NOINLINE int sgfoo(int leaf) { return (leaf ? sgleafvictim(nowhere) : sgvictim(nowhere)) + 1; }

NOINLINE int svleaf(int *p) { *p = 7; return 1; }
NOINLINE int svfoo(int x) { return svleaf(nowhere) + x; }
NOINLINE int svnonleaf(int *p) { int r = shelper(5); *p = r; return r; }
NOINLINE int svfoo2(int x) { return svnonleaf(nowhere) + x; }

NOINLINE void abbar(int x) { sink = x; abort(); }
NOINLINE int abfoo(int x) { abbar(x + 1); return sink; }

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	struct sigaction sa;
	int r;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = sghandler;
	sa.sa_flags = SA_SIGINFO;
	if (!strcmp(c, "handler") || !strcmp(c, "handlerleaf"))
		sigaction(SIGSEGV, &sa, NULL);
	if (!strcmp(c, "handler")) r = sgfoo(0);
	else if (!strcmp(c, "handlerleaf")) r = sgfoo(1);
	else if (!strcmp(c, "segv")) r = svfoo(argc);
	else if (!strcmp(c, "segvnl")) r = svfoo2(argc);
	else if (!strcmp(c, "abort")) r = abfoo(argc);
	else return usage(argv[0]);
	sink = r;
	return 0;
}

/* tails.c: a lost tail call behind an indirect call (`jmpl`) for the SPARC walk.
 * `tails CASE`:
 *   ptrtail  main -> dispatch -> (*handlerp)() = handler -> tleaf: handler, reached through
 *            a function pointer in a variable, leaves by a tail jump to the leaf tleaf, so
 *            no frame and no register names it; it is the only address-taken function
 *            that reaches tleaf (other's address is taken too, by code: sethi/or) */
#include "sparc_test.h"

volatile int sink;

NOINLINE int tleaf(int x) { sink = x; return x * 5 + sink; }
NOINLINE int handler(int x) { sink += x; return tleaf(x + 1); }
NOINLINE int other(int x) { return x + 2; }
int (*volatile handlerp)(int) = handler;
NOINLINE void use_other(void) { handlerp = other; }
NOINLINE int dispatch(int x)
{
	int r = handlerp(x);
	sink += r;              /* no tail call: dispatch stays */
	return r;
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	int r;

	if (!strcmp(c, "ptrtail")) r = dispatch(argc);
	else if (!strcmp(c, "other")) { use_other(); r = dispatch(argc); }
	else return usage(argv[0]);
	sink = r;
	return 0;
}

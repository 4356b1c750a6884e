/* tails.c: a lost tail call behind an indirect call (`jmpl`) for the SPARC walk.
 * `tails CASE`:
 *   ptrtail  main -> dispatch -> (*handlerp)() = handler -> tleaf: handler, reached through
 *            a function pointer in a variable, leaves by a tail jump to the leaf tleaf, so
 *            no frame and no register names it; it is the only address-taken function
 *            that reaches tleaf (other's address is taken too, by code: sethi/or, or in a
 *            PIE an offset from the GOT)
 *   ptrtail2 main -> dispatch2 -> (*handler2p)() = handler2 -> tleaf2: the same, but other2,
 *            whose address only code takes (use_other2, not called), tail-jumps to tleaf2
 *            too: two address-taken functions reach tleaf2, so none is inserted */
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

NOINLINE int tleaf2(int x) { sink = x; return x * 7 + sink; }
NOINLINE int handler2(int x) { sink += x; return tleaf2(x + 1); }
NOINLINE int other2(int x) { sink += 2; return tleaf2(x + 2); }
int (*volatile handler2p)(int) = handler2;
NOINLINE void use_other2(void) { handler2p = other2; }
NOINLINE int dispatch2(int x)
{
	int r = handler2p(x);
	sink += r;
	return r;
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	int r;

	if (!strcmp(c, "ptrtail")) r = dispatch(argc);
	else if (!strcmp(c, "other")) { use_other(); r = dispatch(argc); }
	else if (!strcmp(c, "ptrtail2")) r = dispatch2(argc);
	else return usage(argv[0]);
	sink = r;
	return 0;
}

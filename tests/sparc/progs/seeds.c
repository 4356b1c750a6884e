/* seeds.c: the six call structures of the ustack() discussion (dtrace-discuss, 2010) and
 * the two combinations of a recovered caller with a lost tail call.  `seeds CASE` runs one
 * of them; the fixtures stop in the innermost function (tests/sparc/fixtures.list).
 *   1   main -> foo1 -> bar1                                   bar1 has a window
 *   2   main -> foo2 -> tail2a -> tail2b -> bar2               (tail2a, tail2b: tail calls)
 *   3   main -> foo3 -> bar3 -> leaf3                          leaf3 has no window
 *   4   main -> foo4 -> bar4 -> tail4a -> tail4b -> leaf4
 *   5   main -> foo5 -> tail5 -> bar5 -> leaf5
 *   6   main -> foo6 -> tail6a -> tail6b -> bar6 -> tail6c -> tail6d -> leaf6
 *   c1  main -> fooc1 -> barc1 -> tailc1 -> leafc1
 *   c2  main -> fooc2 -> tailc2 -> barc2 -> leafc2
 *   all every one of them in turn (for the single-step sweep)
 * A tail call that needs no window of its own (tail4a, tailc1, ...) is the leaf form
 * (`mov %o7,%g1; call T; mov %g1,%o7`); one that makes a call first (tail2a, tail5, tail6a,
 * tailc2) has a window and leaves with `call T; restore`. */
#include "sparc_test.h"

volatile int sink;

NOINLINE int helper(int x) { return x + sink; }

/* 1 */
NOINLINE int bar1(int x) { int r = helper(x); return r * 3 + sink; }
NOINLINE int foo1(int x) { return bar1(x + 1) + 1; }

/* 2 */
NOINLINE int bar2(int x) { int r = helper(x); return r * 5 + sink; }
NOINLINE int tail2b(int x) { return bar2(x + 2); }
NOINLINE int tail2a(int x) { int r = helper(x); return tail2b(r); }
NOINLINE int foo2(int x) { return tail2a(x + 1) + 1; }

/* 3 */
NOINLINE int leaf3(int x) { sink = x; return x * 7 + sink; }
NOINLINE int bar3(int x) { return leaf3(x + 3) + 1; }
NOINLINE int foo3(int x) { return bar3(x + 1) + 1; }

/* 4 */
NOINLINE int leaf4(int x) { sink = x; return x * 7 + sink; }
NOINLINE int tail4b(int x) { return leaf4(x + 4); }
NOINLINE int tail4a(int x) { return tail4b(x + 2); }
NOINLINE int bar4(int x) { return tail4a(x + 3) + 1; }
NOINLINE int foo4(int x) { return bar4(x + 1) + 1; }

/* 5 */
NOINLINE int leaf5(int x) { sink = x; return x * 7 + sink; }
NOINLINE int bar5(int x) { return leaf5(x + 3) + 1; }
NOINLINE int tail5(int x) { int r = helper(x); return bar5(r); }
NOINLINE int foo5(int x) { return tail5(x + 1) + 1; }

/* 6 */
NOINLINE int leaf6(int x) { sink = x; return x * 7 + sink; }
NOINLINE int tail6d(int x) { return leaf6(x + 4); }
NOINLINE int tail6c(int x) { return tail6d(x + 2); }
NOINLINE int bar6(int x) { return tail6c(x + 3) + 1; }
NOINLINE int tail6b(int x) { return bar6(x + 2); }
NOINLINE int tail6a(int x) { int r = helper(x); return tail6b(r); }
NOINLINE int foo6(int x) { return tail6a(x + 1) + 1; }

/* combination 1 */
NOINLINE int leafc1(int x) { sink = x; return x * 7 + sink; }
NOINLINE int tailc1(int x) { return leafc1(x + 4); }
NOINLINE int barc1(int x) { return tailc1(x + 3) + 1; }
NOINLINE int fooc1(int x) { return barc1(x + 1) + 1; }

/* combination 2 */
NOINLINE int leafc2(int x) { sink = x; return x * 7 + sink; }
NOINLINE int barc2(int x) { return leafc2(x + 3) + 1; }
NOINLINE int tailc2(int x) { int r = helper(x); return barc2(r); }
NOINLINE int fooc2(int x) { return tailc2(x + 1) + 1; }

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	int r;

	if (!strcmp(c, "1")) r = foo1(argc);
	else if (!strcmp(c, "2")) r = foo2(argc);
	else if (!strcmp(c, "3")) r = foo3(argc);
	else if (!strcmp(c, "4")) r = foo4(argc);
	else if (!strcmp(c, "5")) r = foo5(argc);
	else if (!strcmp(c, "6")) r = foo6(argc);
	else if (!strcmp(c, "c1")) r = fooc1(argc);
	else if (!strcmp(c, "c2")) r = fooc2(argc);
	else if (!strcmp(c, "all"))
		r = foo1(argc) + foo2(argc) + foo3(argc) + foo4(argc) + foo5(argc) + foo6(argc) +
		    fooc1(argc) + fooc2(argc);
	else return usage(argv[0]);
	sink = r;
	return 0;
}

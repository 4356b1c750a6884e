/* frames.c: stack shapes for the SPARC window walk.  `frames CASE`:
 *   rec     main -> recfoo -> rec(20) -> rec(19) -> ... -> rec(0) -> recleaf: 22 windows,
 *           more than the 8 the CPU holds, so most were spilled by the program itself
 *   alloca  main -> afoo -> with_alloca -> aleaf: with_alloca moves %sp with alloca
 *   o7      main -> o7foo -> o7bar -> o7leaf: the leaf o7leaf overwrites %o7 (its return
 *           address) for a moment (it keeps it in %g1); the fixtures stop at that moment
 *   ptr     main -> pfoo -> (*pleafp)() = pleaf and (*pwinp)() = pwin -> pwinleaf: pleaf (a
 *           leaf) and pwin are reached only through function pointers in variables, so in
 *           a stripped build only those words give their entries
 *   table   main -> tfoo -> ops[i]() = top0 | top1 -> tleaf | ttails -> tleaf: functions
 *           reached only through a constant table; ttails loops with branches to a shared
 *           tail that calls tleaf
 *   all     rec, alloca and o7; every: all the cases */
#include "sparc_test.h"

volatile int sink;

NOINLINE int recleaf(int x) { sink = x; return x + sink; }
NOINLINE int rec(int n)
{
	int r = n ? rec(n - 1) : recleaf(n);
	sink = r;                       /* volatile: no accumulator, no tail call */
	return sink + n;
}
NOINLINE int recfoo(int n) { return rec(n) + 1; }

NOINLINE int aleaf(volatile char *p) { sink = p[0]; return p[1] + sink; }
NOINLINE int with_alloca(int n)
{
	volatile char *p = __builtin_alloca(n);
	for (int i = 0; i < n; i++)
		p[i] = (char)i;
	int r = aleaf(p);
	sink = p[n - 1];
	return r + sink;
}
NOINLINE int afoo(int n) { return with_alloca(n + 100) + 1; }

NOINLINE int o7leaf(int x)
{
	__asm__ volatile("mov %%o7, %%g1\n\t"
			 "mov 5, %%o7\n\t"
			 "nop\n\t"             /* the stop: %o7 is 5 here */
			 "mov %%g1, %%o7" ::: "g1");
	sink = x;
	return x + 1;
}
NOINLINE int o7bar(int x) { return o7leaf(x + 3) + 1; }
NOINLINE int o7foo(int x) { return o7bar(x + 1) + 1; }

NOINLINE int pleaf(int x) { sink = x; return x * 3 + sink; }
NOINLINE int pwinleaf(int x) { sink = x; return x + 7; }
NOINLINE int pwin(int x)
{
	int r = pwinleaf(x + sink);
	sink = r;
	return r + 1;
}
int (*volatile pleafp)(int) = pleaf;
int (*volatile pwinp)(int) = pwin;
NOINLINE int pfoo(int x)
{
	int r = pleafp(x);
	sink = r;
	r += pwinp(x + 1);
	sink = r;
	return r + 1;
}

NOINLINE int tleaf(int x) { sink = x; return x - 2; }
NOINLINE int top0(int x) { return x + sink; }
NOINLINE int top1(int x)
{
	int r = tleaf(x) + sink;
	sink = r;
	return r;
}
NOINLINE int ttails(int n)
{
	int acc = 0;
	for (int i = 0; i < n; i++) {
		if ((i ^ sink) & 1)
			goto shared;
		acc += sink;
		if (acc & 4)
			goto shared;
		acc ^= 3;
		continue;
shared:
		acc += tleaf(acc);
		sink = acc;
	}
	return acc;
}
static int (*const ops[])(int) = { top0, top1, ttails };
NOINLINE int tfoo(int x)
{
	int r = 0;
	for (int i = 0; i < 3; i++) {
		r += ops[(unsigned)(i + sink) % 3](x);
		sink = r;
	}
	return r + 1;
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	int r;

	if (!strcmp(c, "rec")) r = recfoo(20);
	else if (!strcmp(c, "alloca")) r = afoo(argc);
	else if (!strcmp(c, "o7")) r = o7foo(argc);
	else if (!strcmp(c, "ptr")) r = pfoo(argc);
	else if (!strcmp(c, "table")) r = tfoo(argc + 3);
	else if (!strcmp(c, "all")) r = recfoo(10) + afoo(argc) + o7foo(argc);
	else if (!strcmp(c, "every")) r = recfoo(10) + afoo(argc) + o7foo(argc) + pfoo(argc) + tfoo(argc + 3);
	else return usage(argv[0]);
	sink = r;
	return 0;
}

/* Lost tail calls behind calls through a read-only table of function pointers
 * (tests/t_callsite.sh).  h1 and other tail-jump to crash, which faults; both are
 * address-taken, so that the address-taken functions alone do not say which one ran.
 *   tablecall loop     run_loop calls tab[i] for i from 1, keeping the table and i in
 *                      registers the callee preserves: the word the call read is known
 *   tablecall script   run_script calls tab[script[i] % 3]: the index is lost at the call,
 *                      the table is not; h1 is the only entry of it that reaches crash */
#define NOINLINE __attribute__((noinline, noclone))

typedef int (*handler)(int);
volatile int sink;

NOINLINE int crash(int x) { *(volatile int *)(long)sink = x; return x; }
NOINLINE int quiet(int x) { sink += x; return x; }

static NOINLINE int h0(int x) { sink++; return quiet(x + 1); }
static NOINLINE int h1(int x) { sink++; return crash(x * 2); }
static NOINLINE int h2(int x) { return x - 1; }
static NOINLINE int other(int x) { sink--; return crash(x * 3); }

static const handler tab[] = { h0, h1, h2 };
handler volatile spare = other;
static volatile unsigned char script[] = { 0, 2, 1, 0 };

NOINLINE int run_loop(int start)
{
	int r = 0;
	for (int i = start; i < 3; i++)
		r += tab[i](i);
	return r;
}

NOINLINE int run_script(int n)
{
	int r = 0;
	for (int i = 0; i < n; i++)
		r += tab[script[i] % 3](r);
	return r;
}

int main(int argc, char **argv)
{
	int r = argc > 1 && argv[1][0] == 's' ? run_script(4) : run_loop(1);
	sink += r;
	return spare(r);
}

/* tests/sweep/sweep_prog.c: the program the accuracy sweep (tests/sweep/sweep.c) single-steps.
 *
 * main calls small noinline functions, one shape each, and calls nothing from libc, so every
 * instruction from main's entry to its return is one of ours:
 *   leaf      frameless leaf (uses no stack: no frame in any build)
 *   leafstk   a leaf with a stack array: a frame in fp, none in fpnoleaf (red zone)
 *   framed    a full frame (push %rbp; mov %rsp,%rbp ... pop %rbp; ret in fp builds)
 *   tail      return leaf(x + 1): a tail call (jmp leaf)
 *   t1        unique two-hop tail chain: t1 jmp t2 jmp leaf2
 *   a1        ambiguous chain: a1 jmp b1 or b2 (by the argument), both jmp final
 *   rec       recursion, a few levels deep (not a tail call: a volatile store follows)
 *   sw        a loop around a switch compiled to a jump table
 *   swcall    a switch compiled to a table of offsets, whose cases call and begin after
 *             a transfer and padding (in a stripped build only the table reaches them)
 *   vla       a variable-length array (rbp-based frame in every build)
 *   cbleaf    a leaf reached only through a function pointer in a writable variable
 *             (in a stripped build without CFI only the pointer gives its entry; at its
 *             ret the caller is a recovered caller)
 *   byptr     the same with a frame and a call, called through the same variable
 *   apply     calls the function it is passed (cbarg: its address only taken in main)
 *   op0-op2   reached only through a constant table of function pointers (dispatch)
 *   tails     a loop whose paths branch to one shared tail, called through the table
 * The volatile globals keep gcc from folding the calls away.  `make sweep-progs` checks with
 * objdump that the tail calls are jmp instructions (tests/sweep/check_tails.sh). */

#define NOINLINE __attribute__((noinline, noclone))

volatile int sink;
volatile int sel = 1;       /* a1 takes b1 for odd, b2 for even arguments */
volatile int depth = 4;
volatile int vlen = 5;

NOINLINE int leaf(int x) { return x * 3 + sink; }

NOINLINE int leafstk(int x)
{
	volatile int a[4];
	for (int i = 0; i < 4; i++)
		a[i] = x + i + sink;
	return a[x & 3] + a[0];
}

/* target of the unique chain, and of the ambiguous one: only reached by tail jumps */
NOINLINE int leaf2(int x) { return x * 5 + sink; }
NOINLINE int final(int x) { return x - 7 + sink; }

NOINLINE int framed(int x)
{
	int r = leaf(x);
	sink = r;
	return r + leaf(r) + sink;
}

NOINLINE int tail(int x)
{
	sink = x;
	return leaf(x + 1);
}

NOINLINE int t2(int x) { return leaf2(x * 7 + sink); }
NOINLINE int t1(int x) { return t2(x + 3 + sink); }

NOINLINE int b1(int x) { return final(x * 11 + sink); }
NOINLINE int b2(int x) { return final(x - 13 - sink); }
NOINLINE int a1(int x)
{
	if (x & 1)
		return b1(x + sink);
	return b2(x ^ sink);
}

NOINLINE int rec(int n)
{
	if (n <= 0)
		return leaf(n);
	int r = rec(n - 1);
	sink = r;            /* a store after the call: no tail recursion */
	return r + n;
}

NOINLINE int sw(int n)
{
	int acc = 0;
	for (int i = 0; i < n; i++) {
		switch ((i * 7 + sink) & 7) {
		case 0: acc += sink; break;
		case 1: acc ^= sink * 3; break;
		case 2: acc -= sink << 2; break;
		case 3: acc += leaf(i); break;
		case 4: acc |= sink + 9; break;
		case 5: acc *= sink + 1; break;
		case 6: acc += 11 * sink; break;
		default: sink = acc; break;
		}
	}
	return acc;
}

NOINLINE int swcall(int n)
{
	switch (n) {
	case 0: return sink + 1;
	case 1: return leaf(n) * 3;
	case 2: return framed(n) + sink;
	case 3: return sink ^ n;
	case 4: return leafstk(n) - sink;
	case 5: return sink * 5;
	case 6: return framed(n + sink) * 7;
	case 7: return sink - n;
	}
	return 0;
}

NOINLINE int vla(int n)
{
	volatile int buf[n];
	for (int i = 0; i < n; i++)
		buf[i] = i * sink;
	int r = leaf(buf[n - 1]);
	sink = r;
	return r;
}

NOINLINE int cbleaf(int x) { return x * 9 + sink; }
NOINLINE int byptr(int x)
{
	int r = leaf(x + sink);
	sink = r;
	return r + 1;
}
int (*volatile fnp)(int) = cbleaf;

NOINLINE int cbarg(int x) { return x - 5 + sink; }
NOINLINE int apply(int (*f)(int), int x)
{
	int r = f(x);
	sink = r;
	return r;
}

NOINLINE int op0(int x) { return x + sink; }
NOINLINE int op1(int x)
{
	int r = leaf(x) + sink;
	sink = r;
	return r;
}
NOINLINE int tails(int n)
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
		acc += leaf(acc);
		sink = acc;
	}
	return acc;
}
static int (*const ops[])(int) = { op0, op1, tails };
NOINLINE int dispatch(int i, int x)
{
	int r = ops[i % 3](x);
	sink = r;
	return r;
}

int main(void)
{
	int r = 0;
	r += leaf(1);
	r += leafstk(5);
	r += framed(2);
	r += tail(3);
	r += t1(4);
	r += a1(sel);          /* odd: through b1 */
	r += a1(sel + 1);      /* even: through b2 */
	r += rec(depth);
	r += sw(12);
	for (int i = 0; i < 8; i++)
		r += swcall(i);
	r += vla(vlen);
	r += fnp(6);
	fnp = byptr;
	r += fnp(7);
	r += apply(cbarg, 8);
	for (int i = 0; i < 3; i++)
		r += dispatch(i + sink, 5);
	sink = r;
	return 0;
}

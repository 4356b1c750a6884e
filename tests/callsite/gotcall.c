/* tests/callsite/gotcall.c: a call the machine code leaves indirect and a -g build's call-site
 * record names.  Compiled with -fPIC -fno-plt and linked with -Wl,--no-relax (tests/t_callsite.sh),
 * main calls the global function dispatch through its GOT slot (call *dispatch@GOTPCREL(%rip));
 * dispatch tail-calls crash, which dies of SIGSEGV.  The record of main's call
 * (DW_AT_call_origin) names dispatch; without -g nothing does. */
volatile int sink;

static __attribute__((noinline)) int crash(int x)
{
	sink = x;
	*(volatile int *)(long)sink = x;    /* sink is 0 here */
	return sink;
}

__attribute__((noinline)) int dispatch(int x)
{
	sink++;
	return crash(x - 1);
}

int main(void)
{
	int r = dispatch(sink);
	sink = r;
	return 0;
}

/* tailcall: a chain of tail calls ends in a crash.
 *
 *   main -> run_command -> cmd_set -(jmp)-> set_field -(jmp)-> write_field   (SIGSEGV)
 *
 * cmd_set and set_field leave by tail jumps and have no frame on the stack: a frame-pointer
 * walk shows main -> run_command -> write_field; corestack inserts both, marked
 * [lost tail call], and they are part of the signature. */
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noipa))

volatile int sink;

struct record {
	int fields[4];
};

NOINLINE int write_field(struct record *r, int i, int v)
{
	volatile int t = v;
	r->fields[i] = t;                /* r is NULL: SIGSEGV */
	return t;
}

NOINLINE int set_field(struct record *r, int i, int v) { return write_field(r, i & 3, v + sink); }
NOINLINE int cmd_set(struct record *r, int v) { return set_field(r, v * 3 + sink, v); }

NOINLINE int run_command(const char *cmd, struct record *r)
{
	int rc = strcmp(cmd, "set") == 0 ? cmd_set(r, 7) : 0;
	sink = rc;
	return rc + sink;
}

int main(void)
{
	printf("%d\n", run_command("set", NULL));
	return 0;
}

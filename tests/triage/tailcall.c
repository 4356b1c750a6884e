/* A crash reached through tail calls after an indirect call (tests/t_triage_corpus.sh):
 * glibc's __libc_start_call_main calls main through a pointer, main tail-jumps to handle,
 * which tail-jumps to ratio, which divides by a zero count (SIGFPE).  No frame of main or
 * handle is on the stack: the walk must infer them.  Usage: tailcall [COUNT] */
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink;

NOINLINE int ratio(int total, int count)
{
	int r = total / count;
	sink += r;
	return r;
}

NOINLINE int handle(int total, int count)
{
	sink++;
	return ratio(total * 2, count);
}

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 0;
	sink += count;
	return handle(argc + 10, count);
}

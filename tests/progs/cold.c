/* cold: an abort in a function's .cold part.
 *
 *   main -> process -> process.cold -> abort -> (libc raise/pthread_kill)
 *
 * The unlikely branch of process (it calls the cold function report, which
 * glibc's abort alone does not make gcc 12 do) is moved by gcc into
 * process.cold; the program passes bad=1 so it runs and calls abort
 * (SIGABRT).  abort does not return, so the return address of that call may
 * lie just past the end of process.cold. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline, noipa))

volatile int sink = 1;

__attribute__((noinline, noipa, cold)) void report(int x)
{
    fprintf(stderr, "process: bad input %d\n", x);
}

NOINLINE int process(int bad, int x)
{
    if (__builtin_expect(bad, 0)) {
        report(x);
        abort();
    }
    sink = x;
    return x * 2 + sink;
}

int main(void)
{
    int r = process(sink, 42);
    printf("%d\n", r);
    return 0;
}

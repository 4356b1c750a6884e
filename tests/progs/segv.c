/* segv: a null write.
 *
 *   main -> middle -> crasher  (crasher stores through a null pointer,
 *                               SIGSEGV, after setting up its frame)
 *
 * Also used, stripped, to check unwinding without a symbol table. */
#include <stdio.h>

#define NOINLINE __attribute__((noinline, noipa))

volatile int sink;
int *volatile nowhere;

NOINLINE int crasher(int x)
{
    volatile int t[2];
    t[0] = x;
    t[1] = x + sink;
    *nowhere = t[0] + t[1];       /* SIGSEGV */
    return t[1];
}

NOINLINE int middle(int x)
{
    int r = crasher(x + 1);
    sink = r;
    return r + sink;
}

int main(int argc, char **argv)
{
    printf("%d\n", middle(argc));
    return 0;
}

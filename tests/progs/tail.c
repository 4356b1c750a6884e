/* tail: a lost tail call.
 *
 *   main -> middle -> hop -(tail jump: "jmp leaf2")-> leaf2
 *
 * hop computes an argument and ends in "return leaf2(...)", compiled as a
 * jmp, so hop leaves no frame: when leaf2 runs, its return address is in
 * middle (after "call hop").  With argument "crash", leaf2 writes through a
 * null pointer (SIGSEGV inside leaf2); without arguments it returns and the
 * core makers stop inside leaf2 with gdb. */
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noipa))

volatile int sink;
int cell;

NOINLINE int leaf2(int *p, int x)
{
    volatile int t[2];
    t[0] = x;
    *p = x;                       /* p == NULL with "crash" */
    t[1] = *p + t[0];
    return t[1];
}

NOINLINE int hop(int *p, int x)
{
    return leaf2(p, x * 5 + sink);  /* tail call: jmp leaf2 */
}

NOINLINE int middle(int *p, int x)
{
    int r = hop(p, x + 1);
    sink = r;
    return r + sink;
}

int main(int argc, char **argv)
{
    int *p = (argc > 1 && strcmp(argv[1], "crash") == 0) ? NULL : &cell;
    printf("%d\n", middle(p, argc));
    return 0;
}

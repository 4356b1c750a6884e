/* leaf: call chains ending in leaf functions, for stops at precise PCs.
 *
 *   main -> middle -> leaf     (leaf uses the stack: it has a frame-pointer
 *                               frame in the fp, fpcfi and g builds,
 *                               "push %rbp; ...; mov %rsp,%rbp; ...; pop %rbp;
 *                               ret", and none in the fpnoleaf and cfi builds)
 *   main -> middle -> leaf0    (leaf0 uses no stack: frameless in every build)
 *
 * The core makers stop (gdb breakpoints) at leaf's first instruction, after
 * its push, inside its body and at its ret, and inside leaf0.  middle does
 * real work after each call, so neither call is a tail call. */
#include <stdio.h>

#define NOINLINE __attribute__((noinline, noipa))

volatile int sink;

NOINLINE int leaf(int x)
{
    volatile int t[2];
    t[0] = x;
    t[1] = x * 3;
    return t[0] + t[1] + 1;
}

NOINLINE int leaf0(int x)
{
    return (x * 3 + 1) ^ (x >> 3);    /* a few instructions, no stack */
}

NOINLINE int middle(int x)
{
    int r = leaf(x + 1);
    sink = r;
    r = leaf0(r + sink);
    sink = r;
    return r + sink;
}

int main(void)
{
    int r = middle(sink + 2);
    printf("%d\n", r);
    return 0;
}

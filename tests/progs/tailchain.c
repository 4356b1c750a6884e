/* tailchain: chains of tail calls, unique and ambiguous.
 *
 * argument "uniq":   main -> caller -> t1 -(jmp)-> t2 -(jmp)-> target
 *     t1 and t2 each contain exactly one tail jump, so the chain from
 *     caller's "call t1" to target is unique (t1 and t2 are both lost).
 * argument "ambig":  main -> caller2 -> a1 -(jmp)-> b1 or b2 -(jmp)-> final
 *     a1 jumps to b1 for odd arguments (taken here) and to b2 for even
 *     ones; both jump to final, so from final's return address only a1 is
 *     known to have been there.
 * target and final write through a pointer; with a second argument "crash"
 * it is NULL (SIGSEGV), otherwise the core makers stop there with gdb. */
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noipa))

volatile int sink;
int cell;

NOINLINE int target(int *p, int x)
{
    volatile int t = x;
    *p = t;
    return t + 1;
}

NOINLINE int t2(int *p, int x) { return target(p, x * 7 + sink); }
NOINLINE int t1(int *p, int x) { return t2(p, x + 3 + sink); }

NOINLINE int caller(int *p, int x)
{
    int r = t1(p, x);
    sink = r;
    return r + sink;
}

NOINLINE int final(int *p, int x)
{
    volatile int t = x;
    *p = t;
    return t + 2;
}

NOINLINE int b1(int *p, int x) { return final(p, x * 11 + sink); }
NOINLINE int b2(int *p, int x) { return final(p, x - 13 - sink); }

NOINLINE int a1(int *p, int x)
{
    if (x & 1)
        return b1(p, x + sink);
    return b2(p, x ^ sink);
}

NOINLINE int caller2(int *p, int x)
{
    int r = a1(p, x);
    sink = r;
    return r + sink;
}

int main(int argc, char **argv)
{
    int *p = (argc > 2 && strcmp(argv[2], "crash") == 0) ? NULL : &cell;
    if (argc > 1 && strcmp(argv[1], "ambig") == 0)
        printf("%d\n", caller2(p, 1));
    else
        printf("%d\n", caller(p, 1));
    return 0;
}

/* libcfp: crashes inside libc (CFI, no frame pointer) called from our code
 * (frame pointers only, in the fp builds).
 *
 * argument "abort":  main -> middle -> die -> abort -> raise -> pthread_kill
 *     (SIGABRT, every libc frame is unwound by CFI, then die, middle, main
 *     by frame pointers in the fp builds)
 * argument "qsort":  main -> sorter -> qsort -> (libc msort frames) -> cmp
 *     cmp writes through a null pointer (SIGSEGV): frame 0 is ours, the
 *     frames between it and sorter are libc's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noipa))

volatile int sink;
int *volatile nowhere;

NOINLINE void die(int x)
{
    sink = x;
    abort();
}

NOINLINE int middle(int x)
{
    die(x + 1);
    return sink;
}

NOINLINE int cmp(const void *a, const void *b)
{
    volatile int t[2];            /* stack use: a frame in the fp builds */
    t[0] = *(const int *)a;
    t[1] = *(const int *)b;
    *nowhere = t[0];              /* SIGSEGV */
    return t[0] - t[1];
}

NOINLINE int sorter(int n)
{
    int v[4] = { 4, 3, 2, 1 };
    qsort(v, n, sizeof v[0], cmp);
    sink = v[0];
    return v[0] + sink;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "qsort") == 0)
        printf("%d\n", sorter(4));
    else
        printf("%d\n", middle(argc));
    return 0;
}

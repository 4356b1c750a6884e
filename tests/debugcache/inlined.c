/* inlined: an abort inside a function inlined twice, for the debug-file cache test.
 *
 *   main -> outer -> [middle -> check inlined into outer] -> abort -> (libc)
 *
 * Built -O2 -g, its debug information split into a separate file with compressed
 * sections; the frames' lines and the inline frames come only from that file.  With
 * -DOTHER it has three more variables: another build, with another build-id. */
#include <stdlib.h>
#ifdef OTHER
volatile int other_a;
volatile int other_b;
volatile int other_c;
#endif

volatile int sink;

static inline __attribute__((always_inline)) void check(int v)
{
    if (v > 2)
        abort();                        /* LINE:check */
    sink = v;
}

static inline __attribute__((always_inline)) void middle(int v)
{
    check(v + 1);                       /* LINE:middle */
    sink += v;
}

__attribute__((noinline, noipa)) void outer(int v)
{
    middle(v * 2);                      /* LINE:outer */
    sink++;
}

int main(int argc, char **argv)
{
    outer(argc + 1);                    /* LINE:main */
    return 0;
}

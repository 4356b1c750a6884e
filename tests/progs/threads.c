/* threads: four threads, three blocked in known chains, one crashes.
 *
 *   main thread:  main -> pthread_join (libc, blocked)
 *   thread A:     start_thread -> worker_a -> block_a -> read (libc, blocked
 *                 on a pipe nobody writes)
 *   thread B:     start_thread -> worker_b -> mid_b -> spin_b (spins in our
 *                 own code until the process dies)
 *   thread C:     start_thread -> worker_c -> crash_c (null write, SIGSEGV,
 *                 once A and B are in place plus 200 ms)
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noipa))

volatile int sink;
volatile int ready_a, ready_b;
int *volatile nowhere;
int pipefd[2];

NOINLINE int block_a(int fd)
{
    char c;
    ready_a = 1;
    int n = read(fd, &c, 1);      /* blocks forever */
    sink = n;
    return n + sink;
}

NOINLINE void *worker_a(void *arg)
{
    sink = block_a(pipefd[0]);
    return arg;
}

NOINLINE int spin_b(int x)
{
    volatile int t[2];
    t[0] = x;
    ready_b = 1;
    for (;;) {                    /* never leaves */
        t[1] = t[0] + sink;
        __asm__ volatile("pause");
        if (t[1] == -12345)
            break;
    }
    return t[1];
}

NOINLINE int mid_b(int x)
{
    int r = spin_b(x + 1);
    sink = r;
    return r + sink;
}

NOINLINE void *worker_b(void *arg)
{
    sink = mid_b(2);
    return arg;
}

NOINLINE int crash_c(int x)
{
    volatile int t[2];
    t[0] = x;
    while (!ready_a || !ready_b)
        usleep(1000);
    usleep(200000);               /* let A enter read() */
    t[1] = t[0] + sink;
    *nowhere = t[1];              /* SIGSEGV */
    return t[1];
}

NOINLINE void *worker_c(void *arg)
{
    sink = crash_c(3);
    return arg;
}

int main(void)
{
    pthread_t a, b, c;
    if (pipe(pipefd) != 0)
        return 2;
    pthread_create(&a, NULL, worker_a, NULL);
    pthread_create(&b, NULL, worker_b, NULL);
    pthread_create(&c, NULL, worker_c, NULL);
    pthread_join(c, NULL);
    printf("%d\n", sink);
    return 0;
}

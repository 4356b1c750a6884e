/* A process for the option tests: two threads, each blocked in a known chain.
 *   main -> wait_main -> pause()           (the main thread)
 *   worker -> wait_worker -> pause()       (a second thread)
 * With argv[1] == "crash" it writes through a null pointer in crash_here instead. */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

volatile int sink;

__attribute__((noinline)) void wait_main(void) { pause(); sink++; }
__attribute__((noinline)) void wait_worker(void) { pause(); sink++; }
__attribute__((noinline)) void crash_here(int *p) { *p = 1; sink++; }

static void *worker(void *arg)
{
	(void)arg;
	wait_worker();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "crash") == 0) {
		crash_here(NULL);
		return 0;
	}
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	wait_main();
	return 0;
}

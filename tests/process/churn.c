/* A live process whose threads come and go: two spawner threads keep creating threads that
 * exit at once, while the main thread waits in main_waits().  tests/t_process.sh attaches
 * corestack -p to it again and again; some attaches meet a thread that is exiting.
 * Writes "ready" to the file named by argv[1] once the spawners run. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define SPAWNERS 2

static void *short_lived(void *arg)
{
	return arg;
}

static void *spawner(void *arg)
{
	for (;;) {
		pthread_t t;
		if (pthread_create(&t, NULL, short_lived, NULL) == 0)
			pthread_join(t, NULL);
	}
	return arg;
}

/* The main thread's wait, the frame the tests look for. */
__attribute__((noinline)) static void main_waits(void)
{
	for (;;)
		sleep(60);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	for (int i = 0; i < SPAWNERS; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, spawner, NULL) != 0)
			return 1;
	}
	FILE *ready = fopen(argv[1], "w");
	if (!ready || fputs("ready\n", ready) < 0 || fclose(ready) != 0)
		return 1;
	main_waits();
	return 0;
}

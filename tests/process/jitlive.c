/* A live process with a JIT frame: x86-64 code copied into an anonymous executable mapping
 * (no module covers it), named in the process's own perf map /tmp/perf-PID.map, calls
 * back into blocker(), which waits.  tests/t_process.sh walks it with corestack -p.
 * Writes "ready" to the file named by argv[1] once the map is written and the call made. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *ready_path;

__attribute__((noinline)) static void blocker(void)
{
	FILE *f = fopen(ready_path, "w");
	if (f) {
		fputs("ready\n", f);
		fclose(f);
	}
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	ready_path = argv[1];
	/* push %rbp; mov %rsp,%rbp; call *%rdi; pop %rbp; ret: a frame record, as a JIT's
	 * code keeps one, so that a frame-pointer walk goes through it */
	static const unsigned char code[] = { 0x55, 0x48, 0x89, 0xe5, 0xff, 0xd7, 0x5d, 0xc3 };
	unsigned char *jit = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (jit == MAP_FAILED)
		return 1;
	memcpy(jit, code, sizeof code);
	char map[64];
	snprintf(map, sizeof map, "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(map, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx jit_trampoline\n", (unsigned long)jit, sizeof code);
	fclose(f);
	((void (*)(void (*)(void)))jit)(blocker);
	return 0;
}

/* A program that runs code it wrote itself, as a JIT does, for tests/t_lang.sh: two
 * functions copied into an anonymous read-write-execute mapping, each with a frame record
 * (push %rbp; mov %rsp,%rbp), the outer calling the inner, the inner calling back into
 * crash_in_c, which dereferences a null pointer.  With an argument FILE it writes a perf map
 * naming the two functions there (none for an empty FILE) (the format of perf's
 * /tmp/perf-PID.map; a "%d" in FILE stands for the process's id).  With a second argument
 * READY, crash_in_c writes "ready" to the file READY and waits there for a signal instead,
 * for corestack -p. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* outer(fn, inner): push %rbp; mov %rsp,%rbp; call *%rsi; pop %rbp; ret
 * inner(fn):        push %rbp; mov %rsp,%rbp; call *%rdi; pop %rbp; ret */
static const unsigned char outer_code[] = { 0x55, 0x48, 0x89, 0xe5, 0xff, 0xd6, 0x5d, 0xc3 };
static const unsigned char inner_code[] = { 0x55, 0x48, 0x89, 0xe5, 0xff, 0xd7, 0x5d, 0xc3 };

volatile int *target;
static const char *ready_path;

__attribute__((noinline)) static void wait_here(void)
{
	FILE *f = fopen(ready_path, "w");
	if (f) {
		fputs("ready\n", f);
		fclose(f);
	}
	for (;;)
		pause();
}

__attribute__((noinline)) void crash_in_c(void)
{
	if (ready_path)
		wait_here();
	*target = 1;
}

__attribute__((noinline)) int run_jit(const char *perf_map)
{
	unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	unsigned char *outer = code + 0x100, *inner = code + 0x200;
	memcpy(outer, outer_code, sizeof outer_code);
	memcpy(inner, inner_code, sizeof inner_code);
	if (perf_map) {
		char path[4096];
		snprintf(path, sizeof path, perf_map, (int)getpid());
		FILE *f = fopen(path, "w");
		if (!f) {
			perror(path);
			return 1;
		}
		fprintf(f, "%lx %zx JS:outer\n", (unsigned long)outer, sizeof outer_code);
		fprintf(f, "%lx %zx JS:inner\n", (unsigned long)inner, sizeof inner_code);
		fclose(f);
	}
	void (*fn)(void (*)(void), void *) = (void (*)(void (*)(void), void *))(void *)outer;
	fn(crash_in_c, inner);
	return 0;
}

int main(int argc, char **argv)
{
	ready_path = argc > 2 ? argv[2] : NULL;
	int rc = run_jit(argc > 1 && argv[1][0] ? argv[1] : NULL);
	__asm__ volatile("" ::: "memory");     /* not a tail call: main stays on the stack */
	return rc;
}

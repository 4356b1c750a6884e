/* LD_PRELOAD shim for tests/t_jobs.sh: a process forked by the one that loaded it (a worker of
 * corestack's --jobs) is killed (SIGKILL) at its first write of more than 4096 bytes to a
 * socket: with CORESTACK_WORKERS_SLOT=4096 (doc/testing.md), the text of a chunk that follows
 * the chunk's header on the worker's socket.  The worker so dies after its header, before
 * any of the text. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static pid_t loaded_by;

__attribute__((constructor)) static void remember_loader(void)
{
	loaded_by = getpid();
}

ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*next)(int, const void *, size_t);
	struct stat st;
	if (!next)
		next = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (n > 4096 && getpid() != loaded_by && fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
		raise(SIGKILL);
	return next(fd, buf, n);
}

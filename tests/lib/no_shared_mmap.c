/* LD_PRELOAD shim for tests/t_jobs.sh: every shared anonymous mapping fails with ENOMEM, as
 * under a memory limit: corestack's --jobs gets no memory to share with workers (the claims
 * of a walk's chunks, their text's slots) and walks the threads in one process.  Other
 * mappings (files, private memory) go through. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/types.h>

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*next)(void *, size_t, int, int, int, off_t);
	if ((flags & MAP_SHARED) && (flags & MAP_ANONYMOUS)) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	if (!next)
		next = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	return next(addr, len, prot, flags, fd, off);
}

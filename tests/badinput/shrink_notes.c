/* shrink_notes.so: an LD_PRELOAD shim for tests/t_badinput.sh.  When SHRINK_PATH and
 * SHRINK_AT (a file offset: the core's PT_NOTE) are set, the first time the program reads
 * the file SHRINK_PATH at or past SHRINK_AT with pread, the file is truncated to SHRINK_AT
 * first: the core loses its notes at the very moment they are read, deterministically. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Truncates SHRINK_PATH to SHRINK_AT when FD is that file and OFF is at or past it. */
static void maybe_shrink(int fd, off_t off)
{
	const char *path = getenv("SHRINK_PATH"), *at = getenv("SHRINK_AT");
	struct stat fs, ps;
	if (!path || !at || off < atoll(at) || fstat(fd, &fs) != 0 || stat(path, &ps) != 0 ||
	    fs.st_dev != ps.st_dev || fs.st_ino != ps.st_ino)
		return;
	if (truncate(path, atoll(at)) != 0)
		abort();
	unsetenv("SHRINK_PATH");
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
	if (!real)
		real = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
	maybe_shrink(fd, off);
	return real(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
	if (!real)
		real = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread64");
	maybe_shrink(fd, off);
	return real(fd, buf, n, off);
}

/* Opening regular input files.  See openfile.h. */
#include "openfile.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int open_error(int e, char *err, size_t errlen)
{
	return cst_fail(err, errlen, e == ENOENT ? -CST_E_NOENT : e == EACCES ? -CST_E_PERM : -CST_E_IO,
			"%s", strerror(e));
}

int cst_open_regular(const char *path, int extra, struct stat *st, char *err, size_t errlen)
{
	/* Looked at before it is opened: opening a device can act (a watchdog starts, a tape
	 * rewinds) or block, and opening a FIFO releases a writer waiting on it. */
	if (((extra & O_NOFOLLOW) ? lstat(path, st) : stat(path, st)) < 0)
		return open_error(errno, err, errlen);
	if (!S_ISREG(st->st_mode))
		return cst_fail(err, errlen, -CST_E_IO, "not a regular file");
	/* O_NONBLOCK and a second check: PATH may have been replaced in between. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | extra);
	if (fd < 0)
		return open_error(errno, err, errlen);
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		return cst_fail(err, errlen, -CST_E_IO, "not a regular file");
	}
	fcntl(fd, F_SETFL, 0);
	return fd;
}

/* The fallback where openat2 is missing: realpath under ROOT, refused outside it. */
static int open_in_root_realpath(const char *root, const char *path, struct stat *st, char *resolved,
				 size_t reslen, char *err, size_t errlen)
{
	char joined[PATH_MAX], real[PATH_MAX], real_root[PATH_MAX];
	if (snprintf(joined, sizeof joined, "%s/%s", root, path) >= (int)sizeof joined)
		return cst_fail(err, errlen, -CST_E_NOENT, "path too long");
	if (!realpath(root, real_root) || !realpath(joined, real))
		return open_error(errno, err, errlen);
	size_t n = strlen(real_root);
	if (strncmp(real, real_root, n) != 0 || (real[n] != '/' && real[n] != 0 && n > 1))
		return cst_fail(err, errlen, -CST_E_PERM, "leads out of %s (to %s)", root, real);
	if (resolved)
		snprintf(resolved, reslen, "%s", real);
	return cst_open_regular(real, O_NOFOLLOW, st, err, errlen);
}

int cst_open_regular_in_root(int root_fd, const char *root, const char *path, struct stat *st,
			     char *resolved, size_t reslen, char *err, size_t errlen)
{
	/* O_PATH first: it neither blocks nor acts on a device or FIFO, and gives the inode to
	 * look at before the real open. */
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int pfd = (int)syscall(SYS_openat2, root_fd, path, &how, sizeof how);
	if (pfd < 0 && (errno == ENOSYS || errno == EPERM))   /* EPERM: a seccomp filter */
		return open_in_root_realpath(root, path, st, resolved, reslen, err, errlen);
	if (pfd < 0)
		return open_error(errno, err, errlen);
	char proc[64], where[PATH_MAX];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", pfd);
	ssize_t n = readlink(proc, where, sizeof where - 1);
	where[n > 0 ? n : 0] = 0;
	if (resolved)
		snprintf(resolved, reslen, "%s", n > 0 ? where : path);
	if (fstat(pfd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(pfd);
		return cst_fail(err, errlen, -CST_E_IO, "not a regular file");
	}
	/* the same inode, opened for reading through its descriptor */
	int fd = open(proc, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	int e = errno;
	close(pfd);
	if (fd < 0)
		return open_error(e, err, errlen);
	struct stat st2;
	if (fstat(fd, &st2) < 0 || st2.st_ino != st->st_ino || st2.st_dev != st->st_dev) {
		close(fd);
		return cst_fail(err, errlen, -CST_E_IO, "changed while it was opened");
	}
	fcntl(fd, F_SETFL, 0);
	return fd;
}

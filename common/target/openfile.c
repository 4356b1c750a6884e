/* Opening regular input files.  See openfile.h. */
#include "openfile.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
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

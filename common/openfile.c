/* Opening regular input files.  See openfile.h. */
#include "openfile.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int cst_open_regular(const char *path, int extra, struct stat *st, char *err, size_t errlen)
{
	/* O_NONBLOCK: a FIFO planted where a file is expected must not block the open. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | extra);
	if (fd < 0) {
		int e = errno;
		return cst_fail(err, errlen, e == ENOENT ? -CST_E_NOENT : e == EACCES ? -CST_E_PERM : -CST_E_IO,
				"%s", strerror(e));
	}
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		return cst_fail(err, errlen, -CST_E_IO, "not a regular file");
	}
	fcntl(fd, F_SETFL, 0);
	return fd;
}

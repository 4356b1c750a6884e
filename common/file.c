/* Opening the files a core names.  See file.h. */
#include "file.h"

#include <fcntl.h>
#include <unistd.h>

int cst_open_regular(const char *path, struct stat *st)
{
	if (stat(path, st) < 0)
		return -1;
	if (!S_ISREG(st->st_mode))
		return -2;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		return -2;
	}
	return fd;
}

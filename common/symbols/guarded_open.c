/* Opening the files libdwfl opens by itself.  See guarded_open.h. */
#include "guarded_open.h"
#include "core.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static __thread struct cst_core *guarded;

struct cst_core *cst_guarded_open_begin(struct cst_core *c)
{
	struct cst_core *was = guarded;
	guarded = c;
	return was;
}

/* Defined here, this `open` is the one libdw (and every library of the program) calls; it
 * is the system call itself unless a core is guarded.  A shared object built from these
 * files keeps it local (plugin/exports.map), so it changes nothing in gdb. */
int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	struct cst_core *c = guarded;
	if (!c || (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TMPFILE)))
		return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
	/* cst_core_open_file opens with `open` too: unguarded inside */
	guarded = NULL;
	struct stat st;
	char where[PATH_MAX], err[128];
	int fd = cst_core_open_file(c, path, &st, where, sizeof where, err, sizeof err);
	guarded = c;
	if (fd >= 0)
		return fd;
	if (fd != -CST_E_NOENT)
		cst_core_warn(c, "cannot open %s, named in the core's memory: %s", where, err);
	errno = fd == -CST_E_NOENT ? ENOENT : fd == -CST_E_PERM ? EACCES : EINVAL;
	return -1;
}

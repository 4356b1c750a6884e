/* Opening an input file that must be a regular file. */
#ifndef CST_OPENFILE_H
#define CST_OPENFILE_H

#include <stddef.h>
#include <sys/stat.h>

/* Opens PATH read-only (close-on-exec, plus EXTRA open flags) when it is a regular file; its
 * status goes to *ST.  Anything else (a FIFO, a device, a directory) is refused before it is
 * opened, and checked again after the open, which does not block and does not make PATH a
 * controlling terminal.  With O_NOFOLLOW in EXTRA a symbolic link is refused too.  Returns the descriptor
 * (blocking mode restored), or -CST_E_NOENT / -CST_E_PERM / -CST_E_IO with a one-line
 * reason in ERR (ERRLEN bytes). */
int cst_open_regular(const char *path, int extra, struct stat *st, char *err, size_t errlen);

/* Like cst_open_regular, for PATH resolved inside the directory ROOT_FD as if it were the
 * root: "..", absolute paths and absolute symbolic links never lead out of it (Linux
 * openat2(2) with RESOLVE_IN_ROOT, Linux 5.6; where the kernel lacks it, PATH is resolved
 * with realpath(3) under ROOT, the directory's path, and refused when the result lies
 * outside).  The resolved path on this machine goes to RESOLVED (RESLEN bytes, may be
 * NULL).  Returns the descriptor, or -CST_E_NOENT / -CST_E_PERM / -CST_E_IO with a
 * one-line reason in ERR; a path that leads out of ROOT is -CST_E_PERM. */
int cst_open_regular_in_root(int root_fd, const char *root, const char *path, struct stat *st,
			     char *resolved, size_t reslen, char *err, size_t errlen);

#endif

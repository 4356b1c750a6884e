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

#endif

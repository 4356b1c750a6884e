/* Opening an input file that must be a regular file. */
#ifndef CST_OPENFILE_H
#define CST_OPENFILE_H

#include <stddef.h>
#include <sys/stat.h>

/* Opens PATH read-only (close-on-exec, plus EXTRA open flags) without blocking on a FIFO,
 * and checks that it is a regular file; its status goes to *ST.  Returns the descriptor
 * (blocking mode restored), or -CST_E_NOENT / -CST_E_PERM / -CST_E_IO with a one-line
 * reason in ERR (ERRLEN bytes). */
int cst_open_regular(const char *path, int extra, struct stat *st, char *err, size_t errlen);

#endif

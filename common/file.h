/* Opening the files a core names (NT_FILE paths, module paths): hostile input. */
#ifndef CST_FILE_H
#define CST_FILE_H

#include <sys/stat.h>

/* Opens PATH read-only when it is a regular file, and stores its status in *ST.  Anything
 * else is refused before it is opened: opening a device can act (a watchdog starts, a tape
 * rewinds) or block, opening a FIFO releases a writer waiting on it.  The open does not
 * block and does not make PATH the controlling terminal; the file is checked again after
 * the open (it may have been replaced in between).  Returns the descriptor, -1 with errno
 * set when PATH cannot be looked up or opened (ENOENT, EACCES, ELOOP, ...), or -2 when it is
 * not a regular file. */
int cst_open_regular(const char *path, struct stat *st);

#endif

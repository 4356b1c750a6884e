/* Where separate debug files are looked for: libdwfl's debuginfo_path.
 *
 * libdwfl's dwfl_standard_find_debuginfo reads a colon-separated list (elfutils
 * libdwfl/libdwfl.h, Dwfl_Callbacks.debuginfo_path; default ":.debug:/usr/lib/debug"):
 * an empty entry is the directory of the module's file, a relative one a subdirectory of
 * it, and an absolute DIR is searched both as DIR/.build-id/xx/yyyy.debug (by build-id)
 * and as DIR/<directory of the module>/<.gnu_debuglink name>, as gdb's
 * debug-file-directory.  When DEBUGINFOD_URLS is set, libdw's debuginfod client is asked
 * last, by build-id. */
#ifndef CST_DEBUGDIRS_H
#define CST_DEBUGDIRS_H

#include <stddef.h>

/* Adds absolute directory DIR in front of /usr/lib/debug for every cst_symbols opened
 * afterwards.  Returns 0, or -CST_E_INVAL when DIR is not absolute or contains ':' (the
 * list separator), -CST_E_NOMEM. */
int cst_debugdirs_add(const char *dir);

/* The debuginfo_path to give libdwfl: NULL (libdwfl's default) when no directory was added. */
char *cst_debugdirs_path(void);

#endif

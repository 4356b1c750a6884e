/* Where separate debug files are looked for: libdwfl's debuginfo_path.
 *
 * libdwfl's dwfl_standard_find_debuginfo reads a colon-separated list (elfutils
 * libdwfl/libdwfl.h, Dwfl_Callbacks.debuginfo_path; default ":.debug:/usr/lib/debug"):
 * an empty entry is the directory of the module's file, a relative one a subdirectory of
 * it, and an absolute DIR is searched both as DIR/.build-id/xx/yyyy.debug (by build-id)
 * and as DIR/<directory of the module>/<.gnu_debuglink name>, as gdb's
 * debug-file-directory.  When DEBUGINFOD_URLS is set, libdw's debuginfod client is asked
 * last, by build-id.
 *
 * symbols.c runs that search only when it can matter: a module with a build-id is first
 * looked up in the cache of decompressed debug files (debugcache.h); a module without a
 * .gnu_debuglink, when DEBUGINFOD_URLS is unset or empty, is looked up by build-id alone
 * (dwfl_build_id_find_debuginfo: DIR/.build-id/xx/yyyy.debug), because the standard
 * search loads the debuginfod client library (and its dozens of dependencies) before that
 * client finds it has no server to ask.  Such a module's debug file is then not found by
 * the name <module>.debug in the module's directory or DIR.  And such a module is not
 * searched for at all, nor its DWARF asked of libdwfl when its own file has none, unless a
 * file its build-id names exists in the cache or a directory (cst_debugdirs_has_build_id). */
#ifndef CST_DEBUGDIRS_H
#define CST_DEBUGDIRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Adds absolute directory DIR in front of /usr/lib/debug for every cst_symbols opened
 * afterwards.  Returns 0, or -CST_E_INVAL when DIR is not absolute or contains ':' (the
 * list separator), -CST_E_NOMEM. */
int cst_debugdirs_add(const char *dir);

/* The debuginfo_path to give libdwfl: NULL (libdwfl's default) when no directory was added. */
char *cst_debugdirs_path(void);

/* Whether a file is named by GNU build-id ID (IDLEN bytes) in a directory of the path:
 * DIR/.build-id/xx/yyyy.debug for each absolute DIR (a leading '+' or '-' dropped), as
 * dwfl_build_id_find_debuginfo looks for it (elfutils libdwfl/dwfl_build_id_find_elf.c:
 * ids of 3 to 64 bytes only).  Only that the name exists is checked: the file is not
 * opened. */
bool cst_debugdirs_has_build_id(const uint8_t *id, size_t idlen);

#endif

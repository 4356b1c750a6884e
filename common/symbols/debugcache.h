/* A persistent cache of separate debug files with their compressed sections decompressed.
 *
 * Distributions ship separate debug files whose .debug_* sections are SHF_COMPRESSED (gABI,
 * "Sections", Compressed Sections: an Elf32_Chdr / Elf64_Chdr header giving ch_type,
 * ch_size, ch_addralign, then the zlib or zstd stream; <elf.h>).  libdw inflates every such
 * section each time a debug file is opened, which costs far more than the walk itself.
 * This cache keeps one decompressed copy per build-id, so that only the first run pays.
 *
 * Where: $XDG_CACHE_HOME/corestack/debug, else $HOME/.cache/corestack/debug (XDG Base
 * Directory Specification 0.8), created with mode 0700, or the directory given to
 * cst_debugcache_set_dir.  A directory that is not ours (another owner, or writable by
 * group or others) is not used.  An entry is DIR/<build-id in lowercase hex>.debug; it is
 * used only when it is a regular file, an ELF file whose GNU build-id note equals the
 * module's, whose sections all lie inside the file and none of them is still compressed.
 * Anything else (truncated, another build-id, a symbolic link, a FIFO, garbage) is
 * ignored, and replaced the next time the debug file is found.  A valid entry is used
 * before the debug file is looked for, so the entry stays usable when the package that
 * installed the debug file is removed.  An entry is written to a temporary file in DIR
 * (".tmp-*", deleted by a later run when older than an hour) and renamed into place, so a
 * concurrent reader sees the whole entry or none.  The entry keeps the ELF header, the
 * program headers (in a debug file they describe the stripped image: gABI "Program
 * Header") and every section before the first compressed one at their offsets; the
 * sections from there on follow at their alignment.
 *
 * Bounds: a debug file whose decompressed size would exceed the file limit is not cached
 * (default CST_DEBUGCACHE_FILE_MAX; environment CORESTACK_DEBUG_CACHE_FILE_MAX, bytes);
 * after an entry is written, the least recently used entries (the mtime, set on each use)
 * are deleted until the entries total at most the total limit (default
 * CST_DEBUGCACHE_TOTAL_MAX; environment CORESTACK_DEBUG_CACHE_TOTAL_MAX, bytes).
 *
 * Off: cst_debugcache_disable(), or CORESTACK_DEBUG_CACHE=0 in the environment.
 *
 * The cache never fails a lookup: on any problem (no home directory, a read-only or full
 * disk, a limit) the original debug file is used. */
#ifndef CST_DEBUGCACHE_H
#define CST_DEBUGCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Default bound on one cached (decompressed) debug file, in bytes: 1 GiB. */
#define CST_DEBUGCACHE_FILE_MAX (1ull << 30)
/* Default bound on all the entries of the cache directory together, in bytes: 4 GiB. */
#define CST_DEBUGCACHE_TOTAL_MAX (4ull << 30)

/* Turns the cache off for every lookup afterwards. */
void cst_debugcache_disable(void);

/* Uses DIR (kept, not copied) as the cache directory instead of the XDG default; it is
 * created (mode 0700) when missing, its parents are not.  Returns 0, or -CST_E_INVAL when
 * DIR is not an absolute path. */
int cst_debugcache_set_dir(const char *dir);

/* Opens the cache entry of the separate debug file whose GNU build-id is ID (IDLEN
 * bytes) when it is valid (see above), and marks it used (its mtime).  Returns its
 * descriptor, with its path (malloc'd) in *PATH; -1 when the cache is off or has no
 * valid entry for ID. */
int cst_debugcache_open(const uint8_t *id, size_t idlen, char **path);

/* Whether the cache, when on, holds a file named for build-id ID (IDLEN bytes): what
 * cst_debugcache_open would try to open, not opened or checked.  The name is looked up in
 * the directory's names, read once per process (again after cst_debugcache_set_dir), or
 * with lstat when the directory could not be read whole: an entry another process makes
 * later is not seen. */
bool cst_debugcache_has(const uint8_t *id, size_t idlen);

/* Writes the cache entry for build-id ID (IDLEN bytes) from FD, an open descriptor of the
 * separate debug file found for it, when that file has SHF_COMPRESSED sections, its own
 * build-id is ID, it has no .gnu_debugaltlink (a dwz file, found relative to the debug
 * file's directory) and it is within the bounds; then prunes the directory.  FD stays
 * open.  Nothing is reported: on any failure there is simply no entry. */
void cst_debugcache_store(const uint8_t *id, size_t idlen, int fd);

#endif

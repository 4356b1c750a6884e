/* A remote target (gdb's `target remote`, e.g. qemu-user's gdbstub): no process or core
 * file on this machine.  The program file gdb debugs is named by the fpbt command (it
 * writes `info inferiors`' executable into the fpbt directory as `program`, and gdb's
 * sysroot as `sysroot`); its ELF header gives the architecture; the other modules come from
 * the program's link map (r_debug through DT_DEBUG), read with gdb's memory, their files
 * from the sysroot.  The program itself must be ET_EXEC (its load bias is 0); a PIE
 * program is refused. */
#ifndef CST_GDB_REMOTE_H
#define CST_GDB_REMOTE_H

#include "inferior.h"
#include "target.h"

/* Makes INF the remote program at PROGRAM (a path on this machine), unless it already is
 * and the file did not change.  Returns 0, -CST_E_NOENT (unreadable, not ET_EXEC) or
 * -CST_E_ARCH (an architecture corestack does not unwind), with INF->why set. */
int cst_remote_open(struct cst_inferior *inf, const char *program);

/* Reads the module list of INF through T (gdb's memory) and reopens INF's symbols when it
 * changed; on SPARC also finds a flushw instruction in the modules' code (INF->flushw).
 * SYSROOT ("" for none) prefixes the link map's file names.  Returns 0, or -CST_E_DWFL with
 * INF->why set when no module can be read. */
int cst_remote_modules(struct cst_inferior *inf, const struct cst_target *t, const char *sysroot);

#endif

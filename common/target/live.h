/* A live process as a target: every thread stopped with ptrace, registers from the
 * architecture's ptrace_regs hook, memory from /proc/PID/mem.  The same cst_target interface as core files. */
#ifndef CST_LIVE_H
#define CST_LIVE_H

#include <stddef.h>
#include <sys/types.h>
#include "arch.h"
#include "regs.h"
#include "target.h"

struct cst_live;

struct cst_live_thread {
	int tid;
	struct cst_regs regs;    /* DWARF numbers */
};

/* Attaches to every thread of process PID, of architecture ARCH, and reads their registers.
 * A thread that exits meanwhile (ESRCH from PTRACE_ATTACH, or EPERM with the thread exiting
 * by /proc/PID/task/TID/stat; its exit reported by waitpid; ESRCH reading its registers) is
 * skipped, not an error: see cst_live_nskipped.  Returns 0, or
 *   -CST_E_NOENT  no such process
 *   -CST_E_PERM   ptrace not permitted (another tracer, Yama ptrace_scope, or another user)
 *   -CST_E_ARCH   this host cannot read ARCH's registers (no ptrace_regs hook)
 *   -CST_E_PTRACE another ptrace failure
 *   -CST_E_NOMEM
 * with a one-line reason in ERR.  The main thread comes first, the rest in tid order. */
int cst_live_attach(pid_t pid, const struct cst_arch *arch, struct cst_live **out, char *err,
		    size_t errlen);
/* Detaches from every thread (they run on) and frees L. */
void cst_live_detach(struct cst_live *l);

struct cst_target *cst_live_target(struct cst_live *l);
size_t cst_live_nthreads(const struct cst_live *l);
const struct cst_live_thread *cst_live_thread(const struct cst_live *l, size_t i);
/* The threads skipped for they exited while being attached: how many, and the tid of the
 * I-th (0 when I is out of range), in the order they were met. */
size_t cst_live_nskipped(const struct cst_live *l);
int cst_live_skipped(const struct cst_live *l, size_t i);

/* Reads the registers of stopped thread TID, of architecture ARCH, of a process the caller
 * already traces (ARCH's ptrace_regs) into OUT.  Returns 0, -CST_E_PTRACE, or -CST_E_ARCH
 * when this host cannot read ARCH's registers. */
int cst_live_getregs(const struct cst_arch *arch, int tid, struct cst_regs *out);

/* A target that reads /proc/PID/mem of a process the caller already traces; its anon_code
 * answers from /proc/PID/maps as read here (an anonymous executable mapping, see
 * cst_procmap_anon_code).  Returns 0 or -CST_E_PERM / -CST_E_NOENT / -CST_E_NOMEM. *T is
 * filled; release with cst_live_close_target. */
int cst_live_open_target(pid_t pid, struct cst_target *t);
/* The same without the memory: no descriptor stays open, every read fails with
 * -CST_E_MEMORY; anon_code and copied_code answer from /proc/PID/maps as read here (none
 * when it cannot be read).  For a debugger that reads the memory itself.  Returns 0 or
 * -CST_E_NOMEM. */
int cst_live_open_maps(pid_t pid, struct cst_target *t);
/* Releases what cst_live_open_target or cst_live_open_maps filled T with. */
void cst_live_close_target(struct cst_target *t);

/* The pid of the process tracing PID (the TracerPid line of /proc/PID/status, proc(5)): 0
 * when none does, -1 when the file cannot be read. */
pid_t cst_live_tracer(pid_t pid);

#endif

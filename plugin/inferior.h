/* The process gdb is debugging, found from the outside: a JIT reader is told nothing about
 * it.  gdb keeps the files of its inferior open, so its own descriptors name it:
 *   - a live process: /proc/PID/task/TID/mem (gdb reads memory through it), confirmed by
 *     TracerPid in /proc/PID/status being gdb itself, else any process gdb traces;
 *   - a core file: an open regular file whose ELF header says ET_CORE;
 *   - else a remote target (a gdbstub such as qemu-user's): the program file that the fpbt
 *     command found in `info inferiors` (remote.h, the `program` file of fpbt.h).
 * From it come the architecture (the executable's or the core's ELF header, read before any
 * register is touched), the modules for symbols (/proc/PID/maps or the core's NT_FILE), and
 * the threads' own registers, which tell frame 0 from a caller. */
#ifndef CST_GDB_INFERIOR_H
#define CST_GDB_INFERIOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "process.h"
#include "target.h"

enum cst_inferior_kind { CST_INF_NONE, CST_INF_LIVE, CST_INF_CORE, CST_INF_REMOTE };

/* A thread's registers where it stopped: a frame with both is a frame 0. */
struct cst_inferior_context {
	uint64_t pc, sp;
};

struct cst_inferior {
	enum cst_inferior_kind kind;
	pid_t pid;                   /* live: the process */
	char core_path[4096];        /* core: the file gdb has open */
	dev_t core_dev;
	ino_t core_ino;
	int gdb_fd;                  /* live or core: gdb's descriptor that named the inferior
	                                (its memory file or the core) */
	dev_t gdb_fd_dev;
	ino_t gdb_fd_ino;
	struct timespec gdb_fd_mtime; /* that file's mtime: a core rewritten in place is another */
	struct cst_inferior_context *contexts; /* core: every thread's pc and sp, sorted */
	size_t ncontexts;
	uint64_t maps_hash;          /* live: hash of /proc/PID/maps when symbols were read;
	                                remote: hash of the module list (remote.h) */
	char program[4096];          /* remote: the program file gdb debugs (remote.h) */
	dev_t program_dev;
	ino_t program_ino;
	uint64_t flushw;             /* remote SPARC: address of a flushw instruction, 0 if none */
	const struct cst_arch *arch; /* NULL: an architecture corestack does not unwind */
	struct cst_target live_maps; /* live: /proc/PID/maps when it was opened, for
	                                cst_inferior_code_facts (ops NULL: none) */
	struct cst_process *proc;    /* its image: arch, symbols (NULL on a remote target until
	                                its modules are read), the unwind environment, whose
	                                target the reader sets per call */
	uint64_t probe_addr;         /* core: the lowest stack pointer of its threads, */
	unsigned char probe[32];     /* the bytes the core holds there, */
	unsigned probe_len;          /* and how many (0: none read) */
	char why[4400];               /* why the inferior is not usable, for fpbt */
	bool no_local;               /* gdb has no process or core file open: a remote target,
	                                usable once fpbt found its program */
};

/* Finds gdb's inferior again and reopens what changed (another process or core, new
 * mappings).  gdb's descriptors are looked through only when the one that named the inferior
 * last no longer names the same file (fstat: device, inode, mtime), or, for a core, when
 * MEMORY (gdb's memory of its current inferior, read directly; NULL: not checked) does not
 * hold the core's bytes at a thread's stack pointer: gdb calls the reader for every
 * frame it unwinds, and another inferior may have its own core (add-inferior, core-file).
 * Of several open cores, the one whose bytes MEMORY holds is taken.  Returns 0 when INF is
 * usable (arch and symbols known), or a negative code with INF->why set: -CST_E_NOENT no
 * inferior found or several, -CST_E_ARCH an architecture corestack does not unwind, another
 * code when its modules cannot be read. */
int cst_inferior_update(struct cst_inferior *inf, const struct cst_target *memory);

/* True when PC and SP (target virtual addresses) are the registers some thread of INF stops
 * with: the frame is a frame 0, not a caller.  Live threads are read with ptrace, the
 * architecture's ptrace_regs (gdb is their tracer); a core's from its NT_PRSTATUS notes. */
bool cst_inferior_is_context(struct cst_inferior *inf, uint64_t pc, uint64_t sp);

/* What tells which of INF's memory holds code no module covers (JIT code, a copy of a file's
 * code): a core's own target, a live process's maps as read when it was opened; NULL for a
 * remote target.  Valid until INF is updated or closed. */
const struct cst_target *cst_inferior_code_facts(const struct cst_inferior *inf);
/* Closes INF and sets INF->why from FMT (one %s, ARG).  Returns CODE. */
int cst_inferior_unusable(struct cst_inferior *inf, int code, const char *fmt, const char *arg);

/* Releases everything INF holds; INF is then empty. */
void cst_inferior_close(struct cst_inferior *inf);

#endif

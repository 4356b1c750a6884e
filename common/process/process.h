/* One process image, whichever way it was reached: an ELF core file, a live process, or
 * the inferior of a debugger that hands over its own memory and module list (the gdb
 * plugin).  It owns what a walk needs (the target, the symbols, the unwind environment,
 * the perf map that names JIT code) and knows the architecture, whose signal numbers it
 * names (cst_signal_name).  The CLI, the shell and the gdb plugin open their images here.
 *
 * Addresses are target virtual addresses.  Errors are negated codes of error.h with a
 * one-line reason (without the image's name) in ERR, ERRLEN bytes. */
#ifndef CST_PROCESS_H
#define CST_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "arch.h"
#include "core.h"
#include "perfmap.h"
#include "symbols.h"
#include "unwind.h"

struct cst_process;

/* One thread: the registers it stopped with (DWARF numbers of the process's architecture),
 * whether it is the thread the kernel dumped the core for, and the signal that stopped it
 * (for the crashed thread of a core, NT_SIGINFO's si_signo when present, else pr_cursig;
 * 0 when none or not known). */
struct cst_process_thread {
	int tid;
	const struct cst_regs *regs;
	bool crashed;
	int cursig;
};

/* Opens core file PATH with OPT (core.h: the descriptor, -e, --sysroot).  Returns 0, or a
 * code of cst_core_open with its reason in ERR.  The symbols may still be missing: see
 * cst_process_symbols_error. */
int cst_process_open_core(struct cst_process **out, const char *path,
			  const struct cst_core_options *opt, char *err, size_t errlen);

/* Opens live process PID.  With ATTACH every thread is stopped with ptrace (and released by
 * cst_process_close) and memory is read from /proc/PID/mem; without it the caller (a
 * debugger tracing PID) supplies the memory with cst_process_set_target and the process has
 * no threads of its own.  The architecture comes from /proc/PID/exe's ELF header.  Returns
 * 0, or -CST_E_NOENT (no such process, or its executable unreadable), -CST_E_ARCH (an
 * architecture corestack does not unwind), -CST_E_PERM / -CST_E_PTRACE (cannot attach),
 * -CST_E_NOMEM.  The symbols may still be missing: see cst_process_symbols_error. */
int cst_process_open_pid(struct cst_process **out, pid_t pid, bool attach, char *err, size_t errlen);

/* A process of architecture ARCH whose memory and modules a debugger supplies: no target
 * until cst_process_set_target, no symbols until cst_process_report_files, no threads.
 * Returns 0 or -CST_E_NOMEM. */
int cst_process_open_external(struct cst_process **out, const struct cst_arch *arch, char *err,
			      size_t errlen);

/* Releases everything P holds (detaching from a live process).  P may be NULL. */
void cst_process_close(struct cst_process *p);

/* Replaces P's symbols with N module files: PATHS[i] loaded with load bias BIASES[i]
 * (cst_symbols_open_files).  What the unwind environment cached goes with the old ones.
 * Returns 0, or -CST_E_DWFL / -CST_E_NOMEM with ERR set (P then has no symbols). */
int cst_process_report_files(struct cst_process *p, size_t n, const char *const *paths,
			     const uint64_t *biases, char *err, size_t errlen);

/* Makes T the target P's walks read (NULL: P's own target, if any).  T must outlive its use:
 * a debugger's memory callbacks are valid for one call. */
void cst_process_set_target(struct cst_process *p, struct cst_target *t);
/* P's own target (its core file, or the live process it opened), NULL for a process a
 * debugger supplies. */
const struct cst_target *cst_process_own_target(const struct cst_process *p);

/* Gives P the perf map M (P closes it; NULL: none): the unwind environment's `jit`, which
 * names frames outside every module and tells the unwinder its code is code. */
void cst_process_set_perfmap(struct cst_process *p, struct cst_perfmap *m);

const struct cst_arch *cst_process_arch(const struct cst_process *p);
/* The unwind environment: arch, target, symbols, perf map; the caller may change max_frames. */
struct cst_unwind_env *cst_process_env(struct cst_process *p);
/* The symbols, NULL when the modules could not be reported. */
struct cst_symbols *cst_process_symbols(const struct cst_process *p);
/* Why there are no symbols ("cannot report the core's modules: ..."), else NULL. */
const char *cst_process_symbols_error(const struct cst_process *p);
/* The core file, NULL for a live or external process. */
struct cst_core *cst_process_core(const struct cst_process *p);
/* The process id: NT_PRPSINFO's (else the first thread's) for a core, 0 when unknown. */
pid_t cst_process_pid(const struct cst_process *p);
/* The main executable's path (-e, the core's NT_FILE entry, /proc/PID/exe), or NULL: the
 * file used, the core's own when -e's is not the core's program and it is.  Lives
 * as long as P. */
const char *cst_process_executable(const struct cst_process *p);

/* Threads: the crashing one first (a core), or the main thread first (a live process). */
size_t cst_process_nthreads(const struct cst_process *p);
/* Thread I (below cst_process_nthreads) into *T, whose regs stay valid as long as P.
 * Returns 0, or -CST_E_INVAL when I is out of range. */
int cst_process_thread(const struct cst_process *p, size_t i, struct cst_process_thread *t);
/* Threads of a live process that exited while they were being attached, left out of the
 * threads above: how many (0 for a core), and the tid of the I-th (0 when out of range). */
size_t cst_process_nskipped(const struct cst_process *p);
int cst_process_skipped(const struct cst_process *p, size_t i);

/* Signals as ARCH numbers them (SPARC differs from the generic Linux numbers; ARCH NULL:
 * the generic numbers).  cst_signal_name: "SIGSEGV", or "signal N" for a number with no
 * name (a per-thread static buffer).  cst_signal_text: strsignal(3)'s description
 * ("Segmentation fault"), "unknown signal" for a number with no name. */
const char *cst_signal_name(const struct cst_arch *arch, int signo);
const char *cst_signal_text(const struct cst_arch *arch, int signo);

#endif

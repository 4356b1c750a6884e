/* An ELF core file: its threads (NT_PRSTATUS), signal (NT_SIGINFO), process (NT_PRPSINFO),
 * auxiliary vector (NT_AUXV), file mappings (NT_FILE), and its memory as a cst_target.
 *
 * The file is read with pread, never mapped or read whole: its headers once, its notes once
 * through a 64 KiB window, its memory through a small block cache.  What a core costs in
 * memory grows with its thread count and its NT_FILE and NT_AUXV notes (copied whole), not
 * with its memory segments or its other notes: at most 1,000,000 threads are kept (the rest
 * are warned about), each as 24 bytes, and the registers of the first of them up to 16 MiB
 * (those of the others are read again when cst_core_thread asks).  Memory comes from PT_LOAD segments, looked up in a sorted index (O(log n)); bytes
 * the kernel left out (the text pages of mapped files) are read from the files NT_FILE
 * names, after -e / --sysroot substitution.  Every size and offset in the file is checked
 * against the file's real size before use.  A PT_LOAD whose header is impossible (its bytes
 * would run into the next segment's in the file, or past 2^64) is warned about and none of
 * its bytes are read from the core: its addresses read as memory the core left out (from a
 * file NT_FILE maps there, else unreadable). */
#ifndef CST_CORE_H
#define CST_CORE_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include "arch.h"
#include "regs.h"
#include "target.h"

struct cst_core_thread {
	int tid;                 /* pr_pid of the thread's NT_PRSTATUS */
	int cursig;              /* pr_cursig: the signal that stopped it, 0 if none */
	bool crashed;            /* the thread the kernel dumped for (written first, with cursig) */
	struct cst_regs regs;     /* by DWARF number */
};

struct cst_core_mapping {         /* one NT_FILE entry */
	uint64_t start, end;     /* target virtual addresses, [start, end) */
	uint64_t offset;         /* file offset in bytes (pgoff * page size) */
	const char *name;        /* path as recorded in the core (points into the core's notes, read once) */
	int file;                /* index into the core's open-file table, -1 before first use */
};

struct cst_core_signal {
	bool present;            /* NT_SIGINFO found */
	int signo, code, err;
	bool has_addr;           /* si_addr is meaningful (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP) */
	uint64_t addr;
	bool has_sender;         /* sent by a process (si_code SI_USER, SI_QUEUE or SI_TKILL): */
	int sender_pid;          /* its si_pid */
	unsigned sender_uid;     /* and si_uid */
};

struct cst_core;

/* Who reads a core's notes past the second thread's.  With CST_NOTES_BESIDE, on a core of
 * thousands of threads (8 MiB of notes left) and with another CPU to run on, a child process
 * (fork) reads them while the caller walks the first thread; cst_core_nthreads,
 * cst_core_thread of any other thread, the warnings and cst_core_close wait for it.  Only
 * for a process that can fork, none of whose other children a waitpid(-1) would reap.  The
 * last two are test hooks: a child whatever the size and the CPUs, and one that fails (the
 * caller then reads the notes itself). */
enum cst_notes_beside { CST_NOTES_HERE, CST_NOTES_BESIDE, CST_NOTES_BESIDE_ALWAYS, CST_NOTES_BESIDE_FAILING };

struct cst_core_options {
	const char *executable;  /* -e: replaces the core's main executable mapping, or NULL */
	const char *sysroot;     /* --sysroot: prefix for every NT_FILE path, or NULL */
	int fd;                  /* > 0: an open descriptor of the core to read instead of opening
				  * PATH (which then only names it); cst_core_open takes it over */
	enum cst_notes_beside notes_beside;   /* see below; 0: CST_NOTES_HERE */
};

/* False when the core was not made by a crash: its dumping thread's signal (NT_SIGINFO, else
 * pr_cursig) is none or SIGSTOP, which cannot make the kernel dump core but is how a debugger
 * holds a process it saves (gcore). */
bool cst_core_is_crash(const struct cst_core *c);

/* Opens and indexes core file PATH.  On failure returns a negative code and writes a
 * one-line reason (without the file name) into ERR (ERRLEN bytes):
 *   -CST_E_NOENT / -CST_E_PERM / -CST_E_IO   cannot open or map the file
 *   -CST_E_NOT_ELF                         not an ELF file
 *   -CST_E_NOT_CORE                        an ELF file but e_type is not ET_CORE
 *   -CST_E_ARCH / -CST_E_CLASS              a machine or class corestack does not unwind
 *   -CST_E_TRUNCATED / -CST_E_BAD_NOTE      headers or notes lie about sizes
 *   -CST_E_NO_THREADS                      no usable NT_PRSTATUS
 *   -CST_E_NOMEM
 * Problems that still leave a usable core (a cut note, a missing mapped file) are kept as
 * warnings, see cst_core_warnings(). */
int cst_core_open(const char *path, const struct cst_core_options *opt, struct cst_core **out,
		 char *err, size_t errlen);
void cst_core_close(struct cst_core *c);

/* The libelf handle of the core (for libdwfl's dwfl_core_file_report). */
Elf *cst_core_elf(struct cst_core *c);
const struct cst_arch *cst_core_arch(const struct cst_core *c);
struct cst_target *cst_core_target(struct cst_core *c);

/* Threads, the crashing one first, then the rest in tid order.  cst_core_thread gives
 * thread I's registers, as kept when the notes were read or read from its NT_PRSTATUS again
 * (none valid when the file shrank since it was opened), in a slot of C that the next call
 * overwrites.  NULL when I is out of range.  Thread 0 is there without waiting for the notes
 * read beside (cst_core_options.notes_beside); every other call waits for them. */
size_t cst_core_nthreads(struct cst_core *c);
const struct cst_core_thread *cst_core_thread(struct cst_core *c, size_t i);

/* A core the page cache does not hold is read as fast as the disk serves many reads at once:
 * some reads of its memory ask the page cache first (RWF_NOWAIT: the core's first read, the
 * first after every 16th thread handed out), and once one had to wait, cst_core_thread asks
 * the kernel to read ahead (POSIX_FADV_WILLNEED) the stacks of the next 64 threads, from
 * each one's stack pointer, each thread once.
 * cst_core_cold: some read of the core's memory had to wait for the disk.
 * cst_core_prefetched: how many threads' stacks were asked for so far (0 on a core that
 * was in the page cache, and where RWF_NOWAIT is not supported). */
bool cst_core_cold(const struct cst_core *c);
size_t cst_core_prefetched(const struct cst_core *c);

const struct cst_core_signal *cst_core_signal(const struct cst_core *c);
int cst_core_pid(const struct cst_core *c);                 /* from NT_PRPSINFO, else first tid */
const char *cst_core_fname(const struct cst_core *c);      /* pr_fname, "" if unknown */
const char *cst_core_psargs(const struct cst_core *c);     /* pr_psargs, "" if unknown */
/* Path of the main executable: -e if given (unless cst_core_exe_option_rejected put the
 * file the core names in its place), else the NT_FILE mapping holding AT_ENTRY, else NULL. */
const char *cst_core_executable(const struct cst_core *c);
/* Value of auxiliary-vector entry TYPE (AT_*, <elf.h>) in *VAL; false when absent. */
bool cst_core_auxv(const struct cst_core *c, uint64_t type, uint64_t *val);

size_t cst_core_nmappings(const struct cst_core *c);
const struct cst_core_mapping *cst_core_mapping(const struct cst_core *c, size_t i);
/* Opens the file the core recorded as RECORDED, on this machine: the -e executable for the
 * main executable's path; under --sysroot, RECORDED resolved inside the sysroot (".." and
 * symbolic links never lead out of it, see cst_open_regular_in_root), or the same file name
 * in the sysroot's library directories when that is not there or of the other ELF class;
 * else RECORDED itself.  Only regular files are opened, without blocking.  The path opened
 * (or, on failure, looked for) goes to PATH (PATHLEN bytes).  Returns the descriptor or, as
 * cst_open_regular, -CST_E_NOENT / -CST_E_PERM / -CST_E_IO with a reason in ERR. */
int cst_core_open_file(struct cst_core *c, const char *recorded, struct stat *st, char *path,
		       size_t pathlen, char *err, size_t errlen);

/* The ELF handle of the file cst_core_open_file opens for RECORDED, when RECORDED is a file
 * of the core's NT_FILE note: made once (ELF_C_READ_MMAP) on the descriptor the core reader
 * keeps, so that the symbols and the package notes read one mapping of each file.  Each
 * call returns a new reference, which the caller gives back with elf_end; the handle needs
 * no descriptor of the caller's.  NULL when RECORDED is not in NT_FILE, its file cannot be
 * opened, or libelf does not take it for an ELF file. */
Elf *cst_core_file_elf(struct cst_core *c, const char *recorded);

/* As cst_core_open_file, but the file the core itself names (under --sysroot), never the
 * -e executable: where the main executable is looked for when -e's file is not the
 * core's program. */
int cst_core_open_named(struct cst_core *c, const char *recorded, struct stat *st, char *path,
			size_t pathlen, char *err, size_t errlen);

/* The -e file when RECORDED is the path the core records for its main executable (the
 * NT_FILE mapping holding AT_ENTRY) and -e was given; else NULL. */
const char *cst_core_exe_option(const struct cst_core *c, const char *recorded);

/* Says that -e's file is not the core's program and PATH, the file the core names for it
 * (as cst_core_open_named opened it), is used in its place: cst_core_executable gives PATH
 * from here on, cst_core_open_file opens the named file for the main executable's path (its
 * mappings' bytes are read from it too), and cst_core_exe_option gives NULL.  Returns 0,
 * or -CST_E_NOMEM (nothing changed). */
int cst_core_exe_option_rejected(struct cst_core *c, const char *path);

/* The path cst_core_open_file opens (or looks for) for RECORDED, for messages.  Valid until
 * the next call in the same thread. */
const char *cst_core_local_path(struct cst_core *c, const char *recorded);

/* Adds a one-line warning (printf format, without the core's name); repeated identical
 * warnings are kept once, and at most 64 are kept. */
void cst_core_warn(struct cst_core *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* How the notes were read: "here", "child" (beside the first walk), or "child failed" (the
 * caller read them after all), followed by " (killed by signal N)" when a signal ended the
 * child; for the test hook CORESTACK_NOTES_LOG (doc/testing.md).  The string lives as long as
 * C. */
const char *cst_core_notes_read(struct cst_core *c);

/* Warnings collected while reading (one line each), and their count (after the notes read
 * beside, if any: those of the notes come first). */
size_t cst_core_nwarnings(struct cst_core *c);
const char *cst_core_warning(struct cst_core *c, size_t i);

#endif

/* The channel between the `fpbt` command of corestack.gdb and the plugin, without Python and
 * without a process spawned.
 *
 * The plugin keeps a private directory (mode 0700; under $TMPDIR, else $XDG_RUNTIME_DIR,
 * /dev/shm or /tmp) open at a fixed descriptor of gdb, CST_FPBT_FD, so both sides can name
 * it: gdb itself as /proc/self/fd/N (its shell children as /proc/$PPID/fd/N).  `fpbt ARGS`
 * counts itself in the convenience variable $_corestack_seq and writes "SEQ ACK ARGS" to
 * `request` with gdb's `dump binary value` (a C string's value: it ends in a NUL), ACK being
 * $_corestack_ack (answer.h).  It makes gdb read frame 0 again, which calls the plugin's
 * unwind with frame 0's registers and gdb's memory, then sources `pre.gdb` and `out.gdb`.
 * The plugin answers in `out.gdb` with `printf` commands, most of them in user-defined
 * commands it defined for earlier answers (answer.h), so the text goes through gdb's own
 * output (pager, `thread apply`, `pipe`) in order.  Every script the plugin writes runs only
 * while $_corestack_seq is the request's SEQ: a script left from an earlier request runs
 * _corestack_idle, which prints that the plugin was not asked, and nothing has to be reset
 * between requests.  On a remote target `pre.gdb` holds the commands that find the program and flush
 * the register windows first (reader.c), their steps written to `stage` as "SEQ STEP". */
#ifndef CST_GDB_FPBT_H
#define CST_GDB_FPBT_H

#include <stdbool.h>
#include <stddef.h>

#ifndef CST_FPBT_FD
#define CST_FPBT_FD 979
#endif

struct cst_fpbt_request {
	unsigned long seq;       /* the fpbt command's count, $_corestack_seq */
	unsigned long ack;       /* $_corestack_ack: the last answer that ran (answer.h) */
	bool verbose;            /* -v */
	bool counted;            /* N was given */
	unsigned max_frames;     /* N: printed frames, as gdb's `bt N` (0 prints none) */
	char error[96];          /* a usage error to print instead of frames */
};

/* Creates the directory and places it at CST_FPBT_FD.  Returns 0, or -1 when the
 * descriptor is taken or the directory cannot be made (fpbt then reports it is not
 * available). */
int cst_fpbt_open(void);

/* The SEQ of the request that waits for frame 0, or 0 when none waits. */
unsigned long cst_fpbt_pending(void);

/* Reads and removes the waiting request into *R.  Returns 0, or -1 when there is none. */
int cst_fpbt_take(struct cst_fpbt_request *r);

/* Writes TEXT (lines ending in '\n') as the answer to request SEQ: a gdb script that prints
 * it (answer.h: gdb reads a sourced script one byte per read(2), so it is kept short). */
void cst_fpbt_answer(unsigned long seq, const char *text);

/* Writes COMMANDS, gdb commands as they are, as the script NAME in the directory, run only
 * while request SEQ is answered. */
void cst_fpbt_commands(const char *name, unsigned long seq, const char *commands);

/* Reads the file NAME of the directory (what the fpbt command wrote there) into BUF of SIZE
 * bytes, up to a NUL, trailing newlines and spaces removed.  Returns its length, or -1 when
 * it is missing or unreadable. */
int cst_fpbt_read_file(const char *name, char *buf, size_t size);

/* The step of request SEQ written to `stage` ("SEQ STEP"): STEP into BUF of SIZE bytes, or
 * "" when `stage` names another request. */
void cst_fpbt_stage(unsigned long seq, char *buf, size_t size);

/* Writes "SEQ STEP" to `stage`. */
void cst_fpbt_set_stage(unsigned long seq, const char *step);

/* Removes the directory and frees the descriptor. */
void cst_fpbt_close(void);

#endif

/* The channel between the `fpbt` command of corestack.gdb and the plugin, without Python.
 *
 * The plugin keeps a private directory (mode 0700) open at a fixed descriptor of gdb,
 * CST_FPBT_FD, so both sides can name it: gdb's shell children as /proc/$PPID/fd/N and gdb
 * itself as /proc/self/fd/N.  `fpbt ARGS` writes ARGS to `request`, makes gdb read frame 0
 * again (which calls the plugin's unwind with frame 0's registers and gdb's memory), and
 * sources `out.gdb`: `echo` commands the plugin wrote, so the text goes through gdb's own
 * output (pager, `thread apply`) in order.  `idle.gdb` holds the answer for a thread the
 * plugin was not asked about. */
#ifndef CST_GDB_FPBT_H
#define CST_GDB_FPBT_H

#include <stdbool.h>
#include <stddef.h>

#ifndef CST_FPBT_FD
#define CST_FPBT_FD 979
#endif

struct cst_fpbt_request {
	bool verbose;            /* -v */
	bool counted;            /* N was given */
	unsigned max_frames;     /* N: printed frames, as gdb's `bt N` (0 prints none) */
	char error[96];          /* a usage error to print instead of frames */
};

/* Creates the directory and places it at CST_FPBT_FD.  Returns 0, or -1 when the
 * descriptor is taken or the directory cannot be made (fpbt then reports it is not
 * available). */
int cst_fpbt_open(void);

/* True when an fpbt request waits for frame 0. */
bool cst_fpbt_pending(void);

/* Reads and removes the waiting request into *R.  Returns 0, or -1 when there is none. */
int cst_fpbt_take(struct cst_fpbt_request *r);

/* Writes TEXT (lines ending in '\n') as the answer: a gdb script of `echo` commands. */
void cst_fpbt_answer(const char *text);

/* Writes COMMANDS, gdb commands as they are, as the script NAME in the directory. */
void cst_fpbt_commands(const char *name, const char *commands);

/* Reads the file NAME of the directory (what the fpbt command wrote there) into BUF of SIZE
 * bytes, trailing newlines and spaces removed.  Returns its length, or -1 when it is missing
 * or unreadable. */
int cst_fpbt_read_file(const char *name, char *buf, size_t size);

/* True when the file NAME exists in the directory. */
bool cst_fpbt_exists(const char *name);

/* Creates (PRESENT) or removes the empty marker file NAME in the directory. */
void cst_fpbt_set(const char *name, bool present);

/* Removes the directory and frees the descriptor. */
void cst_fpbt_close(void);

#endif

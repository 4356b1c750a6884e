/* One thread's backtrace, walked with the unwind cursor and symbolized, and its text
 * printers: what the CLI, the shell and the gdb plugin print (the CLI's JSON is
 * coredump/bt_json.h). */
#ifndef CST_BACKTRACE_H
#define CST_BACKTRACE_H

#include <stdbool.h>
#include <stdio.h>
#include "unwind.h"

struct bt_frame {
	struct cst_frame f;
	struct cst_location loc;
	bool inlined;            /* a function inlined into the next frame (same pc) */
	unsigned number;         /* printed frame number: inlined functions count */
	const char *jit_map;     /* the perf map that named this JIT frame, else NULL */
	bool anon_code;          /* outside every module and perf map, in executable memory no
				  * file backs (JIT code no perf map names) */
	const char *copy_of;     /* outside every module and perf map, in a copy of this file's
				  * code (cst_target_copied_code), else NULL */
	uint64_t located;        /* nonzero: the entry of a cache of located frames (bt_addrs)
				  * that gave the frame its pc, location, jit_map, anon_code and
				  * copy_of, and whether it is inlined: frames of the same number
				  * have the same ones (an entry's frame has the entry's number, the
				  * functions inlined into it the numbers below it, one each); 0: a
				  * frame located on its own */
};

struct bt_thread {
	const struct cst_arch *arch;   /* whose signal numbers cursig is in (set by bt_walk) */
	int tid;
	bool crashed;
	int cursig;
	struct bt_frame *frames;
	size_t n;
	size_t cap;              /* frames allocated: bt_walk reuses them for the next thread */
	int rc;                  /* cst_unwind_next's last value: 0 clean end, < 0 stopped early
				  * (-CST_E_LIMIT when LIMITED) */
	bool limited;            /* bt_walk's LIMIT cut the walk: more frames follow */
	char stop[384];          /* stop reason (a path in it escaped, escape.h) */
	struct bt_addrs *addrs;  /* set by the caller: the frames bt_walk located before
				  * (bt_addrs_new), or NULL */
};

/* A bounded cache of located frames, for bt_walk: the threads of a process return to the
 * same addresses, whose frames get the same location, JIT map, anonymous code and copy.
 * A frame is found again by its lookup address, pc and kind (signal frame or not), with its
 * inline chain when that has at most three entries (a longer one is located every time).
 * Each entry has numbers of its own, unique in the process (bt_frame.located: the frame's,
 * and below it one for each function of its chain; a worker forked from it numbers its own
 * entries, in caches of its own), which the printers' caches may key a frame's line by.
 * A cache serves the walks of one unwind environment (its symbols, perf map and target
 * unchanged while the cache lives).  bt_addrs_new returns NULL when out of memory (every
 * frame is located). */
struct bt_addrs *bt_addrs_new(void);
void bt_addrs_free(struct bt_addrs *c);

/* What is printed above the threads. */
struct bt_process {
	const char *core;        /* core path, NULL for a live process */
	const char *executable;  /* may be NULL */
	const struct cst_arch *arch;  /* its name is printed; signal numbers are its own */
	int pid;
	bool has_signal;
	int signo, code;
	bool has_addr;
	uint64_t addr;
	bool not_crash;          /* the core was not made by a crash (cst_core_is_crash) */
	bool has_sender;         /* the signal was sent by process SENDER_PID of user SENDER_UID */
	int sender_pid;
	unsigned sender_uid;
	const char *fname, *psargs;
};

struct cst_process;
/* Fills P from process image PROC, opened from core file PATH (NULL: a live process):
 * executable, architecture, pid, and for a core the command and the signal (NT_SIGINFO,
 * else the first thread's pr_cursig).  The strings belong to PROC. */
void bt_process_from(struct bt_process *p, struct cst_process *proc, const char *path);

/* V as addresses are printed: "0x" and lowercase hex digits, zero-padded to at least WIDTH
 * digits (1..16), in BUF (not NUL-terminated); returns its start and sets *LEN to its length.
 * Text and JSON output write every address through it. */
#define BT_HEX_SIZE 18
const char *bt_hex(char buf[BT_HEX_SIZE], uint64_t v, int width, int *len);

/* Limits on a thread's frames.  The limit a user gives (-n, fpbt N, the shell's bt N) counts
 * printed frames: a function inlined into another is a frame, and so is an inserted lost
 * tail call, as gdb's `bt N` counts.  The cursor keeps a budget of its own against hostile
 * stacks (frames that never reach an outermost one): BT_CURSOR_FRAMES at least, and
 * BT_MAX_FRAMES when no limit is given. */
#define BT_DEFAULT_FRAMES 1024    /* -n's default */
#define BT_CURSOR_FRAMES 1024
#define BT_MAX_FRAMES 1000000     /* the largest limit, and the budget of an unlimited walk */

/* Walks the thread whose registers are REGS and symbolizes at most LIMIT printed frames
 * (0: no limit but the cursor's budget) into T.  When frames follow the LIMIT-th,
 * T->limited is set, T->rc is -CST_E_LIMIT and T->stop reads "frame limit (LIMIT)
 * reached"; a walk that ends at exactly LIMIT frames ends as it ends.  A walk that stopped
 * early in a frame whose module file could not be used (cst_location.no_file) gives that as
 * its reason, not the failure it led to (a read at an address guessed without CFI).  ENV's max_frames is
 * set for the walk and restored.  Returns 0, or -CST_E_NOMEM. */
int bt_walk(struct cst_unwind_env *env, const struct cst_regs *regs, unsigned limit,
	    struct bt_thread *t);
void bt_thread_free(struct bt_thread *t);

struct bt_lines;

struct bt_options {
	bool verbose;            /* -v: each frame's provenance */
	bool raw;                /* -r: names as mangled (cst_symbols_set_raw) */
	bool color;
	struct bt_lines *lines;  /* frame lines rendered before (bt_lines_new), or NULL */
};

/* A bounded cache of rendered frame lines, for the printers below: the threads of a process
 * share most of their frames, whose lines are the same bytes but for the frame number, and
 * the threads of a pool print the same frames (kept whole too).  A line is found again by
 * its pc, marker, inlined or not, colour and the strings of its location, compared by
 * address: a cache may serve only frames whose strings stay unchanged while it lives (those
 * of one open process).  The -v line is rendered every time.
 * bt_lines_new returns NULL when out of memory (O->lines NULL: every line is rendered). */
struct bt_lines *bt_lines_new(void);
void bt_lines_free(struct bt_lines *c);

/* Text close to gdb's `bt`: a header for the process, then one block per thread. */
void bt_print_process_text(FILE *out, const struct bt_process *p);
void bt_print_thread_text(FILE *out, const struct bt_thread *t, const struct bt_options *o);
/* The thread's header line of bt_print_thread_text alone (the shell's bt N). */
void bt_print_thread_header_text(FILE *out, const struct bt_thread *t, const struct bt_options *o);
/* One frame's line (and its provenance line with O->verbose), as in bt_print_thread_text. */
void bt_print_frame_text(FILE *out, const struct bt_frame *b, const struct bt_options *o);
/* The frames of T alone, without the thread's header line (the gdb plugin's fpbt). */
void bt_print_frames_text(FILE *out, const struct bt_thread *t, const struct bt_options *o);
/* As gdb's `bt N`: the first N frames of T (none when N is 0), then "(More stack frames
 * follow...)" when T has more than N, or exactly N and its walk's limit cut it.  When N is
 * larger (the walk's own limit was smaller, or the thread has fewer frames), or COUNTED is
 * false, all of T as bt_print_frames_text, with its stop reason. */
void bt_print_first_text(FILE *out, const struct bt_thread *t, bool counted, size_t n,
			 const struct bt_options *o);

#endif

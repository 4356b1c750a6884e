/* One thread's backtrace, walked with the unwind cursor and symbolized: what the text and
 * JSON printers print. */
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
};

struct bt_thread {
	int tid;
	bool crashed;
	int cursig;
	struct bt_frame *frames;
	size_t n;
	size_t cap;              /* frames allocated: bt_walk reuses them for the next thread */
	int rc;                  /* cst_unwind_next's last value: 0 clean end, < 0 stopped early */
	char stop[128];          /* stop reason */
};

/* What is printed above the threads. */
struct bt_process {
	const char *core;        /* core path, NULL for a live process */
	const char *executable;  /* may be NULL */
	const char *arch;
	int pid;
	bool has_signal;
	int signo, code;
	bool has_addr;
	uint64_t addr;
	const char *fname, *psargs;
};

struct cst_core;
/* Fills P from core CORE opened from file PATH: executable, architecture, pid, command and
 * signal (NT_SIGINFO, else the first thread's pr_cursig).  The strings belong to CORE. */
void bt_process_from_core(struct bt_process *p, struct cst_core *core, const char *path);

/* V as addresses are printed: "0x" and lowercase hex digits, zero-padded to at least WIDTH
 * digits (1..16), in BUF (not NUL-terminated); returns its start and sets *LEN to its length.
 * Text and JSON output write every address through it. */
#define BT_HEX_SIZE 18
const char *bt_hex(char buf[BT_HEX_SIZE], uint64_t v, int width, int *len);

/* Walks the thread whose registers are REGS and symbolizes its frames into T.  Returns 0,
 * or -CST_E_NOMEM. */
int bt_walk(struct cst_unwind_env *env, const struct cst_regs *regs, struct bt_thread *t);
void bt_thread_free(struct bt_thread *t);

/* The architecture whose signal numbers bt_signal_name and bt_signal_text read (the
 * core's); the generic Linux numbers until it is set. */
void bt_signal_arch(const struct cst_arch *arch);
/* "SIGSEGV", or "signal N" for an unknown number (static buffer). */
const char *bt_signal_name(int signo);
/* The description of signal SIGNO ("Segmentation fault"), as strsignal gives it. */
const char *bt_signal_text(int signo);

struct bt_options {
	bool verbose;            /* -v: each frame's provenance */
	bool raw;                /* -r: names as mangled (cst_symbols_set_raw) */
	bool color;
};

/* Text close to gdb's `bt`: a header for the process, then one block per thread. */
void bt_print_process_text(FILE *out, const struct bt_process *p);
void bt_print_thread_text(FILE *out, const struct bt_thread *t, const struct bt_options *o);
/* One frame's line (and its provenance line with O->verbose), as in bt_print_thread_text. */
void bt_print_frame_text(FILE *out, const struct bt_frame *b, const struct bt_options *o);
/* The frames of T alone, without the thread's header line (the gdb plugin's fpbt). */
void bt_print_frames_text(FILE *out, const struct bt_thread *t, const struct bt_options *o);

/* JSON (schema version 1, README "JSON output"): the process object with an empty
 * "threads" array; its threads are written by the stream below.  bt_json_print writes a
 * whole document and frees it. */
struct json_object;
struct json_object *bt_json_process(const struct bt_process *p);
void bt_json_print(FILE *out, struct json_object *doc);

/* The document written as it grows, each thread as soon as it is walked (a core of
 * thousands of threads is never held whole): DOC's members before "threads" are written when
 * its first thread comes, then each thread (bt_json_stream_thread; DOC's "threads" array
 * stays empty), then bt_json_stream_end writes the members after "threads" (modules,
 * signature, groups) and frees DOC.
 * Every value is serialised by json-c; only the braces around them are written here. */
struct bt_json_thread;
struct bt_json_stream {
	FILE *out;
	bool compact;            /* the whole document on one line (--json-lines), else indented */
	bool in_array;           /* an element of an array: no newline after the document */
	const char *lead;        /* written before the document (an array's "[" or ","), or NULL */
	bool begun;
	size_t nthreads;
	size_t head_members;     /* members of DOC before "threads", written at the start */
	struct bt_json_thread *writer;  /* coredump/json_thread.h */
};
void bt_json_stream_thread(struct bt_json_stream *s, struct json_object *doc, const struct bt_thread *t);
void bt_json_stream_end(struct bt_json_stream *s, struct json_object *doc);

#endif

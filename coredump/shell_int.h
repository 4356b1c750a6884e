/* Internal to the interactive shell (shell*.c): the session and the helpers its commands
 * share. */
#ifndef CST_SHELL_INT_H
#define CST_SHELL_INT_H

#include "backtrace.h"
#include "signature.h"
#include "core.h"
#include "process.h"
#include "symbols.h"
#include "unwind.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* One symbol of the core's modules, for completion and for names in addresses. */
struct shell_sym {
	const char *name;        /* without its symbol version; owned by the table */
	uint64_t addr;           /* target virtual address */
};

struct shell {
	const char *path;        /* the core file */
	struct cst_process *process;      /* the core's process image */
	struct cst_core *core;            /* its core, its symbols and its unwind environment */
	struct cst_symbols *syms;         /* NULL when libdwfl could not report the modules */
	struct cst_unwind_env *env;
	unsigned max_frames;              /* -n: printed frames per thread, 0 for all */
	struct bt_process proc;
	struct bt_options bt;
	const struct sig_options *sig;    /* the `signature` command's rules */
	size_t nthreads;
	struct bt_thread *threads;        /* walked on first use */
	bool *walked;
	size_t cur_thread;                /* index into the core's threads */
	unsigned cur_frame;               /* frame number in the current thread */
	struct shell_sym *syms_tab;       /* sorted by name, loaded on first use */
	size_t nsyms;
	bool syms_loaded;
	size_t warned;                    /* the core's warnings printed so far */
	FILE *out;
};

/* Prints "MESSAGE" on stderr (after flushing the output) and returns -1: a failed command. */
int shell_error(struct shell *sh, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The current thread, walked; never NULL. */
struct bt_thread *shell_thread(struct shell *sh);
/* Thread I (an index into the core's threads, below sh->nthreads), walked; never NULL. */
struct bt_thread *shell_thread_at(struct shell *sh, size_t i);
/* The tid of thread I (an index into the core's threads, below sh->nthreads). */
int shell_tid(struct shell *sh, size_t i);
/* The selected frame of the current thread, or NULL when the walk found none. */
const struct bt_frame *shell_frame(struct shell *sh);

/* Evaluates an address expression: terms joined by + and -, each a number (0x hex, else
 * decimal), a register of the selected frame ($pc, $sp, $fp or $NAME) or a symbol name.
 * Returns 0 with *OUT set, or -1 after printing why. */
int shell_eval(struct shell *sh, const char *expr, uint64_t *out);

/* Symbols: the table (sorted by name), the address of NAME, and "<name+off>" for ADDR. */
void shell_syms_load(struct shell *sh);
bool shell_sym_lookup(struct shell *sh, const char *name, uint64_t *addr);
/* The index of the first entry of the loaded table not below NAME (nsyms when none). */
size_t shell_sym_lower_bound(const struct shell *sh, const char *name);
/* Writes "<function+offset>" for code address ADDR into BUF, or "" when none is known. */
void shell_sym_label(struct shell *sh, uint64_t addr, char *buf, size_t len);
void shell_syms_free(struct shell *sh);

/* Readline completion of commands and symbol names (shell_complete.c). */
void shell_complete_init(struct shell *sh);

/* The commands.  ARGS is the rest of the line after the command word (never NULL).  Each
 * returns 0, or -1 after printing an error. */
int cmd_bt(struct shell *sh, const char *args);
int cmd_threads(struct shell *sh, const char *args);
int cmd_thread(struct shell *sh, const char *args);
int cmd_frame(struct shell *sh, const char *args);
int cmd_up(struct shell *sh, const char *args);
int cmd_down(struct shell *sh, const char *args);
int cmd_info_frame(struct shell *sh, const char *args);
int cmd_info_registers(struct shell *sh, const char *args);
int cmd_info_sharedlibrary(struct shell *sh, const char *args);
int cmd_x(struct shell *sh, const char *args);
int cmd_disassemble(struct shell *sh, const char *args);
int cmd_signature(struct shell *sh, const char *args);

/* Names for the completer: the command words and the `info` subcommands, NULL-ended. */
extern const char *const shell_command_names[];
extern const char *const shell_info_names[];

#endif

/* The interactive shell: session, input (readline or plain lines), history, command table
 * with gdb-like abbreviations.  See shell.h. */
#include "shell.h"
#include "shell_int.h"
#include "error.h"
#include "escape.h"
#include "diag.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#define PROMPT "(corestack) "
#define HISTORY_LINES 1000

int shell_error(struct shell *sh, const char *fmt, ...)
{
	fflush(sh->out);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	return -1;
}

struct bt_thread *shell_thread(struct shell *sh)
{
	return shell_thread_at(sh, sh->cur_thread);
}

struct bt_thread *shell_thread_at(struct shell *sh, size_t i)
{
	if (!sh->walked[i]) {
		struct cst_process_thread t;
		cst_process_thread(sh->process, i, &t);
		struct bt_thread *bt = &sh->threads[i];
		bt->tid = t.tid;
		bt->crashed = t.crashed;
		bt->cursig = t.cursig;
		if (bt_walk(sh->env, t.regs, sh->max_frames, bt) < 0) {
			shell_error(sh, "out of memory walking thread %d", t.tid);
			bt->rc = -CST_E_NOMEM;
			snprintf(bt->stop, sizeof bt->stop, "out of memory");
		}
		sh->walked[i] = true;
	}
	return &sh->threads[i];
}

int shell_tid(struct shell *sh, size_t i)
{
	struct cst_process_thread t;
	return cst_process_thread(sh->process, i, &t) == 0 ? t.tid : 0;
}

const struct bt_frame *shell_frame(struct shell *sh)
{
	struct bt_thread *t = shell_thread(sh);
	return sh->cur_frame < t->n ? &t->frames[sh->cur_frame] : NULL;
}

/* ---- simple commands ---------------------------------------------------------------- */

static int cmd_help(struct shell *sh, const char *args);

static int cmd_quit(struct shell *sh, const char *args)
{
	return 1;
}

/* gdb's echo: the text with C escapes \n, \t, \\ and a trailing \ for no newline. */
static int cmd_echo(struct shell *sh, const char *args)
{
	for (const char *p = args; *p; p++) {
		if (*p != '\\') {
			fputc(*p, sh->out);
			continue;
		}
		switch (*++p) {
		case 'n': fputc('\n', sh->out); break;
		case 't': fputc('\t', sh->out); break;
		case 0: p--; break;
		default: fputc(*p, sh->out); break;
		}
	}
	return 0;
}

static int cmd_info(struct shell *sh, const char *args);

/* ---- the command table --------------------------------------------------------------- */

struct command {
	const char *name;
	const char *aliases;     /* space-separated words that select it even when ambiguous */
	int (*fn)(struct shell *sh, const char *args);
	const char *usage;
	const char *help;
};

static const struct command commands[] = {
	{ "backtrace", "bt where fpbt", cmd_bt, "backtrace [N] [-v]",
	  "the current thread's frames (the first N); -v shows how each frame was found" },
	{ "frame", "f", cmd_frame, "frame [N]", "select frame N (or show the selected frame)" },
	{ "up", NULL, cmd_up, "up [N]", "select the frame N (1) levels outward (the caller)" },
	{ "down", "do", cmd_down, "down [N]", "select the frame N (1) levels inward (the callee)" },
	{ "threads", NULL, cmd_threads, "threads", "list the threads (also: info threads)" },
	{ "thread", "t", cmd_thread, "thread [N]", "select thread N (1 = the crashing thread)" },
	{ "info", "i", cmd_info, "info frame|registers|sharedlibrary|threads|stack",
	  "about the selected frame, its registers, the modules, the threads" },
	{ "x", NULL, cmd_x, "x/NFU ADDR",
	  "examine memory: N units, format F (x d u o t a c), unit U (b h w g)" },
	{ "disassemble", "disas", cmd_disassemble, "disassemble [ADDR]",
	  "the instructions of the function at ADDR (default: the selected frame's)" },
	{ "signature", "sig", cmd_signature, "signature",
	  "the core's crash signature (hash and frames), as --signature prints it" },
	{ "echo", NULL, cmd_echo, "echo TEXT", "print TEXT (escapes \\n, \\t)" },
	{ "help", "h", cmd_help, "help [COMMAND]", "this list, or one command's usage" },
	{ "quit", "q exit", cmd_quit, "quit", "leave the shell (so does end of input, Ctrl-D)" },
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const struct command info_commands[] = {
	{ "frame", "f", cmd_info_frame, "info frame",
	  "the selected frame: CFA, how it was found, where each register of its caller came from" },
	{ "registers", "r", cmd_info_registers, "info registers [REG...]",
	  "the selected frame's registers (those the unwinder recovered)" },
	{ "sharedlibrary", "dll", cmd_info_sharedlibrary, "info sharedlibrary",
	  "the core's modules: address range, symbols, build-id, path" },
	{ "threads", NULL, cmd_threads, "info threads", "list the threads" },
	{ "stack", "s", cmd_bt, "info stack [N] [-v]", "same as backtrace" },
};
#define NINFO (sizeof info_commands / sizeof info_commands[0])

const char *const shell_command_names[] = {
	"backtrace", "bt", "fpbt", "where", "frame", "up", "down", "threads", "thread", "info",
	"x", "disassemble", "signature", "echo", "help", "quit", NULL,
};
const char *const shell_info_names[] = {
	"frame", "registers", "sharedlibrary", "threads", "stack", NULL,
};

static bool has_word(const char *list, const char *w, size_t n)
{
	for (const char *p = list; p && *p;) {
		size_t k = strcspn(p, " ");
		if (k == n && strncmp(p, w, n) == 0)
			return true;
		p += k;
		p += strspn(p, " ");
	}
	return false;
}

/* The command of TAB named by the N bytes at W: an exact name or alias, else a unique
 * prefix of a name (gdb's rule).  Prints an error and returns NULL otherwise. */
static const struct command *lookup(struct shell *sh, const struct command *tab, size_t ntab,
				    const char *what, const char *w, size_t n)
{
	for (size_t i = 0; i < ntab; i++)
		if ((strlen(tab[i].name) == n && strncmp(tab[i].name, w, n) == 0) ||
		    has_word(tab[i].aliases, w, n))
			return &tab[i];
	const struct command *found = NULL;
	int count = 0;
	char names[256] = "";
	for (size_t i = 0; i < ntab; i++) {
		if (strncmp(tab[i].name, w, n) != 0)
			continue;
		found = &tab[i];
		size_t l = strlen(names);
		snprintf(names + l, sizeof names - l, "%s%s", count++ ? ", " : "", tab[i].name);
	}
	if (count == 1)
		return found;
	if (count > 1)
		shell_error(sh, "Ambiguous %scommand \"%.*s\": %s.", what, (int)n, w, names);
	else
		shell_error(sh, "Undefined %scommand: \"%.*s\".  Try \"help\".", what, (int)n, w);
	return NULL;
}

static size_t word_len(const char *s)
{
	size_t n = 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '-')
		n++;
	return n;
}

static const char *skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

static int cmd_info(struct shell *sh, const char *args)
{
	args = skip_space(args);
	size_t n = word_len(args);
	if (n == 0) {
		fprintf(sh->out, "\"info\" must be followed by the name of an info command:\n");
		for (size_t i = 0; i < NINFO; i++)
			fprintf(sh->out, "  %-28s %s\n", info_commands[i].usage, info_commands[i].help);
		return 0;
	}
	const struct command *c = lookup(sh, info_commands, NINFO, "info ", args, n);
	return c ? c->fn(sh, skip_space(args + n)) : -1;
}

static int cmd_help(struct shell *sh, const char *args)
{
	args = skip_space(args);
	size_t n = word_len(args);
	if (n) {
		const struct command *c = lookup(sh, commands, NCOMMANDS, "", args, n);
		if (!c)
			return -1;
		fprintf(sh->out, "%s\n  %s\n", c->usage, c->help);
		if (c->aliases)
			fprintf(sh->out, "  also: %s\n", c->aliases);
		if (c->fn == cmd_info)
			for (size_t i = 0; i < NINFO; i++)
				fprintf(sh->out, "%s\n  %s\n", info_commands[i].usage, info_commands[i].help);
		return 0;
	}
	fprintf(sh->out, "Commands (a unique prefix of a name is enough, as in gdb):\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(sh->out, "  %-26s %s\n", commands[i].usage, commands[i].help);
	for (size_t i = 0; i < NINFO; i++)
		fprintf(sh->out, "  %-26s %s\n", info_commands[i].usage, info_commands[i].help);
	fprintf(sh->out, "Abbreviations: bt, fpbt, where, f, t, i f, i r, i s, disas, q.\n"
		"ADDR: numbers (0x... hex), $pc, $sp, $fp, $REGISTER, symbol names, joined by + and -.\n"
		"Tab completes command and symbol names.\n");
	return 0;
}

/* Runs one line.  Returns 1 for quit, 0 otherwise (errors are printed, never fatal). */
static int execute(struct shell *sh, const char *line)
{
	line = skip_space(line);
	if (!*line || *line == '#')
		return 0;
	size_t n = word_len(line);
	if (n == 0) {
		shell_error(sh, "Undefined command: \"%.*s\".  Try \"help\".", (int)strcspn(line, " \t"), line);
		return 0;
	}
	const struct command *c = lookup(sh, commands, NCOMMANDS, "", line, n);
	if (!c)
		return 0;
	int rc = c->fn(sh, c->fn == cmd_echo ? line + n + (line[n] == ' ') : skip_space(line + n));
	fflush(sh->out);
	return rc > 0;
}

/* ---- history --------------------------------------------------------------------------- */

/* The history file: $CORESTACK_HISTORY (empty: none), else $XDG_STATE_HOME/corestack/history,
 * else ~/.corestack_history.  Returns a malloc'd path or NULL. */
static char *history_path(void)
{
	const char *e = getenv("CORESTACK_HISTORY");
	if (e)
		return *e ? strdup(e) : NULL;
	char *p = NULL;
	const char *state = getenv("XDG_STATE_HOME");
	if (state && *state) {
		if (asprintf(&p, "%s/corestack", state) < 0)
			return NULL;
		mkdir(p, 0700);
		free(p);
		return asprintf(&p, "%s/corestack/history", state) < 0 ? NULL : p;
	}
	const char *home = getenv("HOME");
	if (!home || !*home)
		return NULL;
	return asprintf(&p, "%s/.corestack_history", home) < 0 ? NULL : p;
}

/* Ctrl-C at the prompt drops the line being typed and gives a new prompt, as in gdb; it
 * never ends the shell.  (Readline's own handler has already restored the terminal.) */
static void on_interrupt(int sig)
{
	(void)sig;
	if (write(1, "\n", 1) < 0)
		return;
	rl_on_new_line();
	rl_replace_line("", 0);
	rl_redisplay();
}

/* ---- the session ------------------------------------------------------------------------ */

static int open_session(struct shell *sh, const char *path, const struct cst_core_options *copt,
			unsigned max_frames)
{
	char err[256];
	sh->path = path;
	sh->out = stdout;
	if (cst_process_open_core(&sh->process, path, copt, err, sizeof err) < 0) {
		cli_diag(path, "%s", err);
		return -1;
	}
	sh->core = cst_process_core(sh->process);
	sh->syms = cst_process_symbols(sh->process);
	if (!sh->syms)
		cli_diag(path, "%s (no symbols)", cst_process_symbols_error(sh->process));
	else
		cst_symbols_set_raw(sh->syms, sh->bt.raw);
	bt_process_from(&sh->proc, sh->process, path);
	sh->env = cst_process_env(sh->process);
	sh->max_frames = max_frames;
	sh->nthreads = cst_process_nthreads(sh->process);
	sh->threads = calloc(sh->nthreads, sizeof *sh->threads);
	sh->walked = calloc(sh->nthreads, sizeof *sh->walked);
	if (!sh->threads || !sh->walked) {
		cli_diag(path, "out of memory");
		return -1;
	}
	return 0;
}

/* Prints the core's warnings not printed yet on stderr, after the output so far. */
static void print_new_warnings(struct shell *sh)
{
	if (sh->warned >= cst_core_nwarnings(sh->core))
		return;
	fflush(sh->out);
	for (; sh->warned < cst_core_nwarnings(sh->core); sh->warned++)
		cli_diag(sh->path, "%s", cst_core_warning(sh->core, sh->warned));
	fflush(stderr);
}

static void close_session(struct shell *sh)
{
	for (size_t i = 0; sh->threads && i < sh->nthreads; i++)
		bt_thread_free(&sh->threads[i]);
	free(sh->threads);
	free(sh->walked);
	shell_syms_free(sh);
	cst_process_close(sh->process);
}

int shell_run(const char *path, const struct cst_core_options *copt, unsigned max_frames,
	      const struct bt_options *bt, const struct sig_options *sig)
{
	struct shell sh = { .bt = *bt, .sig = sig };
	if (open_session(&sh, path, copt, max_frames) < 0) {
		close_session(&sh);
		return 2;
	}
	bool tty = isatty(0);
	/* the first thread is walked before anything is printed: what opening the core and
	 * that walk found wrong (a file missing, or not the one the core was made with) is said
	 * first, as gdb says it before its first frame */
	const struct bt_frame *f = shell_frame(&sh);
	print_new_warnings(&sh);
	bt_print_process_text(sh.out, &sh.proc);
	if (f)
		bt_print_frame_text(sh.out, f, &sh.bt);
	fflush(sh.out);

	char *hist = NULL;
	if (tty) {
		shell_complete_init(&sh);
		struct sigaction sa = { .sa_handler = on_interrupt, .sa_flags = SA_RESTART };
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		using_history();
		stifle_history(HISTORY_LINES);
		hist = history_path();
		if (hist && read_history(hist) != 0)
			write_history(hist);           /* create it, so that appending works */
	}
	for (;;) {
		char *line = NULL;
		if (tty) {
			line = readline(PROMPT);
		} else {
			size_t cap = 0;
			if (getline(&line, &cap, stdin) < 0) {
				free(line);
				line = NULL;
			} else {
				line[strcspn(line, "\r\n")] = 0;
			}
		}
		if (!line) {                           /* end of input */
			if (tty)
				fputs("quit\n", sh.out);
			break;
		}
		if (tty && *skip_space(line)) {
			add_history(line);
			if (hist)
				append_history(1, hist);
		}
		int quit = execute(&sh, line);
		/* a command that walked another thread may have met another file */
		print_new_warnings(&sh);
		free(line);
		if (quit)
			break;
	}
	if (tty && hist)
		history_truncate_file(hist, HISTORY_LINES);
	free(hist);
	close_session(&sh);
	return 0;
}

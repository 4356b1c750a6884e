/* corestack: annotated backtraces of every thread of an ELF core file or a live process.
 *
 * Exit codes: 0 every thread unwound to its outermost frame; 1 output printed but some walk
 * stopped early or a module's build-id did not match; 2 the core (or process) could not be
 * used; 64 usage error.  With several cores, the highest code of any core. */
#include "backtrace.h"
#include "diag.h"
#include "escape.h"
#include "error.h"
#include "files_cli.h"
#include "heap.h"
#include "teardown.h"
#include "process.h"
#include "shell.h"
#include "symbols.h"
#include "triage.h"
#include "workers.h"

#include <errno.h>
#include <signal.h>
#include <getopt.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EXIT_PARTIAL 1
#define EXIT_UNUSABLE 2
#define EXIT_USAGE 64

#ifndef CORESTACK_VERSION
#define CORESTACK_VERSION "0.1"
#endif

static const char usage_text[] =
	"usage: corestack [options] CORE...       (a CORE may be zstd/xz/lz4-compressed, or - for stdin)\n"
	"       corestack [options] -p PID\n"
	"       corestack [options] -i CORE\n"
	"Print the backtrace of every thread of an ELF core file (the crashing thread first)\n"
	"or of a live process, marking the frames a frame-pointer walk loses.\n"
	"\n"
	"  -e, --executable FILE  the program's executable, when the path in the core is not right\n"
	"      --sysroot DIR      look up the core's mapped files under DIR\n"
	"  -p, --pid PID          a live process (attached with ptrace, then released)\n"
	"  -i, --interactive      a shell over the core: bt, frame, info frame, x, disassemble...\n"
	"  -j, --json             one JSON document (schema in README.md); an array for several cores\n"
	"      --json-lines       one JSON document per core, one per line\n"
	"      --signature        one line per core: its crash signature (hash and frames)\n"
	"      --signature-frames N  frames in a signature (default 5)\n"
	"      --skip PATTERN     also skip frames matching PATTERN in signatures (repeatable)\n"
	"      --skip-frames FILE replace the signature skip list with FILE's patterns\n"
	"      --group            threads with identical stacks shown once, with a count\n"
	"      --summary          only the distinct signatures of all cores, with counts\n"
	"  -n, --max-frames N     print at most N frames per thread, inlined functions and\n"
	"                         lost tail calls counted (default 1024; 0: no limit)\n"
	"  -v, --verbose          show how each frame was found\n"
	"  -r, --raw              C++ and Rust names as mangled in the symbol table\n"
	"      --jobs N           walk a core's threads in N processes (default: one per CPU,\n"
	"                         at most 4, for a core of 256 threads or more; 1: no others)\n"
	FILES_USAGE
	"      --color WHEN       auto (default), always or never\n"
	"  -h, --help             this text\n"
	"  -V, --version          the version\n"
	"\n"
	"Exit status: 0 every thread unwound to its outermost frame; 1 some walk stopped early\n"
	"or a module did not match the core; 2 the core or process could not be used; 64 usage.\n"
	"With several cores, the highest status of any core.  See corestack(1).\n";

struct options {
	const char *core, *executable, *sysroot;
	char **cores;
	int ncores;
	struct triage_options tr;
	int pid;
	bool json;
	bool interactive;
	unsigned max_frames;
	unsigned jobs;             /* --jobs; 0: workers_jobs decides */
	struct bt_options bt;
	struct files_options files;
};

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "corestack: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'corestack --help'.\n");
	return EXIT_USAGE;
}

/* --color auto: standard output is a terminal, NO_COLOR is unset or empty (no-color.org), and
 * TERM is not "dumb". */
static bool color_wanted(void)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
	return isatty(1) && !(no && *no) && !(term && strcmp(term, "dumb") == 0);
}

static int parse_args(int argc, char **argv, struct options *o)
{
	enum { OPT_SYSROOT = 256, OPT_COLOR, OPT_JSON_LINES, OPT_SIGNATURE, OPT_SIG_FRAMES, OPT_SKIP,
	       OPT_SKIP_FRAMES, OPT_GROUP, OPT_SUMMARY, OPT_JOBS };
	static const struct option longopts[] = {
		{ "executable", required_argument, NULL, 'e' },
		{ "sysroot", required_argument, NULL, OPT_SYSROOT },
		{ "pid", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "interactive", no_argument, NULL, 'i' },
		{ "max-frames", required_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "raw", no_argument, NULL, 'r' },
		{ "color", required_argument, NULL, OPT_COLOR },
		{ "json-lines", no_argument, NULL, OPT_JSON_LINES },
		{ "signature", no_argument, NULL, OPT_SIGNATURE },
		{ "signature-frames", required_argument, NULL, OPT_SIG_FRAMES },
		{ "skip", required_argument, NULL, OPT_SKIP },
		{ "skip-frames", required_argument, NULL, OPT_SKIP_FRAMES },
		{ "group", no_argument, NULL, OPT_GROUP },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		FILES_LONGOPTS
		{ NULL, 0, NULL, 0 },
	};
	const char *color = "auto";
	int c;
	char *end;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":e:p:ijn:vrhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
		case OPT_SYSROOT: {
			/* checked now, as --debug-dir is: a run that would find none of its files is a
			 * usage error, not a core's problem */
			struct stat st;
			bool dir = c == OPT_SYSROOT;
			int bad = stat(optarg, &st) < 0 ? errno : 0;
			if (bad || (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))) {
				fprintf(stderr, "corestack: %s %s: %s\n", dir ? "--sysroot" : "-e", optarg,
					bad ? strerror(bad) : dir ? "not a directory" : "not a regular file");
				return EXIT_USAGE;
			}
			if (dir)
				o->sysroot = optarg;
			else
				o->executable = optarg;
			break;
		}
		case 'p':
			o->pid = (int)strtol(optarg, &end, 10);
			if (*end || o->pid <= 0)
				return usage_error("-p: '%s' is not a process id", optarg);
			break;
		case 'j': o->json = true; break;
		case 'i': o->interactive = true; break;
		case 'n': {
			long n = strtol(optarg, &end, 10);
			if (*end || n < 0 || n > BT_MAX_FRAMES)
				return usage_error("-n: '%s' is not a frame count (0-1000000)", optarg);
			o->max_frames = (unsigned)n;
			break;
		}
		case 'v': o->bt.verbose = true; break;
		case 'r': o->bt.raw = true; break;
		case OPT_COLOR: color = optarg; break;
		case OPT_JSON_LINES: o->tr.json_lines = true; break;
		case OPT_SIGNATURE: o->tr.signature = true; break;
		case OPT_GROUP: o->tr.group = true; break;
		case OPT_SUMMARY: o->tr.summary = true; break;
		case OPT_JOBS: {
			long n = strtol(optarg, &end, 10);
			if (*end || n < 1 || n > 64)
				return usage_error("--jobs: '%s' is not a number of processes (1-64)", optarg);
			o->jobs = (unsigned)n;
			break;
		}
		case OPT_SIG_FRAMES: {
			long n = strtol(optarg, &end, 10);
			if (*end || n <= 0 || n > SIG_MAX_DEPTH)
				return usage_error("--signature-frames: '%s' is not a frame count (1-64)", optarg);
			o->tr.sig.depth = (unsigned)n;
			break;
		}
		case OPT_SKIP:
			if (sig_options_add_skip(&o->tr.sig, optarg) < 0)
				return usage_error("%s", "out of memory");
			break;
		case OPT_SKIP_FRAMES: {
			char err[256];
			if (sig_options_load_skip(&o->tr.sig, optarg, err, sizeof err) < 0) {
				fprintf(stderr, "corestack: %s: %s\n", optarg, err);
				return EXIT_USAGE;
			}
			break;
		}
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': printf("corestack %s\n", CORESTACK_VERSION); exit(0);
		case FILES_OPT_DEBUG_DIR: case FILES_OPT_PERF_MAP: case FILES_OPT_MAX_CORE_SIZE:
		case FILES_OPT_DEBUG_CACHE: case FILES_OPT_NO_DEBUG_CACHE:
			if (files_option(&o->files, c, optarg))
				return EXIT_USAGE;
			break;
		case ':': return usage_error("option '%s' needs an argument", argv[optind - 1]);
		default: return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (strcmp(color, "always") == 0)
		o->bt.color = true;
	else if (strcmp(color, "auto") == 0)
		o->bt.color = color_wanted();
	else if (strcmp(color, "never") != 0)
		return usage_error("--color: '%s' is not auto, always or never", color);
	if (o->json || o->tr.json_lines)
		o->bt.color = false;
	int rest = argc - optind;
	if (o->pid ? rest != 0 : rest < 1)
		return usage_error("%s", o->pid ? "-p takes no core file" : "a core file expected");
	o->cores = argv + optind;
	o->ncores = rest;
	if (o->interactive && (o->pid || o->json || o->tr.json_lines || o->ncores != 1))
		return usage_error("%s", o->pid ? "-i needs a core file, not -p" :
				   o->ncores != 1 ? "-i takes one core file" : "-i and --json do not go together");
	if (!o->pid)
		o->core = argv[optind];
	return 0;
}

/* Prints the warnings core C (NULL: none) gathered since the last call; *DONE counts
 * those printed.  Called before a walk's stop line, so that the cause (a missing file,
 * found while walking) is said first. */
static void print_warnings(struct cst_core *c, const char *what, size_t *done)
{
	for (; c && *done < cst_core_nwarnings(c); ++*done)
		cli_diag(what, "%s", cst_core_warning(c, *done));
}

/* Milliseconds of walking whose text may wait in stdout's buffer (see flush_threads). */
#define FLUSH_MS 10

/* Sends out the threads printed so far (text, or a streamed JSON document's) when it is
 * due: after the first thread (the crashed one), after every thread on a terminal, and
 * after any thread that ends FLUSH_MS or more after the last flush; the buffers write the
 * rest whenever they fill.  A thread's output is thus on its way at most FLUSH_MS, a clock
 * tick and the next thread's walk after it was walked, without a write per thread on a
 * core of thousands.  The clock is the coarse one (the time of the last tick): asked after
 * every thread, it costs half what the precise one does. */
static void flush_threads(struct triage *tr, bool first)
{
	static struct timespec last;
	static int tty = -1;
	if (tty < 0)
		tty = isatty(1);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	long long ms = (now.tv_sec - last.tv_sec) * 1000LL + (now.tv_nsec - last.tv_nsec) / 1000000;
	if (first || tty || ms >= FLUSH_MS) {
		tr_flush(tr);
		last = now;
	}
}

/* Walks and prints one thread into T (whose frames the next thread reuses; T->tid, crashed
 * and cursig set by the caller); returns 1 when its walk stopped early.  Warnings of CORE
 * (NULL for a live process) go out before its stop line (print_warnings). */
static int emit_thread(struct cst_unwind_env *env, const struct cst_regs *regs, struct bt_thread *t,
		       const struct options *o, const struct bt_options *bo, struct json_object *doc,
		       const char *what, struct triage *tr, bool first, struct cst_core *core,
		       size_t *warned)
{
	if (bt_walk(env, regs, o->max_frames, t) < 0) {
		fprintf(stderr, "corestack: out of memory\n");
		exit(EXIT_UNUSABLE);
	}
	int now = tr_thread(tr, t, first, env->target, bo);
	if (now < 0) {
		fprintf(stderr, "corestack: out of memory\n");
		exit(EXIT_UNUSABLE);
	}
	if (doc)
		tr_json_thread(tr, doc, t);
	else if (now)
		bt_print_thread_text(tr->out, t, bo);
	flush_threads(tr, first);
	int partial = t->rc < 0;
	if (partial) {
		tr_flush(tr);            /* the thread's frames before what stderr says of it */
		print_warnings(core, what, warned);
		cli_diag(what, "thread %d: walk stopped early: %s", t->tid, t->stop);
	}
	return partial;
}

/* Starts the output for process P: prints the text header, or returns the JSON document
 * the threads are added to. */
static struct json_object *begin_output(const struct options *o, const struct bt_process *p,
					const struct triage *tr)
{
	if (tr->json)
		return bt_json_process(p);
	if (!tr_quiet(tr))
		bt_print_process_text(stdout, p);
	return NULL;
}

/* One core's threads being walked (emit_threads): what walk_range needs of them. */
struct walk {
	struct cst_process *proc;
	const struct options *o;
	struct json_object *doc;
	const char *what;
	struct triage *tr;
	size_t *warned;
	struct bt_thread bt;
	struct bt_options bo;
};

/* Thread I of W's process into *T, named in W's thread; -1 when there is none. */
static int take_thread(struct walk *w, size_t i, struct cst_process_thread *t)
{
	if (cst_process_thread(w->proc, i, t) < 0)
		return -1;
	w->bt.tid = t->tid;
	w->bt.crashed = t->crashed;
	w->bt.cursig = t->cursig;
	return 0;
}

/* Walks and prints threads FIRST to END - 1 of W's process; returns 1 when some walk stopped
 * early. */
static int walk_range(struct walk *w, size_t first, size_t end)
{
	int partial = 0;
	for (size_t i = first; i < end; i++) {
		struct cst_process_thread t;
		if (take_thread(w, i, &t) < 0)
			break;
		partial |= emit_thread(cst_process_env(w->proc), t.regs, &w->bt, w->o, &w->bo, w->doc, w->what,
				       w->tr, i == 0, cst_process_core(w->proc), w->warned);
	}
	return partial;
}

/* What a worker's walks said besides frames, counted: the core's warnings and the modules
 * that do not match. */
struct said {
	size_t warnings;
	int mismatches;
};

static struct said said_so_far(const struct walk *w)
{
	struct cst_symbols *syms = cst_process_symbols(w->proc);
	return (struct said){ .warnings = cst_core_nwarnings(cst_process_core(w->proc)),
			      .mismatches = syms ? cst_symbols_mismatches(syms) : 0 };
}

static bool said_more(const struct walk *w, struct said before)
{
	struct said now = said_so_far(w);
	return now.warnings != before.warnings || now.mismatches != before.mismatches;
}

static int walk_here(void *ctx, size_t first, size_t end)
{
	return walk_range(ctx, first, end);
}

/* In a worker (workers.h): the threads printed to OUT, their JSON written into SINK's text;
 * given back (1) when anything but their frames would be said: a stop line, a new warning
 * of the core, a module that does not match (stderr itself is watched by workers.c). */
static int walk_away(void *ctx, size_t first, size_t end, FILE *out, const struct jw_sink *sink)
{
	struct walk *w = ctx;
	struct said before = said_so_far(w);
	w->tr->out = out;
	w->tr->stream.out = out;
	w->tr->stream.jw.out = out;
	/* the JSON writer writes the chunk's text in place (workers.h) */
	jw_set_sink(&w->tr->stream.jw, sink);
	int rc = 0;
	for (size_t i = first; i < end && !rc; i++)
		rc = walk_range(w, i, i + 1) || said_more(w, before);
	tr_flush(w->tr);
	if (jw_set_sink(&w->tr->stream.jw, NULL) < 0)
		rc = 1;
	return rc;
}

/* In a worker (workers.h): thread I walked and printed to OUT without the triage's counting
 * it; 1 when it would say more than frames, as walk_away. */
static int walk_warm(void *ctx, size_t i, FILE *out)
{
	struct walk *w = ctx;
	struct said before = said_so_far(w);
	struct cst_process_thread t;
	if (take_thread(w, i, &t) < 0 || bt_walk(cst_process_env(w->proc), t.regs, w->o->max_frames, &w->bt) < 0)
		return 1;
	if (!w->doc)
		bt_print_thread_text(out, &w->bt, &w->bo);
	return w->bt.rc < 0 || said_more(w, before);
}

static void walk_flush(void *ctx)
{
	struct walk *w = ctx;
	tr_flush(w->tr);
}

static void walk_took(void *ctx, size_t n)
{
	struct walk *w = ctx;
	w->tr->stream.nthreads += n;
}

/* Walks and prints every thread of PROC (with FIRST_ONLY, only the first when TR wants no
 * more); returns 1 when some walk stopped early.  The threads after the first of a core
 * (FIRST_ONLY: not a live process, which only its tracer may read) are shared with worker
 * processes (workers.h) when their text goes out as it is walked: not with --group, which
 * holds threads back, nor a JSON document built whole, nor on a terminal, which gets each
 * thread as soon as it is walked. */
static int emit_threads(struct cst_process *proc, const struct options *o, struct json_object *doc,
			const char *what, struct triage *tr, bool first_only, size_t *warned)
{
	/* the frames of PROC's threads located once, and their lines rendered once: their
	 * strings live while PROC is open.  The test hook CORESTACK_NO_CACHES=1 keeps none
	 * (nor the JSON stream's), for the output to be compared with the caches' */
	bool cached = !getenv("CORESTACK_NO_CACHES");
	tr->stream.uncached = !cached;
	struct walk w = { .proc = proc, .o = o, .doc = doc, .what = what, .tr = tr, .warned = warned,
			  .bt = { .addrs = cached ? bt_addrs_new() : NULL }, .bo = o->bt };
	w.bo.lines = doc || !cached ? NULL : bt_lines_new();
	/* the first thread before the count: a core's notes past it may still be read beside
	 * its walk (core.h); walk_range stops where there is no thread */
	int partial = walk_range(&w, 0, 1);
	size_t n = cst_process_nthreads(proc);
	if (n > 1 && !(first_only && tr_quiet(tr))) {
		unsigned jobs = 1;
#ifndef main   /* a fuzzing harness runs main in its own process, not to be forked */
		if (first_only && !tr->o->group && (!doc || tr->streaming) && !isatty(1))
			jobs = workers_jobs(o->jobs, n);
#endif
		struct workers_walk ww = { .walk_away = walk_away, .warm = walk_warm, .walk_here = walk_here,
					   .flush = walk_flush, .took = walk_took, .ctx = &w };
		partial |= workers_run(&ww, 1, n, jobs);
	}
	tr_flush(tr);
	bt_thread_free(&w.bt);
	bt_addrs_free(w.bt.addrs);
	bt_lines_free(w.bo.lines);
	return partial;
}

/* The test hook CORESTACK_NOTES_LOG=FILE: appends how CORE's notes were read (core.h). */
static void notes_log(struct cst_core *core)
{
	const char *path = getenv("CORESTACK_NOTES_LOG");
	FILE *f = path && *path ? fopen(path, "ae") : NULL;
	if (f) {
		fprintf(f, "notes read %s\n", cst_core_notes_read(core));
		fclose(f);
	}
}

/* The process of the last core, left open for the exit to free (see run_core); kept here
 * so that it stays reachable, as memory in use, for leak checkers (volatile: a store
 * never read back would be dropped, and the variable with it). */
static struct cst_process *volatile kept_until_exit;

/* Prints the core O->core.  With LAST, nothing but the exit follows: its process is not
 * closed but left to the exit, where the kernel drops the mappings and memory of the
 * whole process at once; closing it would unmap each module's file and take libdw's trees
 * apart piece by piece, a good part of the time on a core of hundreds of libraries. */
static int run_core(const struct options *o, struct triage *tr, bool last)
{
	char err[256];
	struct cst_process *proc;
	struct cst_core_options copt = { .executable = o->executable, .sysroot = o->sysroot };
#ifndef main   /* a fuzzing harness runs main in its own process, not to be forked */
	/* --jobs 1: one process, as asked.  The test hook CORESTACK_NOTES_BESIDE (always, fail)
	 * has a child read them whatever the core's size, or a child that fails */
	const char *hook = getenv("CORESTACK_NOTES_BESIDE");
	copt.notes_beside = o->jobs == 1 ? CST_NOTES_HERE
			    : !hook ? CST_NOTES_BESIDE
			    : strcmp(hook, "always") == 0 ? CST_NOTES_BESIDE_ALWAYS
			    : strcmp(hook, "fail") == 0 ? CST_NOTES_BESIDE_FAILING : CST_NOTES_BESIDE;
#endif
	if (files_open_core(o->core, &o->files, &copt.fd, err, sizeof err)) {
		tr_core_error(tr, o->core, err);
		return EXIT_UNUSABLE;
	}
	int rc = cst_process_open_core(&proc, o->core, &copt, err, sizeof err);
	if (rc < 0) {
		cli_diag(o->core, "%s", err);
		tr_core_error(tr, o->core, err);
		return EXIT_UNUSABLE;
	}
	struct cst_core *core = cst_process_core(proc);
	struct cst_symbols *syms = cst_process_symbols(proc);
	if (!syms)
		cli_diag(o->core, "%s (no symbols)", cst_process_symbols_error(proc));
	else
		cst_symbols_set_raw(syms, o->bt.raw);

	struct bt_process p;
	bt_process_from(&p, proc, o->core);
	struct json_object *doc = begin_output(o, &p, tr);
	struct files_state fst = { 0 };
	int partial = files_begin(&fst, &o->files, proc, o->core, stdout, doc);
	size_t warned = 0;
	partial |= emit_threads(proc, o, doc, o->core, tr, true, &warned);
	notes_log(core);
	tr_core_done(tr, o->core, doc, &o->bt);
	print_warnings(core, o->core, &warned);
	/* each mismatching file is a warning of its own, naming it and both build-ids */
	int mism = syms ? cst_symbols_mismatches(syms) : 0;
	files_end(&fst);
	if (last) {
		/* main run again in the same process (the fuzzing harness runs it per input):
		 * the one kept before is closed now */
		if (kept_until_exit)
			cst_process_close(kept_until_exit);
		kept_until_exit = proc;
	} else {
		cst_process_close(proc);
	}
	return partial || mism || warned ? EXIT_PARTIAL : 0;
}

/* Says which threads of live process PID exited while they were being attached (the first
 * few tids, on one line); returns 1 when there were any, for the walk left them out. */
static int report_skipped(const struct cst_process *proc, int pid)
{
	size_t n = cst_process_nskipped(proc);
	if (n == 0)
		return 0;
	fprintf(stderr, "corestack: process %d: %zu thread%s exited while being attached, skipped (", pid, n,
		n == 1 ? "" : "s");
	for (size_t i = 0; i < n && i < 8; i++)
		fprintf(stderr, "%s%d", i ? ", " : "", cst_process_skipped(proc, i));
	fprintf(stderr, "%s)\n", n > 8 ? ", ..." : "");
	return 1;
}

static int run_live(const struct options *o, struct triage *tr)
{
	char err[256];
	struct cst_process *proc;
	int rc = cst_process_open_pid(&proc, o->pid, true, err, sizeof err);
	if (rc < 0) {
		fprintf(stderr, "corestack: process %d: %s\n", o->pid, err);
		return EXIT_UNUSABLE;
	}
	if (!cst_process_symbols(proc))
		fprintf(stderr, "corestack: process %d: %s (no symbols)\n", o->pid, cst_process_symbols_error(proc));
	else
		cst_symbols_set_raw(cst_process_symbols(proc), o->bt.raw);
	int partial = report_skipped(proc, o->pid);
	struct bt_process p;
	bt_process_from(&p, proc, NULL);
	struct json_object *doc = begin_output(o, &p, tr);
	char what[32];
	snprintf(what, sizeof what, "process %d", o->pid);
	partial |= files_perfmap(proc, &o->files, what);
	size_t warned = 0;
	partial |= emit_threads(proc, o, doc, what, tr, false, &warned);
	tr_core_done(tr, what, doc, &o->bt);
	cst_process_close(proc);
	return partial ? EXIT_PARTIAL : 0;
}

/* What is being read, for on_bus_error: the core's name, escaped for a terminal. */
static char bus_error_what[512] = "core";

/* stdout's buffer when it is not a terminal's (main), and whether stdout uses it: text of
 * threads already walked waits there (flush_threads) and on_bus_error sends it out. */
#ifndef main
static char out_buf[64 << 10];
static volatile sig_atomic_t out_buffered;
#endif

/* The files a core names are mapped (by libelf and libdwfl, to read their symbols and
 * DWARF in place); a file that shrinks while it is open makes a load from the part it lost
 * raise SIGBUS (mmap(2): "attempted access to a portion of the buffer that does not
 * correspond to the file").  Reported as one line, with the status of an unusable core (2),
 * not as a crash.  Only async-signal-safe calls here. */
#ifndef main
static void on_bus_error(int sig)
{
	static const char pre[] = "corestack: ";
	static const char post[] = ": a file it names shrank while corestack read it (bus error)\n";
	(void)sig;
	/* the threads printed so far first, as a flush would: glibc's stdout holds them at the
	 * start of the buffer setvbuf gave it, __fpending(3) of them (a read of two pointers,
	 * no lock) */
	size_t held = out_buffered ? __fpending(stdout) : 0;
	ssize_t w = held <= sizeof out_buf ? write(1, out_buf, held) : 0;
	w = write(2, pre, sizeof pre - 1);
	w = write(2, bus_error_what, strlen(bus_error_what));
	w = write(2, post, sizeof post - 1);
	(void)w;
	_exit(EXIT_UNUSABLE);
}
#endif

/* Names WHAT (a core file's path, or "pid N") in on_bus_error's line. */
static void bus_error_reading(const char *what)
{
	cst_escape(bus_error_what, sizeof bus_error_what, what);
}

int main(int argc, char **argv)
{
#ifndef main   /* renamed by the fuzzing harnesses (fuzz/fuzz.mk): a SIGBUS there is a finding */
	heap_in_huge_pages();
	struct sigaction bus = { .sa_handler = on_bus_error };
	sigemptyset(&bus.sa_mask);
	sigaction(SIGBUS, &bus, NULL);
#endif
	struct options o = { .max_frames = BT_DEFAULT_FRAMES };
	if (sig_options_init(&o.tr.sig) < 0) {
		fprintf(stderr, "corestack: out of memory\n");
		return EXIT_UNUSABLE;
	}
	int rc = parse_args(argc, argv, &o);
	if (rc) {
		sig_options_free(&o.tr.sig);
		return rc;
	}
	if (o.interactive) {
		struct cst_core_options copt = { .executable = o.executable, .sysroot = o.sysroot };
		char err[256];
		if (strcmp(o.core, "-") == 0)
			rc = usage_error("%s", "-i reads its commands from standard input: give the core as a file");
		else if (files_open_core(o.core, &o.files, &copt.fd, err, sizeof err))
			rc = EXIT_UNUSABLE;
		else {
			bus_error_reading(o.core);
			rc = shell_run(o.core, &copt, o.max_frames, &o.bt, &o.tr.sig);
		}
		sig_options_free(&o.tr.sig);
		return rc;
	}
#ifndef main   /* a harness runs main again on a stdout already written to */
	/* text of many threads goes out in large writes (flush_threads); a terminal keeps
	 * stdio's line buffering, and JSON its writer's own buffer (jsonw.c), which stdio
	 * would copy into its own */
	if (!o.json && !o.tr.json_lines && !isatty(1))
		out_buffered = setvbuf(stdout, out_buf, _IOFBF, sizeof out_buf) == 0;
#endif
	struct triage tr;
	tr_init(&tr, &o.tr, stdout, o.json, o.pid ? 1 : o.ncores,
		isatty(2) && (o.tr.summary || !isatty(1)));
	if (o.pid) {
		char what[32];
		snprintf(what, sizeof what, "pid %d", o.pid);
		bus_error_reading(what);
		rc = run_live(&o, &tr);
	} else {
		for (int i = 0; i < o.ncores; i++) {
			o.core = o.cores[i];
			tr_core_begin(&tr, i, o.core);
			bus_error_reading(o.core);
			int r = run_core(&o, &tr, i == o.ncores - 1);
			if (r > rc)
				rc = r;   /* 2 unusable > 1 partial > 0 */
		}
	}
	tr_finish(&tr, &o.bt);
	sig_options_free(&o.tr.sig);
#ifndef main   /* a harness runs main again */
	teardown_after_exit();
#endif
	return rc;
}

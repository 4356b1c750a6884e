/* Options and output of the CLI about the files a core needs.  See files_cli.c. */
#ifndef CST_FILES_CLI_H
#define CST_FILES_CLI_H

#include <stdint.h>
#include <stdio.h>
#include "files.h"

enum { FILES_OPT_DEBUG_DIR = 400, FILES_OPT_PERF_MAP, FILES_OPT_MAX_CORE_SIZE, FILES_OPT_DEBUG_CACHE,
       FILES_OPT_NO_DEBUG_CACHE };

#define FILES_LONGOPTS \
	{ "debug-dir", required_argument, NULL, FILES_OPT_DEBUG_DIR }, \
	{ "perf-map", required_argument, NULL, FILES_OPT_PERF_MAP }, \
	{ "max-core-size", required_argument, NULL, FILES_OPT_MAX_CORE_SIZE }, \
	{ "debug-cache", required_argument, NULL, FILES_OPT_DEBUG_CACHE }, \
	{ "no-debug-cache", no_argument, NULL, FILES_OPT_NO_DEBUG_CACHE },

#define FILES_USAGE \
	"      --debug-dir DIR    also look for separate debug files in DIR (DIR/.build-id/xx/yyyy.debug,\n" \
	"                         DIR/<path of the module>/<debuglink name>); may be repeated\n" \
	"      --perf-map FILE    name JIT frames from perf map FILE (default /tmp/perf-PID.map)\n" \
	"      --max-core-size N  bound on a decompressed or piped core (bytes, or N[KMGT]; default 64G)\n" \
	"      --debug-cache DIR  keep decompressed debug files in DIR (default ~/.cache/corestack/debug)\n" \
	"      --no-debug-cache   do not use or fill the cache of decompressed debug files\n"

struct files_options {
	const char *perf_map;    /* --perf-map, or NULL */
	uint64_t max_core_size;  /* bytes, 0: the default */
};

struct files_state {
	struct bt_modules modules;
};

/* Handles option OPT (one of FILES_OPT_*) with argument ARG.  Returns 0, or 64 (usage)
 * after a message on stderr. */
int files_option(struct files_options *fo, int opt, const char *arg);

/* Opens CORE (a path, or "-" for standard input; plain or zstd/xz/lz4-compressed) into *FD
 * for cst_core_open.  Returns 0, or 2 (the input is unusable) after a one-line message on
 * stderr naming CORE, the reason also left in ERR (ERRLEN bytes). */
int files_open_core(const char *core, const struct files_options *fo, int *fd, char *err,
		    size_t errlen);

/* Gives process PROC its perf map: --perf-map, else /tmp/perf-PID.map when it exists.
 * Messages on stderr name WHAT.  Returns 1 when a perf map given could not be used, else 0. */
struct cst_process;
int files_perfmap(struct cst_process *proc, const struct files_options *fo, const char *what);

/* After the process image PROC is open: gives it its perf map (files_perfmap), collects the
 * modules with their package notes and prints them to TEXT (text output) or adds them to DOC
 * (JSON).  Messages on stderr name WHAT.  Returns 1 when a perf map given could not be
 * used, else 0. */
int files_begin(struct files_state *st, const struct files_options *fo, struct cst_process *proc,
		const char *what, FILE *text, struct json_object *doc);
void files_end(struct files_state *st);

#endif

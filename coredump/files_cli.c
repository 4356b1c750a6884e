/* The CLI's options for finding a core's files: --debug-dir, --perf-map, --max-core-size,
 * --debug-cache, --no-debug-cache,
 * a compressed core or one on standard input, and what is printed about them. */
#include "files_cli.h"
#include "diag.h"
#include "escape.h"
#include "debugcache.h"
#include "debugdirs.h"
#include "decompress.h"
#include "error.h"
#include "process.h"

#include <errno.h>
#include <json.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int files_option(struct files_options *fo, int opt, const char *arg)
{
	char *end;
	switch (opt) {
	case FILES_OPT_DEBUG_DIR: {
		char *real = realpath(arg, NULL);
		if (!real) {
			fprintf(stderr, "corestack: --debug-dir: %s: %s\n", arg, strerror(errno));
			return 64;
		}
		int rc = cst_debugdirs_add(real);
		if (rc < 0)
			fprintf(stderr, "corestack: --debug-dir: %s: %s\n", real,
				rc == -CST_E_INVAL ? "a directory whose path has no ':' is needed" : cst_strerror(rc));
		free(real);
		return rc < 0 ? 64 : 0;
	}
	case FILES_OPT_PERF_MAP:
		fo->perf_map = arg;
		return 0;
	case FILES_OPT_NO_DEBUG_CACHE:
		cst_debugcache_disable();
		return 0;
	case FILES_OPT_DEBUG_CACHE: {
		/* kept for the whole run, as the cache keeps the pointer */
		char cwd[4096], *dir = NULL;
		if (arg[0] == '/')
			dir = strdup(arg);
		else if (getcwd(cwd, sizeof cwd) && asprintf(&dir, "%s/%s", cwd, arg) < 0)
			dir = NULL;
		if (!dir || cst_debugcache_set_dir(dir) < 0) {
			fprintf(stderr, "corestack: --debug-cache: %s: %s\n", arg,
				dir ? "not an absolute path" : "cannot make an absolute path of it");
			free(dir);
			return 64;
		}
		return 0;
	}
	case FILES_OPT_MAX_CORE_SIZE: {
		errno = 0;
		unsigned long long v = strtoull(arg, &end, 10);
		int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : *end == 'T' ? 40 : 0;
		if (shift)
			end++;
		if (errno || *end || v == 0 || arg[0] == '-' || v > (ULLONG_MAX >> shift)) {
			fprintf(stderr, "corestack: --max-core-size: '%s' is not a size (bytes, or N with K, M, G, T)\n"
				"Try 'corestack --help'.\n", arg);
			return 64;
		}
		fo->max_core_size = v << shift;
		return 0;
	}
	}
	return 64;
}

int files_open_core(const char *core, const struct files_options *fo, int *fd, char *err,
		    size_t errlen)
{
	struct cst_input_options io = { .max_size = fo->max_core_size };
	int rc = cst_input_open(core, &io, fd, NULL, err, errlen);
	if (rc < 0) {
		if (rc == -CST_E_LIMIT && !strstr(err, "memory")) {
			size_t n = strlen(err);
			snprintf(err + n, errlen - n, " (see --max-core-size)");
		}
		cli_diag(core, "%s", err);
		return 2;
	}
	return 0;
}

int files_perfmap(struct cst_process *proc, const struct files_options *fo, const char *what)
{
	int warned = 0;
	char err[256];
	const char *map = fo->perf_map;
	char def[64];
	int pid = cst_process_pid(proc);
	if (!map && pid > 0) {
		snprintf(def, sizeof def, "/tmp/perf-%d.map", pid);
		map = def;
	}
	if (!map)
		return 0;
	struct cst_perfmap *m = NULL;
	int rc = cst_perfmap_open(map, !fo->perf_map, &m, err, sizeof err);
	if (rc < 0 && (fo->perf_map || rc != -CST_E_NOENT)) {
		cli_diag(what, "perf map %s: %s", map, err);
		warned = 1;
	}
	if (m) {
		if (cst_perfmap_bad_lines(m))
			cli_diag(what, "perf map %s: %zu malformed line(s) skipped", map, cst_perfmap_bad_lines(m));
		if (cst_perfmap_truncated(m))
			cli_diag(what, "perf map %s: read only its first %zu entries (size bound: %llu MiB, %d entries)",
				map, cst_perfmap_entries(m),
				(unsigned long long)(CST_PERFMAP_MAX_BYTES >> 20), CST_PERFMAP_MAX_ENTRIES);
		cst_process_set_perfmap(proc, m);
	}
	return warned;
}

int files_begin(struct files_state *st, const struct files_options *fo, struct cst_process *proc,
		const char *what, FILE *text, struct json_object *doc)
{
	int warned = files_perfmap(proc, fo, what);
	if (bt_modules_collect(cst_process_symbols(proc), cst_process_core(proc), &st->modules) < 0) {
		fprintf(stderr, "corestack: out of memory\n");
		exit(2);
	}
	for (size_t i = 0; i < st->modules.n; i++) {
		if (!st->modules.v[i].package_error)
			continue;
		char shown[1024];
		cli_diag(what, "%s", cst_esc(st->modules.v[i].package_error, shown, sizeof shown));
	}
	if (doc)
		bt_json_add_modules(doc, &st->modules);
	else if (text)
		bt_print_packages_text(text, &st->modules);
	return warned;
}

void files_end(struct files_state *st)
{
	bt_modules_free(&st->modules);
}

/* jsoncheck: corestack run under a check that its JSON output parses with json-c.
 *
 *   CST_JSONCHECK_CORESTACK=BIN [CST_JSONCHECK_LOG=FILE] jsoncheck [corestack arguments...]
 *
 * tests/run.sh and tests/lib/common.sh put it in place of the corestack under test, so that
 * every JSON document the test suite produces is also read by json-c, a parser apart from
 * the writer (coredump/jsonw.c).  Without --json, -j or --json-lines (or with -i, -h, -V) it
 * is BIN itself (execv).  Otherwise BIN's standard output is passed through as it comes and
 * kept; when BIN has exited, the output is parsed with json-c's strict parser, UTF-8
 * checked: one document (or array of them) with --json, one a line with --json-lines; an
 * object must hold "corestack": 1.  Empty output (an unusable core, a usage error) is not a
 * document and is not checked.  A failure appends one line to FILE (tests/run.sh fails the
 * run when FILE is not empty) and is said on stderr; each checked run appends "ok".
 * jsoncheck exits with BIN's status (or dies of its signal). */
#include <errno.h>
#include <json.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Output kept for the check; larger output is passed through unchecked (said in the log). */
#define MAX_KEPT (512u << 20)

static const char *logpath;

static void note(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (strcmp(line, "ok") != 0)
		fprintf(stderr, "jsoncheck: %s\n", line);
	FILE *f = logpath ? fopen(logpath, "a") : NULL;
	if (f) {
		fprintf(f, "%s\n", line);
		fclose(f);
	}
}

/* Which output the arguments ask for: 0 not JSON, 1 --json, 2 --json-lines. */
static int json_mode(char **argv)
{
	int mode = 0;
	for (int i = 0; argv[i]; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0)
			break;
		if (!strcmp(a, "-i") || !strcmp(a, "--interactive") || !strcmp(a, "-h") ||
		    !strcmp(a, "--help") || !strcmp(a, "-V") || !strcmp(a, "--version"))
			return 0;
		if (strcmp(a, "--json-lines") == 0)
			mode = 2;
		else if (strcmp(a, "--json") == 0 && mode == 0)
			mode = 1;
		else if (a[0] == '-' && a[1] != '-') {
			/* a cluster of short options; e, p and n take the rest or the next argument */
			for (const char *c = a + 1; *c; c++) {
				if (*c == 'j' && mode == 0)
					mode = 1;
				if (*c == 'i')
					return 0;
				if (strchr("epn", *c)) {
					if (!c[1] && argv[i + 1])
						i++;
					break;
				}
			}
		}
	}
	return mode;
}

/* One JSON text of LEN bytes at S: NULL when it parses whole (whitespace around it allowed)
 * and its objects' "corestack" members are 1, else what is wrong. */
static const char *check_text(const char *s, size_t len, char *why, size_t cap)
{
	struct json_tokener *tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	if (!tok)
		return "out of memory";
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	struct json_object *v = json_tokener_parse_ex(tok, s, (int)len);
	enum json_tokener_error e = json_tokener_get_error(tok);
	size_t used = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	const char *bad = NULL;
	if (!v || e != json_tokener_success) {
		snprintf(why, cap, "not JSON at byte %zu of %zu: %s", used, len,
			 e == json_tokener_continue ? "cut short" : json_tokener_error_desc(e));
		bad = why;
	} else {
		while (used < len && strchr(" \t\r\n", s[used]))
			used++;
		if (used < len) {
			snprintf(why, cap, "more after the document, at byte %zu of %zu", used, len);
			bad = why;
		}
		size_t n = json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 1;
		for (size_t i = 0; i < n && !bad; i++) {
			struct json_object *d = json_object_is_type(v, json_type_array)
				? json_object_array_get_idx(v, i) : v, *ver;
			if (!json_object_is_type(d, json_type_object) ||
			    !json_object_object_get_ex(d, "corestack", &ver) || json_object_get_int(ver) != 1)
				bad = "a document without \"corestack\": 1";
		}
	}
	json_object_put(v);
	return bad;
}

int main(int argc, char **argv)
{
	const char *bin = getenv("CST_JSONCHECK_CORESTACK");
	logpath = getenv("CST_JSONCHECK_LOG");
	if (!bin) {
		fprintf(stderr, "jsoncheck: CST_JSONCHECK_CORESTACK is not set\n");
		return 2;
	}
	argv[0] = (char *)bin;
	int mode = json_mode(argv + 1);
	if (mode == 0) {
		execv(bin, argv);
		fprintf(stderr, "jsoncheck: %s: %s\n", bin, strerror(errno));
		return 127;
	}
	int fd[2];
	if (pipe(fd) < 0)
		return perror("jsoncheck: pipe"), 2;
	pid_t pid = fork();
	if (pid < 0)
		return perror("jsoncheck: fork"), 2;
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], 1);
		close(fd[1]);
		execv(bin, argv);
		fprintf(stderr, "jsoncheck: %s: %s\n", bin, strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	signal(SIGPIPE, SIG_IGN);            /* a reader that stops early is corestack's business */
	char *kept = NULL;
	size_t len = 0, cap = 0;
	bool whole = true, out_ok = true;
	char chunk[65536];
	ssize_t n;
	while ((n = read(fd[0], chunk, sizeof chunk)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (ssize_t off = 0, w; out_ok && off < n; off += w)
			if ((w = write(1, chunk + off, (size_t)(n - off))) <= 0)
				out_ok = false;      /* keep reading: corestack must not block */
		if (whole && len + (size_t)n > cap) {
			size_t c = cap ? cap * 2 : 1 << 20;
			while (c < len + (size_t)n)
				c *= 2;
			char *k = c <= MAX_KEPT ? realloc(kept, c) : NULL;
			if (!k) {
				whole = false;
				free(kept);
				kept = NULL;
			} else {
				kept = k;
				cap = c;
			}
		}
		if (whole) {
			memcpy(kept + len, chunk, (size_t)n);
			len += (size_t)n;
		}
	}
	close(fd[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	const char *args = argc > 1 ? argv[argc - 1] : "";
	if (!whole) {
		note("ok (output too large to keep, not checked): %s", args);
	} else if (len > 0 && !(WIFSIGNALED(status))) {
		char why[256];
		const char *bad = NULL;
		if (mode == 2) {
			for (size_t at = 0; at < len && !bad;) {
				const char *nl = memchr(kept + at, '\n', len - at);
				size_t end = nl ? (size_t)(nl - kept) : len;
				if (!nl)
					bad = "a line without its newline";
				else
					bad = check_text(kept + at, end - at, why, sizeof why);
				at = end + 1;
			}
		} else {
			bad = check_text(kept, len, why, sizeof why);
		}
		if (bad)
			note("FAIL %s (corestack ... %s)", bad, args);
		else
			note("ok");
	}
	free(kept);
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

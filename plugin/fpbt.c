/* The fpbt request and answer files.  See fpbt.h. */
#include "fpbt.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir_path[PATH_MAX];
static bool is_open;

static const char idle_text[] =
	"corestack: the plugin was not asked to unwind this thread's frame 0\n";

/* Writes TEXT into the directory as NAME through a temporary file and a rename, so gdb never
 * sources half a file. */
static void write_script(const char *name, const char *text)
{
	int fd = openat(CST_FPBT_FD, "tmp.gdb", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return;
	}
	/* echo: C escapes, and "\ " for a space (gdb manual, "Commands for Controlled Output") */
	bool line_start = true;
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (line_start)
			fputs("echo ", f);
		line_start = false;
		if (*p == '\n') {
			fputs("\\n\n", f);
			line_start = true;
		} else if (*p == '\\') {
			fputs("\\\\", f);
		} else if (*p == ' ') {
			fputs("\\ ", f);
		} else if (*p < 0x20 || *p >= 0x7f) {
			fprintf(f, "\\%03o", *p);
		} else {
			fputc(*p, f);
		}
	}
	if (!line_start)
		fputs("\\n\n", f);
	if (fclose(f) == 0)
		renameat(CST_FPBT_FD, "tmp.gdb", CST_FPBT_FD, name);
}

int cst_fpbt_open(void)
{
	if (is_open)
		return 0;
	if (fcntl(CST_FPBT_FD, F_GETFD) != -1)
		return -1;                    /* someone else's descriptor */
	const char *tmp = getenv("TMPDIR");
	snprintf(dir_path, sizeof dir_path, "%s/corestack-gdb.XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
	if (!mkdtemp(dir_path))
		return -1;
	int fd = open(dir_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || (fd != CST_FPBT_FD && dup3(fd, CST_FPBT_FD, O_CLOEXEC) < 0)) {
		if (fd >= 0)
			close(fd);
		rmdir(dir_path);
		return -1;
	}
	if (fd != CST_FPBT_FD)
		close(fd);
	is_open = true;
	write_script("idle.gdb", idle_text);
	write_script("out.gdb", idle_text);
	return 0;
}

bool cst_fpbt_pending(void)
{
	struct stat st;
	return is_open && fstatat(CST_FPBT_FD, "request", &st, 0) == 0;
}

static void parse(char *args, struct cst_fpbt_request *r)
{
	memset(r, 0, sizeof *r);
	for (char *save, *w = strtok_r(args, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		char *end;
		unsigned long n;
		if (strcmp(w, "-v") == 0) {
			r->verbose = true;
		} else if (w[0] >= '0' && w[0] <= '9' && (n = strtoul(w, &end, 10)) <= 1000000 && !*end) {
			r->counted = true;
			r->max_frames = (unsigned)n;
		} else {
			snprintf(r->error, sizeof r->error, "fpbt: unknown argument \"%.40s\"; usage: fpbt [-v] [N]", w);
			return;
		}
	}
}

int cst_fpbt_take(struct cst_fpbt_request *r)
{
	if (!is_open)
		return -1;
	int fd = openat(CST_FPBT_FD, "request", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char buf[256];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	unlinkat(CST_FPBT_FD, "request", 0);
	buf[n > 0 ? n : 0] = 0;
	parse(buf, r);
	return 0;
}

void cst_fpbt_answer(const char *text)
{
	if (is_open)
		write_script("out.gdb", text);
}

void cst_fpbt_commands(const char *name, const char *commands)
{
	if (!is_open)
		return;
	int fd = openat(CST_FPBT_FD, "tmp.gdb", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	size_t len = strlen(commands), done = 0;
	while (done < len) {
		ssize_t n = write(fd, commands + done, len - done);
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	if (close(fd) == 0 && done == len)
		renameat(CST_FPBT_FD, "tmp.gdb", CST_FPBT_FD, name);
}

int cst_fpbt_read_file(const char *name, char *buf, size_t size)
{
	if (!is_open || size == 0)
		return -1;
	int fd = openat(CST_FPBT_FD, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = 0;
	return (int)n;
}

bool cst_fpbt_exists(const char *name)
{
	struct stat st;
	return is_open && fstatat(CST_FPBT_FD, name, &st, 0) == 0;
}

void cst_fpbt_set(const char *name, bool present)
{
	if (!is_open)
		return;
	if (!present) {
		unlinkat(CST_FPBT_FD, name, 0);
		return;
	}
	int fd = openat(CST_FPBT_FD, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
}

void cst_fpbt_close(void)
{
	if (!is_open)
		return;
	static const char *const names[] = { "request", "out.gdb", "idle.gdb", "tmp.gdb", "pre.gdb",
					     "program", "sysroot", "flushing", "flushed" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		unlinkat(CST_FPBT_FD, names[i], 0);
	close(CST_FPBT_FD);
	rmdir(dir_path);
	is_open = false;
}

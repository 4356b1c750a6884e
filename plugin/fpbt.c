/* The fpbt request and answer files.  See fpbt.h. */
#include "fpbt.h"
#include "answer.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir_path[PATH_MAX];
static bool is_open;
static struct cst_answer_cache *cache;   /* made by the first answer */

/* Writes TEXT into the directory as NAME through a temporary file and a rename, so gdb never
 * sources half a file. */
static void write_file(const char *name, const char *text, size_t len)
{
	int fd = openat(CST_FPBT_FD, "tmp.gdb", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	if (close(fd) == 0 && done == len)
		renameat(CST_FPBT_FD, "tmp.gdb", CST_FPBT_FD, name);
}

/* Writes NAME: COMMANDS (or, without them, TEXT as answer.h writes it) run while
 * $_corestack_seq is SEQ, else (TEXT) _corestack_idle, which says the plugin was not asked. */
static void write_script(const char *name, unsigned long seq, const char *commands, const char *text)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return;
	if (!commands && !cache)
		cache = cst_answer_cache_new(seq);
	if (!commands && cache) {
		cst_answer_script(cache, f, seq, text);
	} else {
		fprintf(f, "if $_corestack_seq == %lu\n", seq);
		if (commands)
			fputs(commands, f);
		else
			cst_answer_echo(f, text);
		fputs(commands ? "end\n" : "else\n_corestack_idle\nend\n", f);
	}
	if (fclose(f) == 0)
		write_file(name, buf, len);
	free(buf);
}

int cst_fpbt_open(void)
{
	if (is_open)
		return 0;
	if (fcntl(CST_FPBT_FD, F_GETFD) != -1)
		return -1;                    /* someone else's descriptor */
	/* TMPDIR when set, else a file system in memory: every fpbt writes and replaces small
	 * files, which on a disk file system (ext4's replace-on-truncate and -rename
	 * heuristics) waits for the disk each time */
	const char *bases[] = { getenv("TMPDIR"), getenv("XDG_RUNTIME_DIR"), "/dev/shm", "/tmp" };
	bool made = false;
	for (size_t i = 0; i < sizeof bases / sizeof bases[0] && !made; i++) {
		if (!bases[i] || bases[i][0] != '/')
			continue;
		int n = snprintf(dir_path, sizeof dir_path, "%s/corestack-gdb.XXXXXX", bases[i]);
		made = n > 0 && (size_t)n < sizeof dir_path && mkdtemp(dir_path);
	}
	if (!made)
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
	write_file("out.gdb", "_corestack_idle\n", 16);
	write_file("pre.gdb", "", 0);
	return 0;
}

unsigned long cst_fpbt_pending(void)
{
	char buf[64];
	if (!is_open || cst_fpbt_read_file("request", buf, sizeof buf) < 0)
		return 0;
	unsigned long seq = strtoul(buf, NULL, 10);
	return seq ? seq : 1;
}

static void parse(char *args, struct cst_fpbt_request *r)
{
	memset(r, 0, sizeof *r);
	char *save, *w = strtok_r(args, " \t\n", &save);
	r->seq = w ? strtoul(w, NULL, 10) : 0;
	w = w ? strtok_r(NULL, " \t\n", &save) : NULL;
	r->ack = w ? strtoul(w, NULL, 10) : 0;
	for (w = w ? strtok_r(NULL, " \t\n", &save) : NULL; w; w = strtok_r(NULL, " \t\n", &save)) {
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
	if (r->seq == 0)
		return -1;
	if (cache)
		cst_answer_ack(cache, r->ack);
	return 0;
}

void cst_fpbt_answer(unsigned long seq, const char *text)
{
	if (is_open)
		write_script("out.gdb", seq, NULL, text);
}

void cst_fpbt_commands(const char *name, unsigned long seq, const char *commands)
{
	if (is_open)
		write_script(name, seq, commands, NULL);
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
	n = (ssize_t)strnlen(buf, (size_t)n);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = 0;
	return (int)n;
}

void cst_fpbt_stage(unsigned long seq, char *buf, size_t size)
{
	char line[96], *end;
	buf[0] = 0;
	if (cst_fpbt_read_file("stage", line, sizeof line) < 0 || strtoul(line, &end, 10) != seq || *end != ' ')
		return;
	snprintf(buf, size, "%s", end + 1);
}

void cst_fpbt_set_stage(unsigned long seq, const char *step)
{
	char line[96];
	int n = snprintf(line, sizeof line, "%lu %s", seq, step);
	if (is_open && n > 0 && (size_t)n < sizeof line)
		write_file("stage", line, (size_t)n);
}

void cst_fpbt_close(void)
{
	if (!is_open)
		return;
	static const char *const names[] = { "request", "out.gdb", "tmp.gdb", "pre.gdb", "flush.gdb",
					     "stage", "program", "sysroot" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		unlinkat(CST_FPBT_FD, names[i], 0);
	close(CST_FPBT_FD);
	rmdir(dir_path);
	is_open = false;
	cst_answer_cache_free(cache);
	cache = NULL;
}

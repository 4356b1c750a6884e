/* libFuzzer harness over the whole CLI path: corestack's own main (coredump/main.c, built
 * with main renamed cst_cli_main) runs on the input as a core file, three times per input:
 *   1. with the mapped files of NT_FILE renamed to hostile files of a fake sysroot the
 *      harness makes once (an empty file, a FIFO, a symbolic link loop, a text file, an ELF
 *      file cut after its first 1000 bytes, a directory, a path leading out with "..", a
 *      file that does not exist), under --sysroot, text output;
 *   2. with NT_FILE gone (its n_type changed, so the modules come from the link_map in the
 *      core's memory, or none: no symbols), --json;
 *   3. one mode picked by the input's last byte: the renamed core with the hostile files
 *      named by absolute path and no sysroot, --json-lines, --signature, -e naming the cut
 *      ELF file, or the shell (-i) reading bt, info sharedlibrary, frame 1, info frame,
 *      disassemble, thread apply all bt.
 * Standard output goes to /dev/null.  The input is a whole core file (the core harness's
 * seeds); inputs that are no ELF64 core with a PT_NOTE run unchanged. */
#include "fuzz_input.h"

#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int cst_cli_main(int argc, char **argv);

#define NT_FILE_TYPE 0x46494c45u        /* "FILE", linux/elf.h */
#define ELF64_EHDR_SIZE 64
#define ELF64_PHDR_SIZE 56

/* The hostile files, by their path inside the sysroot. */
static const char *const hostile[] = {
	"/empty", "/fifo", "/loop1", "/text", "/cut.so", "/dir", "/../../../etc/hosts",
	"/nonexistent/libc.so.6",
};
#define NHOSTILE (sizeof hostile / sizeof hostile[0])

static char sysroot[PATH_MAX];
static int core_fd = -1, script_fd = -1;

static void remove_sysroot(void)
{
	static const char *const names[] = { "empty", "fifo", "loop1", "loop2", "text", "cut.so" };
	char p[PATH_MAX + 16];
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", sysroot, names[i]);
		unlink(p);
	}
	snprintf(p, sizeof p, "%s/dir", sysroot);
	rmdir(p);
	rmdir(sysroot);
}

static void write_file(const char *name, const void *data, size_t n)
{
	char p[PATH_MAX + 16];
	snprintf(p, sizeof p, "%s/%s", sysroot, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (n && write(fd, data, n) < 0)
			perror(p);
		close(fd);
	}
}

/* The fake sysroot, the memory files of the core and the shell's commands, standard output
 * on /dev/null; once per process. */
static int setup(void)
{
	if (core_fd >= 0)
		return 0;
	const char *tmp = getenv("TMPDIR");
	snprintf(sysroot, sizeof sysroot, "%s/cst-fuzz-cli.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(sysroot))
		return -1;
	atexit(remove_sysroot);
	char p[PATH_MAX + 16], q[PATH_MAX + 16];
	write_file("empty", "", 0);
	write_file("text", "root:x:0:0:root:/root:/bin/sh\n", 30);
	uint8_t head[1000];
	int self = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	ssize_t n = self >= 0 ? read(self, head, sizeof head) : -1;
	if (self >= 0)
		close(self);
	write_file("cut.so", head, n > 0 ? (size_t)n : 0);
	snprintf(p, sizeof p, "%s/fifo", sysroot);
	mkfifo(p, 0600);
	snprintf(p, sizeof p, "%s/loop1", sysroot);
	snprintf(q, sizeof q, "%s/loop2", sysroot);
	if (symlink("loop2", p) < 0 || symlink("loop1", q) < 0)
		perror("symlink");
	snprintf(p, sizeof p, "%s/dir", sysroot);
	mkdir(p, 0700);

	/* no history file, no debuginfod, a debug-file cache of the run's own */
	setenv("CORESTACK_HISTORY", "", 1);
	unsetenv("DEBUGINFOD_URLS");
	cst_fuzz_private_debug_cache();
	static const char script[] = "bt\ninfo sharedlibrary\nframe 1\ninfo frame\ndisassemble\n"
				     "thread apply all bt\nx/4gx $sp\n";
	script_fd = memfd_create("cst-fuzz-script", MFD_CLOEXEC);
	if (script_fd < 0 || write(script_fd, script, sizeof script - 1) < 0)
		return -1;
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null < 0 || dup2(null, 1) < 0)
		return -1;
	close(null);
	core_fd = memfd_create("cst-fuzz-cli", MFD_CLOEXEC);
	return core_fd < 0 ? -1 : 0;
}

/* Byte order of the core being rewritten. */
static int big_endian;

static uint64_t get(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[big_endian ? n - 1 - i : i] << (8 * i);
	return v;
}

static void put(uint8_t *p, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++)
		p[big_endian ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/* Appends N bytes to the growing buffer *B (*LEN bytes used, *CAP allocated). */
static int append(uint8_t **b, size_t *len, size_t *cap, const void *data, size_t n)
{
	if (*len + n > *cap) {
		size_t c = (*len + n) * 2;
		uint8_t *nb = realloc(*b, c);
		if (!nb)
			return -1;
		*b = nb;
		*cap = c;
	}
	if (data)
		memcpy(*b + *len, data, n);
	else
		memset(*b + *len, 0, n);
	*len += n;
	return 0;
}

#define ALIGN4(n) (((n) + 3) & ~(size_t)3)

/* Rewrites the core at DATA (SIZE bytes) into *OUT (malloc'd, *OUTLEN bytes): its PT_NOTE
 * notes are copied to the end of the file with every NT_FILE note changed, and the PT_NOTE
 * program header points at the copy.  DROP: the NT_FILE note's n_type becomes 0x7777.  Else
 * entry I of NT_FILE names hostile file (I + SHIFT) % NHOSTILE, under PREFIX.  Returns -1
 * when the input is no ELF64 file with a PT_NOTE inside it (then it runs unchanged). */
static int rewrite(const uint8_t *data, size_t size, bool drop, unsigned shift, const char *prefix,
		   uint8_t **out, size_t *outlen)
{
	if (size < ELF64_EHDR_SIZE || memcmp(data, "\177ELF", 4) != 0 || data[4] != 2)
		return -1;
	big_endian = data[5] == 2;
	uint64_t phoff = get(data + 32, 8);
	unsigned phentsize = (unsigned)get(data + 54, 2), phnum = (unsigned)get(data + 56, 2);
	if (phentsize < ELF64_PHDR_SIZE || phoff > size || phnum > (size - phoff) / phentsize)
		return -1;
	size_t ph = 0;
	uint64_t noff = 0, nsz = 0;
	for (unsigned i = 0; i < phnum && !ph; i++) {
		const uint8_t *h = data + phoff + (uint64_t)i * phentsize;
		noff = get(h + 8, 8);
		nsz = get(h + 32, 8);
		if (get(h, 4) == 4 /* PT_NOTE */ && noff <= size && nsz <= size - noff)
			ph = phoff + (size_t)i * phentsize;
	}
	if (!ph)
		return -1;
	size_t len = 0, cap = 0;
	uint8_t *b = NULL;
	if (append(&b, &len, &cap, data, size) < 0 || append(&b, &len, &cap, NULL, ALIGN4(len) - len) < 0)
		goto fail;
	size_t start = len;
	const uint8_t *p = data + noff, *end = data + noff + nsz;
	while (end - p >= 12) {
		uint64_t namesz = get(p, 4), descsz = get(p + 4, 4), type = get(p + 8, 4);
		size_t total = 12 + ALIGN4(namesz) + ALIGN4(descsz);
		if (namesz > (size_t)(end - p) || descsz > (size_t)(end - p) || total > (size_t)(end - p))
			break;
		const uint8_t *desc = p + 12 + ALIGN4(namesz);
		size_t at = len;
		if (type != NT_FILE_TYPE || descsz < 16) {
			if (append(&b, &len, &cap, p, total) < 0)
				goto fail;
		} else if (drop) {
			if (append(&b, &len, &cap, p, total) < 0)
				goto fail;
			put(b + at + 8, 4, 0x7777);
		} else {
			/* header and name as they were; desc rebuilt: count, page size, the entries
			 * the desc holds, then the new names */
			uint64_t count = get(desc, 8);
			if (count > (descsz - 16) / 24)
				count = (descsz - 16) / 24;
			if (append(&b, &len, &cap, p, 12 + ALIGN4(namesz)) < 0 ||
			    append(&b, &len, &cap, desc, 16 + count * 24) < 0)
				goto fail;
			for (uint64_t i = 0; i < count; i++) {
				char name[PATH_MAX + 64];
				int k = snprintf(name, sizeof name, "%s%s", prefix, hostile[(i + shift) % NHOSTILE]);
				if (append(&b, &len, &cap, name, (size_t)k + 1) < 0)
					goto fail;
			}
			size_t dlen = len - (at + 12 + ALIGN4(namesz));
			put(b + at + 4, 4, dlen);
			if (append(&b, &len, &cap, NULL, ALIGN4(len) - len) < 0)
				goto fail;
		}
		p += total;
	}
	put(b + ph + 8, 8, start);
	put(b + ph + 32, 8, len - start);
	*out = b;
	*outlen = len;
	return 0;
fail:
	free(b);
	return -1;
}

/* Runs corestack ARGS... on the core bytes DATA (SIZE) given by a memory file's path; with
 * SHELL, the shell's commands on standard input. */
static void run(const uint8_t *data, size_t size, bool shell, const char *a1, const char *a2, const char *a3)
{
	if (ftruncate(core_fd, 0) < 0 || (size && pwrite(core_fd, data, size, 0) != (ssize_t)size))
		return;
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", core_fd);
	char *argv[8];
	int argc = 0;
	argv[argc++] = "corestack";
	const char *a[] = { a1, a2, a3 };
	for (int i = 0; i < 3; i++)
		if (a[i])
			argv[argc++] = (char *)a[i];
	argv[argc++] = path;
	argv[argc] = NULL;
	if (shell) {
		if (dup2(script_fd, 0) < 0)
			return;
		clearerr(stdin);
		fseek(stdin, 0, SEEK_SET);
	}
	optind = 0;                     /* getopt starts over */
	cst_cli_main(argc, argv);
	fflush(stdout);
	fflush(stderr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (setup() < 0)
		abort();
	unsigned pick = size ? data[size - 1] : 0;
	uint8_t *named = NULL, *dropped = NULL;
	size_t named_len = 0, dropped_len = 0;
	if (rewrite(data, size, false, pick, "", &named, &named_len) < 0) {
		run(data, size, false, NULL, NULL, NULL);
		return 0;
	}
	run(named, named_len, false, "--sysroot", sysroot, NULL);
	if (rewrite(data, size, true, 0, "", &dropped, &dropped_len) == 0)
		run(dropped, dropped_len, false, "--json", NULL, NULL);
	free(dropped);
	char cut[PATH_MAX + 16];
	snprintf(cut, sizeof cut, "%s/cut.so", sysroot);
	switch (pick % 5) {
	case 0: {
		uint8_t *abs = NULL;
		size_t abs_len = 0;
		if (rewrite(data, size, false, pick / 5, sysroot, &abs, &abs_len) == 0)
			run(abs, abs_len, false, NULL, NULL, NULL);
		free(abs);
		break;
	}
	case 1: run(named, named_len, false, "--json-lines", "--sysroot", sysroot); break;
	case 2: run(data, size, false, "--signature", NULL, NULL); break;
	case 3: run(data, size, false, "-e", cut, "--json"); break;
	case 4: run(named, named_len, true, "-i", "--sysroot", sysroot); break;
	}
	free(named);
	return 0;
}

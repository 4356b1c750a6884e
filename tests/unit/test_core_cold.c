/* The reads of a core the page cache does not hold (common/target/core.c): a copy of the
 * suite's four-thread core (tests/progs/threads.c, made by tests/run.sh in
 * $CORESTACK_TEST_CORES) is walked with its pages in the page cache, then again after they
 * were dropped from it (fsync, POSIX_FADV_DONTNEED, checked with mincore).  The cold walk
 * prints every thread as the warm one does, and it asked the kernel for the stacks of the
 * threads after the first (each once); the warm walk asked for none.
 * Usage: test_core_cold [DIR] (where the copy goes: $BUILD/tests/unit; default /tmp), from
 * the repository's top folder.  Without the suite's core, one is made of DIR/../threads-fp
 * with tests/lib/mkcore.py.  Skips, saying why, when the file system does not read without
 * waiting (RWF_NOWAIT), or when the page cache kept pages of the copy. */
#include "backtrace.h"
#include "core.h"
#include "process.h"
#include "threads_core.h"
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static char copy[4200];

/* Copies FROM to COPY and syncs it: its pages are clean, which POSIX_FADV_DONTNEED drops. */
static bool copy_core(const char *from)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1;
	bool ok = in >= 0 && (out = open(copy, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) >= 0;
	char buf[1 << 16];
	ssize_t n = 0;
	while (ok && (n = read(in, buf, sizeof buf)) > 0)
		ok = write(out, buf, (size_t)n) == n;
	ok = ok && n == 0 && fsync(out) == 0;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) != 0)
		ok = false;
	return ok;
}

/* Pages of PATH in the page cache (mincore on a mapping of it), -1 when it cannot tell. */
static long resident_pages(const char *path, long *total)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size == 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	long page = sysconf(_SC_PAGESIZE);
	size_t n = ((size_t)st.st_size + (size_t)page - 1) / (size_t)page;
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	unsigned char *vec = malloc(n);
	long in = -1;
	if (map != MAP_FAILED && vec && mincore(map, (size_t)st.st_size, vec) == 0) {
		in = 0;
		for (size_t i = 0; i < n; i++)
			in += vec[i] & 1;
	}
	free(vec);
	if (map != MAP_FAILED)
		munmap(map, (size_t)st.st_size);
	*total = (long)n;
	return in;
}

/* Drops PATH's pages from the page cache; NULL when none is left, else why not. */
static const char *evict(const char *path)
{
	static char why[128];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fdatasync(fd) != 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0) {
		snprintf(why, sizeof why, "cannot drop the copy from the page cache: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return why;
	}
	close(fd);
	long total = 0, in = resident_pages(path, &total);
	if (in == 0)
		return NULL;
	snprintf(why, sizeof why, in < 0 ? "mincore cannot tell which pages of the copy are cached" :
		 "the page cache kept %ld of the copy's %ld pages", in, total);
	return why;
}

/* Whether the file system reads PATH without waiting (RWF_NOWAIT). */
static bool reads_nowait(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char b;
	struct iovec iov = { .iov_base = &b, .iov_len = 1 };
	bool ok = fd >= 0 && (preadv2(fd, &iov, 1, 0, RWF_NOWAIT) >= 0 || errno == EAGAIN);
	if (fd >= 0)
		close(fd);
	return ok;
}

/* Prints every thread of P as the CLI's text does into a string the caller frees. */
static char *walk_all(struct cst_process *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct bt_thread bt = { 0 };
	struct bt_options bo = { 0 };
	for (size_t i = 0; out && i < cst_process_nthreads(p); i++) {
		struct cst_process_thread t;
		cst_process_thread(p, i, &t);
		bt.tid = t.tid;
		bt.crashed = t.crashed;
		bt.cursig = t.cursig;
		if (bt_walk(cst_process_env(p), t.regs, 0, &bt) == 0)
			bt_print_thread_text(out, &bt, &bo);
	}
	bt_thread_free(&bt);
	if (out)
		fclose(out);
	return text;
}

static struct cst_process *open_copy(void)
{
	struct cst_process *p = NULL;
	char err[256];
	if (cst_process_open_core(&p, copy, NULL, err, sizeof err) < 0) {
		printf("FAIL core_cold: cannot open %s: %s\n", copy, err);
		exit(1);
	}
	return p;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	char from[4200], made[4200];
	if (!threads_core(dir, "core_cold", from, sizeof from, made, sizeof made))
		return 1;
	snprintf(copy, sizeof copy, "%s/core-cold.%d.core", dir, (int)getpid());
	bool copied = copy_core(from);
	if (made[0])
		unlink(made);
	if (!copied) {
		printf("FAIL core_cold: cannot copy %s to %s\n", from, copy);
		unlink(copy);
		return 1;
	}
	if (!reads_nowait(copy)) {
		printf("SKIP core_cold: the file system of %s does not read without waiting (RWF_NOWAIT)\n",
		       copy);
		unlink(copy);
		return 0;
	}

	/* warm: just written, every page cached */
	struct cst_process *p = open_copy();
	struct cst_core *c = cst_process_core(p);
	long total = 0;
	char *warm = NULL;
	if (resident_pages(copy, &total) == total) {
		warm = walk_all(p);
		unit_begin("core_warm_no_prefetch");
		unit_expect(warm && *warm, "the warm walk printed nothing");
		unit_expect(!cst_core_cold(c), "a read of the cached core was taken for a cold one");
		EXPECT_EQ(cst_core_prefetched(c), 0, "threads prefetched");
		unit_end();
	} else {
		printf("SKIP core_cold_same_output: the page cache did not keep the copy just written\n");
	}
	cst_process_close(p);

	/* cold: the core is opened, then its pages are dropped, so that the walks read each
	 * stack from the disk */
	p = open_copy();
	c = cst_process_core(p);
	const char *why = evict(copy);
	if (why) {
		printf("SKIP core_cold: %s\n", why);
		cst_process_close(p);
		free(warm);
		unlink(copy);
		return unit_exit();
	}
	size_t n = cst_process_nthreads(p);
	char *cold = walk_all(p);
	unit_begin("core_cold_prefetch");
	unit_expect(n == 4, "%zu threads, the threads program has 4", n);
	unit_expect(cst_core_cold(c), "no read of the evicted core was taken for a cold one");
	size_t advised = cst_core_prefetched(c);
	/* the first walk finds the core cold; the stacks of the threads after it are asked for */
	unit_expect(advised >= 1 && advised <= n - 1, "%zu threads prefetched of %zu", advised, n);
	for (size_t i = 0; i < n; i++)
		cst_core_thread(c, i);
	EXPECT_EQ(cst_core_prefetched(c), advised, "threads prefetched after a second pass (each once)");
	unit_end();
	if (warm) {
		unit_begin("core_cold_same_output");
		unit_expect(cold && strcmp(cold, warm) == 0, "the cold walk printed\n%s\nthe warm one\n%s",
			    cold ? cold : "(nothing)", warm);
		unit_end();
	}
	cst_process_close(p);
	free(warm);
	free(cold);
	unlink(copy);
	return unit_exit();
}

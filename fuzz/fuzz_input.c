/* Helpers shared by the fuzz harnesses.  See fuzz_input.h. */
#include "fuzz_input.h"
#include "core.h"
#include "debugcache.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int memfile(const uint8_t *data, size_t size, char *path, size_t len)
{
	static int fd = -1;
	if (fd < 0) {
		fd = memfd_create("cst-fuzz", MFD_CLOEXEC);
		if (fd < 0)
			return -1;
	}
	if (ftruncate(fd, 0) < 0 || ftruncate(fd, (off_t)size) < 0)
		return -1;
	size_t done = 0;
	while (done < size) {
		ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return 0;
}

struct cst_core *cst_fuzz_open_core(const uint8_t *data, size_t size)
{
	char path[64], err[256];
	struct cst_core *c;
	if (memfile(data, size, path, sizeof path) < 0 || cst_core_open(path, NULL, &c, err, sizeof err) < 0)
		return NULL;
	return c;
}

static uint64_t take(struct cst_fuzz_in *in, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t b = in->left ? (in->left--, *in->p++) : 0;
		v |= b << (8 * i);
	}
	return v;
}

uint64_t cst_fuzz_u64(struct cst_fuzz_in *in) { return take(in, 8); }
unsigned cst_fuzz_u16(struct cst_fuzz_in *in) { return (unsigned)take(in, 2); }
unsigned cst_fuzz_u8(struct cst_fuzz_in *in) { return (unsigned)take(in, 1); }

static char cache_dir[PATH_MAX];

/* The entries of the private cache directory (plain files: the cache makes no
 * subdirectories in a directory it is given), then the directory. */
static void remove_cache_dir(void)
{
	DIR *d = opendir(cache_dir);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)) != NULL)
			if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
				unlinkat(dirfd(d), de->d_name, 0);
		closedir(d);
	}
	rmdir(cache_dir);
}

int cst_fuzz_private_debug_cache(void)
{
	static int rc = 1;
	if (rc <= 0)
		return rc;
	const char *tmp = getenv("TMPDIR");
	snprintf(cache_dir, sizeof cache_dir, "%s/cst-fuzz-cache.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(cache_dir) || cst_debugcache_set_dir(cache_dir) < 0) {
		cst_debugcache_disable();
		return rc = -1;
	}
	atexit(remove_cache_dir);
	return rc = 0;
}

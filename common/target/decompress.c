/* Compressed and piped cores, streamed into an unlinked temporary file.  See decompress.h. */
#include "decompress.h"
#include "error.h"
#include "openfile.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <lz4frame.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define CHUNK (1u << 20)             /* bytes read or written at a time */
#define XZ_MEMLIMIT (512ull << 20)   /* liblzma's decoder memory bound, bytes */

enum cst_compression cst_compression_detect(const uint8_t *b, size_t n)
{
	static const uint8_t zstd[] = { 0x28, 0xb5, 0x2f, 0xfd };
	static const uint8_t xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0x00 };
	static const uint8_t lz4[] = { 0x04, 0x22, 0x4d, 0x18 };
	if (n >= sizeof zstd && memcmp(b, zstd, sizeof zstd) == 0)
		return CST_COMP_ZSTD;
	if (n >= sizeof xz && memcmp(b, xz, sizeof xz) == 0)
		return CST_COMP_XZ;
	if (n >= sizeof lz4 && memcmp(b, lz4, sizeof lz4) == 0)
		return CST_COMP_LZ4;
	return CST_COMP_NONE;
}

const char *cst_compression_name(enum cst_compression c)
{
	switch (c) {
	case CST_COMP_ZSTD: return "zstd";
	case CST_COMP_XZ: return "xz";
	case CST_COMP_LZ4: return "lz4";
	default: return "none";
	}
}

/* The input, read in chunks. */
struct source {
	int fd;
	uint8_t *buf;
	size_t len, pos;         /* bytes in BUF, bytes of them consumed */
	bool eof;
};

/* Reads the next chunk when the current one is consumed.  Returns 1 when bytes are
 * available, 0 at the end of the input, or -CST_E_IO. */
static int source_more(struct source *s, char *err, size_t errlen)
{
	if (s->pos < s->len)
		return 1;
	if (s->eof)
		return 0;
	ssize_t n;
	do
		n = read(s->fd, s->buf, CHUNK);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return cst_fail(err, errlen, -CST_E_IO, "read error: %s", strerror(errno));
	s->len = (size_t)n;
	s->pos = 0;
	s->eof = n == 0;
	return n > 0;
}

/* The temporary file the uncompressed core goes to. */
struct sink {
	int fd;
	const char *dir;
	const char *what;        /* "standard input", "the zstd stream", ...: for messages */
	uint64_t written, max;   /* bytes */
	uint8_t head[SELFMAG];   /* the first bytes written, checked for the ELF magic */
};

/* Everything that is not an ELF file is refused at its first bytes, before a copy of it
 * fills the temporary directory (a pipe of zeros is as long as its writer wants). */
static int sink_check_magic(struct sink *k, const uint8_t *p, size_t n, char *err, size_t errlen)
{
	size_t have = k->written < SELFMAG ? (size_t)k->written : SELFMAG;
	size_t take = SELFMAG - have < n ? SELFMAG - have : n;
	memcpy(k->head + have, p, take);
	have += take;
	if (memcmp(k->head, ELFMAG, have) == 0)
		return 0;
	char shown[3 * SELFMAG + 1] = "";
	size_t at = 0;
	for (size_t i = 0; i < have; i++)
		at += (size_t)snprintf(shown + at, sizeof shown - at, "%s%02x", i ? " " : "", k->head[i]);
	return cst_fail(err, errlen, -CST_E_NOT_ELF,
			"not an ELF file: %s begins with %s, neither the ELF magic 7f 45 4c 46 nor a "
			"zstd, xz or lz4 magic", k->what, shown);
}

static int sink_write(struct sink *k, const uint8_t *p, size_t n, char *err, size_t errlen)
{
	if (k->written < SELFMAG && n > 0) {
		int rc = sink_check_magic(k, p, n, err, errlen);
		if (rc < 0)
			return rc;
	}
	if (n > k->max - k->written)
		return cst_fail(err, errlen, -CST_E_LIMIT,
				"the uncompressed core is larger than the size bound of %llu bytes",
				(unsigned long long)k->max);
	k->written += n;
	ssize_t w = cst_write_all(k->fd, p, n);
	if (w != (ssize_t)n)
		return cst_fail(err, errlen, -CST_E_IO, "cannot write the uncompressed core to %s: %s",
				k->dir, w < 0 ? strerror(errno) : "short write");
	return 0;
}

/* An unlinked file in DIR, opened read-write.  Returns its descriptor or -CST_E_IO. */
static int temp_file(const char *dir, char *err, size_t errlen)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	char path[4096];
	snprintf(path, sizeof path, "%s/corestack-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return cst_fail(err, errlen, -CST_E_IO, "cannot create a temporary file in %s: %s", dir,
				strerror(errno));
	unlink(path);
	return fd;
}

static int copy_plain(struct source *in, struct sink *out, uint8_t *obuf, char *err, size_t errlen)
{
	int rc;
	while ((rc = source_more(in, err, errlen)) > 0) {
		if ((rc = sink_write(out, in->buf + in->pos, in->len - in->pos, err, errlen)) < 0)
			return rc;
		in->pos = in->len;
	}
	return rc;
}

static int inflate_zstd(struct source *in, struct sink *out, uint8_t *obuf, char *err, size_t errlen)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	if (!z)
		return cst_fail(err, errlen, -CST_E_NOMEM, "out of memory");
	size_t hint = 1;                 /* 0 once a frame is complete */
	int rc;
	while ((rc = source_more(in, err, errlen)) > 0) {
		ZSTD_inBuffer ib = { in->buf, in->len, in->pos };
		ZSTD_outBuffer ob;
		do {
			ob = (ZSTD_outBuffer){ obuf, CHUNK, 0 };
			hint = ZSTD_decompressStream(z, &ob, &ib);
			if (ZSTD_isError(hint)) {
				rc = cst_fail(err, errlen, -CST_E_CORRUPT, "corrupt zstd data: %s",
					      ZSTD_getErrorName(hint));
				goto out;
			}
			if ((rc = sink_write(out, obuf, ob.pos, err, errlen)) < 0)
				goto out;
		} while (ib.pos < ib.size || ob.pos == ob.size);
		in->pos = ib.pos;
	}
	if (rc == 0 && hint != 0)
		rc = cst_fail(err, errlen, -CST_E_TRUNCATED, "truncated zstd stream (it ends inside a frame)");
out:
	ZSTD_freeDStream(z);
	return rc;
}

static int inflate_xz(struct source *in, struct sink *out, uint8_t *obuf, char *err, size_t errlen)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret r = lzma_stream_decoder(&s, XZ_MEMLIMIT, LZMA_CONCATENATED);
	if (r != LZMA_OK)
		return cst_fail(err, errlen, -CST_E_NOMEM, "cannot start the xz decoder (error %d)", (int)r);
	lzma_action action = LZMA_RUN;
	int rc = 0;
	s.next_in = in->buf + in->pos;      /* the bytes already read */
	s.avail_in = in->len - in->pos;
	for (;;) {
		if (s.avail_in == 0 && action == LZMA_RUN) {
			in->pos = in->len;
			if ((rc = source_more(in, err, errlen)) < 0)
				break;
			if (rc == 0)
				action = LZMA_FINISH;
			s.next_in = in->buf + in->pos;
			s.avail_in = in->len - in->pos;
		}
		s.next_out = obuf;
		s.avail_out = CHUNK;
		r = lzma_code(&s, action);
		if ((rc = sink_write(out, obuf, CHUNK - s.avail_out, err, errlen)) < 0)
			break;
		if (r == LZMA_OK)
			continue;
		if (r == LZMA_STREAM_END)
			rc = 0;
		else if (r == LZMA_BUF_ERROR)
			rc = cst_fail(err, errlen, -CST_E_TRUNCATED, "truncated xz stream (it ends before its footer)");
		else if (r == LZMA_MEMLIMIT_ERROR)
			rc = cst_fail(err, errlen, -CST_E_LIMIT, "the xz stream needs more than %llu bytes of memory",
				      (unsigned long long)XZ_MEMLIMIT);
		else if (r == LZMA_MEM_ERROR)
			rc = cst_fail(err, errlen, -CST_E_NOMEM, "out of memory");
		else
			rc = cst_fail(err, errlen, -CST_E_CORRUPT, "corrupt xz data (%s)",
				      r == LZMA_FORMAT_ERROR ? "bad header" : r == LZMA_OPTIONS_ERROR ?
				      "unsupported options" : "damaged block or check mismatch");
		break;
	}
	lzma_end(&s);
	return rc;
}

static int inflate_lz4(struct source *in, struct sink *out, uint8_t *obuf, char *err, size_t errlen)
{
	LZ4F_dctx *d;
	if (LZ4F_isError(LZ4F_createDecompressionContext(&d, LZ4F_VERSION)))
		return cst_fail(err, errlen, -CST_E_NOMEM, "out of memory");
	size_t hint = 1;                 /* 0 once a frame is complete */
	int rc;
	while ((rc = source_more(in, err, errlen)) > 0) {
		size_t srcsz, dstsz;
		do {
			srcsz = in->len - in->pos;
			dstsz = CHUNK;
			hint = LZ4F_decompress(d, obuf, &dstsz, in->buf + in->pos, &srcsz, NULL);
			if (LZ4F_isError(hint)) {
				rc = cst_fail(err, errlen, -CST_E_CORRUPT, "corrupt lz4 data: %s",
					      LZ4F_getErrorName(hint));
				goto out;
			}
			if (srcsz == 0 && dstsz == 0 && in->pos < in->len) {   /* no progress: never loop */
				rc = cst_fail(err, errlen, -CST_E_CORRUPT, "corrupt lz4 data: the decoder is stuck");
				goto out;
			}
			in->pos += srcsz;
			if ((rc = sink_write(out, obuf, dstsz, err, errlen)) < 0)
				goto out;
		} while (in->pos < in->len || dstsz == CHUNK);
	}
	if (rc == 0 && hint != 0)
		rc = cst_fail(err, errlen, -CST_E_TRUNCATED, "truncated lz4 stream (it ends inside a frame)");
out:
	LZ4F_freeDecompressionContext(d);
	return rc;
}

static int open_path(const char *path, bool *is_stdin, char *err, size_t errlen)
{
	*is_stdin = strcmp(path, "-") == 0;
	if (*is_stdin) {
		if (isatty(0))
			return cst_fail(err, errlen, -CST_E_IO, "standard input is a terminal, not a core");
		int fd = fcntl(0, F_DUPFD_CLOEXEC, 3);
		return fd >= 0 ? fd : cst_fail(err, errlen, -CST_E_IO, "%s", strerror(errno));
	}
	struct stat st;
	return cst_open_regular(path, 0, &st, err, errlen);
}

int cst_input_open(const char *path, const struct cst_input_options *opt, int *fdp,
		   enum cst_compression *how, char *err, size_t errlen)
{
	bool is_stdin;
	int fd = open_path(path, &is_stdin, err, errlen);
	if (fd < 0)
		return fd;
	/* A regular file read from its start: its first bytes are read where they lie, and a
	 * plain core goes to the core reader as it is, with no buffer filled for it. */
	struct stat st;
	uint8_t magic[8];
	ssize_t nmagic;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && lseek(fd, 0, SEEK_CUR) == 0 &&
	    (nmagic = pread(fd, magic, sizeof magic, 0)) >= 0 &&
	    cst_compression_detect(magic, (size_t)nmagic) == CST_COMP_NONE) {
		if (how)
			*how = CST_COMP_NONE;
		*fdp = fd;
		return 0;
	}
	struct source in = { .fd = fd, .buf = malloc(CHUNK) };
	uint8_t *obuf = malloc(CHUNK);
	int rc = 0, tmp = -1;
	if (!in.buf || !obuf) {
		rc = cst_fail(err, errlen, -CST_E_NOMEM, "out of memory");
		goto out;
	}
	/* The first bytes decide; a pipe may deliver them in pieces. */
	while (in.len < 8 && !in.eof) {
		ssize_t n = read(fd, in.buf + in.len, CHUNK - in.len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = cst_fail(err, errlen, -CST_E_IO, "read error: %s", strerror(errno));
			goto out;
		}
		in.len += (size_t)n;
		in.eof = n == 0;
	}
	enum cst_compression c = cst_compression_detect(in.buf, in.len);
	if (how)
		*how = c;
	if (c == CST_COMP_NONE && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && lseek(fd, 0, SEEK_CUR) >= 0) {
		*fdp = fd;               /* a plain file: the core reader maps it from offset 0 */
		fd = -1;
		goto out;
	}
	struct sink out = { .max = opt && opt->max_size ? opt->max_size : CST_INPUT_MAX_DEFAULT };
	out.what = c != CST_COMP_NONE ? "the decompressed core" : is_stdin ? "standard input" : "the input";
	out.dir = opt && opt->tmpdir ? opt->tmpdir : getenv("TMPDIR");
	if (!out.dir || !*out.dir)
		out.dir = "/var/tmp";
	if ((tmp = out.fd = temp_file(out.dir, err, errlen)) < 0) {
		rc = tmp;
		goto out;
	}
	switch (c) {
	case CST_COMP_ZSTD: rc = inflate_zstd(&in, &out, obuf, err, errlen); break;
	case CST_COMP_XZ: rc = inflate_xz(&in, &out, obuf, err, errlen); break;
	case CST_COMP_LZ4: rc = inflate_lz4(&in, &out, obuf, err, errlen); break;
	default: rc = copy_plain(&in, &out, obuf, err, errlen); break;
	}
	if (rc >= 0) {
		rc = 0;
		*fdp = tmp;
		tmp = -1;
	}
out:
	if (tmp >= 0)
		close(tmp);
	if (fd >= 0)
		close(fd);
	free(in.buf);
	free(obuf);
	return rc;
}

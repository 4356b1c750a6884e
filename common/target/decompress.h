/* The input file of a core: a plain ELF core, a core compressed with zstd, xz or lz4 (as
 * systemd-coredump stores them), or either of them on standard input.
 *
 * A compressed core is never held in memory: it is decompressed chunk by chunk into an
 * unlinked temporary file, which the core reader then maps like any core.  Standard input
 * that is not a regular file (a pipe from `coredumpctl dump`) is copied the same way. */
#ifndef CST_DECOMPRESS_H
#define CST_DECOMPRESS_H

#include <stddef.h>
#include <stdint.h>

enum cst_compression { CST_COMP_NONE, CST_COMP_ZSTD, CST_COMP_XZ, CST_COMP_LZ4 };

/* Default bound on the size of a decompressed (or copied) core, in bytes: 64 GiB. */
#define CST_INPUT_MAX_DEFAULT (64ull << 30)

struct cst_input_options {
	const char *tmpdir;      /* directory of the temporary copy; NULL: $TMPDIR, else /var/tmp */
	uint64_t max_size;       /* bytes the decompressed core may have at most; 0: the default */
};

/* The compression format whose magic number starts BUF (LEN bytes), else CST_COMP_NONE.
 * Magic numbers: zstd 28 b5 2f fd (RFC 8878, 3.1.1), xz fd 37 7a 58 5a 00 (The .xz File
 * Format 1.1.0, 2.1.1.1), lz4 frame 04 22 4d 18 (LZ4 Frame Format Description 1.6.x,
 * "General Structure"). */
enum cst_compression cst_compression_detect(const uint8_t *buf, size_t len);

/* "zstd", "xz", "lz4" or "none". */
const char *cst_compression_name(enum cst_compression c);

/* Opens core PATH ("-": standard input) and returns in *FD a descriptor of a regular file
 * holding the uncompressed core (PATH itself when it is a plain regular file, else an
 * unlinked temporary file); *HOW (when not NULL) receives the compression found.  The
 * caller closes *FD.  On failure returns a negative code with a one-line reason (without
 * the file name) in ERR (ERRLEN bytes):
 *   -CST_E_NOENT / -CST_E_PERM / -CST_E_IO   cannot open or read the input, or cannot
 *                                          create or write the temporary file
 *   -CST_E_TRUNCATED                       the compressed stream ends before its end mark
 *   -CST_E_CORRUPT                         the compressed data are damaged
 *   -CST_E_LIMIT                           the core is bigger than the size bound
 *   -CST_E_NOMEM
 * A name ending in .zst, .xz or .lz4 whose content has no such magic is read as it is
 * (the content decides, not the name). */
int cst_input_open(const char *path, const struct cst_input_options *opt, int *fd,
		   enum cst_compression *how, char *err, size_t errlen);

#endif

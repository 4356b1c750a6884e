/* Helpers shared by the fuzz harnesses: fuzz input as a file, and a bounded reader of the
 * input's fields. */
#ifndef CST_FUZZ_INPUT_H
#define CST_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

/* The harness entry point (libFuzzer's name), called by libFuzzer or by fuzz/replay.c. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Replaces the contents of a process-wide memory file (memfd_create, created on first use)
 * with the SIZE bytes at DATA and stores a path that opens it ("/proc/self/fd/N") in PATH
 * (LEN bytes).  Returns 0, or -1 when the file cannot be created or written. */
int cst_fuzz_memfile(const uint8_t *data, size_t size, char *path, size_t len);

/* A cursor over the fuzz input: fields are taken in order; past the end they read as 0. */
struct cst_fuzz_in {
	const uint8_t *p;
	size_t left;           /* bytes */
};

uint64_t cst_fuzz_u64(struct cst_fuzz_in *in);   /* little-endian, 8 bytes */
unsigned cst_fuzz_u16(struct cst_fuzz_in *in);   /* little-endian, 2 bytes */
unsigned cst_fuzz_u8(struct cst_fuzz_in *in);

#endif

/* Helpers shared by the fuzz harnesses: fuzz input as a file, and a bounded reader of the
 * input's fields. */
#ifndef CST_FUZZ_INPUT_H
#define CST_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

/* The harness entry point (libFuzzer's name), called by libFuzzer or by fuzz/replay.c. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Opens the SIZE bytes at DATA as a core file, by path through cst_core_open as the CLI
 * opens one: they replace the contents of a process-wide memory file (memfd_create, made on
 * first use), opened as "/proc/self/fd/N".  Returns the core, or NULL when the memory file
 * cannot be written or cst_core_open refuses the input. */
struct cst_core;
struct cst_core *cst_fuzz_open_core(const uint8_t *data, size_t size);

/* Points the cache of decompressed debug files (common/symbols/debugcache.h) at a private
 * directory, made on the first call under $TMPDIR (else /tmp) and removed with its entries
 * at exit: a run neither reads nor fills the user's cache, nor another run's.  Within the
 * process the entries stay: an input whose module has a compressed separate debug file (a
 * system file found by build-id) stores it, later inputs naming that module read the entry.
 * Returns 0, or -1 when the directory cannot be made (then the cache is turned off). */
int cst_fuzz_private_debug_cache(void);

/* A cursor over the fuzz input: fields are taken in order; past the end they read as 0. */
struct cst_fuzz_in {
	const uint8_t *p;
	size_t left;           /* bytes */
};

uint64_t cst_fuzz_u64(struct cst_fuzz_in *in);   /* little-endian, 8 bytes */
unsigned cst_fuzz_u16(struct cst_fuzz_in *in);   /* little-endian, 2 bytes */
unsigned cst_fuzz_u8(struct cst_fuzz_in *in);

#endif

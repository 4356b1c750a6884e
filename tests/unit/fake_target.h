/* An in-memory target for unit tests: a list of (address, bytes) regions in one byte order.
 * A read succeeds only when every byte of it lies in one region (regions are not joined);
 * any other read fails with -CST_E_MEMORY, as a core's unmapped addresses do. */
#ifndef CST_FAKE_TARGET_H
#define CST_FAKE_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "target.h"

struct fake_region {
	uint64_t addr;          /* target virtual address of bytes[0] */
	size_t len;             /* bytes */
	uint8_t *bytes;         /* owned by the fake */
};

#define FAKE_MAX_REGIONS 16

struct fake_target {
	struct cst_target target;       /* what the unwinder reads through */
	struct fake_region region[FAKE_MAX_REGIONS];
	int nregions;
};

/* An empty target of the given byte order. */
void fake_init(struct fake_target *ft, bool big_endian);

/* Adds a region of LEN zero bytes at ADDR and returns its bytes, or NULL when the table is
 * full or memory ran out. */
uint8_t *fake_map(struct fake_target *ft, uint64_t addr, size_t len);

/* Copies LEN bytes to ADDR, which must lie inside one region.  Returns 0 or -1. */
int fake_write(struct fake_target *ft, uint64_t addr, const void *bytes, size_t len);

/* Stores the SIZE-byte (4 or 8) word V at ADDR in the target's byte order.  0 or -1. */
int fake_write_word(struct fake_target *ft, uint64_t addr, unsigned size, uint64_t v);

/* Frees the regions. */
void fake_free(struct fake_target *ft);

#endif

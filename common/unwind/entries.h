/* Function entries guessed in code with neither symbols nor CFI (a stripped program built
 * without unwind tables), shared by the architectures' guess_func hooks (arch.h).
 *
 * The executable PT_LOAD segment of a module is decoded once, from its first byte to its
 * last, and its entries are kept, sorted, for the unwind environment's life (one table per
 * segment).  The entries are the targets of calls and the code addresses taken (an
 * architecture may add the segment's start); then, until nothing changes, the targets of
 * direct jumps that leave the function holding the jump (tail calls to functions never
 * called directly).  A function ends at the next entry.  The architecture's part is a hook
 * that decodes one instruction and says what it refers to.
 *
 * It sits in unwind/ beside the decoded-function cache (fncache.h): like it, it knows no
 * instruction set and reads code through the target. */
#ifndef CST_ENTRIES_H
#define CST_ENTRIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cst_unwind;
struct cst_func;

/* What an instruction refers to. */
enum cst_entry_ref {
	CST_REF_NONE,
	CST_REF_ENTRY,          /* a function entry: a call's target, a code address taken */
	CST_REF_JUMP,           /* a direct jump's or branch's target */
};

#define CST_ENTRIES_MAX_TABLES 64              /* segments kept */
#define CST_ENTRIES_MAX_SEGMENT_BYTES (64u << 20)
#define CST_ENTRIES_MAX_ROUNDS 16              /* of jumps leaving their function */

struct cst_entries_ops {
	unsigned unit;          /* bytes: instructions are aligned to it (1 or 4); a segment
				 * whose start is not aligned has no entries */
	uint8_t fill;           /* stands for bytes that cannot be read: decodes to nothing
				 * that refers to code (x86-64 int3, SPARC ILLTRAP) */
	bool segment_start;     /* the segment's start is an entry */
	uint64_t max_func_bytes;        /* an address's function starts at most this many
					 * bytes below it (0: no limit) */

	/* Called around the decoding of a segment (may be NULL): BEGIN returns false when
	 * nothing can be decoded. */
	bool (*begin)(void *ctx);
	void (*end)(void *ctx);

	/* Decodes the instruction at target address ADDR from the LEFT bytes at P.  Returns its
	 * size in bytes, or 0 when no instruction decodes there (the next one is tried UNIT
	 * bytes on).  Sets *REF, and *TARGET when *REF is not CST_REF_NONE. */
	size_t (*decode)(void *ctx, const uint8_t *p, size_t left, uint64_t addr,
			 enum cst_entry_ref *ref, uint64_t *target);
};

struct cst_entries;

/* Bounds of the function containing target address ADDR in its module's executable
 * segment, from the segment's table (built with OPS and CTX on first use, kept in *CACHE):
 * sets FN's start and end (no name).  Returns 0, or -CST_E_NO_FUNC when no module or
 * segment covers ADDR, the segment is larger than CST_ENTRIES_MAX_SEGMENT_BYTES, more than
 * CST_ENTRIES_MAX_TABLES segments are kept already, or no entry lies below ADDR. */
int cst_entries_func(struct cst_entries **cache, struct cst_unwind *u, const struct cst_entries_ops *ops,
		     void *ctx, uint64_t addr, struct cst_func *fn);

/* Frees every table of a cache. */
void cst_entries_free(struct cst_entries *cache);

#endif

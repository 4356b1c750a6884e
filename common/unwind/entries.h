/* Function entries guessed in code with neither symbols nor CFI (a stripped program built
 * without unwind tables), shared by the architectures' guess_func hooks (arch.h).
 *
 * The executable PT_LOAD segment of a module is decoded once, from its first byte to its
 * last, and its entries are kept, sorted, for the unwind environment's life (one table per
 * segment).  Where entries come from, as a disassembler finds them:
 *   - certain: the targets of calls, the module's .dynsym functions, the ELF entry point
 *     (and, if the architecture says so, the segment's start);
 *   - candidates: code addresses taken by instructions (loaded into a register), words of
 *     the module's data sections that point into the segment (function-pointer tables, as
 *     relocated in the target's memory, so relocations are applied), and prologue shapes
 *     after a transfer or padding.  A candidate that is not an instruction boundary is no
 *     entry.  A candidate both taken (by an instruction or a data word) and prologue-shaped
 *     is an entry, like a certain one.  Any other candidate that a direct jump of the code
 *     around it crosses (a jump from one side of it to the other that no entry separates and
 *     whose target is no entry or candidate: the candidate is a label inside a function,
 *     such as a switch's case in a jump table) is no entry while the jump stays unexplained;
 *   - the cases of switch tables (ops.offset_tables), read from the target: jumps from the
 *     table's load to each case, lying between the certain entries around the load;
 *   - then, round by round, the targets of direct jumps that leave the function holding the
 *     jump (tail calls to functions never called directly), crossed ones excepted; the
 *     candidates these entries separate from the jumps that crossed them are entries too,
 *     and so is a crossed candidate taken by an instruction or a data word that follows a
 *     transfer (and padding), that no direct jump reaches, in a function without an
 *     indirect jump (when the architecture says which jumps are indirect): a label inside a
 *     function whose address is taken is the target of such a jump; the rounds go on until
 *     they add nothing;
 *   - last, code that follows a transfer and padding and that no jump reaches or crosses
 *     (a function whose address was not seen): an entry whose function's bounds are
 *     uncertain (cst_func.uncertain).
 * A function ends at the next entry.  An entry that is not certain and that the code before
 * it runs on into (no transfer or padding between) is said to be fallen into
 * (cst_func.falls_in): its function may be a piece of the one below, which the unwinder
 * never inserts as a lost tail call below a frame of the other (unwind.c).  The
 * architecture's part is a hook that decodes one
 * instruction and says what it refers to.
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
	CST_REF_ENTRY,          /* a function entry: a call's target */
	CST_REF_ADDR,           /* a code address taken (loaded into a register) */
	CST_REF_JUMP,           /* a direct jump's or branch's target */
};

/* What the hook says of one instruction. */
struct cst_entry_insn {
	enum cst_entry_ref ref;
	uint64_t target;        /* when ref is not CST_REF_NONE */
	bool barrier;           /* control does not go on to the next instruction (ret, jmp; on
				 * SPARC said of the delay slot of ret, retl, return, ba) */
	bool padding;           /* fills space between functions (nop, int3) */
	bool prologue;          /* a function's first instruction by its shape, when it
				 * follows a barrier or padding */
	bool indirect_jump;     /* a jump through a register or memory (a jump table's, a
				 * computed goto's), when the ops say indirect_jumps */
	bool register_jump;     /* a jump through a register (a switch's jump to its case),
				 * when the ops say offset_tables */
};

#define CST_ENTRIES_MAX_TABLES 64              /* segments kept */
#define CST_ENTRIES_MAX_SEGMENT_BYTES (64u << 20)
#define CST_ENTRIES_MAX_ROUNDS 16              /* of jumps leaving their function */
#define CST_ENTRIES_TABLE_REACH 32             /* bytes from a table's address to its jump */
#define CST_ENTRIES_MAX_CASES 1024             /* offsets read from one table */

struct cst_entries_ops {
	unsigned unit;          /* bytes: instructions are aligned to it (1 or 4); a segment
				 * whose start is not aligned has no entries */
	uint8_t fill;           /* stands for bytes that cannot be read: decodes to nothing
				 * that refers to code (x86-64 int3, SPARC ILLTRAP) */
	bool segment_start;     /* the segment's start is an entry */
	uint64_t max_func_bytes;        /* an address's function starts at most this many
					 * bytes below it (0: no limit) */
	bool gap_needs_padding;         /* code after a barrier begins a function only after
					 * padding (x86-64 aligns functions; SPARC packs them) */
	bool indirect_jumps;            /* decode says which jumps are indirect */
	bool offset_tables;             /* an address outside the segment taken at most
					 * CST_ENTRIES_TABLE_REACH bytes before an indirect jump
					 * is a switch's table of signed 32-bit offsets from the
					 * table to its cases (gcc, position-independent x86-64) */

	/* Called around the decoding of a segment (may be NULL): BEGIN returns false when
	 * nothing can be decoded. */
	bool (*begin)(void *ctx);
	void (*end)(void *ctx);

	/* Decodes the instruction at target address ADDR from the LEFT bytes at P, the
	 * instructions of the segment coming in address order.  Returns its size in bytes, or 0
	 * when no instruction decodes there (the next one is tried UNIT bytes on).  Fills *OUT
	 * (zeroed by the caller). */
	size_t (*decode)(void *ctx, const uint8_t *p, size_t left, uint64_t addr,
			 struct cst_entry_insn *out);
};

struct cst_entries;

/* Bounds of the function containing target address ADDR in its module's executable
 * segment, from the segment's table (built with OPS and CTX on first use, kept in *CACHE):
 * sets FN's start, end, uncertain, falls_in and module (no name).  Returns 0, or
 * -CST_E_NO_FUNC when no module or segment covers ADDR, the segment is larger than
 * CST_ENTRIES_MAX_SEGMENT_BYTES, more than CST_ENTRIES_MAX_TABLES segments are kept
 * already, or no entry lies below ADDR. */
int cst_entries_func(struct cst_entries **cache, struct cst_unwind *u, const struct cst_entries_ops *ops,
		     void *ctx, uint64_t addr, struct cst_func *fn);

/* Frees every table of a cache. */
void cst_entries_free(struct cst_entries *cache);

#endif

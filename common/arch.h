/* Per-architecture tables.  Each architecture's unwinding rules live in their own file
 * (arch_x86_64.c, ...) and are reached only through this table; a NULL hook means the
 * architecture does not support that step. */
#ifndef CST_ARCH_H
#define CST_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "regs.h"

struct cst_unwind;
struct cst_frame;
struct cst_func;

/* Where the caller's registers are, as a rule row at one pc (like one row of a CFI table):
 * CFA = reg[cfa_reg] + cfa_off; the return address is at CFA + ra_off; the frame-pointer
 * register is unchanged (FP_SAME), saved at CFA + fp_off (FP_SAVED), or unknown. */
enum cst_fp_rule { CST_FP_SAME, CST_FP_SAVED, CST_FP_UNKNOWN };
struct cst_row {
	int cfa_reg;            /* DWARF register number */
	int64_t cfa_off;        /* bytes */
	int64_t ra_off;         /* bytes, from the CFA */
	enum cst_fp_rule fp_rule;
	int64_t fp_off;         /* bytes, from the CFA, when fp_rule == CST_FP_SAVED */
	bool frame_record;      /* the function's frame record is set up: fp = CFA + fp_off */
};

/* A call instruction that ends at a return address. */
struct cst_call_site {
	uint64_t addr;          /* address of the call instruction */
	bool direct;            /* the target is encoded in the instruction */
	uint64_t target;        /* target virtual address, when direct */
};

#define CST_MAX_TAIL_TARGETS 16

struct cst_arch {
	const char *name;       /* "x86_64": the JSON "arch" value */
	int elf_machine;        /* EM_* */
	int elf_class;          /* ELFCLASS64 / ELFCLASS32 */
	bool big_endian;
	unsigned addr_size;     /* bytes in a target address */
	int pc_reg;             /* DWARF number holding the pc (x86-64: 16, the return-address column) */
	int sp_reg;
	int fp_reg;
	int nregs;              /* DWARF registers 0..nregs-1 are unwound */
	const char *const *reg_names;   /* nregs names, for -v and `info frame` */

	/* Fills OUT from an NT_PRSTATUS descriptor of SIZE bytes; stores pr_pid in *TID and
	 * pr_cursig in *CURSIG.  Returns 0 or -CST_E_BAD_NOTE when SIZE is too small. */
	int (*prstatus)(const uint8_t *desc, size_t size, struct cst_regs *out, int *tid, int *cursig);

	/* The rule row at PC inside function FN, found by decoding FN's instructions from its
	 * entry.  Returns 0, -CST_E_NO_FUNC / -CST_E_DECODE when the function cannot be analysed. */
	int (*analyse)(struct cst_unwind *u, const struct cst_func *fn, uint64_t pc, struct cst_row *row);

	/* Decodes the instruction that ends at return address RA (inside FN when FN is not NULL).
	 * Returns 0 with *SITE filled, or -CST_E_DECODE when no call instruction ends at RA. */
	int (*call_before)(struct cst_unwind *u, const struct cst_func *fn, uint64_t ra,
			   struct cst_call_site *site);

	/* Lists the functions FN can tail-jump to (direct jumps to another function's entry).
	 * Stores up to MAX entry addresses in TARGETS and, for each, in JUMPS the address of the
	 * jump.  Returns the count, or a negative code. */
	int (*tail_targets)(struct cst_unwind *u, const struct cst_func *fn, uint64_t *targets,
			    uint64_t *jumps, int max);

	/* When ADDR is a linkage stub (a PLT entry) resolves it through the target's memory to
	 * the function it jumps to and returns 1 with *DEST set; 0 when it is not a stub. */
	int (*resolve_stub)(struct cst_unwind *u, uint64_t addr, uint64_t *dest);

	/* Bounds of the function containing ADDR in code with neither symbols nor CFI (a
	 * stripped binary built without unwind tables): the entries are the targets of direct
	 * calls and of code addresses taken, found by decoding the module's executable segment
	 * once.  FN gets no name.  Returns 0 or -CST_E_NO_FUNC. */
	int (*guess_func)(struct cst_unwind *u, uint64_t addr, struct cst_func *fn);

	/* Frees what the hooks above cached in the unwind environment's arch_cache. */
	void (*cache_free)(void *cache);
};

extern const struct cst_arch cst_arch_x86_64;

/* Fills OUT (DWARF numbers) from the 27 words of x86-64 struct user_regs_struct
 * (arch/x86/include/asm/user_64.h), as in NT_PRSTATUS and PTRACE_GETREGS. */
void cst_x86_64_from_user_regs(const uint64_t words[27], struct cst_regs *out);

/* The table for ELF machine MACHINE and class CLASS (ELFCLASS*), or NULL. */
const struct cst_arch *cst_arch_find(int machine, int elf_class);

#endif

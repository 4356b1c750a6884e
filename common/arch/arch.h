/* Per-architecture tables.  Each architecture's unwinding rules live in their own file
 * (arch/x86_64/, ...) and are reached only through this table; a NULL hook means the
 * architecture does not support that step. */
#ifndef CST_ARCH_H
#define CST_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "regs.h"

struct cst_unwind;
struct cst_frame;
struct cst_func;
struct cst_row;
struct cst_strategy;

/* A call instruction that ends at a return address. */
struct cst_call_site {
	uint64_t addr;          /* address of the call instruction */
	bool direct;            /* the target is encoded in the instruction */
	uint64_t target;        /* target virtual address, when direct */
	int reg;                /* an indirect call through a register that the callee
				 * preserves (arch->preserved_regs): its DWARF number, else -1 */
	uint64_t slot;          /* an indirect call through the word at a fixed address (a GOT
				 * slot): that address, else 0 */
	int base_reg, index_reg;  /* an indirect call through the word at base + index * scale
				 * + disp (x86-64 `call *disp(%base,%index,scale)`): the DWARF
				 * numbers of its registers, -1 when absent (base_reg -1: not
				 * such a call); set by call_before only for such a call */
	int scale;              /* bytes */
	int64_t disp;           /* bytes */
};

#define CST_MAX_TAIL_TARGETS 16

/* A register the gdb plugin exchanges with gdb: its DWARF number here, gdb's number there. */
struct cst_gdb_reg {
	int dwarf;
	int gdb;
};

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
	uint64_t preserved_regs;  /* bit N: DWARF register N keeps its value across a call (the
				   * psABI's callee-saved registers), so a caller's recovered value
				   * is the one it had at the call */
	uint64_t stack_bias;    /* bytes from a caller's %sp to the CFA (SPARC V9: 2047), 0 */
	unsigned ra_offset;     /* bytes from the CFI return-address column's value (the call's
				 * address on SPARC) to the resume address; 0 when it is the
				 * return address itself.  A caller's lookup address is its
				 * resume address - ra_offset (- 1 when ra_offset is 0). */

	/* The registers gdb 13 and the unwinder exchange (the gdb plugin), N_GDB_REGS of them,
	 * 0 when the plugin does not know gdb's numbers for the architecture (asking gdb for a
	 * number its architecture lacks aborts gdb).  GDB_NPC: gdb's number of the next-pc
	 * register, set to the caller's pc + 4 with its pc (SPARC's npc), 0 when none. */
	const struct cst_gdb_reg *gdb_regs;
	int n_gdb_regs;
	int gdb_npc;

	/* Capstone's values (capstone.h: enum cs_arch, cs_mode, and the CS_OPT_SYNTAX value, 0
	 * for capstone's default) that disassemble the architecture's code, when DISASSEMBLER. */
	bool disassembler;
	int cs_arch, cs_mode, cs_syntax;

	/* The instruction word that spills the caller's register windows to their save areas
	 * (SPARC V9 flushw), in the architecture's byte order when in memory; 0 when none. */
	uint32_t window_flush;

	/* Reads the registers of thread TID, stopped under ptrace by the caller, into OUT
	 * (PTRACE_GETREGSET with NT_PRSTATUS).  Returns 0, or -CST_E_PTRACE.  NULL when this
	 * host cannot read the architecture's threads. */
	int (*ptrace_regs)(pid_t tid, struct cst_regs *out);

	/* Fills OUT from an NT_PRSTATUS descriptor of SIZE bytes; stores pr_pid in *TID and
	 * pr_cursig in *CURSIG.  Returns 0 or -CST_E_BAD_NOTE when SIZE is too small. */
	int (*prstatus)(const uint8_t *desc, size_t size, struct cst_regs *out, int *tid, int *cursig);

	/* The strategies that find a caller, in the order they are tried (unwind.h, struct
	 * cst_strategy), ended by an entry whose step is NULL. */
	const struct cst_strategy *ladder;

	/* Names of the functions that begin a thread's stack (NULL-terminated): the walk ends
	 * cleanly after them even when their CFI does not say so. */
	const char *const *outermost;

	/* Names of the functions that move the stack pointer to another stack and call there
	 * (NULL-terminated, or NULL): a return address into one of them is a call made on the
	 * other stack, where the words above their frame are no caller's, so the walk ends
	 * cleanly at such a frame.  A frame in one of them whose registers are all known (the
	 * innermost, or one a signal interrupted: its pc is exact) is walked as any other: the
	 * switch may not have happened yet. */
	const char *const *stack_switches;

	/* Names of the functions a language runtime enters from its signal handler as if the
	 * faulting instruction had called them (NULL-terminated, or NULL): their caller's pc is
	 * that instruction, looked up as it is, not one byte back. */
	const char *const *fault_callees;

	/* The rule row (row.h) at PC inside function FN, found by decoding FN's instructions
	 * from its entry; every rule it does not set is undefined.  Returns 0, -CST_E_NO_FUNC /
	 * -CST_E_DECODE when the function cannot be analysed. */
	int (*analyse)(struct cst_unwind *u, const struct cst_func *fn, uint64_t pc, struct cst_row *row);

	/* Decodes the instruction that ends at return address RA (inside FN when FN is not NULL).
	 * Returns 0 with *SITE filled, or -CST_E_DECODE when no call instruction ends at RA. */
	int (*call_before)(struct cst_unwind *u, const struct cst_func *fn, uint64_t ra,
			   struct cst_call_site *site);

	/* Lists the functions FN can tail-jump to (direct jumps to another function's entry).
	 * Stores up to MAX entry addresses in TARGETS and, for each, in JUMPS the address of the
	 * jump, or FN's entry when several jumps lead to that target (which one ran is not
	 * known).  Returns the count, or a negative code. */
	int (*tail_targets)(struct cst_unwind *u, const struct cst_func *fn, uint64_t *targets,
			    uint64_t *jumps, int max);

	/* The registers FN's code writes, bit N for DWARF register N, in *WRITTEN, and in
	 * TARGETS (up to MAX) the entries of the code it calls or jumps to outside FN, directly.
	 * Returns the count of TARGETS, or -CST_E_DECODE when FN's code cannot be decoded
	 * whole (bounds unknown, bytes that decode to nothing) or may run code it does not
	 * name: an indirect call or jump, or more than MAX targets.  An instruction that
	 * enters the kernel writes every register.  NULL: the architecture cannot tell (no
	 * register is taken as surviving a lost tail call, unwind.c). */
	int (*reg_writes)(struct cst_unwind *u, const struct cst_func *fn, uint64_t *written,
			  uint64_t *targets, int max);

	/* Calls ADD(ARG, V) for every value V an instruction of the code in [LO, HI) (target
	 * addresses) takes as an address, not as a branch target (x86-64: an immediate operand,
	 * the address a RIP-relative lea computes), decoding the range from LO to its end.
	 * Returns 0, or -CST_E_MEMORY when the code cannot be read whole.  NULL: the
	 * architecture cannot tell (no lost tail call is inferred from address-taken functions). */
	int (*code_addresses)(struct cst_unwind *u, uint64_t lo, uint64_t hi,
			      void (*add)(void *arg, uint64_t v), void *arg);

	/* When ADDR is a linkage stub (a PLT entry) resolves it through the target's memory to
	 * the function it jumps to and returns 1 with *DEST set; 0 when it is not a stub. */
	int (*resolve_stub)(struct cst_unwind *u, uint64_t addr, uint64_t *dest);

	/* Bounds of the function containing ADDR in code with neither symbols nor CFI (a
	 * stripped binary built without unwind tables): the entries are the targets of direct
	 * calls and of code addresses taken, found by decoding the module's executable segment
	 * once.  FN gets no name.  Returns 0 or -CST_E_NO_FUNC. */
	int (*guess_func)(struct cst_unwind *u, uint64_t addr, struct cst_func *fn);

	/* True when PC is the first instruction of a signal-return trampoline: the frame at PC
	 * is a signal frame (its caller was interrupted at an exact pc). */
	bool (*signal_frame)(struct cst_unwind *u, uint64_t pc);

	/* The number of the target's signal SIGNO in the generic Linux numbering
	 * (include/uapi/asm-generic/signal.h, which x86 shares), 0 when it has none there;
	 * NULL when the architecture uses the generic numbers. */
	int (*generic_signal)(int signo);

	/* Frees what the hooks above cached in the unwind environment's arch_cache. */
	void (*cache_free)(void *cache);
};

extern const struct cst_arch cst_arch_x86_64;
extern const struct cst_arch cst_arch_sparc64, cst_arch_sparc32plus, cst_arch_sparc32;

/* The table for ELF machine MACHINE and class CLASS (ELFCLASS*), or NULL. */
const struct cst_arch *cst_arch_find(int machine, int elf_class);

#endif

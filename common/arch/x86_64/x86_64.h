/* x86-64 internals shared by the files of this folder: registers.c (register numbers,
 * NT_PRSTATUS, the arch table), decode.c (capstone decoding into struct code, the per-
 * environment cache), analysis.c (the rule row at a pc, through unwind/dataflow.h), calls.c (call sites, tail jumps,
 * PLT stubs), entries.c (function bounds in stripped code without CFI) and signal.c (Linux
 * signal frames). */
#ifndef CST_X86_64_H
#define CST_X86_64_H

#include "arch.h"
#include "dataflow.h"
#include "entries.h"
#include "fncache.h"
#include "memo.h"
#include "unwind.h"

#include <capstone.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* DWARF register numbers (x86-64 psABI 3.6.2, figure 3.36). */
enum { RAX, RDX, RCX, RBX, RSI, RDI, RBP, RSP, RIP = 16, NREGS = 17 };

enum kind {
	K_OTHER, K_PUSH_FP, K_PUSH, K_POP_FP, K_POP, K_SUB_SP, K_ADD_SP, K_MOV_FP_SP, K_MOV_SP_FP,
	K_LEA_SP_FP, K_LEAVE, K_RET, K_HALT, K_JMP, K_JCC, K_JMP_IND, K_CALL, K_CALL_IND,
	K_SP_OTHER, K_FP_OTHER,
};

struct xinsn {
	uint64_t addr;
	int64_t imm;            /* stack adjustment or displacement */
	uint64_t target;        /* direct branch target; for an indirect jump or call through
				 * disp(%rip), the address of the slot it reads */
	uint8_t size, kind;
	uint8_t call_reg;       /* K_CALL_IND through a register the callee preserves (x86-64
				 * psABI 3.2.1: rbx, rbp, r12-r15): its DWARF number; else 0 */
	uint16_t writes;        /* the general registers the instruction writes, bit N for
				 * DWARF number N (all of them for one that enters the kernel);
				 * none for a direct or indirect call (its callee's code is not
				 * this instruction's) */
	uint8_t mem_base, mem_index, mem_scale;  /* K_CALL_IND through memory addressed by
				 * registers (not %rip): their DWARF numbers plus 1 (0: absent)
				 * and the scale; the displacement is in imm */
};

#define H_UNKNOWN INT32_MIN
/* Where the caller's rbp is: still in rbp, saved (and rbp holds something else), saved with
 * rbp holding the frame record, overwritten without being saved (F_LOST), or unknown because
 * paths that join disagree (F_UNKNOWN: the analysis cannot say). */
enum fp_state { F_CALLER, F_SAVED, F_FRAME, F_LOST, F_UNKNOWN };
struct xstate {
	int32_t h;              /* CFA - rsp in bytes, or H_UNKNOWN */
	int16_t save_off;       /* caller's rbp saved at CFA - save_off (F_SAVED, F_FRAME) */
	int16_t rbp_off;        /* rbp = CFA - rbp_off (F_FRAME) */
	uint16_t written;       /* preserved registers (rbx, r12-r15; bit N for DWARF number N)
				 * some path from the entry wrote: the others hold the caller's */
	uint8_t fp;             /* enum fp_state */
	uint8_t strength;       /* 1 reached only through a call's fall-through (the callee may
				 * not return), 2 reached otherwise: a strong state replaces a
				 * weak one at a join instead of merging with it */
};

struct code {
	struct cst_fncache_entry link;  /* first: the cache's chain */
	uint64_t start, end;    /* decoded range: ins covers [start, end) without a gap */
	size_t n, cap;
	struct xinsn *ins;
	/* The function's bytes from END on, while they are not all decoded (NULL once they
	 * are): a call site's question needs the instructions up to its return address only,
	 * and decoding with capstone costs more than the rest of a frame's walk. */
	uint8_t *rest;
	size_t nrest;
	bool analysed;          /* flow holds the analysis (analysis.c) */
	struct cst_dataflow flow;       /* struct xstate per instruction */
};

#define MAX_FUNC_BYTES (256 * 1024)
#define UNKNOWN_SIZE_BYTES (16 * 1024)

struct cache {
	csh cs;
	bool cst_ok;
	struct cst_fncache fns;
	struct cst_entries *entries;    /* guessed function entries (entries.c) */
	struct cst_memo *stubs;  /* resolve_stub's decoding per address: struct stub_memo */
	cs_insn *insn;           /* decode's instruction buffer; NULL until first needed */
};

/* What the instruction at a stub address is: an indirect jump through SLOT (its pointer is
 * read again on every call: a live process binds its GOT lazily), or not (SLOT 0). */
struct stub_memo { uint64_t slot; };
#define MAX_STUB_MEMO (64 * 1024)

/* decode.c: the environment's cache (created on first use; NULL when out of memory), FN
 * decoded whole (NULL when it cannot be), and the index of the instruction containing ADDR
 * (-1).  cst_x86_64_code_through decodes FN only as far as the instruction holding target
 * address ADDR (to END > ADDR, or as far as the whole decoding goes; short of it, and
 * tried again later, when there is no memory for capstone's instruction): linear decoding from
 * FN's start does not look ahead, so the instructions it holds are the first ones of the
 * whole decoding; cst_x86_64_code later decodes the rest. */
struct cache *cst_x86_64_cache(struct cst_unwind *u);
struct code *cst_x86_64_code(struct cst_unwind *u, const struct cst_func *fn);
struct code *cst_x86_64_code_through(struct cst_unwind *u, const struct cst_func *fn, uint64_t addr);
ptrdiff_t cst_x86_64_find_insn(const struct code *k, uint64_t addr);
void cst_x86_64_cache_free(void *cache);
/* decode.c: what instruction IN (decoded with detail on) does to rsp, rbp and control flow,
 * into X's kind, imm and target. */
void cst_x86_64_classify(csh cs, const cs_insn *in, struct xinsn *x);

/* The arch-table hooks (contracts in arch.h). */
int cst_x86_64_analyse(struct cst_unwind *u, const struct cst_func *fn, uint64_t pc, struct cst_row *row);
int cst_x86_64_call_before(struct cst_unwind *u, const struct cst_func *fn, uint64_t ra,
			   struct cst_call_site *site);
int cst_x86_64_code_addresses(struct cst_unwind *u, uint64_t lo, uint64_t hi,
			      void (*add)(void *arg, uint64_t v), void *arg);
int cst_x86_64_tail_targets(struct cst_unwind *u, const struct cst_func *fn, uint64_t *targets,
			    uint64_t *jumps, int max);
int cst_x86_64_reg_writes(struct cst_unwind *u, const struct cst_func *fn, uint64_t *written,
			  uint64_t *targets, int max);
int cst_x86_64_resolve_stub(struct cst_unwind *u, uint64_t addr, uint64_t *dest);
int cst_x86_64_guess_func(struct cst_unwind *u, uint64_t addr, struct cst_func *fn);
bool cst_x86_64_signal_frame(struct cst_unwind *u, uint64_t pc);

/* signal.c: the caller of F, a Linux signal restorer's frame (its code is rt_sigreturn's,
 * whatever its symbol), from the kernel's signal frame at F's stack pointer; does not apply
 * (-CST_E_DECODE) to other code.  The contract is cst_strategy_fn's (unwind.h). */
cst_strategy_fn cst_x86_64_signal_step;

#endif

/* DWARF call-site records of one module, read through libdw one compilation unit at a time
 * (the unit that covers the address asked about, found through libdw's address ranges) and
 * kept sorted.
 *
 * A -g build (gcc -O1 and up, DWARF 5 or gcc's GNU extension to DWARF 4) describes each call
 * with a DW_TAG_call_site (DW_TAG_GNU_call_site) child of the function that makes it: its
 * return address (DW_AT_call_return_pc; DW_AT_low_pc in the GNU form), the function called
 * when the compiler knows it (DW_AT_call_origin; DW_AT_abstract_origin in the GNU form), or a
 * DWARF expression for the address called (DW_AT_call_target), and, for a tail call,
 * DW_AT_call_tail_call (DW_AT_GNU_tail_call).  DWARF 5, section 3.4.
 *
 * Two questions are answered from them:
 *   - which function the call that ends at a return address called, also for an indirect
 *     call, when the record names it: its origin's entry, or a DW_AT_call_target that is a
 *     constant address (DW_OP_addr) or a register plus an offset (one DW_OP_bregN, read by
 *     the caller from the registers it knows);
 *   - which functions a function ends in tail calls to, when its records list them all.
 * A record whose origin has no single entry in its compilation unit (a declaration of a
 * function defined elsewhere, an abstract function with several concrete copies) names no
 * target.  Addresses are target virtual addresses
 * (the module's load bias added). */
#ifndef CST_CALLSITE_H
#define CST_CALLSITE_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

struct cst_callsites;

/* What a call-site record says of the function called. */
struct cst_call_target {
	enum { CST_TARGET_ADDR, CST_TARGET_REG } kind;
	uint64_t addr;           /* CST_TARGET_ADDR: the function's entry */
	int reg;                 /* CST_TARGET_REG: DWARF register number ... */
	int64_t offset;          /* ... plus this many bytes is the address called */
};

/* The call-site records of MOD's DWARF (its own file or its separate debug file), none read
 * yet: each compilation unit is read on the first question about an address it covers.
 * Returns NULL when memory ran out.  Per unit at most 4,000,000 records are kept and DIEs
 * nested at most 64 deep are read; at most 4096 units per module: past that, or when memory
 * runs out, nothing is known from a unit. */
struct cst_callsites *cst_callsites_new(Dwfl_Module *mod);

void cst_callsites_free(struct cst_callsites *cs);

/* The function called by the call whose return address is RA (a target address), from CS
 * (may be NULL).  Returns true with *OUT filled when one record for that call names it. */
bool cst_callsites_target(struct cst_callsites *cs, uint64_t ra, struct cst_call_target *out);

/* The functions that the function whose entry is FN_START tail-calls, by their entries,
 * when its records name every tail call it makes: stores up to MAX in TARGETS and returns
 * the count (0: it makes none).  Returns -1 when CS has no record of that function, or one
 * of its tail-call records names no address (then the records do not settle anything). */
int cst_callsites_tail_calls(struct cst_callsites *cs, uint64_t fn_start, uint64_t *targets, int max);

#endif

/* The functions whose address a module takes: the only functions an indirect call can enter
 * in that module.  Used to name the function behind an indirect call that tail-called away
 * when nothing else names it (unwind.c: exactly one of them reaches the callee's function by
 * tail jumps, and the callee's function is not one of them).
 *
 * A code address is taken when an instruction of the module's code takes it as a value (the
 * architecture's code_addresses hook: an immediate, a RIP-relative lea), a word of the
 * module's PT_LOAD segments holds it (function-pointer tables, initialised pointers, GOT
 * slots, relocated or not: the target's memory is read), or the module's .dynsym exports it
 * as a function (another module may take it).  Addresses are target virtual addresses. */
#ifndef CST_ADDRTAKEN_H
#define CST_ADDRTAKEN_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cst_unwind;
struct cst_unwind_env;

struct cst_addrtaken {
	uint64_t *addr;          /* sorted, no repeats; addresses inside the module's executable
				  * PT_LOAD segments (not all of them are function entries) */
	size_t n;
};

/* The address-taken set of MOD, built on the first call for MOD and kept in U's environment
 * (env->tail_cache).  Returns NULL when it cannot be known whole: the architecture has no
 * code_addresses hook, a segment cannot be read from the target, the module's segments
 * hold more than 64 MiB or its code more than 1 MiB (decoding it all costs too much), or
 * memory ran out. */
const struct cst_addrtaken *cst_addrtaken_of(struct cst_unwind *u, Dwfl_Module *mod);

/* A memo (memo.h) of VALUE_SIZE-byte values kept with the sets in U's environment, for the
 * inferences made from them (one per callee function; VALUE_SIZE the same on every call);
 * NULL when out of memory.  At most 65,536 entries. */
struct cst_memo *cst_addrtaken_results(struct cst_unwind *u, size_t value_size);

/* Whether SET holds ADDR. */
bool cst_addrtaken_has(const struct cst_addrtaken *set, uint64_t addr);

/* Frees ENV->tail_cache. */
void cst_addrtaken_cache_free(struct cst_unwind_env *env);

#endif

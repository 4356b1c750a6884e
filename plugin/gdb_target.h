/* gdb's JIT reader callbacks as a cst_target: the third back end next to the core file
 * (common/core.c) and the live process (common/live.c).  Memory is read with the
 * target_read callback gdb hands to each unwind call, so it is whatever gdb itself sees:
 * the live process, or the core's sections and the files gdb loaded for them. */
#ifndef CST_GDB_TARGET_H
#define CST_GDB_TARGET_H

#include <gdb/jit-reader.h>
#include "target.h"

/* Points T at gdb's memory reader READ (valid only during the one unwind call that gave
 * it).  BIG_ENDIAN is the inferior's byte order.  Reads go through a cache of aligned blocks
 * of 1 KiB (one for every target: gdb makes one unwind call at a time), which this call
 * empties unless MEMORY_ID is not 0 and the same as the last call's: memory that does not
 * change (a core file's), named by the caller.  FACTS (NULL: none) is the inferior's own
 * target, asked which addresses hold code no module covers (JIT code, a copy of a file's
 * code: cst_target_anon_code, cst_target_copied_code); it must outlive T's use. */
void cst_gdb_target_init(struct cst_target *t, gdb_target_read *read, bool big_endian,
			 uint64_t memory_id, const struct cst_target *facts);

/* Points T at gdb's memory reader READ as cst_gdb_target_init does, without the cache: each
 * read asks gdb. */
void cst_gdb_target_init_direct(struct cst_target *t, gdb_target_read *read, bool big_endian);

/* Reads register REGNUM (a DWARF number that exists for the inferior's architecture: gdb
 * aborts on any other) of the frame being unwound.  Stores the value of a defined register
 * of SIZE bytes (4 or 8) in *VAL (the inferior's byte order decoded).  Returns 0, or
 * -CST_E_MEMORY when gdb gave no value or an undefined one, -CST_E_ARCH when the register
 * has another size (gdb's architecture is not the one expected). */
int cst_gdb_reg_get(struct gdb_unwind_callbacks *cb, int regnum, unsigned size, bool big_endian,
		    uint64_t *val);

/* Gives gdb the caller's register REGNUM (a DWARF number of the inferior's architecture)
 * as a SIZE-byte (4 or 8) value.  Returns 0 or -CST_E_NOMEM (the register stays
 * undefined). */
int cst_gdb_reg_set(struct gdb_unwind_callbacks *cb, int regnum, unsigned size, bool big_endian,
		    uint64_t val);

#endif

/* The target: where an unwinder reads memory.  One interface, several back ends: an ELF
 * core file (core.c), a live process under ptrace (live.c), gdb's JIT reader callbacks
 * (plugin/), and in-memory fakes for unit tests (tests/unit/fake_target.c). */
#ifndef CST_TARGET_H
#define CST_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

struct cst_target_ops {
	/* Reads LEN bytes at target virtual address ADDR into BUF.  Returns 0, or
	 * -CST_E_MEMORY when any byte of the range is not readable. */
	int (*read)(void *priv, uint64_t addr, void *buf, size_t len);
};

struct cst_target {
	const struct cst_target_ops *ops;
	void *priv;
	bool big_endian;   /* byte order of target words */
};

/* Reads LEN bytes at ADDR; 0 or -CST_E_MEMORY. */
int cst_target_read(const struct cst_target *t, uint64_t addr, void *buf, size_t len);

/* Reads one SIZE-byte word (4 or 8) at ADDR in the target's byte order into *OUT
 * (zero-extended).  Returns 0, -CST_E_MEMORY, or -CST_E_INVAL for another SIZE. */
int cst_target_read_word(const struct cst_target *t, uint64_t addr, unsigned size, uint64_t *out);

#endif

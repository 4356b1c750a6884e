/* gdb's JIT reader callbacks as a cst_target.  See gdb_target.h. */
#include "gdb_target.h"
#include "error.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Reads through gdb, without the cache. */
static int read_direct(gdb_target_read *read, uint64_t addr, unsigned char *p, size_t len)
{
	while (len > 0) {
		/* the callback takes an int length */
		int n = len > (size_t)(INT_MAX / 2) ? INT_MAX / 2 : (int)len;
		if (read((GDB_CORE_ADDR)addr, p, n) != GDB_SUCCESS)
			return -CST_E_MEMORY;
		p += n;
		addr += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/* Aligned blocks of gdb's memory read during one unwind call: a walk reads the stack a word
 * at a time, and each of gdb's reads of a core looks through all of the core's sections
 * (two per thread), so a block is read once. */
#define BLOCK 1024
#define NBLOCKS 8
static struct {
	uint64_t addr;
	bool used;
	bool readable;             /* else read a piece at a time */
	unsigned char data[BLOCK];
} blocks[NBLOCKS];
static unsigned next_block;

static const unsigned char *block_at(gdb_target_read *read, uint64_t base)
{
	for (unsigned i = 0; i < NBLOCKS; i++)
		if (blocks[i].used && blocks[i].addr == base)
			return blocks[i].readable ? blocks[i].data : NULL;
	unsigned i = next_block++ % NBLOCKS;
	blocks[i].used = true;
	blocks[i].readable = read_direct(read, base, blocks[i].data, BLOCK) == 0;
	blocks[i].addr = base;
	return blocks[i].readable ? blocks[i].data : NULL;
}

static int gdb_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	gdb_target_read *read = (gdb_target_read *)priv;
	unsigned char *p = buf;
	if (len > BLOCK)
		return read_direct(read, addr, p, len);
	while (len > 0) {
		uint64_t base = addr & ~(uint64_t)(BLOCK - 1), off = addr - base;
		size_t n = BLOCK - off < len ? BLOCK - off : len;
		const unsigned char *b = base + BLOCK > base ? block_at(read, base) : NULL;
		/* a block that is not all readable: the bytes asked for may be */
		if (b)
			memcpy(p, b + off, n);
		else if (read_direct(read, addr, p, n) < 0)
			return -CST_E_MEMORY;
		p += n;
		addr += n;
		len -= n;
	}
	return 0;
}

static int gdb_read_direct(void *priv, uint64_t addr, void *buf, size_t len)
{
	return read_direct((gdb_target_read *)priv, addr, buf, len);
}

/* The inferior's own target (its core file or its /proc maps), which knows what memory holds
 * code no module covers; gdb's reader does not. */
static const struct cst_target *code_facts;

static bool gdb_anon_code(void *priv, uint64_t addr)
{
	return code_facts && cst_target_anon_code(code_facts, addr);
}

static const char *gdb_copied_code(void *priv, uint64_t addr)
{
	return code_facts ? cst_target_copied_code(code_facts, addr) : NULL;
}

static const struct cst_target_ops gdb_ops = {
	.read = gdb_read, .anon_code = gdb_anon_code, .copied_code = gdb_copied_code,
};
static const struct cst_target_ops gdb_direct_ops = { .read = gdb_read_direct };

void cst_gdb_target_init_direct(struct cst_target *t, gdb_target_read *read, bool big_endian)
{
	t->ops = &gdb_direct_ops;
	t->priv = (void *)read;
	t->big_endian = big_endian;
}

void cst_gdb_target_init(struct cst_target *t, gdb_target_read *read, bool big_endian,
			 uint64_t memory_id, const struct cst_target *facts)
{
	static uint64_t last_id;
	code_facts = facts;
	t->ops = &gdb_ops;
	t->priv = (void *)read;
	t->big_endian = big_endian;
	if (memory_id && memory_id == last_id)
		return;
	/* memory may have changed since the last unwind call (a live process ran) */
	last_id = memory_id;
	for (unsigned i = 0; i < NBLOCKS; i++)
		blocks[i].used = false;
}

int cst_gdb_reg_get(struct gdb_unwind_callbacks *cb, int regnum, unsigned size, bool big_endian,
		    uint64_t *val)
{
	struct gdb_reg_value *v = cb->reg_get(cb, regnum);
	if (!v)
		return -CST_E_MEMORY;
	int rc = v->size != (int)size ? -CST_E_ARCH : -CST_E_MEMORY;
	if (v->defined && v->size == (int)size && (size == 4 || size == 8)) {
		uint64_t x = 0;
		for (int i = 0; i < v->size; i++) {
			int k = big_endian ? i : v->size - 1 - i;
			x = (x << 8) | v->value[k];
		}
		*val = x;
		rc = 0;
	}
	if (v->free)
		v->free(v);
	return rc;
}

static void free_value(struct gdb_reg_value *v)
{
	free(v);
}

int cst_gdb_reg_set(struct gdb_unwind_callbacks *cb, int regnum, unsigned size, bool big_endian,
		    uint64_t val)
{
	if (size != 4 && size != 8)
		return -CST_E_INVAL;
	struct gdb_reg_value *v = malloc(sizeof *v + size);
	if (!v)
		return -CST_E_NOMEM;
	v->size = (int)size;
	v->defined = 1;
	v->free = free_value;
	for (unsigned i = 0; i < size; i++) {
		unsigned k = big_endian ? size - 1 - i : i;
		v->value[k] = (unsigned char)(val >> (8 * i));
	}
	cb->reg_set(cb, regnum, v);
	return 0;
}

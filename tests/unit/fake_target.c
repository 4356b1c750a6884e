/* The in-memory target (fake_target.h). */
#include "fake_target.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

static struct fake_region *find(struct fake_target *ft, uint64_t addr, size_t len)
{
	for (int i = 0; i < ft->nregions; i++) {
		struct fake_region *r = &ft->region[i];
		if (addr >= r->addr && addr - r->addr <= r->len && len <= r->len - (addr - r->addr))
			return r;
	}
	return NULL;
}

static int fake_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	struct fake_region *r = find(priv, addr, len);
	if (!r)
		return -CST_E_MEMORY;
	memcpy(buf, r->bytes + (addr - r->addr), len);
	return 0;
}

static const struct cst_target_ops fake_ops = { .read = fake_read };

void fake_init(struct fake_target *ft, bool big_endian)
{
	memset(ft, 0, sizeof *ft);
	ft->target = (struct cst_target){ .ops = &fake_ops, .priv = ft, .big_endian = big_endian };
}

uint8_t *fake_map(struct fake_target *ft, uint64_t addr, size_t len)
{
	if (ft->nregions == FAKE_MAX_REGIONS)
		return NULL;
	uint8_t *b = calloc(len ? len : 1, 1);
	if (!b)
		return NULL;
	ft->region[ft->nregions++] = (struct fake_region){ .addr = addr, .len = len, .bytes = b };
	return b;
}

int fake_write(struct fake_target *ft, uint64_t addr, const void *bytes, size_t len)
{
	struct fake_region *r = find(ft, addr, len);
	if (!r)
		return -1;
	memcpy(r->bytes + (addr - r->addr), bytes, len);
	return 0;
}

int fake_write_word(struct fake_target *ft, uint64_t addr, unsigned size, uint64_t v)
{
	uint8_t b[8];
	if (size != 4 && size != 8)
		return -1;
	for (unsigned i = 0; i < size; i++) {
		unsigned shift = 8 * (ft->target.big_endian ? size - 1 - i : i);
		b[i] = (uint8_t)(v >> shift);
	}
	return fake_write(ft, addr, b, size);
}

void fake_free(struct fake_target *ft)
{
	for (int i = 0; i < ft->nregions; i++)
		free(ft->region[i].bytes);
	ft->nregions = 0;
}

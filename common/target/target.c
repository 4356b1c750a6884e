/* Checked reads through a target's back end. */
#include "target.h"
#include "error.h"

#include <endian.h>
#include <string.h>

int cst_target_read(const struct cst_target *t, uint64_t addr, void *buf, size_t len)
{
	if (len == 0)
		return 0;
	if (addr + len < addr)          /* wraps around the address space */
		return -CST_E_MEMORY;
	return t->ops->read(t->priv, addr, buf, len);
}

bool cst_target_anon_code(const struct cst_target *t, uint64_t addr)
{
	return t->ops->anon_code && t->ops->anon_code(t->priv, addr);
}

const char *cst_target_copied_code(const struct cst_target *t, uint64_t addr)
{
	return t->ops->copied_code ? t->ops->copied_code(t->priv, addr) : NULL;
}

int cst_target_read_word_slow(const struct cst_target *t, uint64_t addr, unsigned size, uint64_t *out)
{
	uint8_t b[8];
	if (size != 4 && size != 8)
		return -CST_E_INVAL;
	int rc = cst_target_read(t, addr, b, size);
	if (rc < 0)
		return rc;
	if (size == 8) {
		uint64_t v;
		memcpy(&v, b, 8);
		*out = t->big_endian ? be64toh(v) : le64toh(v);
	} else {
		uint32_t v;
		memcpy(&v, b, 4);
		*out = t->big_endian ? be32toh(v) : le32toh(v);
	}
	return 0;
}

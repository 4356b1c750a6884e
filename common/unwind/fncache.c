/* Decoded-function cache and code reads.  See fncache.h. */
#include "fncache.h"

static size_t bucket(uint64_t start)
{
	return (size_t)((start ^ (start >> 12)) % CST_FNCACHE_BUCKETS);
}

struct cst_fncache_entry *cst_fncache_find(const struct cst_fncache *c, uint64_t start)
{
	for (struct cst_fncache_entry *e = c->buckets[bucket(start)]; e; e = e->next)
		if (e->start == start)
			return e;
	return NULL;
}

void cst_fncache_add(struct cst_fncache *c, struct cst_fncache_entry *e)
{
	size_t b = bucket(e->start);
	e->next = c->buckets[b];
	c->buckets[b] = e;
}

struct cst_fncache_entry *cst_fncache_get(struct cst_fncache *c, uint64_t start, uint64_t end,
					  struct cst_fncache_entry *(*make)(void *arg, uint64_t start, uint64_t end),
					  void *arg)
{
	struct cst_fncache_entry *e = cst_fncache_find(c, start);
	if (!e && (e = make(arg, start, end)) != NULL) {
		e->start = start;
		cst_fncache_add(c, e);
	}
	return e;
}

void cst_fncache_clear(struct cst_fncache *c, void (*free_entry)(struct cst_fncache_entry *))
{
	for (size_t i = 0; i < CST_FNCACHE_BUCKETS; i++) {
		for (struct cst_fncache_entry *e = c->buckets[i], *n; e; e = n) {
			n = e->next;
			free_entry(e);
		}
		c->buckets[i] = NULL;
	}
}

size_t cst_read_code(const struct cst_target *t, uint64_t addr, uint8_t *buf, size_t len, size_t unit)
{
	size_t got = 0;
	while (got < len) {
		size_t chunk = len - got < 4096 ? len - got : 4096;
		if (cst_target_read(t, addr + got, buf + got, chunk) == 0) {
			got += chunk;
			continue;
		}
		/* the last readable bytes before a page that is not */
		while (got + unit <= len && cst_target_read(t, addr + got, buf + got, unit) == 0)
			got += unit;
		break;
	}
	return got;
}

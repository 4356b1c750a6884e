/* Open addressing with linear probing; each slot is a key, a used flag and the value.  See
 * memo.h. */
#include "memo.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct cst_memo {
	size_t value_size, stride;   /* bytes per value, bytes per slot */
	size_t cap, n, max;          /* slots (a power of two), entries, entry limit */
	unsigned char *slots;
};

struct slot_head {
	uint64_t key;
	uint64_t used;
};

#define INITIAL_SLOTS 256

static size_t hash(uint64_t key, size_t cap)
{
	return (size_t)(cst_fib_hash(key) >> 32) & (cap - 1);
}

static struct slot_head *slot(const struct cst_memo *m, size_t i)
{
	return (struct slot_head *)(m->slots + i * m->stride);
}

struct cst_memo *cst_memo_new(size_t value_size, size_t max_entries)
{
	struct cst_memo *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->value_size = value_size;
	m->stride = (sizeof(struct slot_head) + value_size + 15) & ~(size_t)15;
	m->max = max_entries;
	m->cap = INITIAL_SLOTS;
	m->slots = calloc(m->cap, m->stride);
	if (!m->slots) {
		free(m);
		return NULL;
	}
	return m;
}

void cst_memo_free(struct cst_memo *m)
{
	if (!m)
		return;
	free(m->slots);
	free(m);
}

/* The slot of KEY, or the empty slot where it would go. */
static struct slot_head *find(const struct cst_memo *m, uint64_t key)
{
	for (size_t i = hash(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		struct slot_head *s = slot(m, i);
		if (!s->used || s->key == key)
			return s;
	}
}

const void *cst_memo_get(const struct cst_memo *m, uint64_t key)
{
	if (!m)
		return NULL;
	struct slot_head *s = find(m, key);
	return s->used ? s + 1 : NULL;
}

static bool grow(struct cst_memo *m)
{
	struct cst_memo bigger = *m;
	bigger.cap = 2 * m->cap;
	bigger.slots = calloc(bigger.cap, m->stride);
	if (!bigger.slots)
		return false;
	for (size_t i = 0; i < m->cap; i++) {
		struct slot_head *s = slot(m, i);
		if (s->used)
			memcpy(find(&bigger, s->key), s, m->stride);
	}
	free(m->slots);
	*m = bigger;
	return true;
}

bool cst_memo_put(struct cst_memo *m, uint64_t key, const void *value)
{
	if (!m)
		return false;
	struct slot_head *s = find(m, key);
	if (!s->used) {
		if (m->n >= m->max)
			return false;
		if (2 * (m->n + 1) > m->cap) {
			if (!grow(m))
				return false;
			s = find(m, key);
		}
		s->used = 1;
		s->key = key;
		m->n++;
	}
	memcpy(s + 1, value, m->value_size);
	return true;
}

void cst_memo_each(const struct cst_memo *m, void (*fn)(uint64_t key, void *value, void *arg), void *arg)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->cap; i++) {
		struct slot_head *s = slot(m, i);
		if (s->used)
			fn(s->key, s + 1, arg);
	}
}

/* The address memo (common/unwind/memo.c): values copied in and out by key, replacement,
 * growth past the first table, the entry limit (a full memo refuses new keys and keeps the
 * old ones: it never evicts), key 0, a NULL memo, and cst_memo_each. */
#include "memo.h"
#include "unit.h"

#include <stdint.h>
#include <string.h>

struct val { uint64_t a, b; char tag[9]; };

static struct val make(uint64_t k)
{
	struct val v = { .a = k * 3, .b = ~k };
	memcpy(v.tag, "tagtagtag", 9);
	return v;
}

static bool holds(const struct cst_memo *m, uint64_t k)
{
	const struct val *v = cst_memo_get(m, k);
	struct val w = make(k);
	return v && memcmp(v, &w, sizeof w) == 0;
}

static void count(uint64_t key, void *value, void *arg)
{
	uint64_t *acc = arg;
	const struct val *v = value;
	acc[0]++;
	acc[1] ^= key;
	acc[2] += v->a == key * 3;
}

int main(void)
{
	unit_begin("memo_put_get");
	struct cst_memo *m = cst_memo_new(sizeof(struct val), 100000);
	unit_expect(m != NULL, "cst_memo_new failed");
	struct val v = make(0x401008);
	unit_expect(cst_memo_get(m, 0x401008) == NULL, "empty memo has a value");
	unit_expect(cst_memo_put(m, 0x401008, &v), "put failed");
	v.a = 99;                       /* the memo keeps its own copy */
	unit_expect(holds(m, 0x401008), "value not returned as stored");
	unit_expect(cst_memo_get(m, 0x401009) == NULL, "a neighbouring key has a value");
	unit_expect(cst_memo_get(m, 0) == NULL, "key 0 has a value before it is stored");
	struct val z = make(0);
	unit_expect(cst_memo_put(m, 0, &z) && holds(m, 0), "key 0 not stored");
	unit_end();

	unit_begin("memo_replace");
	struct val r = make(7);
	cst_memo_put(m, 0x401008, &r);
	const struct val *got = cst_memo_get(m, 0x401008);
	unit_expect(got && got->a == 21, "the second put did not replace the value");
	v = make(0x401008);
	cst_memo_put(m, 0x401008, &v);
	unit_expect(holds(m, 0x401008), "the third put did not replace the value");
	unit_end();

	/* Keys a page apart (the same low bits) and many of them: the table grows several times
	 * and every key keeps its value. */
	unit_begin("memo_growth");
	for (uint64_t k = 1; k <= 5000; k++) {
		struct val x = make(k << 12);
		if (!unit_expect(cst_memo_put(m, k << 12, &x), "put %llu failed", (unsigned long long)k))
			break;
	}
	for (uint64_t k = 1; k <= 5000; k++)
		if (!unit_expect(holds(m, k << 12), "key 0x%llx lost after growth",
				 (unsigned long long)(k << 12)))
			break;
	unit_expect(holds(m, 0x401008) && holds(m, 0), "early keys lost after growth");
	unit_end();

	unit_begin("memo_each");
	uint64_t acc[3] = { 0 }, x = 0;
	cst_memo_each(m, count, acc);
	for (uint64_t k = 1; k <= 5000; k++)
		x ^= k << 12;
	x ^= 0x401008;
	EXPECT_EQ(acc[0], 5002, "entries visited");
	EXPECT_EQ(acc[1], x, "xor of the keys visited");
	EXPECT_EQ(acc[2], 5002, "values visited with their keys");
	unit_end();
	cst_memo_free(m);

	/* The limit: a full memo refuses new keys, keeps the ones it has (no eviction) and
	 * still replaces their values. */
	unit_begin("memo_limit");
	m = cst_memo_new(sizeof(struct val), 300);
	for (uint64_t k = 0; k < 300; k++) {
		struct val y = make(k * 16);
		unit_expect(cst_memo_put(m, k * 16, &y), "put %llu of 300 failed", (unsigned long long)k);
	}
	struct val y = make(12345);
	unit_expect(!cst_memo_put(m, 12345, &y), "a full memo took a new key");
	unit_expect(cst_memo_get(m, 12345) == NULL, "a refused key has a value");
	for (uint64_t k = 0; k < 300; k++)
		if (!unit_expect(holds(m, k * 16), "key %llu evicted", (unsigned long long)(k * 16)))
			break;
	struct val q = make(7);
	unit_expect(cst_memo_put(m, 32, &q), "a full memo refused to replace a value");
	got = cst_memo_get(m, 32);
	unit_expect(got && got->a == 21, "replaced value not returned");
	unit_end();
	cst_memo_free(m);

	unit_begin("memo_null");
	unit_expect(cst_memo_get(NULL, 1) == NULL, "get on NULL");
	unit_expect(!cst_memo_put(NULL, 1, &y), "put on NULL stored");
	cst_memo_each(NULL, count, acc);
	cst_memo_free(NULL);
	unit_end();
	return unit_exit();
}

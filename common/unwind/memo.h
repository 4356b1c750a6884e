/* A memo keyed by target address: results of lookups that depend on the address alone
 * (the function containing it, its source location, its CFI row), kept so that the thousands
 * of threads of a core, which share most of their return addresses, pay for each lookup once.
 *
 * Values are fixed-size blocks of bytes copied in and out.  The table grows by doubling; it
 * holds at most the number of entries given at creation (a hostile core can have millions of
 * distinct addresses), after which new addresses are simply not remembered. */
#ifndef CST_MEMO_H
#define CST_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cst_memo;

/* A memo of VALUE_SIZE-byte values (bytes) holding at most MAX_ENTRIES addresses.  Returns
 * NULL when out of memory. */
struct cst_memo *cst_memo_new(size_t value_size, size_t max_entries);
void cst_memo_free(struct cst_memo *m);

/* The value stored for address KEY, or NULL.  The pointer is valid until the next
 * cst_memo_put. */
const void *cst_memo_get(const struct cst_memo *m, uint64_t key);

/* Stores a copy of VALUE (value_size bytes) for KEY, replacing an earlier one.  Returns false
 * (nothing stored) when the memo is full or out of memory; M may be NULL (nothing stored). */
bool cst_memo_put(struct cst_memo *m, uint64_t key, const void *value);

/* Calls FN(KEY, VALUE, ARG) for every entry, in no particular order (to free what the
 * values point to). */
void cst_memo_each(const struct cst_memo *m, void (*fn)(uint64_t key, void *value, void *arg), void *arg);

#endif

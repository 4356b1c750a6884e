/* Decoded functions kept by entry address, for the architectures' instruction analyses
 * (arch/x86_64/, arch/sparc/code.c), and the reading of a function's bytes. */
#ifndef CST_FNCACHE_H
#define CST_FNCACHE_H

#include <stddef.h>
#include <stdint.h>
#include "target.h"

#define CST_FNCACHE_BUCKETS 4096

/* The first member of an architecture's decoded function. */
struct cst_fncache_entry {
	uint64_t start;                   /* entry address of the function */
	struct cst_fncache_entry *next;
};

struct cst_fncache {
	struct cst_fncache_entry *buckets[CST_FNCACHE_BUCKETS];
};

/* The entry for the function starting at START, or NULL. */
struct cst_fncache_entry *cst_fncache_find(const struct cst_fncache *c, uint64_t start);
/* Adds E (E->start set); the cache owns it until cst_fncache_clear. */
void cst_fncache_add(struct cst_fncache *c, struct cst_fncache_entry *e);
/* The entry for the function [START, END), made with MAKE(ARG, START, END) and added when
 * the cache has none; NULL when MAKE fails. */
struct cst_fncache_entry *cst_fncache_get(struct cst_fncache *c, uint64_t start, uint64_t end,
					  struct cst_fncache_entry *(*make)(void *arg, uint64_t start, uint64_t end),
					  void *arg);
/* Frees every entry with FREE_ENTRY. */
void cst_fncache_clear(struct cst_fncache *c, void (*free_entry)(struct cst_fncache_entry *));

/* Reads up to LEN bytes at target address ADDR into BUF, stopping before the first UNIT
 * bytes (1 or the instruction size) that cannot be read.  Returns the bytes read. */
size_t cst_read_code(const struct cst_target *t, uint64_t addr, uint8_t *buf, size_t len, size_t unit);

#endif

/* Threads of made-up frames for the printers' tests (test_lines, test_json_frames). */
#ifndef CST_UNIT_FRAMES_H
#define CST_UNIT_FRAMES_H

#include "backtrace.h"

#include <stdlib.h>
#include <string.h>

/* A new zeroed frame at the end of T, numbered by its index; aborts when out of memory. */
static inline struct bt_frame *add(struct bt_thread *t)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->frames = realloc(t->frames, t->cap * sizeof *t->frames);
		if (!t->frames)
			abort();
	}
	struct bt_frame *b = &t->frames[t->n];
	memset(b, 0, sizeof *b);
	b->number = (unsigned)t->n++;
	return b;
}

/* A name of 999 'L's, longer than any cache slot (malloc'd); aborts when out of memory. */
static inline char *long_name_new(void)
{
	char *s = malloc(1000);
	if (!s)
		abort();
	memset(s, 'L', 999);
	s[999] = 0;
	return s;
}

#endif

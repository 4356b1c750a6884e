/* A streaming JSON writer (RFC 8259): values are written as they come into a buffer that is
 * flushed to a FILE, with no tree in between.  Its output is json-c's for the same values
 * (JSON_C_TO_STRING_PLAIN or _PRETTY with _NOSLASHESCAPE: no spaces, two-space indents), so
 * the documents of doc/json.md keep their bytes; strings differ only where json-c would have
 * written invalid UTF-8 (below).
 *
 * A writer is a caller-owned cursor: begin/end an object or array, a key, then a value.  The
 * caller keeps the nesting right (a key only in an object, one value after each key); the
 * writer places the commas, newlines and indents. */
#ifndef CST_JSONW_H
#define CST_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define JW_MAX_DEPTH 64

struct json_object;

/* Memory a writer may write into in place of its own buffer (jw_set_sink): the caller's text,
 * which the bytes then need not be copied into.  The writer holds at most one room at a
 * time, and while it holds one nothing else may write to that text. */
struct jw_sink {
	/* Room for at least N more bytes at the end of the text, asked for with no room held:
	 * its address, and its size in bytes in *CAP; NULL when there is none (memory ran out,
	 * or the text could not be made whole first).  The text may move: the address of an
	 * earlier room is not used again. */
	char *(*room)(void *ctx, size_t n, size_t *cap);
	/* The first N bytes (at most the room's *CAP) of the room held are part of the text
	 * now; the room is given back. */
	void (*commit)(void *ctx, size_t n);
	void *ctx;
};

struct jw {
	FILE *out;
	const struct jw_sink *sink;   /* NULL: BUF is the writer's own, flushed to OUT */
	char *buf;                    /* with SINK, its room (NULL: none held) */
	size_t len, cap;
	bool pretty;            /* json-c's _PRETTY layout, else everything on one line */
	bool nomem;             /* the buffer could not grow, or the sink gave no room: output
				 * is cut short, for the rest of the writer's life */
	bool after_key;         /* the next value follows a key (no separator) */
	unsigned flushes;       /* times BUF's bytes went out (or, with a sink, were committed):
				 * an offset into BUF taken before a change of it is void */
	int depth;              /* open objects and arrays */
	int base;               /* indent level of the outermost value (json-c's "level") */
	bool had[JW_MAX_DEPTH]; /* the container at each depth has a member already */
};

/* The string-escape function: writes S (LEN bytes, NUL allowed) to OUT as the inside of a JSON
 * string (no quotes) and returns the number of bytes written; OUT must hold 6 * LEN bytes.
 * '"' and '\' are escaped; the control characters below 0x20 become \b \f \n \r \t or
 * \u00XX (lower-case hex); '/' and everything else that is well-formed UTF-8 (RFC 3629) is
 * copied.  A byte that does not start a well-formed UTF-8 sequence (a stray continuation
 * byte, an overlong form, a surrogate, a code point above U+10FFFF, a cut sequence) becomes
 * U+FFFD, the replacement character (bytes EF BF BD), one per byte: names read from a core
 * are bytes, and the document must still be valid JSON. */
size_t jw_escape(char *out, const char *s, size_t len);

/* A writer to OUT; PRETTY as above, BASE the indent level the first value is written at. */
void jw_init(struct jw *w, FILE *out, bool pretty, int base);
/* Writes what is buffered to OUT (with a sink: commits it to the sink's text and gives the
 * room back).  Returns 0, or -1 when memory ran out while writing (the document is cut short
 * then); a write error is left in OUT's error flag (ferror). */
int jw_flush(struct jw *w);
/* Flushes and frees the buffer (with a sink: gives the room back); jw_flush's value. */
int jw_finish(struct jw *w);
/* From now on the writer writes into SINK's text (NULL: into its own buffer, flushed to OUT
 * again), after it flushed what it holds to where it went so far.  A flush with a sink
 * commits the bytes written and gives the room back.  Returns jw_flush's value. */
int jw_set_sink(struct jw *w, const struct jw_sink *sink);

void jw_begin_object(struct jw *w);
void jw_end_object(struct jw *w);
void jw_begin_array(struct jw *w);
void jw_end_array(struct jw *w);
/* The key of the next member of the innermost object. */
void jw_key(struct jw *w, const char *key);
/* The same for a KEY of LEN bytes that needs no escaping (printable ASCII other than '"' and
 * '\'), such as a key of the schema given as a literal: JW_KEY(w, "pc"). */
#define JW_KEY(w, lit) jw_key_plain((w), "" lit, sizeof(lit) - 1)
/* A string value; a NULL S is written as null. */
void jw_string(struct jw *w, const char *s);
void jw_string_len(struct jw *w, const char *s, size_t len);
/* A string S of LEN bytes that needs no escaping (as JW_KEY), written as it is: a hex number,
 * a token from a table of the program. */
void jw_string_plain(struct jw *w, const char *s, size_t len);
void jw_int(struct jw *w, int64_t v);
void jw_bool(struct jw *w, bool v);
void jw_null(struct jw *w);
/* Value V of json-c (NULL is null), written member by member as json-c would write it. */
void jw_json(struct jw *w, struct json_object *v);
/* Bytes written as they are, between values (the skeleton of a document written in parts). */
void jw_raw(struct jw *w, const char *s, size_t len);

/* For a caller that writes a whole value of the compact layout into room it took with
 * jw_room (a thread's frame, in one piece): each writes at O and returns the end.
 * jw_put_int: V in decimal, at most 20 bytes.  jw_put_quoted: S (LEN bytes) in quotes,
 * escaped as jw_escape does, at most 6 * LEN + 2 bytes. */
char *jw_put_int(char *o, int64_t v);
char *jw_put_quoted(char *o, const char *s, size_t len);

/* The inline parts of the writer, for its callers' loops (one frame after another).
 * jw_grow: room for N more bytes past W->len, as jw_room below, when the buffer has less:
 * the buffer flushed (at 64 KiB) or grown; with a sink, the bytes written committed and a
 * new room taken (the old room's address is not valid after).  NULL (W->nomem set) when
 * there is none. */
char *jw_grow(struct jw *w, size_t n);
void jw_indent(struct jw *w, int level);

/* Room for N more bytes in W's buffer; NULL (W->nomem set) when it cannot grow. */
static inline char *jw_room(struct jw *w, size_t n)
{
	if (__builtin_expect(w->len + n <= w->cap, 1))
		return w->buf + w->len;
	return jw_grow(w, n);
}

/* Before a value or a key: the comma and indent of a member of the innermost container. */
static inline void jw_member(struct jw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth == 0)
		return;
	bool had = w->had[w->depth - 1];
	w->had[w->depth - 1] = true;
	if (w->pretty) {
		if (had)
			jw_raw(w, ",", 1);
		jw_indent(w, w->base + w->depth);
	} else if (had) {
		char *o = jw_room(w, 1);
		if (o) {
			*o = ',';
			w->len++;
		}
	}
}

/* S (LEN bytes, nothing to escape) in quotes, then the byte AFTER unless it is 0. */
static inline void jw_quoted_plain(struct jw *w, const char *s, size_t len, char after)
{
	char *o = jw_room(w, len + 3);
	if (!o)
		return;
	o[0] = '"';
	memcpy(o + 1, s, len);
	o[len + 1] = '"';
	o[len + 2] = after;
	w->len += len + 2 + (after != 0);
}

static inline void jw_key_plain(struct jw *w, const char *key, size_t len)
{
	jw_member(w);
	jw_quoted_plain(w, key, len, ':');
	w->after_key = true;
}

#endif

/* The streaming JSON writer.  See jsonw.h. */
#include "jsonw.h"

#include <json.h>
#include <stdlib.h>
#include <string.h>

/* Bytes buffered before they go to the FILE. */
#define FLUSH_AT (64 * 1024)

/* Length of the well-formed UTF-8 sequence of at least two bytes at S (AVAIL bytes left),
 * else 0: RFC 3629, section 4 (no overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t utf8_seq(const unsigned char *s, size_t avail)
{
	unsigned c = s[0];
	size_t n;
	unsigned lo = 0x80, hi = 0xbf;   /* the second byte's range (RFC 3629's table) */
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		if (c == 0xe0)
			lo = 0xa0;               /* overlong */
		else if (c == 0xed)
			hi = 0x9f;               /* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		if (c == 0xf0)
			lo = 0x90;               /* overlong */
		else if (c == 0xf4)
			hi = 0x8f;               /* above U+10FFFF */
	} else
		return 0;
	if (n > avail || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* Bytes copied as they are: ASCII from the space up, other than '"' and '\' (JSON leaves
 * DEL as it is). */
static const bool plain[256] = {
	[0x20 ... 0x21] = true, [0x23 ... 0x5b] = true, [0x5d ... 0x7f] = true,
};

/* Copies the plain bytes at the start of *P (up to END) to *O, eight at a time where it can:
 * a word needs a closer look when one of its bytes is below 0x20 or above 0x7f, or is '"' or
 * '\'.  Both pointers are moved past the copy. */
static inline void copy_plain(const unsigned char **pp, const unsigned char *end, char **op)
{
	const unsigned char *p = *pp;
	char *o = *op;
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	while (end - p >= 8) {
		uint64_t x;
		memcpy(&x, p, 8);
		uint64_t below = (x - ones * 0x20) & ~x;            /* a byte < 0x20 (or >= 0x80) */
		uint64_t quote = x ^ (ones * '"'), bslash = x ^ (ones * '\\');
		uint64_t zero = ((quote - ones) & ~quote) | ((bslash - ones) & ~bslash);
		if ((below | zero | x) & highs)
			break;
		memcpy(o, &x, 8);
		p += 8;
		o += 8;
	}
	while (p < end && plain[*p])
		*o++ = (char)*p++;
	*pp = p;
	*op = o;
}

size_t jw_escape(char *out, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	char *o = out;
	while (p < end) {
		copy_plain(&p, end, &o);
		if (p == end)
			break;
		unsigned c = *p;
		if (c >= 0x80) {
			size_t n = utf8_seq(p, (size_t)(end - p));
			if (n) {
				memcpy(o, p, n);
				o += n;
				p += n;
			} else {
				memcpy(o, "\xef\xbf\xbd", 3);   /* U+FFFD */
				o += 3;
				p++;
			}
			continue;
		}
		*o++ = '\\';
		switch (c) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '\b': *o++ = 'b'; break;
		case '\f': *o++ = 'f'; break;
		case '\n': *o++ = 'n'; break;
		case '\r': *o++ = 'r'; break;
		case '\t': *o++ = 't'; break;
		default:                         /* the other controls below 0x20 */
			memcpy(o, "u00", 3);
			o[3] = hex[c >> 4];
			o[4] = hex[c & 15];
			o += 5;
		}
		p++;
	}
	return (size_t)(o - out);
}

void jw_init(struct jw *w, FILE *out, bool pretty, int base)
{
	memset(w, 0, offsetof(struct jw, had));
	w->out = out;
	w->pretty = pretty;
	w->base = base;
}

/* Room for N more bytes in the buffer; NULL (and nomem set) when it cannot grow. */
char *jw_grow(struct jw *w, size_t n)
{
	if (w->nomem)
		return NULL;
	if (w->sink) {
		/* the text grows in place: the bytes so far are committed, a larger room taken */
		if (w->buf)
			w->sink->commit(w->sink->ctx, w->len);
		w->flushes++;
		w->len = 0;
		w->buf = w->sink->room(w->sink->ctx, n, &w->cap);
		if (!w->buf) {
			w->cap = 0;
			w->nomem = true;
		}
		return w->buf;
	}
	if (w->len >= FLUSH_AT)
		jw_flush(w);
	if (w->len + n > w->cap) {
		size_t cap = w->cap ? w->cap : FLUSH_AT + 4096;
		while (cap < w->len + n)
			cap *= 2;
		char *b = realloc(w->buf, cap);
		if (!b) {
			w->nomem = true;
			return NULL;
		}
		w->buf = b;
		w->cap = cap;
	}
	return w->buf + w->len;
}

#define room jw_room

void jw_raw(struct jw *w, const char *s, size_t len)
{
	char *o = room(w, len);
	if (o) {
		memcpy(o, s, len);
		w->len += len;
	}
}

#define RAW(w, lit) jw_raw((w), lit, sizeof lit - 1)

int jw_flush(struct jw *w)
{
	w->flushes++;
	if (w->sink) {
		if (w->buf)
			w->sink->commit(w->sink->ctx, w->len);
		w->buf = NULL;
		w->cap = 0;
	} else if (w->len) {
		fwrite(w->buf, 1, w->len, w->out);   /* a write error stays in OUT's error flag */
	}
	w->len = 0;
	return w->nomem ? -1 : 0;
}

int jw_finish(struct jw *w)
{
	int rc = jw_flush(w);
	if (!w->sink)
		free(w->buf);
	w->buf = NULL;
	w->cap = 0;
	return rc;
}

int jw_set_sink(struct jw *w, const struct jw_sink *sink)
{
	int rc = jw_finish(w);
	w->sink = sink;
	return rc;
}

void jw_indent(struct jw *w, int level)
{
	char *o = room(w, 1 + 2 * (size_t)level);
	if (!o)
		return;
	*o = '\n';
	memset(o + 1, ' ', 2 * (size_t)level);
	w->len += 1 + 2 * (size_t)level;
}

#define member jw_member
#define indent jw_indent

static void begin(struct jw *w, char c)
{
	member(w);
	jw_raw(w, &c, 1);
	if (w->depth < JW_MAX_DEPTH)
		w->had[w->depth] = false;
	else
		w->nomem = true;             /* deeper than any document of doc/json.md */
	w->depth++;
}

static void end(struct jw *w, char c)
{
	w->depth--;
	if (w->pretty && w->depth < JW_MAX_DEPTH && w->had[w->depth])
		indent(w, w->base + w->depth);
	jw_raw(w, &c, 1);
}

void jw_begin_object(struct jw *w) { begin(w, '{'); }
void jw_end_object(struct jw *w) { end(w, '}'); }
void jw_begin_array(struct jw *w) { begin(w, '['); }
void jw_end_array(struct jw *w) { end(w, ']'); }

char *jw_put_quoted(char *o, const char *s, size_t len)
{
	*o = '"';
	size_t n = jw_escape(o + 1, s, len);
	o[n + 1] = '"';
	return o + n + 2;
}

static void quoted(struct jw *w, const char *s, size_t len)
{
	char *o = room(w, 6 * len + 2);
	if (o)
		w->len = (size_t)(jw_put_quoted(o, s, len) - w->buf);
}

void jw_key(struct jw *w, const char *key)
{
	member(w);
	quoted(w, key, strlen(key));
	RAW(w, ":");
	w->after_key = true;
}

void jw_string_len(struct jw *w, const char *s, size_t len)
{
	member(w);
	quoted(w, s, len);
}

void jw_string_plain(struct jw *w, const char *s, size_t len)
{
	member(w);
	jw_quoted_plain(w, s, len, 0);
}

void jw_string(struct jw *w, const char *s)
{
	if (s)
		jw_string_len(w, s, strlen(s));
	else
		jw_null(w);
}

char *jw_put_int(char *o, int64_t v)
{
	/* one or two digits without the loop: frame indexes and most counts */
	if (v >= 0 && v < 100) {
		if (v >= 10)
			*o++ = (char)('0' + v / 10);
		*o = (char)('0' + v % 10);
		return o + 1;
	}
	char digits[20];
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	int n = 0;
	do
		digits[n++] = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		*o++ = '-';
	for (int i = 0; i < n; i++)
		o[i] = digits[n - 1 - i];
	return o + n;
}

void jw_int(struct jw *w, int64_t v)
{
	member(w);
	char *o = room(w, 24);
	if (o)
		w->len = (size_t)(jw_put_int(o, v) - w->buf);
}

void jw_bool(struct jw *w, bool v)
{
	member(w);
	if (v)
		RAW(w, "true");
	else
		RAW(w, "false");
}

void jw_null(struct jw *w)
{
	member(w);
	RAW(w, "null");
}

void jw_json(struct jw *w, struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null:
		jw_null(w);
		break;
	case json_type_boolean:
		jw_bool(w, json_object_get_boolean(v));
		break;
	case json_type_int:
		jw_int(w, json_object_get_int64(v));
		break;
	case json_type_string:
		jw_string_len(w, json_object_get_string(v), (size_t)json_object_get_string_len(v));
		break;
	case json_type_object:
		jw_begin_object(w);
		json_object_object_foreach(v, key, val) {
			jw_key(w, key);
			jw_json(w, val);
		}
		jw_end_object(w);
		break;
	case json_type_array:
		jw_begin_array(w);
		for (size_t i = 0, n = json_object_array_length(v); i < n; i++)
			jw_json(w, json_object_array_get_idx(v, i));
		jw_end_array(w);
		break;
	default: {                           /* a double: json-c's own digits */
		member(w);
		const char *s = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
		jw_raw(w, s, strlen(s));
	}
	}
}

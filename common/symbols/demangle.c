/* Demangling through libiberty.  See demangle.h. */
#include "demangle.h"

#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

struct out {
	char *buf;
	size_t len, cap;
	bool failed;             /* out of memory or longer than CST_DEMANGLE_MAX_READABLE */
};

/* libiberty's demangle_callbackref: the readable name comes in pieces */
static void append(const char *piece, size_t n, void *arg)
{
	struct out *o = arg;
	if (o->failed)
		return;
	if (o->len + n + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 128;
		while (cap < o->len + n + 1)
			cap *= 2;
		char *b = cap <= CST_DEMANGLE_MAX_READABLE ? realloc(o->buf, cap) : NULL;
		if (!b) {
			o->failed = true;
			return;
		}
		o->buf = b;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, piece, n);
	o->len += n;
	o->buf[o->len] = 0;
}

char *cst_demangle(const char *raw)
{
	if (!cst_demangle_candidate(raw) || strnlen(raw, CST_DEMANGLE_MAX_MANGLED + 1) > CST_DEMANGLE_MAX_MANGLED)
		return NULL;
	/* the callback forms, which never call xmalloc (it exits the process when memory runs
	 * out); Rust's legacy names are Itanium names with a hash, so Rust is tried first, as
	 * c++filt does */
	int flags = DMGL_PARAMS | DMGL_ANSI;
	struct out o = { 0 };
	int ok = rust_demangle_callback(raw, flags | DMGL_RUST, append, &o);
	if (!ok || o.failed) {
		free(o.buf);
		o = (struct out){ 0 };
		ok = raw[1] == 'Z' && cplus_demangle_v3_callback(raw, flags, append, &o);
	}
	if (!ok || o.failed || !o.buf || !o.buf[0]) {
		free(o.buf);
		return NULL;
	}
	return o.buf;
}

size_t cst_demangle_unparamed_len(const char *readable)
{
	size_t n = strlen(readable), cut = n;
	int depth = 0;                   /* () and <> nesting */
	for (size_t i = 0; i < n; i++) {
		char c = readable[i];
		if (c == '(' || c == '<') {
			/* "operator()" and "operator<": the operator's name, not a list */
			if (i >= 8 && strncmp(readable + i - 8, "operator", 8) == 0)
				continue;
			if (depth == 0 && c == '(')
				cut = i;
			depth++;
		} else if ((c == ')' || c == '>') && depth > 0) {
			if (i >= 8 && strncmp(readable + i - 8, "operator", 8) == 0)
				continue;
			depth--;
		} else if (depth == 0 && c == ' ' && cut < i) {
			break;            /* " const", " [clone .cold]" after the last list */
		}
	}
	return cut;
}

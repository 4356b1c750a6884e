/* Strings that come from a core or from files it names (paths, symbol names, source file
 * names, package notes) shown in text output or on standard error.  A name may hold a
 * newline that forges a frame line, or a terminal escape sequence: every control character
 * is written as a C escape (\n, \t, \x1b), a backslash as \\, and a byte that is not part of
 * valid UTF-8 (or is a C1 control, U+0080 to U+009F) as \xNN; printable UTF-8 is kept.  JSON
 * output needs none of this: its writer escapes strings as RFC 8259 requires. */
#ifndef CST_ESCAPE_H
#define CST_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* True when S (NUL-terminated) has a byte that cst_escape changes. */
bool cst_needs_escape(const char *s);
/* The same for the LEN bytes at S (its strlen, known to the caller). */
bool cst_needs_escape_len(const char *s, size_t len);

/* Writes S escaped to OUT (CAP bytes, NUL-terminated, cut at a whole escape when it does not
 * fit).  Returns the length of the whole escaped string (bytes, without the NUL), which may
 * exceed CAP - 1: at most 4 times strlen(S). */
size_t cst_escape(char *out, size_t cap, const char *s);

/* Writes S escaped to F. */
void cst_fputs_escaped(const char *s, FILE *f);

/* S itself when nothing in it needs escaping, else S escaped into BUF (LEN bytes, cut at
 * a whole escape): for printf arguments. */
const char *cst_esc(const char *s, char *buf, size_t len);

/* A newly allocated escaped copy of S (S itself copied when nothing needs escaping), or NULL
 * when out of memory. */
char *cst_escape_dup(const char *s);

#endif

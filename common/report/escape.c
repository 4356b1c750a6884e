/* Escaping strings from a core for a terminal.  See escape.h. */
#include "escape.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at S that is neither a control nor a C1 control, else 0
 * (RFC 3629, section 4: no overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t utf8_printable(const unsigned char *s)
{
	unsigned c = s[0];
	if (c >= 0x20 && c < 0x7f)
		return 1;
	size_t n;
	uint32_t cp;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return n;
}

/* True when the 8 bytes at P are printable ASCII other than '\\' (0x20-0x7e): bytes that
 * need no escape, tested as one word.  A byte below 0x20, 0x7f, '\\' or a byte of 0x80 or
 * more sets a high bit in the word's tests (a borrow can set one for a plain byte too: that
 * word only goes to the exact test). */
static bool plain_word(const unsigned char *p)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	uint64_t x;
	memcpy(&x, p, 8);
	uint64_t below = (x - ones * 0x20) & ~x;
	uint64_t del = x ^ (ones * 0x7f), bslash = x ^ (ones * '\\');
	uint64_t zero = ((del - ones) & ~del) | ((bslash - ones) & ~bslash);
	return !((below | zero | x) & highs);
}

/* How many of the LEN bytes at P need no escape as plain_word finds them: whole words, and
 * the last few bytes as the word that ends with them. */
static size_t plain_words(const unsigned char *p, size_t len)
{
	size_t i = 0;
	while (len - i >= 8 && plain_word(p + i))
		i += 8;
	if (i < len && len - i < 8 && len >= 8 && plain_word(p + len - 8))
		i = len;
	return i;
}

bool cst_needs_escape(const char *s)
{
	return cst_needs_escape_len(s, strlen(s));
}

bool cst_needs_escape_len(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	while (p < end) {
		p += plain_words(p, (size_t)(end - p));
		/* the bytes no whole word covers (a name shorter than a word): printable ASCII
		 * other than '\\' one by one, without a call */
		while (p < end && *p >= 0x20 && *p < 0x7f && *p != '\\')
			p++;
		if (p == end)
			break;
		size_t n = *p == '\\' ? 0 : utf8_printable(p);
		if (n == 0)
			return true;
		p += n;
	}
	return false;
}

size_t cst_escape(char *out, size_t cap, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = 0;
	while (*p) {
		char esc[5];
		const char *piece = (const char *)p;
		size_t n = *p == '\\' ? 0 : utf8_printable(p), w = n;
		if (n == 0) {
			static const char hex[] = "0123456789abcdef";
			n = 1;
			piece = esc;
			switch (*p) {
			case '\\': memcpy(esc, "\\\\", 2); w = 2; break;
			case '\n': memcpy(esc, "\\n", 2); w = 2; break;
			case '\t': memcpy(esc, "\\t", 2); w = 2; break;
			case '\r': memcpy(esc, "\\r", 2); w = 2; break;
			default:
				esc[0] = '\\', esc[1] = 'x', esc[2] = hex[*p >> 4], esc[3] = hex[*p & 15];
				w = 4;
			}
		}
		if (cap > 0 && len + w < cap)
			memcpy(out + len, piece, w);
		else if (cap > 0 && len < cap)
			cap = len + 1;       /* cut here: no piece after one that did not fit */
		len += w;
		p += n;
	}
	if (cap > 0)
		out[len < cap ? len : cap - 1] = 0;
	return len;
}

void cst_fputs_escaped(const char *s, FILE *f)
{
	if (!cst_needs_escape(s)) {
		fputs(s, f);
		return;
	}
	char buf[1024];
	size_t need = cst_escape(buf, sizeof buf, s);
	if (need < sizeof buf) {
		fputs(buf, f);
		return;
	}
	char *big = malloc(need + 1);
	if (big) {
		cst_escape(big, need + 1, s);
		fputs(big, f);
		free(big);
	} else {
		fputs(buf, f);
	}
}

char *cst_escape_dup(const char *s)
{
	size_t need = cst_escape(NULL, 0, s);
	char *out = malloc(need + 1);
	if (out)
		cst_escape(out, need + 1, s);
	return out;
}

const char *cst_esc(const char *s, char *buf, size_t len)
{
	if (!cst_needs_escape(s))
		return s;
	cst_escape(buf, len, s);
	return buf;
}

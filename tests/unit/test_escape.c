/* cst_needs_escape (common/report/escape.c), which tests 8 bytes at a time: every byte value
 * that needs an escape (controls, 0x7f, '\\', bytes that do not make well-formed UTF-8) and
 * some that do not (printable ASCII, two- to four-byte UTF-8), at every position of strings
 * of 1 to 40 bytes of plain ASCII, against a byte-at-a-time reference. */
#include "escape.h"
#include "unit.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The reference: true when some byte of S is not printable ASCII other than '\\', or
 * starts no well-formed UTF-8 sequence of a printable character among the ones used here. */
static bool reference(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x20 && *p < 0x7f && *p != '\\')
			continue;
		if (p[0] == 0xc3 && p[1] == 0xa9)                      /* U+00E9 */
			p += 1;
		else if (p[0] == 0xe2 && p[1] == 0x82 && p[2] == 0xac) /* U+20AC */
			p += 2;
		else if (p[0] == 0xf0 && p[1] == 0x9f && p[2] == 0x98 && p[3] == 0x80) /* U+1F600 */
			p += 3;
		else
			return true;
	}
	return false;
}

int main(void)
{
	static const char *const pieces[] = {
		"\x01", "\t", "\n", "\x1f", "\x7f", "\\", "\x80", "\xc2\x85", "\xc3", "\xe2\x82",
		"\xed\xa0\x80", "\xf8", "\xff", " ", "~", "A", "\xc3\xa9", "\xe2\x82\xac",
		"\xf0\x9f\x98\x80",
	};
	unit_begin("escape_needs_escape_positions");
	unit_expect(!cst_needs_escape(""), "\"\" needs an escape");
	for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
		for (size_t len = 1; len <= 40; len++) {
			for (size_t at = 0; at < len; at++) {
				char s[64];
				memset(s, 'a' + (char)(at % 26), len);
				s[len] = 0;
				size_t n = strlen(pieces[k]);
				memcpy(s + at, pieces[k], n < len - at ? n : len - at);
				bool want = reference(s), got = cst_needs_escape(s);
				unit_expect(got == want, "piece %zu, %zu bytes, at %zu: got %d, want %d",
					    k, len, at, got, want);
			}
		}
	}
	unit_end();

	return unit_exit();
}

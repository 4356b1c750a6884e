/* Fuzz harness for the JSON writer's string escape (coredump/jsonw.h, jw_escape): the input
 * bytes, escaped and put in quotes, must parse with json-c's strict parser (UTF-8 checked) to
 * the input itself when it is well-formed UTF-8, and else to the input with each byte that is
 * not part of a well-formed sequence replaced by U+FFFD.  The well-formed sequences are found
 * by glibc's UTF-8 decoder (mbrtowc in the C.UTF-8 locale), a decoder apart from the
 * writer's.  A mismatch aborts (libFuzzer keeps the input). */
#include "fuzz_input.h"
#include "jsonw.h"

#include <json.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* What the string should read as, in OUT (3 * SIZE bytes); returns its length. */
static size_t expected(const uint8_t *s, size_t size, char *out)
{
	static locale_t utf8;
	if (!utf8 && !(utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0)))
		abort();
	locale_t old = uselocale(utf8);
	size_t o = 0;
	for (size_t i = 0; i < size;) {
		mbstate_t st;
		memset(&st, 0, sizeof st);
		wchar_t wc = 0;
		size_t n = s[i] ? mbrtowc(&wc, (const char *)s + i, size - i, &st) : 1;
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0 ||
		    (wc >= 0xd800 && wc <= 0xdfff) || wc > 0x10ffff) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		} else {
			memcpy(out + o, s + i, n);
			o += n;
			i += n;
		}
	}
	uselocale(old);
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *doc = malloc(6 * size + 2), *want = malloc(3 * size + 1);
	if (!doc || !want)
		abort();
	doc[0] = '"';
	size_t n = jw_escape(doc + 1, (const char *)data, size);
	doc[n + 1] = '"';
	struct json_tokener *tok = json_tokener_new();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	struct json_object *v = json_tokener_parse_ex(tok, doc, (int)(n + 2));
	if (!v || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != n + 2 || !json_object_is_type(v, json_type_string)) {
		fprintf(stderr, "jw_escape: json-c does not parse %.*s\n", (int)(n + 2), doc);
		abort();
	}
	size_t wlen = expected(data, size, want);
	if ((size_t)json_object_get_string_len(v) != wlen ||
	    memcmp(json_object_get_string(v), want, wlen) != 0) {
		fprintf(stderr, "jw_escape: %.*s reads back otherwise\n", (int)(n + 2), doc);
		abort();
	}
	if (getenv("CST_FUZZ_PRINT"))
		fprintf(stderr, "escaped: %.*s\n", (int)(n + 2), doc);
	json_object_put(v);
	json_tokener_free(tok);
	free(doc);
	free(want);
	return 0;
}

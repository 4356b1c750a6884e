/* CPU-variant implementations named as the function called.  See variant.h. */
#include "variant.h"

#include <stdio.h>
#include <string.h>

/* The words glibc's multiarch file names end in (sysdeps/x86_64/multiarch/ifunc-impl-list.c
 * lists the implementations): the first word after the function's name is an instruction-set
 * extension; the words after it say how the variant differs (unaligned loads, the
 * "rep movsb" path, transactional-memory-safe, ...).  Multi-word entries come first so that
 * "sse4_1" is not read as "sse4". */
static const char *const isa_words[] = {
	"sse4_1", "sse4_2", "sse2", "ssse3", "sse41", "sse42", "avx512", "avx2", "avx",
	"evex512", "evex", "erms", "fma3", "fma4", "fma", "generic", NULL,
};
static const char *const more_words[] = {
	"unaligned", "rtm", "movbe", "no_vzeroupper", "no_bsf", "erms", NULL,
};

/* Functions glibc exports with the "__" of their variants' names. */
static bool keeps_underscores(const char *base, size_t n)
{
	return (n > 4 && memcmp(base + n - 4, "_chk", 4) == 0) ||
	       (n == 8 && memcmp(base, "memcmpeq", 8) == 0);
}

/* The length of the word of WORDS that S starts with, followed by '_' or the end; 0 if none. */
static size_t word_at(const char *s, const char *const *words)
{
	for (size_t i = 0; words[i]; i++) {
		size_t n = strlen(words[i]);
		if (strncmp(s, words[i], n) == 0 && (s[n] == '_' || s[n] == 0))
			return n;
	}
	return 0;
}

/* True when S (after a '_') is an instruction-set word and more variant words to its end. */
static bool variant_suffix(const char *s)
{
	size_t n = word_at(s, isa_words);
	if (!n)
		return false;
	for (s += n; *s; s += n) {
		s++;                                   /* the '_' */
		if (!(n = word_at(s, isa_words)) && !(n = word_at(s, more_words)))
			return false;
	}
	return true;
}

bool cst_symbols_cpu_variant(const char *name, char *buf, size_t len)
{
	static const char *const prefixes[] = { "__GI___", "__ieee754_", "__", NULL };
	const char *base = NULL;
	for (size_t i = 0; prefixes[i] && !base; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			base = name + strlen(prefixes[i]);
	if (!base || !*base || *base == '_')
		return false;
	/* the first '_' after which the rest is a variant suffix ends BASE */
	for (const char *u = strchr(base + 1, '_'); u; u = strchr(u + 1, '_')) {
		if (!variant_suffix(u + 1))
			continue;
		size_t n = (size_t)(u - base);
		snprintf(buf, len, "%s%.*s", keeps_underscores(base, n) ? "__" : "", (int)n, base);
		return true;
	}
	return false;
}

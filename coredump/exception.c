/* The type of an uncaught C++ exception.  See exception.h for how and the layout's source. */
#include "exception.h"
#include "demangle.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GXX_PRIMARY_CLASS 0x474e5543432b2b00ull   /* "GNUCC++\0", as __cxa_throw sets it */
#define TYPE_BEFORE_HEADER 80                    /* exceptionType .. unwindHeader */
#define UNWIND_HEADER_SIZE 32                    /* sizeof (_Unwind_Exception) */
#define REFCOUNTED_PAD 16                        /* __cxa_refcounted_exception .. its exc */
#define SCAN_MAX (64 * 1024)
#define NAME_MAX_LEN 255

static bool read64(const struct cst_target *tg, uint64_t addr, uint64_t *v)
{
	return cst_target_read_word(tg, addr, 8, v) == 0;
}

/* A mangled type name: letters, digits, '_' and the '$' / '.' of some local names. */
static bool type_name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(('a' <= *s && *s <= 'z') || ('A' <= *s && *s <= 'Z') || ('0' <= *s && *s <= '9') ||
		      *s == '_' || *s == '$' || *s == '.'))
			return false;
	return true;
}

/* The type of the exception whose _Unwind_Exception is at U, into BUF. */
static bool type_at(const struct cst_target *tg, uint64_t u, char *buf, size_t len)
{
	uint64_t cls, type, name;
	if (u < TYPE_BEFORE_HEADER || !read64(tg, u, &cls) || cls != GXX_PRIMARY_CLASS ||
	    !read64(tg, u - TYPE_BEFORE_HEADER, &type) || !type || !read64(tg, type + 8, &name) || !name)
		return false;
	char raw[NAME_MAX_LEN + 3] = "_Z";
	size_t n = 0;
	for (; n < NAME_MAX_LEN; n++)
		if (cst_target_read(tg, name + n, raw + 2 + n, 1) < 0 || !raw[2 + n])
			break;
	if (n == NAME_MAX_LEN || raw[2 + n])
		return false;
	const char *mangled = raw[2] == '*' ? raw + 3 : raw + 2;   /* '*': a type of local linkage */
	if (!type_name_ok(mangled))
		return false;
	char full[NAME_MAX_LEN + 3];
	snprintf(full, sizeof full, "_Z%s", mangled);
	char *d = cst_demangle(full);
	snprintf(buf, len, "%s", d ? d : mangled);
	free(d);
	return true;
}

/* Candidate W as a pointer to each part of an exception. */
static bool try_pointer(const struct cst_target *tg, uint64_t w, char *buf, size_t len)
{
	if (w < 4096)
		return false;
	const uint64_t u[] = {
		w,                                                /* the _Unwind_Exception */
		w - UNWIND_HEADER_SIZE,                           /* the thrown object */
		w + TYPE_BEFORE_HEADER,                           /* the __cxa_exception */
		w + REFCOUNTED_PAD + TYPE_BEFORE_HEADER,          /* the __cxa_refcounted_exception */
	};
	for (size_t i = 0; i < sizeof u / sizeof *u; i++)
		if (type_at(tg, u[i], buf, len))
			return true;
	return false;
}

static bool is_throw(const struct bt_frame *b)
{
	const char *s = b->loc.symbol ? b->loc.symbol : b->loc.function;
	return s && (strcmp(s, "__cxa_throw") == 0 || strcmp(s, "__cxa_rethrow") == 0);
}

bool exc_thrown_type(const struct cst_target *tg, const struct bt_thread *t, char *buf, size_t len)
{
	if (!tg || !t->arch || strcmp(t->arch->name, "x86_64") != 0 || t->n == 0)
		return false;
	size_t k = 0;
	while (k < t->n && !is_throw(&t->frames[k]))
		k++;
	if (k == t->n)
		return false;
	for (size_t i = 0; i <= k; i++) {
		const struct cst_regs *r = &t->frames[i].f.regs;
		for (int n = 0; n < CST_NREGS; n++) {
			uint64_t v;
			if (cst_reg_get(r, n, &v) && try_pointer(tg, v, buf, len))
				return true;
		}
	}
	uint64_t lo = t->frames[0].f.sp, hi = k + 1 < t->n ? t->frames[k + 1].f.sp : 0;
	if (!lo || hi <= lo)
		hi = t->frames[k].f.sp + 512;
	if (hi <= lo || hi - lo > SCAN_MAX)
		hi = lo + SCAN_MAX;
	for (uint64_t a = lo & ~7ull; a + 8 <= hi; a += 8) {
		uint64_t w;
		if (!read64(tg, a, &w))
			break;
		if (try_pointer(tg, w, buf, len))
			return true;
	}
	return false;
}

/* Messages of the error table in error.h. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const messages[] = {
#define CST_ERR_MSG(name, msg) [name] = msg,
	CST_ERRORS(CST_ERR_MSG)
#undef CST_ERR_MSG
};

const char *cst_strerror(int code)
{
	if (code < 0)
		code = -code;
	if (code >= CST_E_COUNT)
		return "unknown error";
	return messages[code];
}

int cst_fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return code;
}

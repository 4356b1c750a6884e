/* Messages of the error table in error.h. */
#include "error.h"

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

/* The CLI's one-line messages on standard error (diag.h). */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>

#include "escape.h"

void cli_diag(const char *file, const char *fmt, ...)
{
	char shown[1024], msg[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* one fprintf: an unbuffered stderr still gets the line in one write */
	fprintf(stderr, "corestack: %s: %s\n", cst_esc(file, shown, sizeof shown), msg);
}

/* Result lines of the C unit tests (unit.h). */
#include "unit.h"

#include <stdarg.h>
#include <stdio.h>

static char name[200], why[400];
static bool failed_case, failed_any;

void unit_begin(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	failed_case = false;
	why[0] = 0;
}

bool unit_expect(bool cond, const char *fmt, ...)
{
	if (cond || failed_case)
		return cond;
	failed_case = true;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	return cond;
}

void unit_end(void)
{
	if (failed_case) {
		printf("FAIL %s: %s\n", name, why);
		failed_any = true;
	} else {
		printf("PASS %s\n", name);
	}
	fflush(stdout);
}

int unit_exit(void)
{
	return failed_any ? 1 : 0;
}

/* The separate debug file search path.  See debugdirs.h. */
#include "debugdirs.h"
#include "error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *added;              /* "DIR1:DIR2", NULL when none */
static char *path;               /* the whole list given to libdwfl */

int cst_debugdirs_add(const char *dir)
{
	if (dir[0] != '/' || strchr(dir, ':'))
		return -CST_E_INVAL;
	char *a, *p;
	if (asprintf(&a, "%s%s%s", added ? added : "", added ? ":" : "", dir) < 0)
		return -CST_E_NOMEM;
	/* the module's own directory and its .debug first, as libdwfl's default does */
	if (asprintf(&p, ":.debug:%s:/usr/lib/debug", a) < 0) {
		free(a);
		return -CST_E_NOMEM;
	}
	free(added);
	free(path);
	added = a;
	path = p;
	return 0;
}

char *cst_debugdirs_path(void)
{
	return path;
}

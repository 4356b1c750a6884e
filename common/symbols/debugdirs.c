/* The separate debug file search path.  See debugdirs.h. */
#include "debugdirs.h"
#include "error.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

bool cst_debugdirs_has_build_id(const uint8_t *id, size_t idlen)
{
	if (idlen < 3 || idlen > 64)
		return false;
	char name[sizeof "/.build-id/xx/" + 2 * 64 + sizeof ".debug"];
	strcpy(name, "/.build-id/");
	cst_hex(id, 1, name + strlen(name));
	strcat(name, "/");
	strcpy(cst_hex(id + 1, idlen - 1, name + strlen(name)) + 2 * (idlen - 1), ".debug");
	size_t namelen = strlen(name);
	/* libdwfl's default list when none was given */
	for (const char *p = path ? path : ":.debug:/usr/lib/debug"; p;) {
		const char *dir = p, *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		p = end ? end + 1 : NULL;
		if (len > 0 && (*dir == '+' || *dir == '-'))
			dir++, len--;
		char file[PATH_MAX];
		struct stat st;
		if (len == 0 || *dir != '/' || len + namelen >= sizeof file)
			continue;
		memcpy(file, dir, len);
		memcpy(file + len, name, namelen + 1);
		if (stat(file, &st) == 0)
			return true;
	}
	return false;
}

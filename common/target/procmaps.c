/* /proc/PID/maps.  See procmaps.h. */
#include "procmaps.h"
#include "error.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cst_procmaps_free(struct cst_procmap *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(m[i].name);
	free(m);
}

int cst_procmaps_read(pid_t pid, struct cst_procmap **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -CST_E_NOENT;
	struct cst_procmap *v = NULL;
	size_t nv = 0, cap = 0;
	char *line = NULL;
	size_t linecap = 0;
	ssize_t len;
	int rc = 0;
	while ((len = getline(&line, &linecap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = 0;
		/* start-end perms offset major:minor inode [name] (proc(5)) */
		struct cst_procmap m = { 0 };
		char perms[8];
		int at = -1;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n", &m.start, &m.end,
			   perms, &m.offset, &m.dev_major, &m.dev_minor, &m.ino, &at) < 7 || at < 0)
			continue;
		m.exec = strchr(perms, 'x') != NULL;
		if (nv == cap) {
			size_t c = cap ? 2 * cap : 64;
			struct cst_procmap *p = realloc(v, c * sizeof *p);
			if (!p) {
				rc = -CST_E_NOMEM;
				break;
			}
			v = p;
			cap = c;
		}
		if (!(m.name = strdup(line + at))) {
			rc = -CST_E_NOMEM;
			break;
		}
		v[nv++] = m;
	}
	free(line);
	fclose(f);
	if (rc < 0) {
		cst_procmaps_free(v, nv);
		return rc;
	}
	*out = v;
	*n = nv;
	return 0;
}

bool cst_procmap_anon_code(const struct cst_procmap *m)
{
	return m->exec && m->ino == 0 && (!m->name[0] || strncmp(m->name, "[anon:", 6) == 0);
}

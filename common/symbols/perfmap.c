/* perf map files.  See perfmap.h. */
#include "perfmap.h"
#include "error.h"
#include "openfile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOOK_BACK 64             /* earlier entries examined for overlapping code */

struct entry {
	uint64_t start, end;     /* target addresses [start, end) */
	uint32_t seq;            /* line order: a later line wins */
	uint32_t name;           /* offset into the name pool */
};

struct cst_perfmap {
	char *path;
	struct entry *v;
	uint64_t *starts;        /* v[i].start, for the search */
	size_t n, cap;
	char *pool;
	size_t pool_len, pool_cap;
	size_t bad;
	bool truncated;
};

/* Hex number at *P ("0x" optional, 1 to 16 digits) followed by a blank; advances *P. */
static bool hex_field(const char **p, uint64_t *out)
{
	const char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	uint64_t v = 0;
	int digits = 0;
	for (;; s++, digits++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 :
			*s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : -1;
		if (d < 0)
			break;
		if (digits == 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (digits == 0 || (*s != ' ' && *s != '\t'))
		return false;
	*p = s;
	*out = v;
	return true;
}

static int add(struct cst_perfmap *m, uint64_t start, uint64_t size, const char *name, size_t len)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 1024;
		struct entry *v = realloc(m->v, cap * sizeof *v);
		if (!v)
			return -CST_E_NOMEM;
		m->v = v;
		m->cap = cap;
	}
	if (m->pool_len + len + 1 > m->pool_cap) {
		size_t cap = m->pool_cap ? 2 * m->pool_cap : 65536;
		while (cap < m->pool_len + len + 1)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -CST_E_LIMIT;
		char *p = realloc(m->pool, cap);
		if (!p)
			return -CST_E_NOMEM;
		m->pool = p;
		m->pool_cap = cap;
	}
	struct entry *e = &m->v[m->n];
	e->start = start;
	e->end = start + size;
	e->seq = (uint32_t)m->n;
	e->name = (uint32_t)m->pool_len;
	/* control characters (a terminal escape in a hostile file) are shown as '?' */
	for (size_t i = 0; i < len; i++)
		m->pool[m->pool_len + i] = (uint8_t)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i];
	m->pool[m->pool_len + len] = 0;
	m->pool_len += len + 1;
	m->n++;
	return 0;
}

/* Parses one line (without its newline); returns 0 (kept or counted bad) or a negative
 * code. */
static int parse_line(struct cst_perfmap *m, const char *line, size_t len)
{
	uint64_t start, size;
	const char *p = line;
	if (!hex_field(&p, &start) || !hex_field(&p, &size) || size == 0 || start + size < start) {
		m->bad++;
		return 0;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	size_t nlen = len - (size_t)(p - line);
	while (nlen > 0 && (p[nlen - 1] == '\r' || p[nlen - 1] == ' '))
		nlen--;
	if (nlen == 0) {
		m->bad++;
		return 0;
	}
	if (nlen > CST_PERFMAP_MAX_NAME)
		nlen = CST_PERFMAP_MAX_NAME;
	return add(m, start, size, p, nlen);
}

/* Reads F past the next newline through BUF (CAP bytes), up to byte offset LIMIT of the
 * file: a line without a newline must not make us read a whole file.  The offset counts, not
 * the string lengths: a line of NUL bytes is as long as any other. */
static void skip_line(FILE *f, char *buf, size_t cap, uint64_t limit)
{
	off_t at;
	while ((at = ftello(f)) >= 0 && (uint64_t)at <= limit && fgets(buf, (int)cap, f)) {
		size_t len = strlen(buf);
		if (len > 0 && buf[len - 1] == '\n')
			break;
	}
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int cst_perfmap_open(const char *path, bool check_owner, struct cst_perfmap **out, char *err, size_t errlen)
{
	*out = NULL;
	struct stat st;
	int fd = cst_open_regular(path, check_owner ? O_NOFOLLOW : 0, &st, err, errlen);
	if (fd < 0)
		return fd;
	if (check_owner && st.st_uid != geteuid() && st.st_uid != 0) {
		close(fd);
		return cst_fail(err, errlen, -CST_E_PERM, "owned by uid %u, not by this user or root: ignored",
				(unsigned)st.st_uid);
	}
	FILE *f = fdopen(fd, "r");
	struct cst_perfmap *m = calloc(1, sizeof *m);
	char *line = malloc(CST_PERFMAP_MAX_NAME + 128), *tail = malloc(CST_PERFMAP_MAX_NAME + 128);
	int rc = 0;
	if (!f || !m || !line || !tail || !(m->path = strdup(path))) {
		rc = cst_fail(err, errlen, -CST_E_NOMEM, "out of memory");
		goto out;
	}
	size_t cap = CST_PERFMAP_MAX_NAME + 128;
	while (fgets(line, (int)cap, f)) {
		size_t len = strlen(line);
		bool whole = len > 0 && line[len - 1] == '\n';
		if (whole)
			line[--len] = 0;
		else                     /* a long line: its tail is dropped (read elsewhere:
					  * LINE's head is parsed below) */
			skip_line(f, tail, cap, CST_PERFMAP_MAX_BYTES);
		off_t at = ftello(f);
		if (at < 0 || (uint64_t)at > CST_PERFMAP_MAX_BYTES || m->n >= CST_PERFMAP_MAX_ENTRIES) {
			m->truncated = true;
			break;
		}
		if ((rc = parse_line(m, line, len)) < 0) {
			if (rc == -CST_E_LIMIT) {
				m->truncated = true;
				rc = 0;
				break;
			}
			cst_fail(err, errlen, rc, "out of memory");
			goto out;
		}
	}
	if (ferror(f)) {
		rc = cst_fail(err, errlen, -CST_E_IO, "read error");
		goto out;
	}
	if (m->n > 1)
		qsort(m->v, m->n, sizeof *m->v, cmp_entry);
	m->starts = malloc((m->n ? m->n : 1) * sizeof *m->starts);
	if (!m->starts) {
		rc = cst_fail(err, errlen, -CST_E_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < m->n; i++)
		m->starts[i] = m->v[i].start;
	*out = m;
	m = NULL;
out:
	if (f)
		fclose(f);
	else
		close(fd);
	free(line);
	free(tail);
	cst_perfmap_close(m);
	return rc;
}

void cst_perfmap_close(struct cst_perfmap *m)
{
	if (!m)
		return;
	free(m->path);
	free(m->v);
	free(m->starts);
	free(m->pool);
	free(m);
}

const char *cst_perfmap_lookup(const struct cst_perfmap *m, uint64_t addr, uint64_t *start)
{
	if (!m)
		return NULL;
	size_t lo = cst_upper_bound(m->starts, m->n, addr);
	const struct entry *best = NULL;
	for (size_t i = lo, k = 0; i > 0 && k < LOOK_BACK; i--, k++) {
		const struct entry *e = &m->v[i - 1];
		if (addr < e->end && (!best || e->seq > best->seq))
			best = e;
	}
	if (!best)
		return NULL;
	if (start)
		*start = best->start;
	return m->pool + best->name;
}

const char *cst_perfmap_path(const struct cst_perfmap *m) { return m->path; }
size_t cst_perfmap_entries(const struct cst_perfmap *m) { return m->n; }
size_t cst_perfmap_bad_lines(const struct cst_perfmap *m) { return m->bad; }
bool cst_perfmap_truncated(const struct cst_perfmap *m) { return m->truncated; }

/* An fpbt answer as a script of gdb's user-defined commands.  See answer.h. */
#include "answer.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Caps: commands ever defined per plugin instance, the text of a line command (and of one
 * inline `printf`), the lines of a thread command and of all thread commands together. */
#define MAX_LINE_CMDS 4096
#define MAX_LINE_LEN 1024
#define MAX_THREAD_CMDS 4096
#define MAX_THREAD_LINES 512
#define MAX_ALL_THREAD_LINES 262144
#define NBUCKETS 8192              /* a power of two, at least the commands */
#define NO_NUMBER UINT32_MAX

/* A line command: the text after the frame number (NUMBERED) or the whole line, without
 * its '\n'.  NARROW: a one-digit number, which the line pads with a space. */
struct line_cmd {
	char *text;
	size_t len;
	bool numbered, narrow;
	uint32_t hash;
	unsigned id;
	int next;                  /* the next command of its bucket, or -1 */
};

/* A thread command: its lines as pairs of a line command's id and the frame number (or
 * NO_NUMBER). */
struct thread_cmd {
	uint32_t *key;
	size_t n;                  /* pairs */
	uint32_t hash;
	unsigned id;
	int next;
};

struct cst_answer_cache {
	unsigned long prefix;
	struct line_cmd lines[MAX_LINE_CMDS];
	size_t nlines, lines_kept;           /* commands, those confirmed by an ack */
	unsigned line_ids;                   /* ids given out, confirmed or not */
	struct thread_cmd threads[MAX_THREAD_CMDS];
	size_t nthreads, threads_kept;
	unsigned thread_ids;
	size_t thread_lines;                 /* lines of every thread command given out */
	unsigned long taught;                /* the SEQ whose script defines the unconfirmed ones */
	int line_bucket[NBUCKETS], thread_bucket[NBUCKETS];
};

/* A line of the answer as it is written: a line command with its number, else inline. */
struct item {
	const char *p;
	size_t len;                /* without the '\n' */
	bool nl;                   /* ends in '\n' */
	int cmd;                   /* index of its line command, or -1 */
	uint32_t number;
};

static uint32_t hash_bytes(uint32_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 16777619u;          /* FNV-1a */
	return h;
}

struct cst_answer_cache *cst_answer_cache_new(unsigned long prefix)
{
	struct cst_answer_cache *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->prefix = prefix;
	memset(c->line_bucket, -1, sizeof c->line_bucket);
	memset(c->thread_bucket, -1, sizeof c->thread_bucket);
	return c;
}

void cst_answer_cache_free(struct cst_answer_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nlines; i++)
		free(c->lines[i].text);
	for (size_t i = 0; i < c->nthreads; i++)
		free(c->threads[i].key);
	free(c);
}

void cst_answer_ack(struct cst_answer_cache *c, unsigned long ack)
{
	if (ack == c->taught) {
		c->lines_kept = c->nlines;
		c->threads_kept = c->nthreads;
		return;
	}
	/* the newest commands head their buckets: taken off in reverse order */
	while (c->nthreads > c->threads_kept) {
		struct thread_cmd *t = &c->threads[--c->nthreads];
		c->thread_bucket[t->hash & (NBUCKETS - 1)] = t->next;
		free(t->key);
	}
	while (c->nlines > c->lines_kept) {
		struct line_cmd *l = &c->lines[--c->nlines];
		c->line_bucket[l->hash & (NBUCKETS - 1)] = l->next;
		free(l->text);
	}
}

/* True when a printf format can carry the N bytes at P: no control character. */
static bool printable(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			return false;
	return true;
}

/* Splits the line IT into its frame number and the text after it, as bt_print_frame_text
 * writes it ("#N", a space when N has one digit, the rest), when it is such a line. */
static bool numbered(const struct item *it, uint32_t *number, bool *narrow, size_t *rest)
{
	const char *p = it->p;
	size_t d = 0;
	uint32_t n = 0;
	if (it->len < 2 || p[0] != '#')
		return false;
	while (1 + d < it->len && p[1 + d] >= '0' && p[1 + d] <= '9' && d < 7)
		n = n * 10 + (uint32_t)(p[1 + d++] - '0');
	if (d == 0 || (p[1] == '0' && d > 1) || (1 + d < it->len && p[1 + d] >= '0' && p[1 + d] <= '9'))
		return false;
	*narrow = d == 1;
	if (*narrow && (it->len < 3 || p[2] != ' '))
		return false;
	*number = n;
	*rest = 1 + d + (*narrow ? 1 : 0);
	return true;
}

/* The line command for IT, found or added (within the caps), or -1. */
static int line_cmd(struct cst_answer_cache *c, struct item *it)
{
	uint32_t number = NO_NUMBER;
	bool narrow = false;
	size_t rest = 0;
	bool num = numbered(it, &number, &narrow, &rest);
	const char *text = it->p + rest;
	size_t len = it->len - rest;
	it->number = number;
	if (!it->nl || len > MAX_LINE_LEN || !printable(text, len))
		return -1;
	uint32_t h = hash_bytes(2166136261u, text, len);
	h = hash_bytes(h, (const char[]){ (char)num, (char)narrow }, 2);
	for (int i = c->line_bucket[h & (NBUCKETS - 1)]; i >= 0; i = c->lines[i].next) {
		const struct line_cmd *l = &c->lines[i];
		if (l->hash == h && l->len == len && l->numbered == num && l->narrow == narrow &&
		    memcmp(l->text, text, len) == 0)
			return i;
	}
	if (c->line_ids >= MAX_LINE_CMDS)
		return -1;
	char *copy = malloc(len + 1);
	if (!copy)
		return -1;
	memcpy(copy, text, len);
	copy[len] = 0;
	int i = (int)c->nlines++;
	c->lines[i] = (struct line_cmd){ .text = copy, .len = len, .numbered = num, .narrow = narrow,
					 .hash = h, .id = c->line_ids++, .next = c->line_bucket[h & (NBUCKETS - 1)] };
	c->line_bucket[h & (NBUCKETS - 1)] = i;
	return i;
}

/* The thread command for the N lines of ITEMS (each with a line command), found or added, or -1. */
static int thread_cmd(struct cst_answer_cache *c, const struct item *items, size_t n)
{
	if (n == 0 || n > MAX_THREAD_LINES)
		return -1;
	uint32_t *key = malloc(2 * n * sizeof *key);
	if (!key)
		return -1;
	for (size_t i = 0; i < n; i++) {
		key[2 * i] = c->lines[items[i].cmd].id;
		key[2 * i + 1] = items[i].number;
	}
	uint32_t h = hash_bytes(2166136261u, key, 2 * n * sizeof *key);
	for (int i = c->thread_bucket[h & (NBUCKETS - 1)]; i >= 0; i = c->threads[i].next) {
		const struct thread_cmd *t = &c->threads[i];
		if (t->hash == h && t->n == n && memcmp(t->key, key, 2 * n * sizeof *key) == 0) {
			free(key);
			return i;
		}
	}
	if (c->thread_ids >= MAX_THREAD_CMDS || c->thread_lines + n > MAX_ALL_THREAD_LINES) {
		free(key);
		return -1;
	}
	int i = (int)c->nthreads++;
	c->threads[i] = (struct thread_cmd){ .key = key, .n = n, .hash = h, .id = c->thread_ids++,
					     .next = c->thread_bucket[h & (NBUCKETS - 1)] };
	c->thread_bucket[h & (NBUCKETS - 1)] = i;
	c->thread_lines += n;
	return i;
}

/* `printf "FORMAT"` for the N bytes at P (printable), then "\n" when NL: the format's
 * escapes (gdb's format strings know \\ and \" but no octal), "%%" for '%', and "%c" with
 * the argument 36 for the '$' of "$argN" and "$argc", which gdb substitutes in the lines of a
 * user-defined command before it runs them.  LEAD comes first, unescaped. */
static void put_printf(FILE *f, const char *lead, const char *p, size_t n, bool nl)
{
	unsigned dollars = 0;
	fputs("printf \"", f);
	fputs(lead, f);
	for (size_t i = 0; i < n; i++) {
		char ch = p[i];
		if (ch == '\\' || ch == '"')
			fputc('\\', f);
		if (ch == '%') {
			fputs("%%", f);
		} else if (ch == '$' && n - i > 4 && memcmp(p + i + 1, "arg", 3) == 0 &&
			   ((p[i + 4] >= '0' && p[i + 4] <= '9') || p[i + 4] == 'c')) {
			fputs("%c", f);
			dollars++;
		} else {
			fputc(ch, f);
		}
	}
	fputs(nl ? "\\n\"" : "\"", f);
	while (dollars--)
		fputs(", 36", f);
	fputc('\n', f);
}

void cst_answer_echo(FILE *f, const char *text)
{
	fputs("echo ", f);
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\\' && p[1])
			fputs("\\\\", f);
		else if (*p == ' ' && (p == (const unsigned char *)text || !p[1]))
			fputs("\\ ", f);
		else if (*p < 0x20 || *p >= 0x7f || *p == '$' || *p == '\\')
			fprintf(f, "\\%03o", *p);
		else
			fputc(*p, f);
	}
	fputc('\n', f);
}

/* A line of the answer written inline (no command for it): a long one as several `printf`
 * commands of MAX_LINE_LEN bytes at most, as gdb copies a format string onto its stack
 * (alloca in gdbsupport/format.cc): a name of megabytes would overflow it. */
static void put_inline(FILE *f, const struct item *it)
{
	if (printable(it->p, it->len)) {
		size_t done = 0;
		do {
			size_t n = it->len - done < MAX_LINE_LEN ? it->len - done : MAX_LINE_LEN;
			put_printf(f, "", it->p + done, n, it->nl && done + n == it->len);
			done += n;
		} while (done < it->len);
		return;
	}
	char *s = strndup(it->p, it->len + (it->nl ? 1 : 0));
	if (s)
		cst_answer_echo(f, s);
	free(s);
}

static void put_call(FILE *f, const struct cst_answer_cache *c, const struct item *it)
{
	fprintf(f, "_cs%lu_%u", c->prefix, c->lines[it->cmd].id);
	if (c->lines[it->cmd].numbered)
		fprintf(f, " %u", (unsigned)it->number);
	fputc('\n', f);
}

void cst_answer_script(struct cst_answer_cache *c, FILE *f, unsigned long seq, const char *text)
{
	size_t n = 0, cap = 0;
	struct item *items = NULL;
	bool all = true;                     /* every line has its command */
	size_t old_lines = c->nlines, old_threads = c->nthreads;
	for (const char *p = text; *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (n == cap) {
			struct item *bigger = realloc(items, (cap = cap ? 2 * cap : 64) * sizeof *items);
			if (!bigger) {
				free(items);
				fprintf(f, "if $_corestack_seq == %lu\n", seq);
				cst_answer_echo(f, "corestack: out of memory\n");
				fputs("else\n_corestack_idle\nend\n", f);
				return;
			}
			items = bigger;
		}
		struct item *it = &items[n++];
		*it = (struct item){ .p = p, .len = len, .nl = e != NULL };
		it->cmd = line_cmd(c, it);
		all = all && it->cmd >= 0;
		p += len + (e ? 1 : 0);
	}
	int thread = all ? thread_cmd(c, items, n) : -1;
	bool teach = c->nlines > old_lines || c->nthreads > old_threads;

	if (teach || thread < 0)
		fprintf(f, "if $_corestack_seq == %lu\n", seq);
	for (size_t i = old_lines; i < c->nlines; i++) {
		const struct line_cmd *l = &c->lines[i];
		fprintf(f, "define _cs%lu_%u\n", c->prefix, l->id);
		put_printf(f, !l->numbered ? "" : l->narrow ? "#$arg0 " : "#$arg0", l->text, l->len, true);
		fputs("end\n", f);
	}
	if (thread >= 0 && (size_t)thread >= old_threads) {
		fprintf(f, "define _cs%lu_t%u\n", c->prefix, c->threads[thread].id);
		for (size_t i = 0; i < n; i++)
			put_call(f, c, &items[i]);
		fputs("end\n", f);
	}
	if (teach) {
		fprintf(f, "set $_corestack_ack = %lu\n", seq);
		c->taught = seq;
	}
	if (thread >= 0) {
		if (teach)
			fputs("end\n", f);
		fprintf(f, "_corestack_do %lu _cs%lu_t%u\n", seq, c->prefix, c->threads[thread].id);
	} else {
		for (size_t i = 0; i < n; i++) {
			if (items[i].cmd >= 0)
				put_call(f, c, &items[i]);
			else
				put_inline(f, &items[i]);
		}
		fputs("else\n_corestack_idle\nend\n", f);
	}
	free(items);
}

/* Many cores in one run: output framing, signatures, grouping, summary.  See triage.h. */
#include "triage.h"
#include "error.h"
#include "escape.h"

#include <json.h>
#include <stdlib.h>
#include <string.h>

#define C_RESET "\033[0m"
#define C_BOLD  "\033[1m"
#define C_HASH  "\033[36m"
#define TIDS_SHOWN 16              /* thread ids listed in a group's header */

/* Threads of one core whose stacks print the same. */
struct tr_group {
	char *key;                 /* the frames as printed without colour and -v details */
	char *display;             /* the first thread as printed, header included */
	size_t header_len;         /* length of display's "\nThread N ...\n" header */
	int *tids;
	size_t n;
	bool crashed;
};

/* One distinct signature over the run. */
struct tr_sig_count {
	char hash[SIG_HASH_LEN + 1];
	char *text;
	char **cores;
	size_t n;
	size_t seen;               /* order of first sighting */
};

/* The next document's stream: written thread by thread in every JSON output but --summary's
 * (which prints no core's document). */
static void stream_setup(struct triage *tr)
{
	tr->streaming = tr->json && !tr->o->summary;
	tr->stream = (struct bt_json_stream){
		.out = tr->out, .compact = tr->o->json_lines, .in_array = tr->array,
		.lead = tr->array ? (tr->emitted ? ",\n" : "[\n") : NULL,
	};
}

void tr_init(struct triage *tr, const struct triage_options *o, FILE *out, bool json, int ncores,
	     bool progress_ok)
{
	memset(tr, 0, sizeof *tr);
	tr->o = o;
	tr->out = out;
	tr->json = json || o->json_lines;
	tr->ncores = ncores;
	tr->array = tr->json && !o->json_lines && ncores > 1 && !o->summary;
	tr->progress = progress_ok && ncores > 1;
	stream_setup(tr);           /* a live process has no tr_core_begin */
}

bool tr_quiet(const struct triage *tr)
{
	return tr->o->summary || (tr->o->signature && !tr->json);
}

void tr_core_begin(struct triage *tr, int i, const char *path)
{
	tr->index = i;
	stream_setup(tr);
	if (tr->progress) {
		char shown[1024];
		fprintf(stderr, "\033[K[%d/%d] %s\r", i + 1, tr->ncores, cst_esc(path, shown, sizeof shown));
		fflush(stderr);
	}
	if (!tr->json && !tr_quiet(tr) && i > 0)
		fputc('\n', tr->out);   /* a blank line between the blocks of two cores */
}

/* Prints T with options BO into a new string; *HEADER_LEN receives the length of the thread's
 * header line (with its leading newline).  NULL when memory ran out. */
static char *render(const struct bt_thread *t, const struct bt_options *bo, size_t *header_len)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return NULL;
	bt_print_thread_text(m, t, bo);
	if (fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	if (header_len) {
		char *nl = strchr(buf + 1, '\n');
		*header_len = nl ? (size_t)(nl + 1 - buf) : len;
	}
	return buf;
}

static int remember(struct triage *tr, const struct bt_thread *t, const struct bt_options *bo)
{
	struct bt_options plain = { .verbose = false, .color = false, .lines = bo->lines };
	size_t hl;
	char *full = render(t, &plain, &hl);
	if (!full)
		return -1;
	const char *key = full + hl;
	for (size_t i = 0; i < tr->ngroups; i++) {
		struct tr_group *g = &tr->groups[i];
		if (!g->crashed && !t->crashed && strcmp(g->key, key) == 0) {
			int *p = realloc(g->tids, (g->n + 1) * sizeof *p);
			if (!p) {
				free(full);
				return -1;
			}
			g->tids = p;
			g->tids[g->n++] = t->tid;
			free(full);
			return 0;
		}
	}
	struct tr_group *p = realloc(tr->groups, (tr->ngroups + 1) * sizeof *p);
	if (!p) {
		free(full);
		return -1;
	}
	tr->groups = p;
	struct tr_group *g = &tr->groups[tr->ngroups];
	memset(g, 0, sizeof *g);
	g->key = strdup(key);
	g->display = render(t, bo, &g->header_len);
	g->tids = malloc(sizeof *g->tids);
	free(full);
	if (!g->key || !g->display || !g->tids) {
		free(g->key);
		free(g->display);
		free(g->tids);
		return -1;
	}
	g->tids[0] = t->tid;
	g->n = 1;
	g->crashed = t->crashed;
	tr->ngroups++;
	return 0;
}

int tr_thread(struct triage *tr, const struct bt_thread *t, bool first, const struct cst_target *tg,
	      const struct bt_options *bo)
{
	if (first && !tr->have_sig) {
		if (sig_make(t, &tr->o->sig, tg, &tr->sig) < 0)
			return -1;
		tr->have_sig = true;
	}
	if (tr_quiet(tr))
		return 0;
	if (tr->o->group) {
		if (remember(tr, t, bo) < 0)
			return -1;
		return !tr->json && t->crashed;   /* the crashed thread is printed at once */
	}
	return !tr->json;
}

/* Groups by count, largest first; equal counts in the order the threads came. */
static int by_count(const void *a, const void *b)
{
	const struct tr_group *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return x->tids[0] < y->tids[0] ? -1 : x->tids[0] > y->tids[0];
}

static void sort_groups(struct triage *tr)
{
	if (tr->ngroups > 1)
		qsort(tr->groups, tr->ngroups, sizeof *tr->groups, by_count);
}

static void print_groups(struct triage *tr, const struct bt_options *bo)
{
	sort_groups(tr);
	for (size_t i = 0; i < tr->ngroups; i++) {
		struct tr_group *g = &tr->groups[i];
		if (g->crashed)
			continue;
		if (g->n == 1) {
			fputs(g->display, tr->out);
			continue;
		}
		fprintf(tr->out, bo->color ? "\n" C_BOLD "%zu threads:" C_RESET : "\n%zu threads:", g->n);
		for (size_t k = 0; k < g->n && k < TIDS_SHOWN; k++)
			fprintf(tr->out, " %d", g->tids[k]);
		if (g->n > TIDS_SHOWN)
			fprintf(tr->out, " ... (%zu more)", g->n - TIDS_SHOWN);
		fputc('\n', tr->out);
		fputs(g->display + g->header_len, tr->out);
	}
}

static struct json_object *groups_json(struct triage *tr)
{
	sort_groups(tr);
	struct json_object *a = json_object_new_array();
	for (size_t i = 0; i < tr->ngroups; i++) {
		struct json_object *g = json_object_new_object();
		json_object_object_add(g, "count", json_object_new_int((int)tr->groups[i].n));
		struct json_object *tids = json_object_new_array();
		for (size_t k = 0; k < tr->groups[i].n; k++)
			json_object_array_add(tids, json_object_new_int(tr->groups[i].tids[k]));
		json_object_object_add(g, "tids", tids);
		json_object_array_add(a, g);
	}
	return a;
}

static void free_groups(struct triage *tr)
{
	for (size_t i = 0; i < tr->ngroups; i++) {
		free(tr->groups[i].key);
		free(tr->groups[i].display);
		free(tr->groups[i].tids);
	}
	free(tr->groups);
	tr->groups = NULL;
	tr->ngroups = 0;
}

static void print_json(struct triage *tr, struct json_object *doc)
{
	if (tr->o->json_lines) {
		bt_json_write(tr->out, doc, true);
		fputc('\n', tr->out);
	} else if (tr->array) {
		fputs(tr->emitted ? ",\n" : "[\n", tr->out);
		bt_json_write(tr->out, doc, false);
	} else {
		bt_json_print(tr->out, doc);
	}
	tr->emitted++;
	fflush(tr->out);
}

static void count_sig(struct triage *tr, const char *path)
{
	struct tr_sig_count *c = NULL;
	for (size_t i = 0; i < tr->ncounts; i++)
		if (strcmp(tr->counts[i].hash, tr->sig.hash) == 0)
			c = &tr->counts[i];
	if (!c) {
		struct tr_sig_count *p = realloc(tr->counts, (tr->ncounts + 1) * sizeof *p);
		if (!p)
			goto nomem;
		tr->counts = p;
		c = &tr->counts[tr->ncounts];
		memset(c, 0, sizeof *c);
		memcpy(c->hash, tr->sig.hash, sizeof c->hash);
		c->seen = tr->ncounts;
		if (!(c->text = strdup(tr->sig.text)))
			goto nomem;
		tr->ncounts++;
	}
	char **p = realloc(c->cores, (c->n + 1) * sizeof *p);
	if (!p)
		goto nomem;
	c->cores = p;
	if (!(c->cores[c->n] = strdup(path)))
		goto nomem;
	c->n++;
	return;
nomem:
	fprintf(stderr, "corestack: out of memory\n");
	exit(2);
}

void tr_json_thread(struct triage *tr, struct json_object *doc, const struct bt_thread *t)
{
	if (tr->streaming)
		bt_json_stream_thread(&tr->stream, doc, t);
}

void tr_flush(struct triage *tr)
{
	if (tr->streaming)
		bt_json_stream_flush(&tr->stream);
	fflush(tr->out);
}

void tr_core_done(struct triage *tr, const char *path, struct json_object *doc, const struct bt_options *bo)
{
	if (doc) {
		if (tr->have_sig)
			json_object_object_add(doc, "signature", sig_json(&tr->sig));
		if (tr->o->group)
			json_object_object_add(doc, "groups", groups_json(tr));
		if (tr->streaming) {
			bt_json_stream_end(&tr->stream, doc);
			tr->emitted++;
		} else if (tr->o->summary)
			json_object_put(doc);
		else
			print_json(tr, doc);
	} else if (!tr_quiet(tr)) {
		print_groups(tr, bo);
	} else if (tr->o->signature && !tr->o->summary && tr->have_sig) {
		char shown[1024];
		fprintf(tr->out, bo->color ? "%s: " C_HASH "%s" C_RESET " %s\n" : "%s: %s %s\n",
			cst_esc(path, shown, sizeof shown), tr->sig.hash, tr->sig.text);
	}
	fflush(tr->out);
	if (tr->have_sig)
		count_sig(tr, path);
	free_groups(tr);
	if (tr->have_sig)
		sig_free(&tr->sig);
	tr->have_sig = false;
}

void tr_core_error(struct triage *tr, const char *path, const char *reason)
{
	tr->unusable++;
	if (!tr->json || tr->o->summary || !(tr->array || tr->o->json_lines))
		return;
	struct json_object *doc = json_object_new_object();
	json_object_object_add(doc, "corestack", json_object_new_int(1));
	json_object_object_add(doc, "core", json_object_new_string(path));
	json_object_object_add(doc, "error", json_object_new_string(reason));
	print_json(tr, doc);
}

/* Signatures by count, largest first; equal counts in the order first seen. */
static int by_cores(const void *a, const void *b)
{
	const struct tr_sig_count *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return x->seen < y->seen ? -1 : x->seen > y->seen;
}

static void print_summary(struct triage *tr, const struct bt_options *bo)
{
	if (tr->ncounts > 1)
		qsort(tr->counts, tr->ncounts, sizeof *tr->counts, by_cores);
	int ncores = tr->ncores;
	if (tr->json) {
		struct json_object *doc = json_object_new_object();
		json_object_object_add(doc, "corestack", json_object_new_int(1));
		json_object_object_add(doc, "cores", json_object_new_int(ncores));
		json_object_object_add(doc, "unusable", json_object_new_int(tr->unusable));
		struct json_object *a = json_object_new_array();
		for (size_t i = 0; i < tr->ncounts; i++) {
			struct tr_sig_count *c = &tr->counts[i];
			struct json_object *s = json_object_new_object();
			json_object_object_add(s, "hash", json_object_new_string(c->hash));
			json_object_object_add(s, "text", json_object_new_string(c->text));
			json_object_object_add(s, "count", json_object_new_int((int)c->n));
			json_object_object_add(s, "example", json_object_new_string(c->cores[0]));
			struct json_object *cores = json_object_new_array();
			for (size_t k = 0; k < c->n; k++)
				json_object_array_add(cores, json_object_new_string(c->cores[k]));
			json_object_object_add(s, "cores", cores);
			json_object_array_add(a, s);
		}
		json_object_object_add(doc, "signatures", a);
		tr->array = false;
		print_json(tr, doc);
		return;
	}
	fprintf(tr->out, "%d core%s, %zu distinct signature%s", ncores, ncores == 1 ? "" : "s",
		tr->ncounts, tr->ncounts == 1 ? "" : "s");
	if (tr->unusable)
		fprintf(tr->out, ", %d unusable", tr->unusable);
	fputc('\n', tr->out);
	for (size_t i = 0; i < tr->ncounts; i++) {
		struct tr_sig_count *c = &tr->counts[i];
		fprintf(tr->out, bo->color ? "%6zu  " C_HASH "%s" C_RESET "  %s\n" : "%6zu  %s  %s\n", c->n,
			c->hash, c->text);
		char shown[1024];
		fprintf(tr->out, "%6s  e.g. %s\n", "", cst_esc(c->cores[0], shown, sizeof shown));
	}
}

void tr_finish(struct triage *tr, const struct bt_options *bo)
{
	if (tr->progress) {
		fputs("\033[K", stderr);
		fflush(stderr);
	}
	if (tr->array)
		fputs(tr->emitted ? "\n]\n" : "[]\n", tr->out);
	if (tr->o->summary)
		print_summary(tr, bo);
	fflush(tr->out);
	for (size_t i = 0; i < tr->ncounts; i++) {
		for (size_t k = 0; k < tr->counts[i].n; k++)
			free(tr->counts[i].cores[k]);
		free(tr->counts[i].cores);
		free(tr->counts[i].text);
	}
	free(tr->counts);
	tr->counts = NULL;
	tr->ncounts = 0;
}

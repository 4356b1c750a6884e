/* JSON output: the document's members are json-c values, written by the streaming writer
 * (jsonw.h); each thread is written as it is walked (json_thread.h).  The schema is documented
 * in doc/json.md; its version is the value of the "corestack" key. */
#include "bt_json.h"
#include "json_thread.h"
#include "process.h"

#include <inttypes.h>
#include <json.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define SCHEMA_VERSION 1

static struct json_object *hex(uint64_t v)
{
	char buf[BT_HEX_SIZE];
	int len;
	const char *p = bt_hex(buf, v, 1, &len);
	return json_object_new_string_len(p, len);
}

static struct json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

struct json_object *bt_json_process(const struct bt_process *p)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "corestack", json_object_new_int(SCHEMA_VERSION));
	json_object_object_add(o, "core", str_or_null(p->core));
	json_object_object_add(o, "executable", str_or_null(p->executable));
	json_object_object_add(o, "arch", json_object_new_string(p->arch->name));
	json_object_object_add(o, "pid", json_object_new_int(p->pid));
	if (p->has_signal) {
		struct json_object *s = json_object_new_object();
		json_object_object_add(s, "number", json_object_new_int(p->signo));
		json_object_object_add(s, "name", json_object_new_string(cst_signal_name(p->arch, p->signo)));
		json_object_object_add(s, "code", json_object_new_int(p->code));
		json_object_object_add(s, "address", p->has_addr ? hex(p->addr) : NULL);
		json_object_object_add(s, "crash", json_object_new_boolean(!p->not_crash));
		struct json_object *from = NULL;
		if (p->has_sender) {
			from = json_object_new_object();
			json_object_object_add(from, "pid", json_object_new_int(p->sender_pid));
			json_object_object_add(from, "uid", json_object_new_int64(p->sender_uid));
		}
		json_object_object_add(s, "sender", from);
		json_object_object_add(o, "signal", s);
	} else {
		json_object_object_add(o, "signal", NULL);
	}
	json_object_object_add(o, "threads", json_object_new_array());
	return o;
}

/* Out of memory while writing: the document cannot be finished. */
static void nomem(void)
{
	fprintf(stderr, "corestack: out of memory\n");
	exit(2);
}

#define RAW(w, lit) jw_raw((w), lit, sizeof lit - 1)

/* The members of DOC before "threads" are written with the document's opening brace; the
 * ones after it (modules, signature, groups) after the threads array, so that the members
 * come in the order of the document written whole.  The layout is json-c's for the document
 * written in these parts: each thread on one line, the members after "threads" indented as
 * values of the outermost level. */
static void stream_begin(struct bt_json_stream *s, struct json_object *doc)
{
	jw_init(&s->jw, s->out, !s->compact, 0);
	if (s->lead)
		jw_raw(&s->jw, s->lead, strlen(s->lead));
	jw_begin_object(&s->jw);
	s->head_members = 0;
	json_object_object_foreach(doc, key, val) {
		if (strcmp(key, "threads") == 0)
			break;
		jw_key(&s->jw, key);
		jw_json(&s->jw, val);
		s->head_members++;
	}
	jw_key(&s->jw, "threads");
	s->jw.pretty = false;                /* one line per thread */
	jw_begin_array(&s->jw);
	s->begun = true;
}

void bt_json_stream_thread(struct bt_json_stream *s, struct json_object *doc, const struct bt_thread *t)
{
	if (!s->begun)
		stream_begin(s, doc);
	if (s->nthreads++)
		RAW(&s->jw, ",");
	if (!s->compact)
		RAW(&s->jw, "\n");
	s->jw.had[s->jw.depth - 1] = false;  /* the comma and newline are written above */
	bt_json_thread_write(&s->jw, t, s->uncached ? NULL : &s->frames);
	if (s->jw.nomem)
		nomem();
}

void bt_json_stream_flush(struct bt_json_stream *s)
{
	if (s->begun && jw_flush(&s->jw) < 0)
		nomem();
}

void bt_json_stream_end(struct bt_json_stream *s, struct json_object *doc)
{
	if (!s->begun)
		stream_begin(s, doc);
	struct jw *w = &s->jw;
	const char *close = s->nthreads && !s->compact ? "\n  ]" : "]";
	jw_raw(w, close, strlen(close));
	w->depth--;                          /* the threads array, closed above */
	size_t i = 0;
	json_object_object_foreach(doc, key, val) {
		if (i++ <= s->head_members || strcmp(key, "threads") == 0)
			continue;                /* written first, or the threads written above */
		/* each member a value of the outermost level, as json-c writes a value alone */
		RAW(w, ",");
		if (!s->compact)
			RAW(w, "\n  ");
		w->pretty = !s->compact;
		int depth = w->depth;
		w->depth = 0;
		w->after_key = false;
		jw_string(w, key);
		RAW(w, ":");
		jw_json(w, val);
		w->depth = depth;
	}
	const char *end = s->compact ? "}" : "\n}";
	jw_raw(w, end, strlen(end));
	if (!s->in_array)
		RAW(w, "\n");
	json_object_put(doc);
	bt_json_frames_free(s->frames);
	s->frames = NULL;
	if (jw_finish(w) < 0)
		nomem();
}

void bt_json_write(FILE *out, struct json_object *doc, bool compact)
{
	struct jw w;
	jw_init(&w, out, !compact, 0);
	jw_json(&w, doc);
	if (jw_finish(&w) < 0)
		nomem();
	json_object_put(doc);
}

void bt_json_print(FILE *out, struct json_object *doc)
{
	bt_json_write(out, doc, false);
	fputc('\n', out);
}

/* JSON output with json-c.  The schema is documented in README.md ("JSON output"); its
 * version is the value of the "corestack" key. */
#include "backtrace.h"

#include <inttypes.h>
#include <json.h>
#include <stdio.h>
#include <string.h>

#define SCHEMA_VERSION 1

static struct json_object *hex(uint64_t v)
{
	char buf[24], *p = buf + sizeof buf;    /* "0x" and up to 16 digits, written backwards */
	do
		*--p = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	*--p = 'x';
	*--p = '0';
	return json_object_new_string_len(p, (int)(buf + sizeof buf - p));
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
	json_object_object_add(o, "arch", json_object_new_string(p->arch));
	json_object_object_add(o, "pid", json_object_new_int(p->pid));
	if (p->has_signal) {
		struct json_object *s = json_object_new_object();
		json_object_object_add(s, "number", json_object_new_int(p->signo));
		json_object_object_add(s, "name", json_object_new_string(bt_signal_name(p->signo)));
		json_object_object_add(s, "code", json_object_new_int(p->code));
		json_object_object_add(s, "address", p->has_addr ? hex(p->addr) : NULL);
		json_object_object_add(o, "signal", s);
	} else {
		json_object_object_add(o, "signal", NULL);
	}
	json_object_object_add(o, "threads", json_object_new_array());
	return o;
}

/* Adds a member whose name is a string literal, new to O: json-c neither copies the name
 * nor looks for an earlier member of that name (per frame, that was most of the cost). */
static void add(struct json_object *o, const char *key, struct json_object *val)
{
	json_object_object_add_ex(o, key, val, JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_KEY_IS_CONSTANT);
}

static struct json_object *thread_object(const struct bt_thread *t)
{
	struct json_object *o = json_object_new_object();
	add(o, "tid", json_object_new_int(t->tid));
	add(o, "crashed", json_object_new_boolean(t->crashed));
	add(o, "stop_reason", json_object_new_string(t->stop));
	add(o, "complete", json_object_new_boolean(t->rc == 0));
	struct json_object *frames = json_object_new_array();
	for (size_t i = 0; i < t->n; i++) {
		const struct bt_frame *b = &t->frames[i];
		const struct cst_location *l = &b->loc;
		struct json_object *f = json_object_new_object();
		add(f, "index", json_object_new_int((int)b->number));
		add(f, "pc", hex(b->f.pc));
		add(f, "function", str_or_null(l->function));
		add(f, "offset", l->function ? json_object_new_int64((int64_t)l->offset) : NULL);
		add(f, "module", str_or_null(l->module));
		add(f, "module_offset", l->module ? hex(b->f.pc - l->module_base) : NULL);
		add(f, "build_id", l->build_id[0] ? json_object_new_string(l->build_id) : NULL);
		add(f, "build_id_mismatch", json_object_new_boolean(l->mismatch));
		add(f, "file", str_or_null(l->file));
		add(f, "line", l->line ? json_object_new_int(l->line) : NULL);
		add(f, "inlined", json_object_new_boolean(b->inlined));
		add(f, "found_by", json_object_new_string(cst_found_by_token(b->f.found_by)));
		add(f, "marker", str_or_null(cst_marker_name(b->f.marker)));
		add(f, "cfa", b->f.cfa ? hex(b->f.cfa) : NULL);
		add(f, "note", b->f.note[0] ? json_object_new_string(b->f.note) : NULL);
		add(f, "jit_map", str_or_null(b->jit_map));
		json_object_array_add(frames, f);
	}
	add(o, "frames", frames);
	return o;
}

void bt_json_add_thread(struct json_object *doc, const struct bt_thread *t)
{
	struct json_object *threads;
	if (json_object_object_get_ex(doc, "threads", &threads))
		json_object_array_add(threads, thread_object(t));
}

#define JSON_FLAGS (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)
#define JSON_THREAD_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* The members of DOC before "threads" are written with the document's opening brace; the
 * ones after it (modules, signature, groups) after the threads array, so that the members
 * come in the order of the document written whole. */
static void stream_begin(struct bt_json_stream *s, struct json_object *doc)
{
	struct json_object *first = json_object_new_object();
	s->head_members = 0;
	json_object_object_foreach(doc, key, val) {
		if (strcmp(key, "threads") == 0)
			break;
		json_object_object_add(first, key, json_object_get(val));
		s->head_members++;
	}
	const char *head = json_object_to_json_string_ext(first, JSON_FLAGS);
	size_t n = strlen(head);
	while (n > 0 && (head[n - 1] == ' ' || head[n - 1] == '\n'))
		n--;
	if (n > 0 && head[n - 1] == '}')
		n--;                         /* open the object again: drop its closing brace */
	while (n > 0 && (head[n - 1] == ' ' || head[n - 1] == '\n'))
		n--;
	fwrite(head, 1, n, s->out);
	fputs(n > 1 ? ",\n  \"threads\":[" : "\"threads\":[", s->out);
	json_object_put(first);
	s->begun = true;
}

void bt_json_stream_thread(struct bt_json_stream *s, struct json_object *doc, const struct bt_thread *t)
{
	if (!s->begun)
		stream_begin(s, doc);
	struct json_object *o = thread_object(t);
	fputs(s->nthreads++ ? ",\n" : "\n", s->out);
	fputs(json_object_to_json_string_ext(o, JSON_THREAD_FLAGS), s->out);
	json_object_put(o);
}

void bt_json_stream_end(struct bt_json_stream *s, struct json_object *doc)
{
	if (!s->begun)
		stream_begin(s, doc);
	fputs(s->nthreads ? "\n  ]" : "]", s->out);
	size_t i = 0;
	json_object_object_foreach(doc, key, val) {
		if (i++ <= s->head_members || strcmp(key, "threads") == 0)
			continue;                /* written first, or the threads written above */
		struct json_object *k = json_object_new_string(key);
		fprintf(s->out, ",\n  %s:%s", json_object_to_json_string_ext(k, JSON_FLAGS),
			val ? json_object_to_json_string_ext(val, JSON_FLAGS) : "null");
		json_object_put(k);
	}
	fputs("\n}\n", s->out);
	json_object_put(doc);
}

void bt_json_print(FILE *out, struct json_object *doc)
{
	fputs(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE), out);
	fputc('\n', out);
	json_object_put(doc);
}

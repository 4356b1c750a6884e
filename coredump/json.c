/* JSON output with json-c.  The schema is documented in README.md ("JSON output"); its
 * version is the value of the "corestack" key. */
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

#define JSON_FLAGS (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)
#define JSON_LINE_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* The members of DOC before "threads" are written with the document's opening brace; the
 * ones after it (modules, signature, groups) after the threads array, so that the members
 * come in the order of the document written whole. */
static void stream_begin(struct bt_json_stream *s, struct json_object *doc)
{
	if (!(s->writer = bt_json_thread_new()))
		nomem();
	struct json_object *first = json_object_new_object();
	s->head_members = 0;
	json_object_object_foreach(doc, key, val) {
		if (strcmp(key, "threads") == 0)
			break;
		json_object_object_add(first, key, json_object_get(val));
		s->head_members++;
	}
	size_t n;
	const char *head = json_object_to_json_string_length(first, s->compact ? JSON_LINE_FLAGS : JSON_FLAGS, &n);
	while (n > 0 && (head[n - 1] == ' ' || head[n - 1] == '\n'))
		n--;
	if (n > 0 && head[n - 1] == '}')
		n--;                         /* open the object again: drop its closing brace */
	while (n > 0 && (head[n - 1] == ' ' || head[n - 1] == '\n'))
		n--;
	if (s->lead)
		fputs(s->lead, s->out);
	fwrite(head, 1, n, s->out);
	if (n > 1)
		fputc(',', s->out);
	fputs(s->compact ? "\"threads\":[" : n > 1 ? "\n  \"threads\":[" : "\"threads\":[", s->out);
	json_object_put(first);
	s->begun = true;
}

void bt_json_stream_thread(struct bt_json_stream *s, struct json_object *doc, const struct bt_thread *t)
{
	if (!s->begun)
		stream_begin(s, doc);
	if (s->nthreads++)
		fputc(',', s->out);
	if (!s->compact)
		fputc('\n', s->out);
	if (bt_json_thread_write(s->writer, s->out, t) < 0)
		nomem();
}

void bt_json_stream_end(struct bt_json_stream *s, struct json_object *doc)
{
	if (!s->begun)
		stream_begin(s, doc);
	fputs(s->nthreads && !s->compact ? "\n  ]" : "]", s->out);
	size_t i = 0;
	json_object_object_foreach(doc, key, val) {
		if (i++ <= s->head_members || strcmp(key, "threads") == 0)
			continue;                /* written first, or the threads written above */
		struct json_object *k = json_object_new_string(key);
		int flags = s->compact ? JSON_LINE_FLAGS : JSON_FLAGS;
		fprintf(s->out, s->compact ? ",%s:%s" : ",\n  %s:%s", json_object_to_json_string_ext(k, flags),
			val ? json_object_to_json_string_ext(val, flags) : "null");
		json_object_put(k);
	}
	fputs(s->compact ? "}" : "\n}", s->out);
	if (!s->in_array)
		fputc('\n', s->out);
	json_object_put(doc);
	bt_json_thread_free(s->writer);
	s->writer = NULL;
}

void bt_json_print(FILE *out, struct json_object *doc)
{
	fputs(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE), out);
	fputc('\n', out);
	json_object_put(doc);
}

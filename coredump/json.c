/* JSON output with json-c.  The schema is documented in README.md ("JSON output"); its
 * version is the value of the "corestack" key. */
#include "backtrace.h"

#include <inttypes.h>
#include <json.h>
#include <stdio.h>

#define SCHEMA_VERSION 1

static struct json_object *hex(uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "0x%" PRIx64, v);
	return json_object_new_string(buf);
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

void bt_json_add_thread(struct json_object *doc, const struct bt_thread *t)
{
	struct json_object *threads;
	if (!json_object_object_get_ex(doc, "threads", &threads))
		return;
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "tid", json_object_new_int(t->tid));
	json_object_object_add(o, "crashed", json_object_new_boolean(t->crashed));
	json_object_object_add(o, "stop_reason", json_object_new_string(t->stop));
	json_object_object_add(o, "complete", json_object_new_boolean(t->rc == 0));
	struct json_object *frames = json_object_new_array();
	for (size_t i = 0; i < t->n; i++) {
		const struct bt_frame *b = &t->frames[i];
		const struct cst_location *l = &b->loc;
		struct json_object *f = json_object_new_object();
		json_object_object_add(f, "index", json_object_new_int((int)b->number));
		json_object_object_add(f, "pc", hex(b->f.pc));
		json_object_object_add(f, "function", str_or_null(l->function));
		json_object_object_add(f, "offset", l->function ? json_object_new_int64((int64_t)l->offset) : NULL);
		json_object_object_add(f, "module", str_or_null(l->module));
		json_object_object_add(f, "module_offset", l->module ? hex(b->f.pc - l->module_base) : NULL);
		json_object_object_add(f, "build_id", l->build_id[0] ? json_object_new_string(l->build_id) : NULL);
		json_object_object_add(f, "build_id_mismatch", json_object_new_boolean(l->mismatch));
		json_object_object_add(f, "file", str_or_null(l->file));
		json_object_object_add(f, "line", l->line ? json_object_new_int(l->line) : NULL);
		json_object_object_add(f, "inlined", json_object_new_boolean(b->inlined));
		json_object_object_add(f, "found_by", json_object_new_string(cst_found_by_token(b->f.found_by)));
		json_object_object_add(f, "marker", str_or_null(cst_marker_name(b->f.marker)));
		json_object_object_add(f, "cfa", b->f.cfa ? hex(b->f.cfa) : NULL);
		json_object_object_add(f, "note", b->f.note[0] ? json_object_new_string(b->f.note) : NULL);
		json_object_object_add(f, "jit_map", str_or_null(b->jit_map));
		json_object_array_add(frames, f);
	}
	json_object_object_add(o, "frames", frames);
	json_object_array_add(threads, o);
}

void bt_json_print(FILE *out, struct json_object *doc)
{
	fputs(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE), out);
	fputc('\n', out);
	json_object_put(doc);
}

/* One thread's JSON object, written by the streaming writer; see json_thread.h. */
#include "json_thread.h"

#include <string.h>

static void hex(struct jw *w, bool present, uint64_t v)
{
	if (!present) {
		jw_null(w);
		return;
	}
	char buf[BT_HEX_SIZE];
	int len;
	const char *p = bt_hex(buf, v, 1, &len);
	jw_string_plain(w, p, (size_t)len);
}

static void int_or_null(struct jw *w, bool present, int64_t v)
{
	if (present)
		jw_int(w, v);
	else
		jw_null(w);
}

/* A string of the program's own tables (found_by tokens, marker names), or null. */
static void token(struct jw *w, const char *s)
{
	if (s)
		jw_string_plain(w, s, strlen(s));
	else
		jw_null(w);
}

static void frame(struct jw *w, const struct bt_frame *b)
{
	const struct cst_location *l = &b->loc;
	jw_begin_object(w);
	JW_KEY(w, "index");
	jw_int(w, b->number);
	JW_KEY(w, "pc");
	hex(w, true, b->f.pc);
	JW_KEY(w, "function");
	jw_string(w, l->function);
	JW_KEY(w, "offset");
	int_or_null(w, l->function != NULL, (int64_t)l->offset);
	JW_KEY(w, "symbol");
	jw_string(w, l->symbol);
	JW_KEY(w, "module");
	jw_string(w, l->module);
	JW_KEY(w, "module_offset");
	hex(w, l->module != NULL, b->f.pc - l->module_base);
	JW_KEY(w, "build_id");
	token(w, l->build_id[0] ? l->build_id : NULL);   /* hex digits */
	JW_KEY(w, "build_id_mismatch");
	jw_bool(w, l->mismatch);
	JW_KEY(w, "file");
	jw_string(w, l->file);
	JW_KEY(w, "line");
	int_or_null(w, l->line != 0, l->line);
	JW_KEY(w, "inlined");
	jw_bool(w, b->inlined);
	JW_KEY(w, "found_by");
	token(w, cst_found_by_token(b->f.found_by));
	JW_KEY(w, "marker");
	token(w, cst_marker_name(b->f.marker));
	JW_KEY(w, "cfa");
	hex(w, b->f.cfa != 0, b->f.cfa);
	JW_KEY(w, "note");
	jw_string(w, b->f.note[0] ? b->f.note : NULL);
	JW_KEY(w, "jit_map");
	jw_string(w, b->jit_map);
	jw_end_object(w);
}

void bt_json_thread_write(struct jw *w, const struct bt_thread *t)
{
	jw_begin_object(w);
	JW_KEY(w, "tid");
	jw_int(w, t->tid);
	JW_KEY(w, "crashed");
	jw_bool(w, t->crashed);
	JW_KEY(w, "stop_reason");
	jw_string(w, t->stop);
	JW_KEY(w, "complete");
	jw_bool(w, t->rc == 0);
	JW_KEY(w, "frames");
	jw_begin_array(w);
	for (size_t i = 0; i < t->n; i++)
		frame(w, &t->frames[i]);
	jw_end_array(w);
	jw_end_object(w);
}

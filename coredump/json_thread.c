/* One thread's JSON object, serialised by json-c; see json_thread.h.
 *
 * The thread's object and one object per frame are made once and kept: each thread sets
 * their values (json_object_set_*) and has the thread object serialised.  A member that is
 * null for this frame has NULL in its object, its value object being kept aside for the next
 * frame that has one; the frames array holds as many frame objects as the thread has
 * frames.  Per frame this replaces an object, its hash table and 16 values allocated,
 * inserted and freed, which cost more than the serialisation. */
#include "json_thread.h"
#include "error.h"

#include <json.h>
#include <stdlib.h>
#include <string.h>

#define FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* A frame's members, in the schema's order. */
enum member {
	M_INDEX, M_PC, M_FUNCTION, M_OFFSET, M_SYMBOL, M_MODULE, M_MODULE_OFFSET, M_BUILD_ID,
	M_BUILD_ID_MISMATCH, M_FILE, M_LINE, M_INLINED, M_FOUND_BY, M_MARKER, M_CFA, M_NOTE,
	M_JIT_MAP, NMEMBERS
};

static const char *const member_name[NMEMBERS] = {
	[M_INDEX] = "index", [M_PC] = "pc", [M_FUNCTION] = "function", [M_OFFSET] = "offset",
	[M_SYMBOL] = "symbol", [M_MODULE] = "module", [M_MODULE_OFFSET] = "module_offset",
	[M_BUILD_ID] = "build_id",
	[M_BUILD_ID_MISMATCH] = "build_id_mismatch", [M_FILE] = "file", [M_LINE] = "line",
	[M_INLINED] = "inlined", [M_FOUND_BY] = "found_by", [M_MARKER] = "marker", [M_CFA] = "cfa",
	[M_NOTE] = "note", [M_JIT_MAP] = "jit_map",
};

struct frame_obj {
	struct json_object *obj;
	struct json_object *val[NMEMBERS];  /* each member's value; ours, and obj's when shown */
	bool shown[NMEMBERS];               /* obj holds val, else null */
};

struct bt_json_thread {
	struct json_object *obj, *tid, *crashed, *stop, *complete, *frames;
	struct frame_obj *pool;             /* pool[i].obj is frames[i] while i < its length */
	size_t npool;
	bool nomem;                         /* a json-c call failed for want of memory */
};

/* Adds member NAME (a string literal, new to O) with value VAL, of which O takes a reference. */
static void add_new(struct bt_json_thread *w, struct json_object *o, const char *name, struct json_object *val)
{
	if (!val || json_object_object_add_ex(o, name, json_object_get(val),
					      JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_KEY_IS_CONSTANT) < 0) {
		json_object_put(val);
		w->nomem = true;
	}
}

struct bt_json_thread *bt_json_thread_new(void)
{
	struct bt_json_thread *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->obj = json_object_new_object();
	if (!w->obj) {
		free(w);
		return NULL;
	}
	add_new(w, w->obj, "tid", w->tid = json_object_new_int(0));
	add_new(w, w->obj, "crashed", w->crashed = json_object_new_boolean(0));
	add_new(w, w->obj, "stop_reason", w->stop = json_object_new_string(""));
	add_new(w, w->obj, "complete", w->complete = json_object_new_boolean(0));
	add_new(w, w->obj, "frames", w->frames = json_object_new_array());
	if (w->nomem) {
		bt_json_thread_free(w);
		return NULL;
	}
	return w;
}

static void free_frame(struct frame_obj *f)
{
	json_object_put(f->obj);             /* drops its references to the shown values */
	for (int m = 0; m < NMEMBERS; m++)
		json_object_put(f->val[m]);
}

void bt_json_thread_free(struct bt_json_thread *w)
{
	if (!w)
		return;
	json_object_put(w->obj);             /* drops the array's references to the frames */
	json_object_put(w->tid);
	json_object_put(w->crashed);
	json_object_put(w->stop);
	json_object_put(w->complete);
	json_object_put(w->frames);
	for (size_t i = 0; i < w->npool; i++)
		free_frame(&w->pool[i]);
	free(w->pool);
	free(w);
}

/* Frame object I, made (every member shown) when the pool is not that long yet; NULL when
 * memory ran out. */
static struct frame_obj *frame(struct bt_json_thread *w, size_t i)
{
	if (i < w->npool)
		return &w->pool[i];
	struct frame_obj *p = realloc(w->pool, (i + 1) * sizeof *p);
	if (!p)
		return NULL;
	w->pool = p;
	struct frame_obj *f = &p[i];
	memset(f, 0, sizeof *f);
	w->npool = i + 1;                    /* from here free_frame can undo it */
	if (!(f->obj = json_object_new_object()))
		return NULL;
	for (int m = 0; m < NMEMBERS; m++) {
		switch (m) {
		case M_INDEX: case M_OFFSET: case M_LINE:
			f->val[m] = json_object_new_int64(0);
			break;
		case M_BUILD_ID_MISMATCH: case M_INLINED:
			f->val[m] = json_object_new_boolean(0);
			break;
		default:
			f->val[m] = json_object_new_string("");
		}
		add_new(w, f->obj, member_name[m], f->val[m]);
		f->shown[m] = true;
	}
	return w->nomem ? NULL : f;
}

/* Member M of F shows its value, or null. */
static void show(struct bt_json_thread *w, struct frame_obj *f, enum member m, bool shown)
{
	if (f->shown[m] == shown)
		return;
	/* the name is there: json-c replaces its value in place (the order stays) and drops
	 * the object's reference to the old one */
	json_object_object_add_ex(f->obj, member_name[m], shown ? json_object_get(f->val[m]) : NULL,
				  JSON_C_OBJECT_KEY_IS_CONSTANT);
	f->shown[m] = shown;
}

static void set_str(struct bt_json_thread *w, struct frame_obj *f, enum member m, const char *s)
{
	if (s && !json_object_set_string(f->val[m], s))
		w->nomem = true;
	show(w, f, m, s != NULL);
}

static void set_hex(struct bt_json_thread *w, struct frame_obj *f, enum member m, bool present, uint64_t v)
{
	if (present) {
		char buf[BT_HEX_SIZE];
		int len;
		const char *p = bt_hex(buf, v, 1, &len);
		if (!json_object_set_string_len(f->val[m], p, len))
			w->nomem = true;
	}
	show(w, f, m, present);
}

static void set_int(struct bt_json_thread *w, struct frame_obj *f, enum member m, bool present, int64_t v)
{
	if (present)
		json_object_set_int64(f->val[m], v);
	show(w, f, m, present);
}

static void fill_frame(struct bt_json_thread *w, struct frame_obj *f, const struct bt_frame *b)
{
	const struct cst_location *l = &b->loc;
	set_int(w, f, M_INDEX, true, b->number);
	set_hex(w, f, M_PC, true, b->f.pc);
	set_str(w, f, M_FUNCTION, l->function);
	set_int(w, f, M_OFFSET, l->function != NULL, (int64_t)l->offset);
	set_str(w, f, M_SYMBOL, l->symbol);
	set_str(w, f, M_MODULE, l->module);
	set_hex(w, f, M_MODULE_OFFSET, l->module != NULL, b->f.pc - l->module_base);
	set_str(w, f, M_BUILD_ID, l->build_id[0] ? l->build_id : NULL);
	json_object_set_boolean(f->val[M_BUILD_ID_MISMATCH], l->mismatch);
	set_str(w, f, M_FILE, l->file);
	set_int(w, f, M_LINE, l->line != 0, l->line);
	json_object_set_boolean(f->val[M_INLINED], b->inlined);
	set_str(w, f, M_FOUND_BY, cst_found_by_token(b->f.found_by));
	set_str(w, f, M_MARKER, cst_marker_name(b->f.marker));
	set_hex(w, f, M_CFA, b->f.cfa != 0, b->f.cfa);
	set_str(w, f, M_NOTE, b->f.note[0] ? b->f.note : NULL);
	set_str(w, f, M_JIT_MAP, b->jit_map);
}

int bt_json_thread_write(struct bt_json_thread *w, FILE *out, const struct bt_thread *t)
{
	json_object_set_int(w->tid, t->tid);
	json_object_set_boolean(w->crashed, t->crashed);
	if (!json_object_set_string(w->stop, t->stop))
		w->nomem = true;
	json_object_set_boolean(w->complete, t->rc == 0);
	size_t have = json_object_array_length(w->frames);
	if (have > t->n)
		json_object_array_del_idx(w->frames, t->n, have - t->n);
	for (size_t i = 0; i < t->n && !w->nomem; i++) {
		struct frame_obj *f = frame(w, i);
		if (!f)
			return -CST_E_NOMEM;
		fill_frame(w, f, &t->frames[i]);
		if (i >= have && json_object_array_add(w->frames, json_object_get(f->obj)) < 0) {
			json_object_put(f->obj);
			w->nomem = true;
		}
	}
	size_t len;
	const char *s = w->nomem ? NULL : json_object_to_json_string_length(w->obj, FLAGS, &len);
	if (!s)
		return -CST_E_NOMEM;
	fwrite(s, 1, len, out);
	return 0;
}

/* One thread's JSON object, written by the streaming writer; see json_thread.h. */
#include "json_thread.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* A frame is written in one piece into the writer's buffer: writing its twenty members one
 * call at a time cost more than walking the frame. */

#define LIT(o, lit) (memcpy((o), lit, sizeof lit - 1), (o) + sizeof lit - 1)

/* N bytes of S at O; returns the end.  Out of line: GCC would otherwise copy the cached
 * pieces (their lengths are bounded, a few hundred bytes) with an inline `rep movsq`, whose
 * start costs more than glibc's memcpy takes for the whole copy. */
static __attribute__((noinline)) char *put(char *o, const char *s, size_t n)
{
	return (char *)memcpy(o, s, n) + n;
}

/* S escaped in quotes, or null. */
static char *str(char *o, const char *s, size_t len)
{
	return s ? jw_put_quoted(o, s, len) : LIT(o, "null");
}

/* A string of the program's own (a token of its tables, hex digits) in quotes, or null. */
static char *token(char *o, const char *s)
{
	if (!s)
		return LIT(o, "null");
	size_t n = strlen(s);
	*o = '"';
	memcpy(o + 1, s, n);
	o[n + 1] = '"';
	return o + n + 2;
}

static char *hex(char *o, bool present, uint64_t v)
{
	if (!present)
		return LIT(o, "null");
	char buf[BT_HEX_SIZE];
	int len;
	const char *p = bt_hex(buf, v, 1, &len);
	*o = '"';
	memcpy(o + 1, p, (size_t)len);
	o[len + 1] = '"';
	return o + len + 2;
}

static char *int_or_null(char *o, bool present, int64_t v)
{
	return present ? jw_put_int(o, v) : LIT(o, "null");
}

static char *boolean(char *o, bool v)
{
	return v ? LIT(o, "true") : LIT(o, "false");
}

static size_t len_of(const char *s)
{
	return s ? strlen(s) : 0;
}

/* Bytes of a frame's object besides its escaped strings: the keys and punctuation (under
 * 260 bytes), three hex numbers (18 bytes each with quotes), three integers (20 each), the
 * build-id (40 hex digits and quotes), the tokens (under 40 bytes each) and nulls. */
#define FRAME_FIXED 640

/* The members of frame B from "pc" to "inlined" (its pc and location), written at O;
 * returns the end.  O has room for FRAME_FIXED bytes and six times the strings' lengths. */
static char *location(char *o, const struct bt_frame *b, size_t lfn, size_t lsym, size_t lmod,
		      size_t lfile)
{
	const struct cst_location *l = &b->loc;
	o = LIT(o, ",\"pc\":");
	o = hex(o, true, b->f.pc);
	o = LIT(o, ",\"function\":");
	o = str(o, l->function, lfn);
	o = LIT(o, ",\"offset\":");
	o = int_or_null(o, l->function != NULL, (int64_t)l->offset);
	o = LIT(o, ",\"symbol\":");
	o = str(o, l->symbol, lsym);
	o = LIT(o, ",\"module\":");
	o = str(o, l->module, lmod);
	o = LIT(o, ",\"module_offset\":");
	o = hex(o, l->module != NULL, b->f.pc - l->module_base);
	o = LIT(o, ",\"build_id\":");
	o = token(o, l->build_id[0] ? l->build_id : NULL);
	o = LIT(o, ",\"build_id_mismatch\":");
	o = boolean(o, l->mismatch);
	o = LIT(o, ",\"file\":");
	o = str(o, l->file, lfile);
	o = LIT(o, ",\"line\":");
	o = int_or_null(o, l->line != 0, l->line);
	o = LIT(o, ",\"inlined\":");
	return boolean(o, b->inlined);
}

/* Pcs and locations rendered before, by pc: the frames of a process's threads share most of their
 * pcs.  A slot is reused when the pc, the inlined flag and the whole struct cst_location are
 * those it was rendered from (the location's strings compared by address: they stay
 * unchanged while the process is open, and the cache is dropped with its document), or when
 * it was rendered from a frame of the same entry of a cache of located frames
 * (bt_frame.located, which stands for all of those).
 * Fixed size: NSLOTS slots of at most FRAGMENT_MAX bytes; longer locations are rendered
 * every time. */
#define NSLOTS_BITS 10
#define NSLOTS (1 << NSLOTS_BITS)
#define FRAGMENT_MAX 400

struct fragment {
	bool used, inlined;
	uint16_t len;
	uint64_t pc;
	uint64_t located;        /* bt_frame.located of the frame rendered */
	struct cst_location loc;
	char bytes[FRAGMENT_MAX];
};

/* The members from "found_by" to "cfa"'s key for each provenance and marker, rendered once
 * (len 0: not yet): under 40 bytes each token, and the keys. */
#define COUNT_FOUND_BY(e, tok, desc) + 1
enum { N_FOUND_BY = 0 CST_FOUND_BY(COUNT_FOUND_BY), N_MARKERS = CST_MARK_LOST_TAIL_CALL + 1 };
#define PROVENANCE_MAX 128

struct provenance {
	uint8_t len;
	char bytes[PROVENANCE_MAX];
};

struct bt_json_frames {
	struct fragment slot[NSLOTS];
	struct provenance provenance[N_FOUND_BY][N_MARKERS];
};

void bt_json_frames_free(struct bt_json_frames *c)
{
	free(c);
}

static struct fragment *fragment_of(struct bt_json_frames *c, const struct bt_frame *b)
{
	/* the pc, with the inlined flag in bit 0 */
	return &c->slot[cst_fib_hash(b->f.pc << 1 | b->inlined) >> (64 - NSLOTS_BITS)];
}

static bool fragment_is(const struct fragment *x, const struct bt_frame *b)
{
	if (b->located && x->located == b->located)
		return true;     /* a located frame is not inlined: its entry stands for the rest */
	return x->used && x->pc == b->f.pc && x->inlined == b->inlined &&
	       memcmp(&x->loc, &b->loc, sizeof x->loc) == 0;
}

/* The members from "found_by" to "cfa"'s key of frame B, written at O; returns the end.  O
 * has room for PROVENANCE_MAX bytes. */
static char *provenance(char *o, const struct bt_frame *b)
{
	o = LIT(o, ",\"found_by\":");
	o = token(o, cst_found_by_token(b->f.found_by));
	o = LIT(o, ",\"marker\":");
	o = token(o, cst_marker_name(b->f.marker));
	return LIT(o, ",\"cfa\":");
}

/* provenance through cache C (NULL: none) */
static char *provenance_cached(char *o, const struct bt_frame *b, struct bt_json_frames *c)
{
	if (!c || (unsigned)b->f.found_by >= N_FOUND_BY || (unsigned)b->f.marker >= N_MARKERS)
		return provenance(o, b);
	struct provenance *p = &c->provenance[b->f.found_by][b->f.marker];
	if (!p->len) {
		char *end = provenance(p->bytes, b);
		p->len = (uint8_t)(end - p->bytes);
	}
	return put(o, p->bytes, p->len);
}

static void frame(struct jw *w, const struct bt_frame *b, struct bt_json_frames *cache)
{
	const struct cst_location *l = &b->loc;
	const char *note = b->f.note[0] ? b->f.note : NULL;
	size_t lnote = len_of(note), ljit = len_of(b->jit_map);
	struct fragment *x = cache ? fragment_of(cache, b) : NULL;
	bool hit = x && fragment_is(x, b);
	size_t lfn = 0, lsym = 0, lmod = 0, lfile = 0;
	if (!hit) {
		lfn = len_of(l->function);
		lsym = len_of(l->symbol);
		lmod = len_of(l->module);
		lfile = len_of(l->file);
	}
	jw_member(w);
	char *o = jw_room(w, FRAME_FIXED + (hit ? x->len : 6 * (lfn + lsym + lmod + lfile)) +
			     6 * (lnote + ljit));
	if (!o)
		return;
	o = LIT(o, "{\"index\":");
	o = jw_put_int(o, b->number);
	if (hit) {
		o = put(o, x->bytes, x->len);
	} else {
		char *start = o;
		o = location(o, b, lfn, lsym, lmod, lfile);
		size_t n = (size_t)(o - start);
		if (x && n <= FRAGMENT_MAX) {
			x->used = true;
			x->inlined = b->inlined;
			x->pc = b->f.pc;
			x->located = b->located;
			x->loc = *l;
			x->len = (uint16_t)n;
			memcpy(x->bytes, start, n);
		}
	}
	o = provenance_cached(o, b, cache);
	o = hex(o, b->f.cfa != 0, b->f.cfa);
	o = LIT(o, ",\"note\":");
	o = str(o, note, lnote);
	o = LIT(o, ",\"jit_map\":");
	o = str(o, b->jit_map, ljit);
	o = LIT(o, "}");
	w->len = (size_t)(o - w->buf);
}

void bt_json_thread_write(struct jw *w, const struct bt_thread *t, struct bt_json_frames **cache)
{
	if (cache && !*cache)
		*cache = calloc(1, sizeof **cache);   /* without it, every location is rendered */
	struct bt_json_frames *c = cache ? *cache : NULL;
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
		frame(w, &t->frames[i], c);
	jw_end_array(w);
	jw_end_object(w);
}

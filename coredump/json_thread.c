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
	uint64_t serial;         /* given when the slot was filled: it stands for what it holds */
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

/* Threads whose frames were written before, kept whole: the threads of a pool walk the same
 * code on stacks of their own, so that their frames differ only in their CFAs.  A thread is
 * kept, and found again, by its frames' words (frame_word): each stands for all a frame
 * writes but its CFA's digits.  KEPT_SETS sets of KEPT_WAYS slots found by a hash of the
 * words; a thread of more than KEPT_FRAMES frames or KEPT_TEXT bytes of frames is not kept.
 * At most KEPT_SETS * KEPT_WAYS * (KEPT_FRAMES * 13 + KEPT_TEXT) bytes. */
#define KEPT_SETS 16
#define KEPT_WAYS 4
#define KEPT_FRAMES 256
#define KEPT_TEXT (64u << 10)

struct kept_thread {
	uint64_t hash;
	size_t n;                /* frames; 0: an empty slot */
	size_t len;              /* bytes of TEXT: the frames' objects and the commas between */
	uint64_t *words;         /* N words, then the N offsets and N lengths of the CFAs'
				  * digits in TEXT (length 0: a null CFA), then TEXT, in one
				  * allocation */
	uint32_t *cfa_at;
	uint8_t *cfa_len;
	char *text;
};

struct bt_json_frames {
	struct fragment slot[NSLOTS];
	struct provenance provenance[N_FOUND_BY][N_MARKERS];
	struct kept_thread kept[KEPT_SETS][KEPT_WAYS];
	unsigned next_kept[KEPT_SETS];   /* the way a set's next new thread replaces */
	uint64_t last_serial;            /* the last fragment.serial given */
	uint64_t words[KEPT_FRAMES];     /* the thread being written */
	size_t cfa_at[KEPT_FRAMES];      /* where its CFAs' digits went in the writer's buffer */
	uint8_t cfa_len[KEPT_FRAMES];
};

void bt_json_frames_free(struct bt_json_frames *c)
{
	for (size_t i = 0; c && i < KEPT_SETS; i++)
		for (size_t k = 0; k < KEPT_WAYS; k++)
			free(c->kept[i][k].words);
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
		return true;     /* the number stands for the rest, the inlined flag included */
	return x->used && x->pc == b->f.pc && x->inlined == b->inlined &&
	       memcmp(&x->loc, &b->loc, sizeof x->loc) == 0;
}

/* Frame B's word when it is the thread's frame I, a word for all it writes but its CFA's
 * digits: where its pc, location and JIT map come from (its number from a cache of located
 * frames, or else the slot of C that holds its rendered location, which stands for them
 * when it has no JIT map), whether it is inlined, its provenance, its marker and whether it
 * has a CFA.  0 when no word stands for the frame: a note, a number other than I, an
 * unlocated frame with a JIT map or whose location no slot holds (not rendered yet, pushed
 * out, or longer than FRAGMENT_MAX), a provenance or marker outside the tables, an entry
 * or slot number of 2^53 or more. */
static uint64_t frame_word(struct bt_json_frames *c, const struct bt_frame *b, size_t i)
{
	_Static_assert(N_FOUND_BY <= 32 && N_MARKERS <= 4, "a provenance fits in five bits, a marker in two");
	if (b->f.note[0] || b->number != i || (unsigned)b->f.found_by >= N_FOUND_BY ||
	    (unsigned)b->f.marker >= N_MARKERS)
		return 0;
	uint64_t id = b->located, located = 1;
	if (!id) {
		const struct fragment *x = fragment_of(c, b);
		if (b->jit_map || !fragment_is(x, b))
			return 0;
		id = x->serial;
		located = 0;
	}
	if (id >> 53)
		return 0;
	return id << 10 | (uint64_t)b->inlined << 9 | located << 8 | (uint64_t)b->f.found_by << 3 |
	       (uint64_t)b->f.marker << 1 | (b->f.cfa != 0);
}

/* T's frames written to W from the kept thread E of the same words: its text with each CFA's
 * digits replaced by T's, copied piece by piece between the CFAs (copied whole and then
 * written over, the bytes of the CFAs were stored twice, and the second stores waited on
 * the first).  False, with nothing written, when a CFA of T has another number of digits
 * than E's (a stack at an address of another length), or W has no room. */
static bool kept_frames_write(struct jw *w, const struct bt_thread *t, const struct kept_thread *e)
{
	char *o = jw_room(w, e->len);
	if (!o)
		return false;
	size_t at = 0;           /* bytes of E's text copied */
	for (size_t i = 0; i < e->n; i++) {
		if (!e->cfa_len[i])
			continue;
		char buf[BT_HEX_SIZE];
		int len;
		const char *digits = bt_hex(buf, t->frames[i].f.cfa, 1, &len);
		if (len != e->cfa_len[i])
			return false;    /* the room's bytes are not part of the text yet */
		o = put(o, e->text + at, e->cfa_at[i] - at);
		o = put(o, digits, (size_t)len);
		at = e->cfa_at[i] + (size_t)len;
	}
	put(o, e->text + at, e->len - at);
	w->len += e->len;
	w->had[w->depth - 1] = true;
	return true;
}

/* Keeps T's frames, just written to W's buffer from offset START on, in a slot of set SI of
 * C (words and CFA places in C), unless they are too long. */
static void keep_thread(struct bt_json_frames *c, unsigned si, uint64_t h, const struct bt_thread *t,
			const struct jw *w, size_t start)
{
	size_t n = t->n, len = w->len - start;
	if (len > KEPT_TEXT)
		return;
	struct kept_thread *e = &c->kept[si][c->next_kept[si] % KEPT_WAYS];
	size_t size = n * (sizeof *e->words + sizeof *e->cfa_at + sizeof *e->cfa_len);
	void *p = realloc(e->words, size + len);
	if (!p)
		return;          /* the slot keeps the thread it held */
	e->words = p;
	e->cfa_at = (uint32_t *)(e->words + n);
	e->cfa_len = (uint8_t *)(e->cfa_at + n);
	e->text = (char *)(e->cfa_len + n);
	memcpy(e->words, c->words, n * sizeof *e->words);
	for (size_t i = 0; i < n; i++) {
		e->cfa_len[i] = c->cfa_len[i];
		e->cfa_at[i] = c->cfa_len[i] ? (uint32_t)(c->cfa_at[i] - start) : 0;
	}
	memcpy(e->text, w->buf + start, len);
	e->hash = h;
	e->n = n;
	e->len = len;
	c->next_kept[si]++;
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

/* Writes frame B as the next member of W's array.  *CFA_AT and *CFA_LEN (CFA_AT NULL: not
 * asked) get the offset in W's buffer of the digits of its "cfa" ("0x..." inside the
 * quotes) and their count, or 0 and 0 when the CFA is null. */
static void frame(struct jw *w, const struct bt_frame *b, struct bt_json_frames *cache,
		  size_t *cfa_at, uint8_t *cfa_len)
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
			x->serial = ++cache->last_serial;
			x->inlined = b->inlined;
			x->pc = b->f.pc;
			x->located = b->located;
			x->loc = *l;
			x->len = (uint16_t)n;
			memcpy(x->bytes, start, n);
		}
	}
	o = provenance_cached(o, b, cache);
	char *cfa = o;
	o = hex(o, b->f.cfa != 0, b->f.cfa);
	if (cfa_at) {
		bool quoted = *cfa == '"';
		*cfa_at = quoted ? (size_t)(cfa + 1 - w->buf) : 0;
		*cfa_len = quoted ? (uint8_t)(o - cfa - 2) : 0;
	}
	o = LIT(o, ",\"note\":");
	o = str(o, note, lnote);
	o = LIT(o, ",\"jit_map\":");
	o = str(o, b->jit_map, ljit);
	o = LIT(o, "}");
	w->len = (size_t)(o - w->buf);
}

/* T's frames' words into C->words (with AGAIN, only those still 0 are asked for again) and
 * their hash into *H; whether every frame has one. */
static bool thread_words(struct bt_json_frames *c, const struct bt_thread *t, bool again, uint64_t *h)
{
	bool worded = true;
	*h = t->n;
	for (size_t i = 0; i < t->n; i++) {
		uint64_t word = again && c->words[i] ? c->words[i] : frame_word(c, &t->frames[i], i);
		c->words[i] = word;
		worded &= word != 0;
		*h = cst_fib_hash(*h ^ word);
	}
	return worded;
}

/* T's frames (1 to KEPT_FRAMES of them) written to W through C's kept threads: copied from
 * a kept thread of the same words, else written frame by frame and kept when every frame has
 * a word and they went into W's buffer in one piece. */
static void frames_kept(struct jw *w, const struct bt_thread *t, struct bt_json_frames *c)
{
	uint64_t h;
	bool worded = thread_words(c, t, false, &h);
	unsigned si = (unsigned)(h >> 40) % KEPT_SETS;
	const struct kept_thread *set = c->kept[si];
	for (unsigned k = 0; worded && k < KEPT_WAYS && set[k].n; k++)
		if (set[k].n == t->n && set[k].hash == h &&
		    memcmp(set[k].words, c->words, t->n * sizeof *c->words) == 0 &&
		    kept_frames_write(w, t, &set[k]))
			return;
	size_t start = w->len;
	unsigned flushes = w->flushes;
	for (size_t i = 0; i < t->n; i++)
		frame(w, &t->frames[i], c, &c->cfa_at[i], &c->cfa_len[i]);
	if (w->nomem || w->flushes != flushes || w->len < start)
		return;
	/* the locations just rendered are in C's slots now, unless too long for them or pushed
	 * out by a later frame of T */
	if (!worded && !thread_words(c, t, true, &h))
		return;
	keep_thread(c, (unsigned)(h >> 40) % KEPT_SETS, h, t, w, start);
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
	if (c && !w->pretty && t->n > 0 && t->n <= KEPT_FRAMES)
		frames_kept(w, t, c);
	else
		for (size_t i = 0; i < t->n; i++)
			frame(w, &t->frames[i], c, NULL, NULL);
	jw_end_array(w);
	jw_end_object(w);
}

/* Text output, close to gdb's `bt`. */
#include "backtrace.h"
#include "escape.h"
#include "process.h"
#include "util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define C_RESET  "\033[0m"
#define C_FUNC   "\033[33m"
#define C_MARK   "\033[1;35m"
#define C_BOLD   "\033[1m"
#define C_CRASH  "\033[1;31m"

void bt_print_process_text(FILE *out, const struct bt_process *p)
{
	if (p->core) {
		fputs("core: ", out);
		cst_fputs_escaped(p->core, out);
	} else {
		fprintf(out, "process: %d", p->pid);
	}
	if (p->core && p->pid)
		fprintf(out, "  pid %d", p->pid);
	if (p->executable) {
		fputs("  executable ", out);
		cst_fputs_escaped(p->executable, out);
	} else if (p->fname && *p->fname) {
		fputs("  command ", out);
		cst_fputs_escaped(p->fname, out);
	}
	fprintf(out, "  (%s)\n", p->arch->name);
	if (p->has_signal) {
		fprintf(out, "signal: %s (%s), si_code %d", cst_signal_name(p->arch, p->signo),
			cst_signal_text(p->arch, p->signo), p->code);
		if (p->has_addr)
			fprintf(out, ", fault address 0x%" PRIx64, p->addr);
		if (p->has_sender)
			fprintf(out, ", sent by pid %d%s, uid %u", p->sender_pid,
				p->sender_pid == p->pid ? " (itself)" : "", p->sender_uid);
		fputc('\n', out);
	}
	if (p->core && p->not_crash)
		fputs("not a crash: saved from a stopped process (as gcore does), not dumped for a fatal "
		      "signal\n", out);
}

static const char *base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path;
}

/* A thread's frame lines are put together here and written with one fwrite when it is
 * full or the thread is done: a core of many threads prints a line per frame, and stdio's
 * per-call cost was most of the printing. */
#define LINE_BUFFER (16 << 10)

struct line {
	FILE *out;
	size_t n;
	unsigned flushes;        /* times the buffer was written out (a rendered span that
				  * spans one is not whole in the buffer) */
	/* Strings put_name found to need no escape: a thread's frames name the same few
	 * functions, files and modules again and again, and every string a thread's frames
	 * point to lives, unchanged, until the thread is printed (the line lives no longer). */
	const char *plain[8];
	unsigned nplain;
	char b[LINE_BUFFER];
};

static void line_flush(struct line *l)
{
	if (l->n)
		fwrite(l->b, 1, l->n, l->out);
	l->n = 0;
	l->flushes++;
}

/* An empty line writing to OUT: the buffer itself is left as it is, it is written before
 * it is read. */
static void line_init(struct line *l, FILE *out)
{
	l->out = out;
	l->n = 0;
	l->flushes = 0;
	l->nplain = 0;
	memset(l->plain, 0, sizeof l->plain);
}

/* put when the line's buffer is full: what it holds is written first */
static void put_flush(struct line *l, const char *s, size_t len)
{
	line_flush(l);
	if (len > sizeof l->b) {
		fwrite(s, 1, len, l->out);
		return;
	}
	memcpy(l->b, s, len);
	l->n = len;
}

static inline void put(struct line *l, const char *s, size_t len)
{
	if (__builtin_expect(l->n + len > sizeof l->b, 0)) {
		put_flush(l, s, len);
		return;
	}
	memcpy(l->b + l->n, s, len);
	l->n += len;
}

static void put_str(struct line *l, const char *s)
{
	put(l, s, strlen(s));
}

/* A string from the core or a file it names: escaped (escape.h) */
static void put_name(struct line *l, const char *s)
{
	size_t len = strlen(s);
	for (unsigned i = 0; i < sizeof l->plain / sizeof l->plain[0]; i++)
		if (l->plain[i] == s) {
			put(l, s, len);
			return;
		}
	if (!cst_needs_escape_len(s, len)) {
		l->plain[l->nplain++ % (sizeof l->plain / sizeof l->plain[0])] = s;
		put(l, s, len);
		return;
	}
	char buf[1024];
	size_t need = cst_escape(buf, sizeof buf, s);
	char *big = need < sizeof buf ? NULL : malloc(need + 1);
	if (big)
		cst_escape(big, need + 1, s);
	put_str(l, big ? big : buf);
	free(big);
}

/* V as bt_hex writes it: "0x", at least WIDTH digits */
static void put_hex(struct line *l, uint64_t v, int width)
{
	char buf[BT_HEX_SIZE];
	int len;
	const char *p = bt_hex(buf, v, width, &len);
	put(l, p, (size_t)len);
}

/* The two decimal digits of 0..99, for put_dec */
#define DEC_PAIRS10(t) t "0" t "1" t "2" t "3" t "4" t "5" t "6" t "7" t "8" t "9"
static const char dec_pairs[201] = DEC_PAIRS10("0") DEC_PAIRS10("1") DEC_PAIRS10("2") DEC_PAIRS10("3")
	DEC_PAIRS10("4") DEC_PAIRS10("5") DEC_PAIRS10("6") DEC_PAIRS10("7") DEC_PAIRS10("8") DEC_PAIRS10("9");

static void put_dec(struct line *l, long long v)
{
	/* written backwards from the end, two digits a division (a thread id has five or more) */
	char d[24];
	char *p = d + sizeof d;
	unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
	for (; u >= 100; u /= 100) {
		p -= 2;
		memcpy(p, &dec_pairs[2 * (u % 100)], 2);
	}
	if (u >= 10) {
		p -= 2;
		memcpy(p, &dec_pairs[2 * u], 2);
	} else {
		*--p = (char)('0' + u);
	}
	if (v < 0)
		*--p = '-';
	put(l, p, (size_t)(d + sizeof d - p));
}

/* "#N" as "#%-2u" writes it: the frame number, padded to two columns */
static void put_number(struct line *l, unsigned n)
{
	if (n >= 100) {
		put(l, "#", 1);
		put_dec(l, n);
		return;
	}
	char d[3] = { '#', (char)('0' + (n < 10 ? n : n / 10)), n < 10 ? ' ' : (char)('0' + n % 10) };
	put(l, d, 3);
}

/* What frame B's line after its number depends on: the line is the same bytes for every
 * frame with the same key (the strings are compared by address: they stay unchanged while
 * the process they come from is open).  A frame that a cache located (bt_frame.located) is
 * keyed by its entry's number in place of its pc and location, which the number stands
 * for. */
struct line_key {
	uint64_t pc, module_base;
	const char *function, *module, *file, *jit_map, *copy_of;
	uint32_t line;
	uint32_t flags;          /* KEY_* */
};
_Static_assert(sizeof(struct line_key) == 64, "struct line_key has no padding to compare");

enum { KEY_INLINED = 1, KEY_MISMATCH = 2, KEY_ANON_CODE = 4, KEY_COLOR = 8, KEY_LOCATED = 16,
       KEY_MARKER_SHIFT = 5 };

static inline void line_key_of(struct line_key *k, const struct bt_frame *b, bool color)
{
	if (b->located) {
		*k = (struct line_key){
			.pc = b->located,
			.flags = KEY_LOCATED | (color ? KEY_COLOR : 0) | (uint32_t)b->f.marker << KEY_MARKER_SHIFT,
		};
		return;
	}
	k->pc = b->f.pc;
	k->module_base = b->loc.module_base;
	k->function = b->loc.function;
	k->module = b->loc.module;
	k->file = b->loc.file;
	k->jit_map = b->jit_map;
	k->copy_of = b->copy_of;
	k->line = (uint32_t)b->loc.line;
	k->flags = (b->inlined ? KEY_INLINED : 0) | (b->loc.mismatch ? KEY_MISMATCH : 0) |
		   (b->anon_code ? KEY_ANON_CODE : 0) | (color ? KEY_COLOR : 0) |
		   (uint32_t)b->f.marker << KEY_MARKER_SHIFT;
}

static bool line_key_equal(const struct line_key *x, const struct line_key *y)
{
	return x->pc == y->pc && x->function == y->function && x->flags == y->flags &&
	       x->file == y->file && x->line == y->line && x->module == y->module &&
	       x->module_base == y->module_base && x->jit_map == y->jit_map && x->copy_of == y->copy_of;
}

/* The cache: LINES_SETS sets of LINES_WAYS slots; a line longer than a slot's text is
 * rendered every time.  At most LINES_SETS * LINES_WAYS * sizeof(struct line_slot) bytes. */
#define LINES_SETS 256
#define LINES_WAYS 4
#define LINE_TEXT 318

struct line_slot {
	struct line_key key;
	uint64_t serial;         /* given when the slot is filled, never given again: it
				  * stands for KEY in a kept thread's words (thread_word) */
	uint16_t len;            /* bytes of TEXT; 0: an empty slot (a line ends with '\n') */
	char text[LINE_TEXT];
};

/* Threads of at most THREAD_FRAMES frames, whose lines fit in a line's buffer, are also
 * kept whole, in THREAD_SETS sets of LINES_WAYS slots found by a hash of their frames'
 * words (thread_word): the threads of a pool print the same frames.  At most THREAD_SETS *
 * LINES_WAYS * (THREAD_FRAMES * 8 + LINE_BUFFER) bytes. */
#define THREAD_FRAMES 256
#define THREAD_SETS 64

struct thread_slot {
	uint64_t hash;
	size_t n;                /* frames; 0: an empty slot */
	size_t len;              /* bytes of TEXT */
	uint64_t *words;         /* N words, then TEXT, in one allocation */
	char *text;
};

struct bt_lines {
	struct line_slot slot[LINES_SETS][LINES_WAYS];
	unsigned next[LINES_SETS];  /* the way a set's next new line replaces */
	uint64_t last_serial;       /* the last line_slot.serial given */
	uint64_t words[THREAD_FRAMES];   /* the thread being printed */
	struct thread_slot threads[THREAD_SETS][LINES_WAYS];
	unsigned next_thread[THREAD_SETS];  /* the way a set's next new thread replaces */
};

struct bt_lines *bt_lines_new(void)
{
	return calloc(1, sizeof(struct bt_lines));
}

void bt_lines_free(struct bt_lines *c)
{
	for (size_t i = 0; c && i < THREAD_SETS; i++)
		for (size_t w = 0; w < LINES_WAYS; w++)
			free(c->threads[i][w].words);
	free(c);
}

/* The set of key K: inlined frames share their pc and differ in their function, callers
 * share it and differ in their marker. */
static unsigned line_set(const struct line_key *k)
{
	uint64_t h = cst_fib_hash(k->pc ^ (uint64_t)(uintptr_t)k->function ^ (uint64_t)k->flags << 48);
	return (unsigned)(h >> 56) % LINES_SETS;
}

/* The frame's line from its pc column on (without the -v line), rendered into L. */
static void frame_text(struct line *l, const struct bt_frame *b, const struct bt_options *o)
{
	const struct cst_location *loc = &b->loc;
	/* the pc as "0x%016x in ", or blanks of that width for an inlined frame */
	if (b->inlined) {
		put(l, "                       ", 23);
	} else {
		put(l, " ", 1);
		put_hex(l, b->f.pc, 16);
		put(l, " in ", 4);
	}
	if (o->color)
		put_str(l, C_FUNC);
	if (loc->function) {
		put_name(l, loc->function);
	} else if (loc->module) {
		put_name(l, base(loc->module));
		put(l, "+", 1);
		put_hex(l, b->f.pc - loc->module_base, 1);
	} else {
		put(l, "??", 2);
	}
	if (o->color)
		put_str(l, C_RESET);
	put(l, " ()", 3);
	if (loc->file) {
		put(l, " at ", 4);
		put_name(l, loc->file);
		put(l, ":", 1);
		put_dec(l, loc->line);
	} else if (loc->module) {
		put(l, " from ", 6);
		put_name(l, loc->module);
	} else if (b->jit_map) {
		put(l, " [JIT] from ", 12);
		put_name(l, b->jit_map);
	} else if (b->anon_code) {
		put_str(l, " [JIT] from anonymous memory");
	} else if (b->copy_of) {
		put_str(l, " from a copy of ");
		put_name(l, b->copy_of);
	}
	if (loc->mismatch)
		put_str(l, " (build-id mismatch)");
	const char *m = cst_marker_name(b->f.marker);
	if (m) {
		put_str(l, o->color ? "  " C_MARK "[" : "  [");
		put_str(l, m);
		put_str(l, o->color ? "]" C_RESET : "]");
	}
	put(l, "\n", 1);
}

/* The slot of cache C that holds the line of key K, or NULL. */
static const struct line_slot *line_find(const struct bt_lines *c, const struct line_key *k)
{
	const struct line_slot *set = c->slot[line_set(k)];
	for (unsigned i = 0; i < LINES_WAYS && set[i].len; i++)
		if (line_key_equal(&set[i].key, k))
			return &set[i];
	return NULL;
}

/* frame_text through O->lines: copied from the cache when a frame of the same key was
 * rendered before, else rendered and kept. */
static void frame_text_cached(struct line *l, const struct bt_frame *b, const struct bt_options *o)
{
	struct line_key k;
	line_key_of(&k, b, o->color);
	const struct line_slot *found = line_find(o->lines, &k);
	if (found) {
		put(l, found->text, found->len);
		return;
	}
	size_t start = l->n;
	unsigned flushes = l->flushes;
	frame_text(l, b, o);
	if (l->flushes != flushes || l->n - start > LINE_TEXT)
		return;
	unsigned si = line_set(&k);
	struct line_slot *s = &o->lines->slot[si][o->lines->next[si]++ % LINES_WAYS];
	s->key = k;
	s->serial = ++o->lines->last_serial;
	s->len = (uint16_t)(l->n - start);
	memcpy(s->text, l->b + start, s->len);
}

/* Frame B's line (and with -v its "found by" line) added to L. */
static void frame_line(struct line *l, const struct bt_frame *b, const struct bt_options *o)
{
	put_number(l, b->number);
	if (o->lines)
		frame_text_cached(l, b, o);
	else
		frame_text(l, b, o);
	if (o->verbose && !b->inlined) {
		FILE *out = l->out;
		line_flush(l);
		fprintf(out, "    found by: %s (%s)", cst_found_by_token(b->f.found_by),
			cst_found_by_description(b->f.found_by));
		if (b->f.cfa)
			fprintf(out, ", cfa 0x%" PRIx64, b->f.cfa);
		if (b->f.note[0]) {
			/* a note can name a module, a path from the core */
			fputs("; ", out);
			cst_fputs_escaped(b->f.note, out);
		}
		fputc('\n', out);
	}
}

void bt_print_frame_text(FILE *out, const struct bt_frame *b, const struct bt_options *o)
{
	struct line l;
	line_init(&l, out);
	frame_line(&l, b, o);
	line_flush(&l);
}

/* The thread's header line, with the blank line before it */
static void header_line(struct line *l, const struct bt_thread *t, const struct bt_options *o)
{
	put_str(l, o->color ? "\n" C_BOLD "Thread " : "\nThread ");
	put_dec(l, t->tid);
	if (o->color)
		put_str(l, C_RESET);
	if (t->crashed) {
		put_str(l, o->color ? " (" C_CRASH "crashed: " : " (crashed: ");
		put_str(l, cst_signal_name(t->arch, t->cursig));
		put_str(l, o->color ? C_RESET ")" : ")");
	}
	put(l, "\n", 1);
}

/* thread_word of a frame that no entry of a cache located: its line's slot (out of line:
 * most frames were located) */
static __attribute__((noinline)) uint64_t line_word(const struct bt_lines *c, const struct bt_frame *b,
						     bool color)
{
	struct line_key k;
	line_key_of(&k, b, color);
	const struct line_slot *s = line_find(c, &k);
	return s ? s->serial << 1 : 0;
}

/* Frame B's word in a kept thread's key: one word for what its line after the number
 * depends on.  A located frame: its entry's number (which stands for its pc and location,
 * line_key_of), its marker and the colour; another frame: the serial of the cache's slot
 * * that holds its line, or 0 when none does (yet).  The two kinds differ
 * in the lowest bit. */
static inline uint64_t thread_word(const struct bt_lines *c, const struct bt_frame *b, bool color)
{
	_Static_assert(CST_MARK_LOST_TAIL_CALL < 4, "a marker fits in two bits");
	if (__builtin_expect(b->located != 0, 1))
		return b->located << 4 | (uint64_t)b->f.marker << 2 | (color ? 2 : 0) | 1;
	return line_word(c, b, color);
}

/* T's frame lines through O->lines (T has 1 to THREAD_FRAMES frames, no -v): copied whole
 * when a thread with the same frames (and numbers: each frame's index) was kept, else
 * rendered line by line, and kept when every frame has a word. */
static void thread_lines(struct line *l, const struct bt_thread *t, const struct bt_options *o)
{
	struct bt_lines *c = o->lines;
	bool numbered = true, worded = true;
	uint64_t h = t->n;
	const struct bt_frame *frames = t->frames;
	uint64_t *words = c->words;
	size_t n = t->n;
	for (size_t i = 0; i < n; i++) {
		uint64_t w = thread_word(c, &frames[i], o->color);
		words[i] = w;
		worded &= w != 0;
		numbered &= frames[i].number == i;
		h = cst_fib_hash(h ^ w);
	}
	unsigned si = (unsigned)(h >> 40) % THREAD_SETS;
	struct thread_slot *set = c->threads[si];
	size_t size = n * sizeof *words;
	for (unsigned w = 0; numbered && worded && w < LINES_WAYS && set[w].n; w++)
		if (set[w].n == n && set[w].hash == h && memcmp(set[w].words, words, size) == 0) {
			/* straight from the kept text: the line holds the thread's header */
			line_flush(l);
			fwrite(set[w].text, 1, set[w].len, l->out);
			return;
		}
	size_t start = l->n;
	unsigned flushes = l->flushes;
	for (size_t i = 0; i < t->n; i++)
		frame_line(l, &t->frames[i], o);
	if (!numbered || l->flushes != flushes)
		return;
	if (!worded) {
		/* the lines just rendered are in the cache now, unless too long for it */
		h = n;
		for (size_t i = 0; i < n; i++) {
			uint64_t w = words[i] ? words[i] : thread_word(c, &frames[i], o->color);
			if (!w)
				return;
			words[i] = w;
			h = cst_fib_hash(h ^ w);
		}
		si = (unsigned)(h >> 40) % THREAD_SETS;
		set = c->threads[si];
	}
	size_t len = l->n - start;
	struct thread_slot *e = &set[c->next_thread[si] % LINES_WAYS];
	void *p = realloc(e->words, size + len);
	if (!p)
		return;
	e->words = p;
	e->text = (char *)p + size;
	memcpy(e->words, words, size);
	memcpy(e->text, l->b + start, len);
	e->hash = h;
	e->n = n;
	e->len = len;
	c->next_thread[si]++;
}

static void frames_text(struct line *l, const struct bt_thread *t, const struct bt_options *o)
{
	if (o->lines && !o->verbose && t->n > 0 && t->n <= THREAD_FRAMES) {
		thread_lines(l, t, o);
	} else {
		for (size_t i = 0; i < t->n; i++)
			frame_line(l, &t->frames[i], o);
	}
	line_flush(l);
	if (t->rc < 0 || t->n == 0)
		fprintf(l->out, "(walk stopped: %s)\n", t->stop);
}

void bt_print_thread_text(FILE *out, const struct bt_thread *t, const struct bt_options *o)
{
	struct line l;
	line_init(&l, out);
	header_line(&l, t, o);
	frames_text(&l, t, o);
}

void bt_print_thread_header_text(FILE *out, const struct bt_thread *t, const struct bt_options *o)
{
	struct line l;
	line_init(&l, out);
	header_line(&l, t, o);
	line_flush(&l);
}

void bt_print_first_text(FILE *out, const struct bt_thread *t, bool counted, size_t n,
			 const struct bt_options *o)
{
	if (!counted || n > t->n || (n == t->n && !t->limited)) {
		bt_print_frames_text(out, t, o);
		return;
	}
	for (size_t i = 0; i < n && i < t->n; i++)
		bt_print_frame_text(out, &t->frames[i], o);
	fputs("(More stack frames follow...)\n", out);
}

void bt_print_frames_text(FILE *out, const struct bt_thread *t, const struct bt_options *o)
{
	struct line l;
	line_init(&l, out);
	frames_text(&l, t, o);
}

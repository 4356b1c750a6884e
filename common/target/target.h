/* The target: where an unwinder reads memory.  One interface, several back ends: an ELF
 * core file (core.c), a live process under ptrace (live.c), gdb's JIT reader callbacks
 * (plugin/), and in-memory fakes for unit tests (tests/unit/fake_target.c). */
#ifndef CST_TARGET_H
#define CST_TARGET_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

struct cst_target_ops {
	/* Reads LEN bytes at target virtual address ADDR into BUF.  Returns 0, or
	 * -CST_E_MEMORY when any byte of the range is not readable. */
	int (*read)(void *priv, uint64_t addr, void *buf, size_t len);
	/* Whether ADDR lies in executable memory that no file backs (JIT code: a core's PT_LOAD
	 * with PF_X that no NT_FILE entry covers, an anonymous executable mapping of a live
	 * process).  NULL when the back end cannot tell. */
	bool (*anon_code)(void *priv, uint64_t addr);
	/* The file whose code ADDR holds a copy of: ADDR lies in an executable mapping of a
	 * file far from where the file's ELF layout puts it (cst_in_module_layout false), which
	 * no module spans (node maps a copy of its embedded V8 builtins near its JIT code and
	 * runs them there).  NULL otherwise, or when the back end cannot tell (NULL op). */
	const char *(*copied_code)(void *priv, uint64_t addr);
	/* Whether the memory stays as it is while the target is open (a core file): what a walk
	 * reads of it, such as the functions that linkage stubs lead to, may be remembered. */
	bool fixed;
	/* Whether the back end keeps struct cst_target's span (a false default leaves it unread,
	 * so a back end that does not know it need not set it up). */
	bool span;
};

/* Bytes by which a segment's distance from its file's first mapping may exceed its distance
 * in the file (p_align padding between segments; 2 MiB on some builds). */
#define CST_MODULE_LAYOUT_SLACK (16ull << 20)

/* Whether a mapping at START of file offset OFFSET belongs to the module whose mapping of
 * offset 0 is at BASE (START >= BASE): it lies where the file's ELF layout puts it, within
 * CST_MODULE_LAYOUT_SLACK.  A mapping of the file farther away is a copy of its bytes
 * (node maps a copy of its own text elsewhere, near its JIT code, which a module spanning
 * both would take in). */
static inline bool cst_in_module_layout(uint64_t base, uint64_t start, uint64_t offset)
{
	return start - base <= offset + CST_MODULE_LAYOUT_SLACK;
}

/* Target memory a back end holds in a buffer of its own: [addr, addr + len) is at data.
 * A walk reads word after word of one stack: cst_target_read_word copies them from here
 * without a call.  len 0: none. */
struct cst_target_span {
	uint64_t addr;
	size_t len;
	const uint8_t *data;
};

struct cst_target {
	const struct cst_target_ops *ops;
	void *priv;
	bool big_endian;   /* byte order of target words */
	struct cst_target_span span;  /* read only when ops->span; the back end keeps it valid
				       * (its read may move it) */
};

/* Reads LEN bytes at ADDR; 0 or -CST_E_MEMORY. */
int cst_target_read(const struct cst_target *t, uint64_t addr, void *buf, size_t len);

/* Whether ADDR lies in executable memory that no file backs (cst_target_ops.anon_code);
 * false when the back end cannot tell. */
bool cst_target_anon_code(const struct cst_target *t, uint64_t addr);

/* The file whose code copy holds ADDR (cst_target_ops.copied_code), a string the target
 * owns; NULL when ADDR is not in such a copy or the back end cannot tell. */
const char *cst_target_copied_code(const struct cst_target *t, uint64_t addr);

/* cst_target_read_word through the back end's read. */
int cst_target_read_word_slow(const struct cst_target *t, uint64_t addr, unsigned size, uint64_t *out);

/* Whether T's span holds words of SIZE bytes as the host reads them: the back end keeps it,
 * and SIZE-byte words are 8 bytes in the host's order; it stays so while T is open.  Then a
 * caller that reads several words between stores of its own, which could alias T's and make
 * every read load the span again, may read them from a copy of T->span (cst_span_word),
 * stale after any other read of T. */
static inline bool cst_target_span_words(const struct cst_target *t, unsigned size)
{
	bool host_order = t->big_endian == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	return t->ops->span && size == 8 && host_order;
}

/* Reads the 8-byte word at ADDR from S (a copy of a span, cst_target_span_words) into *OUT:
 * true when S holds all of it, false otherwise (nothing read: read it through the target). */
static inline bool cst_span_word(const struct cst_target_span *s, uint64_t addr, uint64_t *out)
{
	/* one comparison per word where the span's length is known (a loop's copy of it) */
	uint64_t rel = addr - s->addr;
	if (s->len < 8 || rel > s->len - 8)
		return false;
	memcpy(out, s->data + rel, 8);
	return true;
}

/* Reads one SIZE-byte word (4 or 8) at ADDR in the target's byte order into *OUT
 * (zero-extended).  Returns 0, -CST_E_MEMORY, or -CST_E_INVAL for another SIZE. */
static inline int cst_target_read_word(const struct cst_target *t, uint64_t addr, unsigned size,
				       uint64_t *out)
{
	uint64_t v;
	if (t->ops->span && size == 8 && cst_span_word(&t->span, addr, &v)) {
		*out = t->big_endian ? be64toh(v) : le64toh(v);
		return 0;
	}
	return cst_target_read_word_slow(t, addr, size, out);
}

#endif

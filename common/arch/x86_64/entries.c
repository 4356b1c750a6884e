/* x86-64 function entries in stripped code without CFI: what an instruction refers to, for
 * unwind/entries.h.  Entries are the targets of direct calls (e8 rel32) and of RIP-relative
 * lea (a code address taken: main in _start, callbacks); direct jumps (jmp and jcc, rel8 and
 * rel32) may leave their function (tail calls).  Encodings: Intel SDM vol. 2, CALL, JMP, Jcc,
 * LEA. */
#include "x86_64.h"
#include "entries.h"
#include "error.h"
#include "util.h"

#include <stdlib.h>

struct scan {
	struct cache *c;
	cs_insn *in;
};

static bool begin(void *ctx)
{
	struct scan *s = ctx;
	if (!s->c->cst_ok || !(s->in = cs_malloc(s->c->cs)))
		return false;
	cs_option(s->c->cs, CS_OPT_DETAIL, CS_OPT_OFF);      /* the bytes are enough here */
	return true;
}

static void end(void *ctx)
{
	struct scan *s = ctx;
	cs_option(s->c->cs, CS_OPT_DETAIL, CS_OPT_ON);
	cs_free(s->in, 1);
	s->in = NULL;
}

static size_t decode(void *ctx, const uint8_t *p, size_t left, uint64_t addr,
		     enum cst_entry_ref *ref, uint64_t *target)
{
	struct scan *s = ctx;
	cs_insn *in = s->in;
	if (!cs_disasm_iter(s->c->cs, &p, &left, &addr, in))
		return 0;
	uint64_t end = in->address + in->size;
	const uint8_t *b = in->bytes;
	*ref = CST_REF_JUMP;
	if (in->id == X86_INS_CALL && in->size == 5 && b[0] == 0xe8) {
		*ref = CST_REF_ENTRY;
		*target = end + (uint64_t)(int64_t)cst_le32s(b + 1);
	} else if (in->id == X86_INS_LEA && in->size == 7 && (b[0] & 0xf8) == 0x48 && b[1] == 0x8d &&
		   (b[2] & 0xc7) == 0x05) {                                    /* lea disp32(%rip) */
		*ref = CST_REF_ENTRY;
		*target = end + (uint64_t)(int64_t)cst_le32s(b + 3);
	} else if (in->size == 5 && b[0] == 0xe9) {                            /* jmp rel32 */
		*target = end + (uint64_t)(int64_t)cst_le32s(b + 1);
	} else if (in->size == 2 && (b[0] == 0xeb || (b[0] & 0xf0) == 0x70)) { /* jmp/jcc rel8 */
		*target = end + (uint64_t)(int64_t)(int8_t)b[1];
	} else if (in->size == 6 && b[0] == 0x0f && (b[1] & 0xf0) == 0x80) {   /* jcc rel32 */
		*target = end + (uint64_t)(int64_t)cst_le32s(b + 2);
	} else {
		*ref = CST_REF_NONE;
	}
	return in->size;
}

static const struct cst_entries_ops entries_ops = {
	.unit = 1,
	.fill = 0xcc,           /* int3 */
	.begin = begin,
	.end = end,
	.decode = decode,
};

int cst_x86_64_guess_func(struct cst_unwind *u, uint64_t addr, struct cst_func *fn)
{
	struct cache *c = cst_x86_64_cache(u);
	if (!c)
		return -CST_E_NO_FUNC;
	struct scan s = { .c = c };
	return cst_entries_func(&c->entries, u, &entries_ops, &s, addr, fn);
}

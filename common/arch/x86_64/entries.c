/* x86-64 function entries in stripped code without CFI: what an instruction refers to, for
 * unwind/entries.h.  Entries are the targets of direct calls (e8 rel32); code addresses are
 * taken by RIP-relative lea (main in _start, callbacks) and, in code linked at a fixed
 * address, by mov of a 32-bit immediate; direct jumps (jmp and jcc, rel8 and rel32) may
 * leave their function (tail calls); any other jmp is indirect.  gcc aligns functions with nop or int3 padding after
 * the previous function's ret or jmp; a function's first instruction has the shape of
 * endbr64 or of push %rbp; mov %rsp,%rbp.  A switch loads its table's address (lea) and
 * jumps through a register (jmp *%reg) to the table's address plus the case's signed 32-bit
 * offset (gcc's position-independent jump tables).  Encodings: Intel SDM vol. 2, CALL, JMP, Jcc,
 * LEA, MOV, ENDBR64. */
#include "x86_64.h"
#include "entries.h"
#include "error.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

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

/* Whether B (LEFT bytes) begins with endbr64 (f3 0f 1e fa) or push %rbp; mov %rsp,%rbp
 * (55 48 89 e5). */
static bool prologue_shape(const uint8_t *b, size_t left)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa }, push_mov[] = { 0x55, 0x48, 0x89, 0xe5 };
	return left >= 4 && (memcmp(b, endbr64, 4) == 0 || memcmp(b, push_mov, 4) == 0);
}

static size_t decode(void *ctx, const uint8_t *p, size_t left, uint64_t addr, struct cst_entry_insn *out)
{
	struct scan *s = ctx;
	cs_insn *in = s->in;
	const uint8_t *start = p;
	size_t avail = left;
	if (!cs_disasm_iter(s->c->cs, &p, &left, &addr, in))
		return 0;
	uint64_t end = in->address + in->size;
	const uint8_t *b = in->bytes;
	out->barrier = in->id == X86_INS_RET || in->id == X86_INS_JMP || in->id == X86_INS_UD2 ||
		       in->id == X86_INS_HLT;
	out->padding = in->id == X86_INS_NOP || in->id == X86_INS_INT3;
	out->prologue = prologue_shape(start, avail);
	out->indirect_jump = in->id == X86_INS_JMP && b[0] != 0xe9 && b[0] != 0xeb;
	/* a switch's jmp *%reg: ff /4 with mod 11, REX.B optional */
	out->register_jump = in->id == X86_INS_JMP && ((in->size == 2 && b[0] == 0xff && (b[1] & 0xf8) == 0xe0) ||
						      (in->size == 3 && b[0] == 0x41 && b[1] == 0xff && (b[2] & 0xf8) == 0xe0));
	out->ref = CST_REF_JUMP;
	if (in->id == X86_INS_CALL && in->size == 5 && b[0] == 0xe8) {
		out->ref = CST_REF_ENTRY;
		out->target = end + (uint64_t)(int64_t)cst_le32s(b + 1);
	} else if (in->id == X86_INS_LEA && in->size == 7 && (b[0] & 0xf8) == 0x48 && b[1] == 0x8d &&
		   (b[2] & 0xc7) == 0x05) {                                    /* lea disp32(%rip) */
		out->ref = CST_REF_ADDR;
		out->target = end + (uint64_t)(int64_t)cst_le32s(b + 3);
	} else if (in->id == X86_INS_MOV && ((in->size == 5 && (b[0] & 0xf8) == 0xb8) ||
					     (in->size == 6 && b[0] == 0x41 && (b[1] & 0xf8) == 0xb8))) {
		out->ref = CST_REF_ADDR;                                       /* mov $imm32, %r32 */
		out->target = (uint32_t)cst_le32s(b + in->size - 4);
	} else if (in->id == X86_INS_MOV && in->size == 7 && (b[0] & 0xfa) == 0x48 && b[1] == 0xc7 &&
		   (b[2] & 0xf8) == 0xc0) {                                    /* mov $simm32, %r64 */
		out->ref = CST_REF_ADDR;
		out->target = (uint64_t)(int64_t)cst_le32s(b + 3);
	} else if (in->size == 5 && b[0] == 0xe9) {                            /* jmp rel32 */
		out->target = end + (uint64_t)(int64_t)cst_le32s(b + 1);
	} else if (in->size == 2 && (b[0] == 0xeb || (b[0] & 0xf0) == 0x70)) { /* jmp/jcc rel8 */
		out->target = end + (uint64_t)(int64_t)(int8_t)b[1];
	} else if (in->size == 6 && b[0] == 0x0f && (b[1] & 0xf0) == 0x80) {   /* jcc rel32 */
		out->target = end + (uint64_t)(int64_t)cst_le32s(b + 2);
	} else {
		out->ref = CST_REF_NONE;
	}
	return in->size;
}

static const struct cst_entries_ops entries_ops = {
	.unit = 1,
	.fill = 0xcc,           /* int3 */
	.gap_needs_padding = true,
	.indirect_jumps = true,
	.offset_tables = true,
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

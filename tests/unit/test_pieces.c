/* Stripped code without CFI (pieces_stripped.s, linked without symbols at 0x500000): a frame
 * is never split into pieces of itself.  The guessed entry table holds a spurious entry
 * inside a function (an address taken in its middle, which the code before it runs on
 * into); the caller called the function's real entry, and frame 0 sits past the spurious
 * one.  The function's entry must not be inserted as a lost tail call below frame 0 (the
 * caller follows it directly), while a real tail call to the function right after a jump is
 * still found.  The code is read from an in-memory target holding the file's executable
 * segment; the symbols come from the file (cst_symbols_open_files).  Usage: test_pieces DIR
 * (where pieces_stripped.elf is). */
#include "error.h"
#include "fake_target.h"
#include "symbols.h"
#include "unit.h"
#include "unwind.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { RBP = 6, RSP = 7, RIP = 16 };

#define B        0x500000ull
#define STACK    0x7f0000ull
#define FRAME0   (STACK + 0x100)         /* frame 0's rbp and rsp: its frame record */
#define START_BP (STACK + 0x200)         /* _start's frame record: 0, 0 (outermost) */

/* Copies the executable PT_LOAD of PATH into FT.  Returns 0 or -1. */
static int map_code(struct fake_target *ft, const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	int rc = -1;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t n;
	if (elf && elf_getphdrnum(elf, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
				continue;
			uint8_t *p = fake_map(ft, ph.p_vaddr, ph.p_memsz);
			if (p && pread(fd, p, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz)
				rc = 0;
			break;
		}
	}
	elf_end(elf);
	close(fd);
	return rc;
}

struct want {
	const char *name;
	uint64_t pc;            /* frame 0 */
	uint64_t ret;           /* the return address in frame 0's record: after _start's call */
	uint64_t spurious;      /* the guessed start of frame 0's function */
	bool falls_in;          /* ... and whether the code before it runs on into it */
	uint64_t lost;          /* the lost tail call expected between them (0: none) */
};

static const struct want cases[] = {
	{ "pieces_spurious_entry", B + 0x39, B + 0x09, B + 0x35, true, 0 },
	{ "pieces_real_tail_call", B + 0x59, B + 0x0e, B + 0x55, false, B + 0x53 },
};

static void check(struct cst_symbols *syms, struct fake_target *ft, const struct want *w)
{
	fake_write_word(ft, FRAME0, 8, START_BP);
	fake_write_word(ft, FRAME0 + 8, 8, w->ret);
	struct cst_unwind_env env = { .arch = &cst_arch_x86_64, .target = &ft->target, .syms = syms };
	struct cst_regs regs;
	cst_regs_clear(&regs);
	cst_reg_set(&regs, RIP, w->pc);
	cst_reg_set(&regs, RSP, FRAME0);
	cst_reg_set(&regs, RBP, FRAME0);
	struct cst_unwind *u = calloc(1, sizeof *u);

	unit_begin("%s", w->name);
	if (!unit_expect(u && cst_unwind_start(u, &env, &regs) == 0, "cannot start the walk"))
		goto out;
	struct cst_func fn;
	unit_expect(cst_unwind_func(u, w->pc, &fn) == 0 && fn.start == w->spurious && fn.falls_in == w->falls_in,
		    "frame 0's guessed function: start 0x%llx falls_in %d, want 0x%llx %d",
		    (unsigned long long)fn.start, fn.falls_in, (unsigned long long)w->spurious, w->falls_in);
	struct cst_frame f[8];
	int n = 0;
	while (n < 8 && cst_unwind_next(u, &f[n]) == 1)
		n++;
	int k = 1;
	EXPECT_EQ(f[0].pc, w->pc, "frame 0");
	if (w->lost) {
		unit_expect(n > k && f[k].pc == w->lost && f[k].marker == CST_MARK_LOST_TAIL_CALL,
			    "frame 1: want the tail jump at 0x%llx [lost tail call]", (unsigned long long)w->lost);
		k++;
	}
	unit_expect(n > k && f[k].pc == w->ret && f[k].marker == CST_MARK_NONE,
		    "frame %d: want _start's 0x%llx, unmarked (got 0x%llx, %d frames)", k,
		    (unsigned long long)w->ret, n > k ? (unsigned long long)f[k].pc : 0ull, n);
	for (int i = 1; i < n; i++)
		unit_expect(f[i].marker != CST_MARK_LOST_TAIL_CALL || f[i].pc == w->lost,
			    "frame %d at 0x%llx inserted as a lost tail call", i, (unsigned long long)f[i].pc);
	unit_expect(n == k + 1, "%d frames, want %d", n, k + 1);
out:
	unit_end();
	cst_unwind_env_free(&env);
	free(u);
}

int main(int argc, char **argv)
{
	char path[4096], err[256];
	snprintf(path, sizeof path, "%s/pieces_stripped.elf", argc > 1 ? argv[1] : ".");
	elf_version(EV_CURRENT);
	struct fake_target ft;
	fake_init(&ft, false);
	struct cst_symbols *syms = NULL;
	const char *paths[] = { path };
	const uint64_t biases[] = { 0 };
	if (map_code(&ft, path) < 0 || !fake_map(&ft, STACK, 0x1000) ||
	    cst_symbols_open_files(&syms, 1, paths, biases, err, sizeof err) < 0) {
		unit_begin("pieces");
		unit_expect(false, "cannot load %s", path);
		unit_end();
		fake_free(&ft);
		return unit_exit();
	}
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		check(syms, &ft, &cases[i]);
	cst_symbols_close(syms);
	fake_free(&ft);
	return unit_exit();
}

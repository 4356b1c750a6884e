/* libFuzzer harness for the core reader (common/core.c).
 *
 * The input is a whole core file.  It is written to a memory file and opened by path through
 * cst_core_open, exactly as the CLI opens a core; then every accessor is called and memory is
 * read where a backtrace would read it (at each thread's pc, sp and frame pointer, at each
 * NT_FILE mapping, at the auxiliary vector's entry point), so the program headers, every
 * note (NT_PRSTATUS, NT_PRPSINFO, NT_SIGINFO, NT_AUXV, NT_FILE) and the PT_LOAD index are
 * all parsed and used.  Built with clang -fsanitize=fuzzer,address,undefined by fuzz/fuzz.mk,
 * and with the normal compiler into the replay driver (fuzz/replay.c). */
#include "core.h"
#include "error.h"
#include "fuzz_input.h"

#include <elf.h>
#include <stdio.h>
#include <string.h>

static void read_some(struct cst_target *t, uint64_t addr)
{
	uint8_t buf[64];
	uint64_t w;
	cst_target_read(t, addr, buf, sizeof buf);
	cst_target_read(t, addr - 8, buf, 16);
	cst_target_read_word(t, addr, 8, &w);
	cst_target_read_word(t, addr, 4, &w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cst_core *c = cst_fuzz_open_core(data, size);
	if (!c)
		return 0;
	const struct cst_arch *a = cst_core_arch(c);
	struct cst_target *t = cst_core_target(c);
	size_t nt = cst_core_nthreads(c);
	for (size_t i = 0; i < nt && i < 64; i++) {
		const struct cst_core_thread *th = cst_core_thread(c, i);
		uint64_t v;
		if (cst_reg_get(&th->regs, a->pc_reg, &v))
			read_some(t, v);
		if (cst_reg_get(&th->regs, a->sp_reg, &v))
			read_some(t, v);
		if (cst_reg_get(&th->regs, a->fp_reg, &v))
			read_some(t, v);
	}
	cst_core_thread(c, nt);
	size_t nm = cst_core_nmappings(c);
	for (size_t i = 0; i < nm && i < 64; i++) {
		const struct cst_core_mapping *m = cst_core_mapping(c, i);
		cst_core_local_path(c, m->name);
		read_some(t, m->start);
		read_some(t, m->end - 1);
	}
	uint64_t entry;
	if (cst_core_auxv(c, AT_ENTRY, &entry))
		read_some(t, entry);
	cst_core_signal(c);
	cst_core_pid(c);
	volatile size_t n = strlen(cst_core_fname(c)) + strlen(cst_core_psargs(c));
	(void)n;
	const char *exe = cst_core_executable(c);
	if (exe)
		n = strlen(exe);
	for (size_t i = 0; i < cst_core_nwarnings(c); i++)
		n = strlen(cst_core_warning(c, i));
	cst_core_close(c);
	return 0;
}

/* libFuzzer harness for the whole path from a core file to frames, as `corestack CORE` takes
 * it: cst_core_open, cst_symbols_open_core (modules from NT_FILE, build-ids read from the
 * core's memory, the mapped files opened), then a walk of each of the first threads with
 * cst_unwind_start / cst_unwind_next and every frame located.  The input is a whole core
 * file.  Slower per input than fuzz_core.c, which covers the reader alone.  Decompressed
 * debug files are cached in a directory of the run's own (cst_fuzz_private_debug_cache). */
#include "core.h"
#include "error.h"
#include "fuzz_input.h"
#include "symbols.h"
#include "unwind.h"

#define MAX_THREADS_WALKED 4
#define MAX_FRAMES 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cst_fuzz_private_debug_cache();
	struct cst_core *c = cst_fuzz_open_core(data, size);
	if (!c)
		return 0;
	char err[256];
	struct cst_symbols *syms = NULL;
	if (cst_symbols_open_core(&syms, c, err, sizeof err) < 0)
		syms = NULL;
	struct cst_unwind_env env = {
		.arch = cst_core_arch(c), .target = cst_core_target(c), .syms = syms,
		.max_frames = MAX_FRAMES,
	};
	for (size_t i = 0; i < cst_core_nthreads(c) && i < MAX_THREADS_WALKED; i++) {
		struct cst_unwind u;
		struct cst_frame f;
		if (cst_unwind_start(&u, &env, &cst_core_thread(c, i)->regs) < 0)
			continue;
		while (cst_unwind_next(&u, &f) > 0)
			if (syms) {
				struct cst_location loc;
				cst_symbols_locate(syms, f.lookup_pc, f.pc, &loc);
			}
		cst_unwind_stop_reason(&u);
	}
	cst_unwind_env_free(&env);
	cst_symbols_close(syms);
	cst_core_close(c);
	return 0;
}

/* The interactive shell: `corestack -i CORE`.  Commands close to gdb's (bt, frame, up,
 * down, threads, info frame/registers/sharedlibrary, x, disassemble) over one core file,
 * read with readline (completion, history) from a terminal, or line by line from any
 * other standard input.  README.md, "Interactive shell", lists the commands. */
#ifndef CST_SHELL_H
#define CST_SHELL_H

#include "backtrace.h"
#include "core.h"
#include "signature.h"

/* Opens core PATH (with COPT) and runs the shell until `quit` or end of input.  MAX_FRAMES
 * bounds each thread's walk in printed frames (0: no limit, as bt_walk); BT gives the frame format (colour); SIG the
 * rules of the `signature` command (depth, skip patterns), borrowed for the session.
 * Returns the process exit status: 0, or 2 when the core cannot be used (one line on
 * stderr naming PATH). */
int shell_run(const char *path, const struct cst_core_options *copt, unsigned max_frames,
	      const struct bt_options *bt, const struct sig_options *sig);

#endif

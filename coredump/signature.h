/* Crash signatures: a short stable name for "the same crash", made from the crashing thread's
 * class of crash and top frames, so that cores from many machines can be bucketed by bug.
 *
 * The rules (doc/triage.md "Crash signatures", with their sources), in order:
 *  1. Frames whose provenance is a guess below frame-pointer trust are left out (none of the
 *     present strategies is; a future stack scan would be).
 *  2. Crash machinery: the frames at the top of the stack whose names (demangled or mangled) match a skip pattern
 *     (raise, abort, __assert_fail, __GI_*, ...) are dropped, up to the first frame that does
 *     not match; as ABRT/satyr drops __assert_fail and the frames above it, and Socorro skips
 *     its "irrelevant" frames.  An unnamed frame of libstdc++ or libgcc_s is machinery on a
 *     thread that took SIGABRT (the terminate handler of an uncaught exception).
 *  3. Frames present in every stack (_start, __libc_start_main, __libc_start_call_main,
 *     start_thread, clone, clone3) are dropped wherever they are.
 *  4. Each frame becomes one word: its function name without "__GI_", gcc's clone suffixes
 *     (.cold, .part.N, .isra.N, .constprop.N; " [clone .cold]" once demangled) and symbol
 *     versions (@GLIBC_2.34), glibc's CPU variants as the function called (__strlen_evex:
 *     strlen, variant.h), C++ and Rust names demangled (with -r too); else
 *     BUILDID+0xOFFSET (offset from the module's load address); else MODULE+0xOFFSET (module
 *     file's base name); else "??".
 *  5. Consecutive equal words (recursion) become one.
 *  6. The class: the signal's name (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, ...);
 *     "assert" for SIGABRT through __assert_fail; "exception" for SIGABRT from an uncaught C++
 *     exception whose type was found in the core (exception.h); "not a crash" for a core whose
 *     first thread took no signal (gcore).
 *  7. The text is the class, the exception type after it when there is one, ": ", and the
 *     first DEPTH words (default 5) joined with " | "; the hash is the first 16 hex digits of
 *     the SHA-256 of the text. */
#ifndef CST_SIGNATURE_H
#define CST_SIGNATURE_H

#include <stdbool.h>
#include <stddef.h>
#include "backtrace.h"
#include "target.h"

#define SIG_DEFAULT_DEPTH 5
#define SIG_MAX_DEPTH 64
#define SIG_HASH_LEN 16            /* hex digits of the hash */

struct sig_options {
	unsigned depth;            /* frames in the signature, 1..SIG_MAX_DEPTH */
	char **skip;               /* fnmatch(3) patterns of crash machinery */
	size_t nskip;
	size_t ndefault;           /* skip[0..ndefault) are the defaults */
	bool custom;               /* skip came from --skip-frames (the defaults were replaced) */
};

struct bt_signature {
	char hash[SIG_HASH_LEN + 1];
	char *text;                /* "CLASS: frame | frame | frame" (malloc'd) */
	char kind[32];             /* the class: "SIGSEGV", "assert", "exception", "not a crash" */
	char *exception;           /* the uncaught exception's type (malloc'd), or NULL */
	char **frames;             /* the words of text (malloc'd) */
	size_t n;
	int tid;                   /* the thread it was made from */
	unsigned skipped;          /* machinery frames dropped from the top */
};

/* The default skip patterns, NULL-terminated. */
extern const char *const sig_default_skip[];

/* Fills O with the defaults (depth 5, the default skip list).  Returns 0 or -CST_E_NOMEM. */
int sig_options_init(struct sig_options *o);
/* Adds one skip pattern.  Returns 0 or -CST_E_NOMEM. */
int sig_options_add_skip(struct sig_options *o, const char *pattern);
/* Replaces the default skip patterns (first time) or adds to them the patterns of file PATH, one
 * per line (patterns of sig_options_add_skip stay);
 * blank lines and lines starting with '#' are ignored.  Returns 0, or -CST_E_NOENT / -CST_E_IO /
 * -CST_E_LIMIT (more than 4096 patterns or a line over 1024 bytes) / -CST_E_NOMEM with a reason
 * in ERR. */
int sig_options_load_skip(struct sig_options *o, const char *path, char *err, size_t errlen);
void sig_options_free(struct sig_options *o);

/* Makes the signature of thread T into S; the exception's type is read from TG (NULL: not
 * looked for).  Returns 0 or -CST_E_NOMEM. */
int sig_make(const struct bt_thread *t, const struct sig_options *o, const struct cst_target *tg,
	     struct bt_signature *s);
void sig_free(struct bt_signature *s);

/* The "signature" object of the JSON output: hash, text, class, exception, frames, thread,
 * skipped. */
struct json_object;
struct json_object *sig_json(const struct bt_signature *s);

#endif

/* Crash signatures: a short stable name for "the same crash", made from the crashing thread's
 * top frames, so that cores from many machines can be bucketed by bug.
 *
 * The rules (README "Crash signatures"), in order:
 *  1. Frames whose provenance is a guess below frame-pointer trust are left out (none of the
 *     present strategies is; a future stack scan would be).
 *  2. Crash machinery: the frames at the top of the stack whose names (demangled or mangled) match a skip pattern
 *     (raise, abort, __assert_fail, __GI_*, ...) are dropped, up to the first frame that does
 *     not match; as ABRT/satyr drops __assert_fail and the frames above it, and Socorro skips
 *     its "irrelevant" frames.
 *  3. Frames present in every stack (_start, __libc_start_main, __libc_start_call_main,
 *     start_thread, clone, clone3) are dropped wherever they are.
 *  4. Each frame becomes one word: its function name without "__GI_", gcc's clone suffixes
 *     (.cold, .part.N, .isra.N, .constprop.N; " [clone .cold]" once demangled) and symbol
 *     versions (@GLIBC_2.34), C++ and Rust names demangled unless -r; else
 *     BUILDID+0xOFFSET (offset from the module's load address); else MODULE+0xOFFSET (module
 *     file's base name); else "??".
 *  5. Consecutive equal words (recursion) become one.
 *  6. The first DEPTH words (default 5) joined with " | " are the text; the hash is the first
 *     16 hex digits of the SHA-256 of that text. */
#ifndef CST_SIGNATURE_H
#define CST_SIGNATURE_H

#include <stdbool.h>
#include <stddef.h>
#include "backtrace.h"

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
	char *text;                /* "frame | frame | frame" (malloc'd) */
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

/* Makes the signature of thread T into S.  Returns 0 or -CST_E_NOMEM. */
int sig_make(const struct bt_thread *t, const struct sig_options *o, struct bt_signature *s);
void sig_free(struct bt_signature *s);

/* The "signature" object of the JSON output: hash, text, frames, thread, skipped. */
struct json_object;
struct json_object *sig_json(const struct bt_signature *s);

#endif

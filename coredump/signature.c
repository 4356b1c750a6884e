/* Crash signatures.  See signature.h for the rules and README "Crash signatures". */
#include "signature.h"
#include "error.h"
#include "exception.h"
#include "process.h"
#include "variant.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <json.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Crash machinery of glibc (2.36: abort -> raise -> pthread_kill ->
 * __pthread_kill_implementation; assert, fortify and malloc checks end in __libc_message and
 * abort), the stack protector, C++ exceptions (libstdc++'s std::terminate, its handler and the
 * __cxa_* and std::__throw_* helpers that throw; the _Unwind_* of libgcc_s; as mangled in the
 * symbol table and demangled), and Rust panics (the standard library's panicking modules and
 * the functions that start a panic). */
const char *const sig_default_skip[] = {
	"raise", "gsignal", "abort",
	"pthread_kill", "__pthread_kill", "__pthread_kill_internal", "__pthread_kill_implementation",
	"__GI_*",
	"__assert", "__assert_fail", "__assert_fail_base", "__assert_perror_fail",
	"__libc_message", "__libc_fatal", "__fortify_fail", "__fortify_fail_abort",
	"__chk_fail", "__stack_chk_fail", "__*_chk",
	"malloc_printerr", "__malloc_assert",
	"_ZSt9terminatev", "_ZN10__cxxabiv111__terminateEPFvvE",
	"_ZN9__gnu_cxx27__verbose_terminate_handlerEv", "__cxa_throw", "__cxa_rethrow",
	"__cxa_*", "_Unwind_*", "__gxx_personality_v0", "_ZSt*__throw_*",
	"std::terminate*", "__cxxabiv1::*", "__gnu_cxx::__verbose_terminate_handler*",
	"std::__throw_*", "std::rethrow_exception*",
	"rust_panic", "rust_begin_unwind", "__rust_start_panic", "__rustc::*", "std::panicking::*",
	"core::panicking::*", "std::panic::*", "std::sys::backtrace::__rust_end_short_backtrace*",
	"std::sys_common::backtrace::__rust_end_short_backtrace*", "core::result::unwrap_failed*",
	"core::option::unwrap_failed*", "core::option::expect_failed*",
	NULL,
};

/* Frames at the bottom of every stack: they say nothing about the crash. */
static const char *const outer_frames[] = {
	"_start", "__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main",
	"start_thread", "clone", "clone3", "__clone", "__clone3", NULL,
};

#define SKIP_MAX_PATTERNS 4096
#define SKIP_MAX_LINE 1024

int sig_options_init(struct sig_options *o)
{
	memset(o, 0, sizeof *o);
	o->depth = SIG_DEFAULT_DEPTH;
	for (size_t i = 0; sig_default_skip[i]; i++)
		if (sig_options_add_skip(o, sig_default_skip[i]) < 0)
			return -CST_E_NOMEM;
	o->ndefault = o->nskip;
	return 0;
}

int sig_options_add_skip(struct sig_options *o, const char *pattern)
{
	char **p = realloc(o->skip, (o->nskip + 1) * sizeof *p);
	if (!p)
		return -CST_E_NOMEM;
	o->skip = p;
	if (!(o->skip[o->nskip] = strdup(pattern)))
		return -CST_E_NOMEM;
	o->nskip++;
	return 0;
}

static void clear_skip(struct sig_options *o)
{
	for (size_t i = 0; i < o->nskip; i++)
		free(o->skip[i]);
	free(o->skip);
	o->skip = NULL;
	o->nskip = 0;
}

int sig_options_load_skip(struct sig_options *o, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return cst_fail(err, errlen, errno == ENOENT ? -CST_E_NOENT : -CST_E_IO, "%s", strerror(errno));
	if (!o->custom) {
		/* the defaults go; patterns of --skip given before this option stay */
		for (size_t i = 0; i < o->ndefault; i++)
			free(o->skip[i]);
		memmove(o->skip, o->skip + o->ndefault, (o->nskip - o->ndefault) * sizeof *o->skip);
		o->nskip -= o->ndefault;
		o->ndefault = 0;
		o->custom = true;
	}
	char line[SKIP_MAX_LINE + 2];
	unsigned lineno = 0;
	int rc = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		size_t len = strlen(line);
		if (len > SKIP_MAX_LINE) {
			rc = cst_fail(err, errlen, -CST_E_LIMIT, "line %u is longer than %d bytes", lineno,
				      SKIP_MAX_LINE);
			break;
		}
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' ' ||
			       line[len - 1] == '\t'))
			line[--len] = 0;
		char *s = line + strspn(line, " \t");
		if (!*s || *s == '#')
			continue;
		if (o->nskip >= SKIP_MAX_PATTERNS) {
			rc = cst_fail(err, errlen, -CST_E_LIMIT, "more than %d patterns", SKIP_MAX_PATTERNS);
			break;
		}
		if (sig_options_add_skip(o, s) < 0) {
			rc = cst_fail(err, errlen, -CST_E_NOMEM, "out of memory");
			break;
		}
	}
	if (!rc && ferror(f))
		rc = cst_fail(err, errlen, -CST_E_IO, "read error");
	fclose(f);
	return rc;
}

void sig_options_free(struct sig_options *o)
{
	clear_skip(o);
}

/* Rule 1: the strategies a signature trusts.  No default case: a new strategy must be placed. */
static bool trusted(enum cst_found_by f)
{
	switch (f) {
	case CST_FOUND_CONTEXT:
	case CST_FOUND_CFI:
	case CST_FOUND_FP:
	case CST_FOUND_PROLOGUE:
	case CST_FOUND_TAIL_CALL:
	case CST_FOUND_TAIL_INFERRED:
	case CST_FOUND_WINDOW:
	case CST_FOUND_RETURN_REG:
	case CST_FOUND_SIGNAL:
		return true;
	}
	return false;
}

static bool matches(const char *name, char *const *pat, size_t n)
{
	for (size_t i = 0; name && i < n; i++)
		if (fnmatch(pat[i], name, 0) == 0)
			return true;
	return false;
}

/* Rule 4's function name: "__GI_" prefix, clone suffixes and symbol version removed, a CPU
 * variant named as the function called (variant.h). */
static void norm_name(const char *name, char *buf, size_t len)
{
	if (strncmp(name, "__GI_", 5) == 0 && name[5])
		name += 5;
	cst_symbols_base_name(name, buf, len);
	char called[256];
	if (cst_symbols_cpu_variant(buf, called, sizeof called))
		snprintf(buf, len, "%s", called);
}

/* The frame's function name as the text output shows it without -r, whether or not the
 * symbols are raw: a signature is the same with and without -r.  *FREE_ME is set to what
 * the caller frees. */
static const char *readable(const struct bt_frame *b, char **free_me)
{
	*free_me = cst_symbols_display_name(b->loc.function);
	return *free_me ? *free_me : b->loc.function;
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Rule 4: the word of frame B, into BUF. */
static void frame_word(const struct bt_frame *b, char *buf, size_t len)
{
	const struct cst_location *l = &b->loc;
	char *dm;
	const char *name = readable(b, &dm);
	if (name)
		norm_name(name, buf, len);
	else if (l->build_id[0])
		snprintf(buf, len, "%s+0x%" PRIx64, l->build_id, b->f.pc - l->module_base);
	else if (l->module)
		snprintf(buf, len, "%s+0x%" PRIx64, base(l->module), b->f.pc - l->module_base);
	else
		snprintf(buf, len, "??");
	free(dm);
}

/* Modules of the C++ runtime whose internal functions Debian's packages leave unnamed (no
 * .symtab): an unnamed frame in them at the top of an aborting thread is the terminate
 * machinery. */
static bool cxx_runtime_module(const char *module)
{
	const char *b = module ? base(module) : "";
	return strncmp(b, "libstdc++.so", 12) == 0 || strncmp(b, "libgcc_s.so", 11) == 0;
}

/* A pattern matches the demangled name ("std::terminate()") or the symbol
 * ("_ZSt9terminatev"), each as it is and without its clone suffixes.  ABORTED: the thread's
 * signal is SIGABRT, when an unnamed frame of the C++ runtime is machinery too. */
static bool is_machinery(const struct bt_frame *b, const struct sig_options *o, bool aborted)
{
	if (aborted && !b->loc.function && cxx_runtime_module(b->loc.module))
		return true;
	char *dm;
	const char *names[2] = { readable(b, &dm), b->loc.symbol };
	bool hit = false;
	for (int i = 0; i < 2 && !hit; i++) {
		if (!names[i] || (i == 1 && names[0] && strcmp(names[1], names[0]) == 0))
			continue;
		char norm[256];
		norm_name(names[i], norm, sizeof norm);
		hit = matches(names[i], o->skip, o->nskip) || matches(norm, o->skip, o->nskip);
	}
	free(dm);
	return hit;
}

/* The symbol or name of frame B starts with one of PREFIXES. */
static bool named(const struct bt_frame *b, const char *const *prefixes)
{
	const char *names[2] = { b->loc.symbol, b->loc.function };
	for (int i = 0; i < 2; i++)
		for (size_t k = 0; names[i] && prefixes[k]; k++)
			if (strncmp(names[i], prefixes[k], strlen(prefixes[k])) == 0)
				return true;
	return false;
}

/* Rule 0: the class of the crash, from the signal of thread T, the machinery frames
 * skipped (T's frames [0, SKIPPED)), and the exception it threw; into S. */
static int classify(const struct bt_thread *t, size_t skipped, const struct cst_target *tg,
		    struct bt_signature *s)
{
	static const char *const assert_fns[] = { "__assert_fail", "__assert_perror_fail", "__GI___assert", NULL };
	static const char *const throw_fns[] = { "__cxa_throw", "__cxa_rethrow", NULL };
	const char *sig = cst_signal_name(t->arch, t->cursig);
	const char *cls = sig;
	bool aborted = strcmp(sig, "SIGABRT") == 0, threw = false, asserted = false;
	for (size_t i = 0; i < skipped; i++) {
		threw |= named(&t->frames[i], throw_fns);
		asserted |= named(&t->frames[i], assert_fns);
	}
	char type[256];
	if (!t->crashed)
		cls = "not a crash";
	else if (aborted && threw && exc_thrown_type(tg, t, type, sizeof type)) {
		cls = "exception";
		if (!(s->exception = strdup(type)))
			return -CST_E_NOMEM;
	} else if (aborted && asserted)
		cls = "assert";
	snprintf(s->kind, sizeof s->kind, "%s", cls);
	return 0;
}

static bool is_outer(const struct bt_frame *b)
{
	if (!b->loc.function)
		return false;
	char norm[256];
	norm_name(b->loc.function, norm, sizeof norm);
	return matches(norm, (char *const *)outer_frames, sizeof outer_frames / sizeof *outer_frames - 1);
}

static void hash_text(const char *text, char out[SIG_HASH_LEN + 1])
{
	uint8_t md[SHA256_DIGEST_SIZE];
	static const char hexd[] = "0123456789abcdef";
	struct sha256_ctx ctx;
	sha256_init(&ctx);
	sha256_update(&ctx, strlen(text), (const uint8_t *)text);
	sha256_digest(&ctx, sizeof md, md);
	for (int i = 0; i < SIG_HASH_LEN / 2; i++) {
		out[2 * i] = hexd[md[i] >> 4];
		out[2 * i + 1] = hexd[md[i] & 15];
	}
	out[SIG_HASH_LEN] = 0;
}

int sig_make(const struct bt_thread *t, const struct sig_options *o, const struct cst_target *tg,
	     struct bt_signature *s)
{
	memset(s, 0, sizeof *s);
	s->tid = t->tid;
	/* rule 2: the machinery frames at the top of the stack, up to the first other frame (deeper
	 * matches are kept: a callback crashing under __GI___qsort_r is not machinery) */
	bool aborted = t->crashed && strcmp(cst_signal_name(t->arch, t->cursig), "SIGABRT") == 0;
	size_t first = 0;
	while (first < t->n && is_machinery(&t->frames[first], o, aborted))
		first++;
	s->skipped = (unsigned)first;
	if (classify(t, first, tg, s) < 0)
		goto nomem;
	char head[sizeof s->kind + 260];
	snprintf(head, sizeof head, "%s%s%s: ", s->kind, s->exception ? " " : "",
		 s->exception ? s->exception : "");
	unsigned depth = o->depth ? o->depth : SIG_DEFAULT_DEPTH;
	s->frames = calloc(depth, sizeof *s->frames);
	if (!s->frames)
		goto nomem;
	size_t textlen = 0;
	for (size_t i = first; i < t->n && s->n < depth; i++) {
		const struct bt_frame *b = &t->frames[i];
		if (!trusted(b->f.found_by) || is_outer(b))
			continue;
		char word[512];
		frame_word(b, word, sizeof word);
		if (s->n && strcmp(s->frames[s->n - 1], word) == 0)
			continue;      /* rule 5 */
		if (!(s->frames[s->n] = strdup(word)))
			goto nomem;
		textlen += strlen(word) + 3;
		s->n++;
	}
	if (s->n == 0) {
		if (!(s->frames[0] = strdup("??")))
			goto nomem;
		textlen = 5;
		s->n = 1;
	}
	if (!(s->text = malloc(strlen(head) + textlen + 1)))
		goto nomem;
	strcpy(s->text, head);
	for (size_t i = 0; i < s->n; i++) {
		if (i)
			strcat(s->text, " | ");
		strcat(s->text, s->frames[i]);
	}
	hash_text(s->text, s->hash);
	return 0;
nomem:
	sig_free(s);
	return -CST_E_NOMEM;
}

void sig_free(struct bt_signature *s)
{
	for (size_t i = 0; s->frames && i < s->n; i++)
		free(s->frames[i]);
	free(s->frames);
	free(s->text);
	free(s->exception);
	memset(s, 0, sizeof *s);
}

struct json_object *sig_json(const struct bt_signature *s)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "hash", json_object_new_string(s->hash));
	json_object_object_add(o, "text", json_object_new_string(s->text ? s->text : ""));
	json_object_object_add(o, "class", json_object_new_string(s->kind));
	json_object_object_add(o, "exception", s->exception ? json_object_new_string(s->exception) : NULL);
	struct json_object *a = json_object_new_array();
	for (size_t i = 0; i < s->n; i++)
		json_object_array_add(a, json_object_new_string(s->frames[i]));
	json_object_object_add(o, "frames", a);
	json_object_object_add(o, "thread", json_object_new_int(s->tid));
	json_object_object_add(o, "skipped", json_object_new_int((int)s->skipped));
	return o;
}

/* Triage of many cores in one run: the output around each core's backtraces (text blocks, one
 * JSON document, a JSON array, or JSON lines), the crash signature of each core, threads with
 * identical stacks grouped (--group), the table of distinct signatures (--summary), and a
 * progress line on a terminal. */
#ifndef CST_TRIAGE_H
#define CST_TRIAGE_H

#include <stdbool.h>
#include <stdio.h>
#include "bt_json.h"
#include "signature.h"

struct triage_options {
	bool signature;            /* --signature: one line per core instead of the backtraces */
	bool group;                /* --group */
	bool summary;              /* --summary: only the table of distinct signatures */
	bool json_lines;           /* --json-lines: one compact document per line */
	struct sig_options sig;
};

struct tr_group;
struct tr_sig_count;

struct triage {
	const struct triage_options *o;
	FILE *out;
	bool json;                 /* -j or --json-lines */
	bool array;                /* --json with several cores: one array */
	bool progress;             /* a progress line on standard error */
	int ncores, index, emitted;
	/* the core being read */
	bool have_sig;
	struct bt_signature sig;
	struct tr_group *groups;
	size_t ngroups;
	/* every core so far, for --summary */
	struct tr_sig_count *counts;
	size_t ncounts;
	int unusable;
	/* one core's JSON document written thread by thread (every JSON output but --summary's,
	 * which prints no core's document) */
	bool streaming;
	struct bt_json_stream stream;
};

/* Starts a run over NCORES cores written to OUT; JSON for -j/--json-lines.  PROGRESS_OK: standard
 * error is a terminal on which a progress line may be drawn. */
void tr_init(struct triage *tr, const struct triage_options *o, FILE *out, bool json, int ncores,
	     bool progress_ok);
/* Before core number I (0-based) at PATH: the progress line and the text block separator. */
void tr_core_begin(struct triage *tr, int i, const char *path);
/* True when the per-core text (header and threads) is replaced by a signature line or the
 * summary, so that only the signature thread needs walking. */
bool tr_quiet(const struct triage *tr);
/* Thread T (FIRST: the core's first thread, the crashed one when there is one) has been walked
 * on target TG.  Makes the signature from the first thread; with --group remembers T's stack.  Returns true
 * when the caller should print T as text now; false when it is printed later (grouped) or not
 * at all.  Returns -1 when memory ran out. */
int tr_thread(struct triage *tr, const struct bt_thread *t, bool first, const struct cst_target *tg,
	      const struct bt_options *bo);
/* The end of core PATH: adds the signature (and groups) to DOC and prints DOC (freeing it), or
 * prints the grouped threads and the signature line as text; records the signature for the
 * summary. */
void tr_core_done(struct triage *tr, const char *path, struct json_object *doc, const struct bt_options *bo);
/* Adds walked thread T to the core's JSON document DOC, written as tr_flush or a full buffer
 * sends it (nothing with --summary). */
void tr_json_thread(struct triage *tr, struct json_object *doc, const struct bt_thread *t);
/* Sends the output written so far (the threads of a streamed JSON document, text) on to the
 * output file. */
void tr_flush(struct triage *tr);
/* Core PATH could not be used (REASON): in JSON lines or array output an error document
 * {"corestack": 1, "core": PATH, "error": REASON} keeps one entry per core. */
void tr_core_error(struct triage *tr, const char *path, const char *reason);
/* Ends the run: closes the JSON array, prints the summary, clears the progress line. */
void tr_finish(struct triage *tr, const struct bt_options *bo);

#endif

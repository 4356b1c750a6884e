/* The CLI's JSON output of backtraces (common/report/backtrace.h).  See doc/json.md. */
#ifndef CST_BT_JSON_H
#define CST_BT_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include "backtrace.h"
#include "jsonw.h"

/* JSON (schema version 1, doc/json.md): the process object with an empty "threads" array;
 * its threads are written by the stream below.  bt_json_write writes DOC in json-c's layout,
 * indented or (COMPACT) on one line, with no newline after it, and frees it; bt_json_print
 * writes it indented with a newline.  Both end the program (exit 2) when memory runs out. */
struct json_object;
struct json_object *bt_json_process(const struct bt_process *p);
void bt_json_write(FILE *out, struct json_object *doc, bool compact);
void bt_json_print(FILE *out, struct json_object *doc);

/* The document written as it grows, each thread once it is walked (a core of
 * thousands of threads is never held whole): DOC's members before "threads" are written when
 * its first thread comes, then each thread (bt_json_stream_thread; DOC's "threads" array
 * stays empty), then bt_json_stream_end writes the members after "threads" (modules,
 * signature, groups) and frees DOC.
 * Everything is written by the streaming writer (jsonw.h). */
struct bt_json_frames;

struct bt_json_stream {
	FILE *out;
	bool compact;            /* the whole document on one line (--json-lines), else indented */
	bool in_array;           /* an element of an array: no newline after the document */
	const char *lead;        /* written before the document (an array's "[" or ","), or NULL */
	bool begun;
	size_t nthreads;
	size_t head_members;     /* members of DOC before "threads", written at the start */
	struct jw jw;            /* the document's writer, between the first thread and the end */
	struct bt_json_frames *frames;  /* locations rendered for this document's threads
					 * (json_thread.h), freed at its end */
	bool uncached;           /* every frame rendered, FRAMES not kept (a test hook's) */
};
/* Adds thread T to the document; its text waits in the writer's buffer until
 * bt_json_stream_flush, the buffer filling, or the end. */
void bt_json_stream_thread(struct bt_json_stream *s, struct json_object *doc, const struct bt_thread *t);
/* Hands what the writer holds to S->out (stdio: fflush to send it on). */
void bt_json_stream_flush(struct bt_json_stream *s);
void bt_json_stream_end(struct bt_json_stream *s, struct json_object *doc);

#endif

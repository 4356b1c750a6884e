/* The CLI's JSON output of backtraces (common/report/backtrace.h).  See doc/json.md. */
#ifndef CST_BT_JSON_H
#define CST_BT_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include "backtrace.h"

/* JSON (schema version 1, README "JSON output"): the process object with an empty
 * "threads" array; its threads are written by the stream below.  bt_json_print writes a
 * whole document and frees it. */
struct json_object;
struct json_object *bt_json_process(const struct bt_process *p);
void bt_json_print(FILE *out, struct json_object *doc);

/* The document written as it grows, each thread as soon as it is walked (a core of
 * thousands of threads is never held whole): DOC's members before "threads" are written when
 * its first thread comes, then each thread (bt_json_stream_thread; DOC's "threads" array
 * stays empty), then bt_json_stream_end writes the members after "threads" (modules,
 * signature, groups) and frees DOC.
 * Every value is serialised by json-c; only the braces around them are written here. */
struct bt_json_thread;
struct bt_json_stream {
	FILE *out;
	bool compact;            /* the whole document on one line (--json-lines), else indented */
	bool in_array;           /* an element of an array: no newline after the document */
	const char *lead;        /* written before the document (an array's "[" or ","), or NULL */
	bool begun;
	size_t nthreads;
	size_t head_members;     /* members of DOC before "threads", written at the start */
	struct bt_json_thread *writer;  /* coredump/json_thread.h */
};
void bt_json_stream_thread(struct bt_json_stream *s, struct json_object *doc, const struct bt_thread *t);
void bt_json_stream_end(struct bt_json_stream *s, struct json_object *doc);

#endif

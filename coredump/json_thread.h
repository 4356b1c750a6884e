/* One thread's JSON object (schema version 1, doc/json.md "A thread"), written to a
 * streaming writer. */
#ifndef CST_JSON_THREAD_H
#define CST_JSON_THREAD_H

#include "bt_json.h"
#include "jsonw.h"

/* Frames' locations rendered before (json_thread.c): one per document, since the strings
 * of a location are compared by address and live only while their process is open. */
struct bt_json_frames;

/* Writes thread T to W as one JSON object on one line (W must not be pretty: the document
 * writes each thread on a line of its own; no newline after it).  *CACHE (NULL at first:
 * allocated here, about 0.5 MiB; left NULL when out of memory) keeps rendered pcs and
 * locations for the next threads of the same process, and their threads' frames whole
 * (up to 4.5 MiB more), which a later thread of the same frames at other CFAs copies;
 * CACHE NULL: none kept.  Running out of memory is W's (jw_flush says so). */
void bt_json_thread_write(struct jw *w, const struct bt_thread *t, struct bt_json_frames **cache);
/* Frees CACHE (NULL: nothing). */
void bt_json_frames_free(struct bt_json_frames *cache);

#endif

/* One thread's JSON object (schema version 1, doc/json.md "A thread"), written to a
 * streaming writer: nothing is kept from one thread to the next. */
#ifndef CST_JSON_THREAD_H
#define CST_JSON_THREAD_H

#include "bt_json.h"
#include "jsonw.h"

/* Writes thread T to W as one JSON object on one line (W must not be pretty: the document
 * writes each thread on a line of its own; no newline after it).  Running out of memory is
 * W's (jw_flush says so). */
void bt_json_thread_write(struct jw *w, const struct bt_thread *t);

#endif

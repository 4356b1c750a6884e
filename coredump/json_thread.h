/* One thread's JSON object (schema version 1, README "JSON output"), serialised by json-c
 * from objects kept from one thread to the next: a core of thousands of threads costs one
 * object per frame once, not one tree per thread. */
#ifndef CST_JSON_THREAD_H
#define CST_JSON_THREAD_H

#include <stdint.h>
#include <stdio.h>
#include "bt_json.h"

struct bt_json_thread;

/* A writer with no objects yet; NULL when memory ran out. */
struct bt_json_thread *bt_json_thread_new(void);
/* Writes thread T to OUT as one JSON object on one line (no newline after it).  Returns 0, or
 * -CST_E_NOMEM when memory ran out (nothing is written then). */
int bt_json_thread_write(struct bt_json_thread *w, FILE *out, const struct bt_thread *t);
void bt_json_thread_free(struct bt_json_thread *w);


#endif

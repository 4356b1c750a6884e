/* The CLI's view of the files a core needs: the modules with their package notes (text
 * header and JSON "modules"). */
#ifndef CST_FILES_H
#define CST_FILES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "package_note.h"
#include "perfmap.h"
#include "symbols.h"

struct bt_module {
	const char *name;        /* as the target recorded it */
	uint64_t start, end;     /* target addresses */
	char build_id[41];       /* hex of the first 20 bytes, "" when unknown */
	struct cst_package_note *package;   /* NULL when none (or a bad one) */
	char *package_error;     /* "FILE: why its package note was refused", else NULL */
};

struct bt_modules {
	struct bt_module *v;
	size_t n;
};

/* The modules of SYMS in address order, each with its package note (from CORE's memory,
 * else from the module's file when its build-id matches; none when CORE is NULL).  Returns
 * 0 or -CST_E_NOMEM. */
struct cst_core;
int bt_modules_collect(struct cst_symbols *syms, struct cst_core *core, struct bt_modules *out);
void bt_modules_free(struct bt_modules *m);

/* "package: MODULE: NAME VERSION (key=value, ...)" for each module with a package note. */
void bt_print_packages_text(FILE *out, const struct bt_modules *m);

/* Adds the "modules" array to JSON document DOC (README "JSON output"). */
struct json_object;
void bt_json_add_modules(struct json_object *doc, const struct bt_modules *m);

#endif

/* The modules of a target with their package notes.  See files.h. */
#include "files.h"
#include "escape.h"
#include "core.h"
#include "error.h"
#include "openfile.h"
#include "util.h"
#include "symbols.h"

#include <elfutils/libdwelf.h>
#include <unistd.h>

#include <inttypes.h>
#include <json.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

struct collect {
	struct bt_modules *m;
	struct cst_core *core;
	size_t cap;
	int rc;
};

/* The package note of the file the core recorded as NAME, read from the local file (after
 * -e and --sysroot) when it is a regular file with the build-id ID (LEN bytes).  Reading it
 * here, not through libdwfl, leaves modules no frame needs unopened by libdwfl: a missing
 * or other library gives no warning.  A file of the core's NT_FILE is read through the
 * handle the symbols use too (cst_core_file_elf).  Returns as cst_package_note_find. */
static int file_note(struct cst_core *core, const char *name, const unsigned char *id, int len,
		     struct cst_package_note **out, char *err, size_t errlen)
{
	*out = NULL;
	struct stat st;
	char e[64], path[PATH_MAX];
	if (!name || name[0] != '/')
		return 0;
	Elf *elf = cst_core_file_elf(core, name);
	int fd = -1;
	if (!elf) {
		/* read, not mapped: only the headers and two notes are wanted */
		fd = cst_core_open_file(core, name, &st, path, sizeof path, e, sizeof e);
		if (fd < 0)
			return 0;
		elf = elf_begin(fd, ELF_C_READ, NULL);
	}
	const void *have;
	int rc = 0;
	if (elf && len > 0 && dwelf_elf_gnu_build_id(elf, &have) == len && memcmp(have, id, (size_t)len) == 0)
		rc = cst_package_note_find(elf, out, err, errlen);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return rc;
}

static int add_module(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start, void *arg)
{
	struct collect *c = arg;
	if (c->m->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 32;
		struct bt_module *v = realloc(c->m->v, cap * sizeof *v);
		if (!v) {
			c->rc = -CST_E_NOMEM;
			return DWARF_CB_ABORT;
		}
		c->m->v = v;
		c->cap = cap;
	}
	struct bt_module *b = &c->m->v[c->m->n++];
	memset(b, 0, sizeof *b);
	Dwarf_Addr end;
	b->name = dwfl_module_info(mod, NULL, &b->start, &end, NULL, NULL, NULL, NULL);
	b->end = end;
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &bits, &vaddr);
	cst_hex(bits, n <= 0 ? 0 : n < 20 ? (size_t)n : 20, b->build_id);
	if (!c->core)
		return DWARF_CB_OK;
	/* the note in the core's memory first (it is the crashed process's), else the file's */
	char err[160];
	const char *from = b->name;
	int rc = cst_symbols_memory_package_note(mod, cst_core_target(c->core), b->start, &b->package, err, sizeof err);
	if (rc == 0 && !b->package) {
		rc = file_note(c->core, b->name, bits, n, &b->package, err, sizeof err);
		if (rc == -CST_E_BAD_NOTE && b->name && b->name[0] == '/')
			from = cst_core_local_path(c->core, b->name);
	}
	if (rc == -CST_E_BAD_NOTE && asprintf(&b->package_error, "%s: %s", from, err) < 0)
		b->package_error = NULL;
	return DWARF_CB_OK;
}

static int cmp_module(const void *a, const void *b)
{
	const struct bt_module *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

int bt_modules_collect(struct cst_symbols *syms, struct cst_core *core, struct bt_modules *out)
{
	memset(out, 0, sizeof *out);
	if (!syms)
		return 0;
	struct collect c = { .m = out, .core = core };
	dwfl_getmodules(cst_symbols_dwfl(syms), add_module, &c, 0);
	if (out->n > 1)
		qsort(out->v, out->n, sizeof *out->v, cmp_module);
	return c.rc;
}

void bt_modules_free(struct bt_modules *m)
{
	for (size_t i = 0; i < m->n; i++) {
		cst_package_note_free(m->v[i].package);
		free(m->v[i].package_error);
	}
	free(m->v);
	memset(m, 0, sizeof *m);
}

static const char *base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path ? path : "?";
}

void bt_print_packages_text(FILE *out, const struct bt_modules *m)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct cst_package_note *p = m->v[i].package;
		if (!p)
			continue;
		const char *name = cst_package_note_get(p, "name"), *version = cst_package_note_get(p, "version");
		fputs("package: ", out);
		cst_fputs_escaped(base(m->v[i].name), out);
		fputs(": ", out);
		cst_fputs_escaped(name ? name : "(no name)", out);
		if (version) {
			fputc(' ', out);
			cst_fputs_escaped(version, out);
		}
		const char *sep = " (";
		for (size_t k = 0; k < p->n; k++) {
			if (strcmp(p->m[k].key, "name") == 0 || strcmp(p->m[k].key, "version") == 0)
				continue;
			fputs(sep, out);
			cst_fputs_escaped(p->m[k].key, out);
			fputc('=', out);
			cst_fputs_escaped(p->m[k].value, out);
			sep = ", ";
		}
		fputs(*sep == ',' ? ")\n" : "\n", out);
	}
}

void bt_json_add_modules(struct json_object *doc, const struct bt_modules *m)
{
	struct json_object *arr = json_object_new_array();
	for (size_t i = 0; i < m->n; i++) {
		const struct bt_module *b = &m->v[i];
		struct json_object *o = json_object_new_object();
		char hex[24];
		json_object_object_add(o, "name", json_object_new_string(b->name ? b->name : ""));
		snprintf(hex, sizeof hex, "0x%" PRIx64, b->start);
		json_object_object_add(o, "start", json_object_new_string(hex));
		snprintf(hex, sizeof hex, "0x%" PRIx64, b->end);
		json_object_object_add(o, "end", json_object_new_string(hex));
		json_object_object_add(o, "build_id", b->build_id[0] ? json_object_new_string(b->build_id) : NULL);
		struct json_object *pkg = NULL;
		if (b->package) {
			pkg = json_object_new_object();
			for (size_t k = 0; k < b->package->n; k++)
				json_object_object_add(pkg, b->package->m[k].key,
						       json_object_new_string(b->package->m[k].value));
		}
		json_object_object_add(o, "package", pkg);
		json_object_array_add(arr, o);
	}
	json_object_object_add(doc, "modules", arr);
}

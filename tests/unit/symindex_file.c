/* A file as a libdwfl offline module and its symbol index (symindex_file.h). */
#include "symindex_file.h"

#include <string.h>

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

int symindex_file_open(struct symindex_file *f, const char *name, const char *path)
{
	*f = (struct symindex_file){ .dwfl = dwfl_begin(&callbacks) };
	f->mod = f->dwfl ? dwfl_report_offline(f->dwfl, name, path, -1) : NULL;
	if (!f->mod) {
		if (f->dwfl)
			dwfl_end(f->dwfl);
		*f = (struct symindex_file){ 0 };
		return -1;
	}
	dwfl_report_end(f->dwfl, NULL, NULL);
	f->ix = cst_symindex_build(f->mod);
	return 0;
}

void symindex_file_close(struct symindex_file *f)
{
	cst_symindex_free(f->ix);
	if (f->dwfl)
		dwfl_end(f->dwfl);
	*f = (struct symindex_file){ 0 };
}

bool symindex_agree(const struct symindex_file *f, uint64_t addr, struct symindex_answer *ix,
		    struct symindex_answer *dw)
{
	GElf_Sym sym;
	*ix = (struct symindex_answer){ 0 };
	*dw = (struct symindex_answer){ 0 };
	ix->name = cst_symindex_addrinfo(f->ix, f->mod, addr, &ix->off, &sym);
	dw->name = dwfl_module_addrinfo(f->mod, addr, &dw->off, &sym, NULL, NULL, NULL);
	if (!ix->name || !dw->name)
		return !ix->name && !dw->name;
	return strcmp(ix->name, dw->name) == 0 && ix->off == dw->off;
}

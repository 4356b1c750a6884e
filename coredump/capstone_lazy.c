/* capstone loaded when the first disassembler is opened (capstone_lazy.h). */
#include "capstone_lazy.h"
#include "diag.h"
#include "escape.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The library's file: its SONAME is libcapstone.so.<API major> (capstone's CMakeLists.txt
 * sets SOVERSION to CS_API_MAJOR; Debian's libcapstone4 ships libcapstone.so.4). */
#define STR_(x) #x
#define STR(x) STR_(x)
#define CAPSTONE_FILE "libcapstone.so." STR(CS_API_MAJOR)

/* The capstone functions the project calls, each found in the loaded library. */
#define CAPSTONE_FUNCS(X) \
	X(cs_open) X(cs_close) X(cs_option) X(cs_malloc) X(cs_free) X(cs_disasm_iter) \
	X(cs_insn_group) X(cs_regs_access) X(cs_strerror)

static struct {
#define FIELD(f) __typeof__(f) *f;
	CAPSTONE_FUNCS(FIELD)
#undef FIELD
} real;

/* 0 not tried yet, 1 loaded, -1 could not be loaded (then never tried again) */
static int loaded;
/* why it could not be loaded: dlerror's words, escaped */
static char why[512];

/* Loads the library once.  When it cannot be loaded, says so once on standard error: the
 * walks go on without decoding code (no caller recovered from a leaf's or a prologue's
 * instructions, no lost tail call told by the call before a return address), so that
 * their frames may differ from what corestack finds with it. */
static bool load(void)
{
	if (loaded)
		return loaded > 0;
	loaded = -1;
	void *h = dlopen(CAPSTONE_FILE, RTLD_NOW | RTLD_LOCAL);
	bool ok = h != NULL;
#define FIND(f) if (ok && !(real.f = (__typeof__(f) *)dlsym(h, #f))) ok = false;
	CAPSTONE_FUNCS(FIND)
#undef FIND
	if (ok) {
		loaded = 1;
		return true;
	}
	const char *e = dlerror();
	cst_escape(why, sizeof why, e ? e : "unknown error");
	if (h)
		dlclose(h);
	cli_diag(CAPSTONE_FILE, "could not be loaded (%s); the walks go on without decoding code", why);
	return false;
}

cs_err cs_open(cs_arch arch, cs_mode mode, csh *handle)
{
	return load() ? real.cs_open(arch, mode, handle) : CS_ERR_MEM;
}

/* The rest are called with what cs_open gave, which needs the library loaded; a call
 * without it (a caller's cleanup of nothing) does nothing. */
cs_err cs_close(csh *handle)
{
	return loaded > 0 ? real.cs_close(handle) : CS_ERR_HANDLE;
}

cs_err cs_option(csh handle, cs_opt_type type, size_t value)
{
	return loaded > 0 ? real.cs_option(handle, type, value) : CS_ERR_HANDLE;
}

cs_insn *cs_malloc(csh handle)
{
	return loaded > 0 ? real.cs_malloc(handle) : NULL;
}

void cs_free(cs_insn *insn, size_t count)
{
	if (loaded > 0)
		real.cs_free(insn, count);
}

bool cs_disasm_iter(csh handle, const uint8_t **code, size_t *size, uint64_t *address, cs_insn *insn)
{
	return loaded > 0 && real.cs_disasm_iter(handle, code, size, address, insn);
}

bool cs_insn_group(csh handle, const cs_insn *insn, unsigned int group_id)
{
	return loaded > 0 && real.cs_insn_group(handle, insn, group_id);
}

cs_err cs_regs_access(csh handle, const cs_insn *insn, cs_regs regs_read, uint8_t *regs_read_count,
		      cs_regs regs_write, uint8_t *regs_write_count)
{
	return loaded > 0 ? real.cs_regs_access(handle, insn, regs_read, regs_read_count, regs_write, regs_write_count)
			  : CS_ERR_HANDLE;
}

const char *cs_strerror(cs_err code)
{
	static char msg[sizeof why + 64];
	if (load())
		return real.cs_strerror(code);
	snprintf(msg, sizeof msg, "the capstone library (%s) could not be loaded: %s", CAPSTONE_FILE, why);
	return msg;
}

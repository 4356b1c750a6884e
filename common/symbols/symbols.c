/* Modules, symbols, CFI and lines through libdwfl.  See symbols.h. */
#include "symbols.h"
#include "callsite.h"
#include "core.h"
#include "debugcache.h"
#include "demangle.h"
#include "debugdirs.h"
#include "error.h"
#include "guarded_open.h"
#include "linkmap_check.h"
#include "openfile.h"
#include "package_note.h"
#include "procmaps.h"
#include "symindex.h"
#include "memo.h"
#include "util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct module_info {             /* kept in the module's libdwfl user data */
	bool mismatch;
	bool fdes_read;
	uint64_t *fde_starts;    /* function starts from .eh_frame_hdr, sorted, target addresses */
	size_t nfdes;
	bool symindex_built;
	struct cst_symindex *symindex;   /* NULL: no table, or libdwfl is asked directly */
	bool callsites_built;
	struct cst_callsites *callsites; /* its DWARF call-site records, read by unit */
	signed char debug_file;  /* may_find_dwarf(separate): 1 yes, -1 no, 0 not asked yet */
	signed char dwarf;       /* may_find_dwarf: 1 yes, -1 no, 0 not asked yet */
	/* cst_package_note_from_memory at PACKAGE_BASE, read with the module's build-id while
	 * its first page is at hand (cst_symbols_memory_package_note) */
	bool package_read;
	int package_rc;
	uint64_t package_base;
	struct cst_package_note *package;
	char *package_err;
};

static struct module_info *module_info(Dwfl_Module *mod)
{
	void **userdata;
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	if (!*userdata)
		*userdata = calloc(1, sizeof(struct module_info));
	return *userdata;
}

/* Function starts from the module's .eh_frame_hdr search table (PT_GNU_EH_FRAME; LSB
 * Core Specification, "Exception Frames": version 1, then the encodings of eh_frame_ptr,
 * fde_count and the table).  Only the layout GNU ld writes is read: a 4-byte eh_frame_ptr,
 * udata4 fde_count and a datarel sdata4 table (encoding 0x3b) of (initial location, FDE)
 * pairs relative to the header. */
static void read_fde_starts(Dwfl_Module *mod, struct module_info *mi)
{
	mi->fdes_read = true;
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t nph;
	if (!elf || elf_getphdrnum(elf, &nph) < 0)
		return;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_GNU_EH_FRAME)
			continue;
		Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_BYTE);
		if (!d || d->d_size < 12)
			return;
		const uint8_t *h = d->d_buf;
		if (h[0] != 1 || (h[1] & 0x0f) != 0x0b || h[2] != 0x03 || h[3] != 0x3b)
			return;
		/* the fields are in the file's byte order */
		const char *ident = elf_getident(elf, NULL);
		int32_t (*s32)(const uint8_t *) = ident && ident[EI_DATA] == ELFDATA2MSB ? cst_be32s : cst_le32s;
		uint32_t count = (uint32_t)s32(h + 8);
		if (count > (d->d_size - 12) / 8)
			return;
		mi->fde_starts = malloc((count ? count : 1) * sizeof *mi->fde_starts);
		if (!mi->fde_starts)
			return;
		for (uint32_t k = 0; k < count; k++)
			mi->fde_starts[k] = ph.p_vaddr + (uint64_t)(int64_t)s32(h + 12 + 8 * k) + bias;
		mi->nfdes = count;
		return;
	}
}

/* [start, end) of the FDE-described function containing ADDR, from .eh_frame_hdr and the
 * FDE's own range (via libdw's row lookup at the start). */
static bool fde_bounds(struct cst_symbols *s, Dwfl_Module *mod, uint64_t addr, uint64_t *start, uint64_t *end)
{
	struct module_info *mi = module_info(mod);
	if (!mi)
		return false;
	if (!mi->fdes_read)
		read_fde_starts(mod, mi);
	size_t lo = cst_upper_bound(mi->fde_starts, mi->nfdes, addr);
	if (lo == 0)
		return false;
	*start = mi->fde_starts[lo - 1];
	*end = lo < mi->nfdes ? mi->fde_starts[lo] : 0;
	return true;
}

struct cst_symbols {
	Dwfl *dwfl;
	struct cst_core *core;    /* for path substitution; NULL for live processes */
	Dwfl_Callbacks callbacks;
	char *debuginfo_path;
	int mismatches;
	char **names;            /* interned names without their symbol version */
	size_t nnames, names_cap;  /* entries used, table size (a power of two) */
	/* per-address results of cst_symbols_func, and of _locate and _inlines together
	 * (memo.h) */
	struct cst_memo *func_memo, *where_memo;
	size_t nchains;                  /* inline chains where_memo keeps (MEMO_MAX_CHAINS) */
	struct cst_memo *cfi_memo;       /* struct cfi_memo per address */
	Dwarf_Frame **cfi_rows;          /* the rows cfi_memo points to, freed at close */
	size_t ncfi_rows, cfi_rows_cap;
	Dwarf_Frame *cfi_spill;          /* the last row the full memo could not keep */
	bool raw;                        /* names shown mangled (cst_symbols_set_raw) */
	struct cst_memo *readable_memo;  /* readable name per mangled name's address */
};

#define MEMO_MAX_ENTRIES (256 * 1024)
#define MEMO_MAX_INLINES 16
/* Inline chains kept at most, each up to MEMO_MAX_INLINES entries: an address inside
 * inlined code costs up to half a KiB more than one outside, so these are bounded apart */
#define MEMO_MAX_CHAINS (64 * 1024)

struct func_memo { int rc; struct cst_func fn; };
/* A lookup address's location (its offset is pc - BASE) and inline chain (NINL entries at
 * CHAIN, malloc'd; NULL for none): a frame asks for both, one lookup finds them. */
struct where_memo { struct cst_location loc; uint64_t base; int ninl; struct cst_inline *chain; };
struct cfi_memo { Dwarf_Frame *row; uint64_t bias; };

/* The interned copy of the first LEN bytes of NAME, valid until S is closed; NULL when
 * out of memory. */
static const char *intern(struct cst_symbols *s, const char *name, size_t len)
{
	if (2 * (s->nnames + 1) > s->names_cap) {
		size_t cap = s->names_cap ? 2 * s->names_cap : 256;
		char **t = calloc(cap, sizeof *t);
		if (!t)
			return NULL;
		for (size_t i = 0; i < s->names_cap; i++) {
			if (!s->names[i])
				continue;
			size_t k = 0;
			uint64_t h = 1469598103934665603ull;
			for (const char *p = s->names[i]; *p; p++)
				h = (h ^ (uint8_t)*p) * 1099511628211ull;
			for (k = h & (cap - 1); t[k]; k = (k + 1) & (cap - 1))
				;
			t[k] = s->names[i];
		}
		free(s->names);
		s->names = t;
		s->names_cap = cap;
	}
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 1099511628211ull;
	size_t k;
	for (k = h & (s->names_cap - 1); s->names[k]; k = (k + 1) & (s->names_cap - 1))
		if (strncmp(s->names[k], name, len) == 0 && s->names[k][len] == 0)
			return s->names[k];
	s->names[k] = strndup(name, len);
	if (s->names[k])
		s->nnames++;
	return s->names[k];
}

/* The core's cst_symbols, for the find_elf callback (libdwfl passes no closure). */
static __thread struct cst_symbols *current;

/* Hex digits of the first 20 bytes of build-id BITS (N bytes) in OUT; "" when N <= 0. */
static void build_id_hex(const unsigned char *bits, int n, char out[41])
{
	cst_hex(bits, n <= 0 ? 0 : n < 20 ? (size_t)n : 20, out);
}

/* Whether ELF's build-id is the one the core records for MOD; true when either is unknown
 * (nothing to tell them apart).  On a difference, WANT and HAVE get both in hex. */
static bool build_id_equal(Dwfl_Module *mod, Elf *elf, char want_hex[41], char have_hex[41])
{
	const unsigned char *want;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &want, &vaddr);
	if (n <= 0)
		return true;                     /* nothing recorded: cannot tell */
	const void *have;
	ssize_t m = dwelf_elf_gnu_build_id(elf, &have);
	if (m <= 0)
		return true;
	if (m == n && memcmp(want, have, (size_t)n) == 0)
		return true;
	build_id_hex(want, n, want_hex);
	build_id_hex(have, (int)m, have_hex);
	return false;
}

static int core_find_elf_unguarded(struct cst_symbols *s, Dwfl_Module *mod, void **userdata,
				   const char *modname, Dwarf_Addr base, char **file_name, Elf **elfp);

/* libdwfl find_elf callback for cores: the module's recorded path, after -e and --sysroot,
 * opened only when it is a regular file whose build-id matches the core's. */
static int core_find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
			 Dwarf_Addr base, char **file_name, Elf **elfp)
{
	struct cst_symbols *s = current;
	/* the files opened here are checked here: no guard while in it */
	struct cst_core *guard = cst_guarded_open_begin(NULL);
	int fd = core_find_elf_unguarded(s, mod, userdata, modname, base, file_name, elfp);
	cst_guarded_open_begin(guard);
	return fd;
}

enum module_file { FILE_OK, FILE_ABSENT, FILE_UNREADABLE, FILE_NOT_ELF, FILE_MISMATCH };

/* Opens module MOD's file, the core's RECORDED path: as cst_core_open_file (-e for the main
 * executable) or, with NAMED, as cst_core_open_named (the file the core names).  Returns
 * FILE_OK with its ELF handle in *ELFP, its descriptor in *FD (-1 for the handle of a file
 * of NT_FILE, cst_core_file_elf's, which needs none) and the path in PATH; else
 * what is wrong with PATH, with the reason (FILE_ABSENT, FILE_UNREADABLE), the file's size
 * (FILE_NOT_ELF) or both build-ids in hex (FILE_MISMATCH: WANT the core's, HAVE the file's)
 * in WHY and nothing left open. */
static enum module_file open_module_file(struct cst_symbols *s, Dwfl_Module *mod, const char *recorded,
					 bool named, int *fd, Elf **elfp, char path[PATH_MAX],
					 char why[128], char want[41], char have[41])
{
	struct stat st;
	/* a file of the core's NT_FILE: the handle the package notes read, on the core
	 * reader's descriptor (libdwfl takes a handle without a descriptor) */
	Elf *elf = named ? NULL : cst_core_file_elf(s->core, recorded);
	if (elf) {
		*fd = -1;
		snprintf(path, PATH_MAX, "%s", cst_core_local_path(s->core, recorded));
	} else {
		*fd = (named ? cst_core_open_named : cst_core_open_file)(s->core, recorded, &st, path,
									 PATH_MAX, why, 128);
		if (*fd < 0)
			return *fd == -CST_E_NOENT || *fd == -CST_E_PERM ? FILE_ABSENT : FILE_UNREADABLE;
		elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	}
	enum module_file r = FILE_OK;
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		snprintf(why, 128, "%lld", (long long)st.st_size);
		r = FILE_NOT_ELF;
	} else if (!build_id_equal(mod, elf, want, have)) {
		r = FILE_MISMATCH;
	}
	if (r != FILE_OK) {
		if (elf)
			elf_end(elf);
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
	*elfp = elf;
	return r;
}

static void flag_mismatch(struct cst_symbols *s, Dwfl_Module *mod)
{
	struct module_info *mi = module_info(mod);
	if (mi && !mi->mismatch) {
		mi->mismatch = true;
		s->mismatches++;
	}
}

static int core_find_elf_unguarded(struct cst_symbols *s, Dwfl_Module *mod, void **userdata,
				   const char *modname, Dwarf_Addr base, char **file_name, Elf **elfp)
{
	if (!s || !s->core || !modname || modname[0] != '/')
		return dwfl_build_id_find_elf(mod, userdata, modname, base, file_name, elfp);
	char why[128], path[PATH_MAX], want[41], have[41];
	int fd;
	Elf *elf;
	enum module_file r = open_module_file(s, mod, modname, false, &fd, &elf, path, why, want, have);
	const char *exe = cst_core_exe_option(s->core, modname);
	if (r != FILE_OK && exe) {
		/* -e is not this core's program: said of -e by name, then the file the core names
		 * is tried, and used when it is the program */
		if (r == FILE_MISMATCH)
			cst_core_warn(s->core, "-e %s is not the executable of this core: its build-id is %s, "
				      "the core records %s (for %s)", exe, have, want, modname);
		else if (r == FILE_NOT_ELF)
			cst_core_warn(s->core, "mapped file %s is not an ELF file (%s bytes): it was given with -e "
				      "for %s", path, why, modname);
		else
			cst_core_warn(s->core, "-e %s: %s", exe, why);
		char npath[PATH_MAX], nwhy[128];
		enum module_file nr = open_module_file(s, mod, modname, true, &fd, &elf, npath, nwhy, want, have);
		if (nr == FILE_OK) {
			cst_core_warn(s->core, "using %s, the executable the core names, whose build-id "
				      "matches the core's, in place of -e %s", npath, exe);
			if (cst_core_exe_option_rejected(s->core, npath) < 0) {
				elf_end(elf);
				close(fd);
				return -1;
			}
			*file_name = strdup(npath);
			*elfp = elf;
			return fd;
		}
		/* by build-id in the debug directories, as for any missing file */
		if (nr == FILE_ABSENT && (fd = dwfl_build_id_find_elf(mod, userdata, modname, base, file_name, elfp)) >= 0)
			return fd;
		if (r == FILE_MISMATCH)
			flag_mismatch(s, mod);
		return -1;
	}
	switch (r) {
	case FILE_OK:
		*file_name = strdup(path);
		*elfp = elf;
		return fd;
	case FILE_ABSENT:
		cst_core_warn(s->core, "cannot open mapped file %s: %s", path, why);
		return dwfl_build_id_find_elf(mod, userdata, modname, base, file_name, elfp);
	case FILE_UNREADABLE:
		cst_core_warn(s->core, "cannot open mapped file %s: %s", path, why);
		return -1;
	case FILE_NOT_ELF:
		/* said, not dropped: the module's frames lose their names */
		cst_core_warn(s->core, "mapped file %s is not an ELF file (%s bytes); its frames are not symbolized",
			      path, why);
		return -1;
	case FILE_MISMATCH:
		cst_core_warn(s->core, "mapped file %s is not the one the core was made with: its build-id is %s, "
			      "the core records %s; its frames are not symbolized", path, have, want);
		flag_mismatch(s, mod);
		return -1;
	}
	return -1;
}

/* True when no section of ELF can have a name holding WORD: its section-name table, which
 * holds every name libelf gives (elf_strptr), is readable and has no WORD anywhere.  One
 * search of the table answers for the sections a name lookup would go through one by one. */
static bool names_lack(Elf *elf, const char *word)
{
	size_t shstrndx;
	GElf_Shdr sh;
	Elf_Scn *names = elf_getshdrstrndx(elf, &shstrndx) == 0 ? elf_getscn(elf, shstrndx) : NULL;
	Elf_Data *d = names && gelf_getshdr(names, &sh) && sh.sh_type == SHT_STRTAB ?
		      elf_rawdata(names, NULL) : NULL;
	return d && d->d_buf && !memmem(d->d_buf, d->d_size, word, strlen(word));
}

/* Whether ELF has a section named for debugging: libdw reads DWARF from .debug_*,
 * .zdebug_* and .gnu.debuglto_* sections; .gnu_debuglink names a separate file. */
static bool has_debug_section(Elf *elf)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0 || names_lack(elf, "debug"))
		return false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name;
		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(elf, shstrndx, sh.sh_name)) && strstr(name, "debug"))
			return true;
	}
	return false;
}

/* With SEPARATE, whether find_debuginfo may find a separate debug file of MOD (its own,
 * not a dwz alternate file): not when MOD's file has no .gnu_debuglink, DEBUGINFOD_URLS is
 * unset or empty, and no file is named by its build-id in the debug-file cache or in a
 * debug directory, the only places find_debuginfo then looks (debugdirs.h).  Without,
 * whether libdwfl may find DWARF for MOD at all: in its own file (has_debug_section) or
 * in a separate one.  Remembered per module.  A module without is not asked about: libdwfl
 * would compare each of its section names with every DWARF section's, and search the
 * debug directories (formatting the id and every path), to find nothing. */
static bool may_find_dwarf(Dwfl_Module *mod, bool separate)
{
	struct module_info *mi = module_info(mod);
	signed char *known = !mi ? NULL : separate ? &mi->debug_file : &mi->dwarf;
	if (known && *known)
		return *known > 0;
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	bool may;
	if (separate) {
		GElf_Word crc;
		const char *urls = getenv("DEBUGINFOD_URLS");
		const unsigned char *id;
		GElf_Addr vaddr;
		int idlen = dwfl_module_build_id(mod, &id, &vaddr);
		may = (elf && !names_lack(elf, ".gnu_debuglink") && dwelf_elf_gnu_debuglink(elf, &crc)) ||
		      (urls && *urls) ||
		      (idlen > 0 && (cst_debugcache_has(id, (size_t)idlen) ||
				     cst_debugdirs_has_build_id(id, (size_t)idlen)));
	} else {
		may = elf && (has_debug_section(elf) || may_find_dwarf(mod, true));
	}
	if (known)
		*known = may ? 1 : -1;
	return may;
}

/* libdwfl's search for a module's separate debug file (debugdirs.h), through the cache of
 * decompressed debug files (debugcache.h).  Without DEBUGINFOD_URLS and without a
 * .gnu_debuglink only the build-id is looked up: the standard search would end by loading
 * the debuginfod client library and its many dependencies, only for it to do nothing. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	/* the module's own debug file, not a dwz alternate file looked up after it */
	const char *debugfile = NULL;
	const unsigned char *id = NULL;
	GElf_Addr id_vaddr;
	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	if (!debugfile && !may_find_dwarf(mod, true))
		return -1;
	int idlen = debugfile ? 0 : dwfl_module_build_id(mod, &id, &id_vaddr);
	int fd = idlen > 0 ? cst_debugcache_open(id, (size_t)idlen, debuginfo_file_name) : -1;
	if (fd >= 0)
		return fd;
	const char *urls = getenv("DEBUGINFOD_URLS");
	fd = (debuglink_file || (urls && *urls) ? dwfl_standard_find_debuginfo : dwfl_build_id_find_debuginfo)
		(mod, userdata, modname, base, file_name, debuglink_file, debuglink_crc, debuginfo_file_name);
	if (fd >= 0 && idlen > 0)
		cst_debugcache_store(id, (size_t)idlen, fd);
	return fd;
}

/* A new symbols object whose module files are found by FIND_ELF, with its libdwfl session
 * begun (s->dwfl is NULL when libdwfl could not start); NULL when memory ran out. */
static struct cst_symbols *new_symbols(__typeof__(((Dwfl_Callbacks *)0)->find_elf) find_elf)
{
	struct cst_symbols *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->callbacks.find_elf = find_elf;
	s->callbacks.find_debuginfo = find_debuginfo;
	s->callbacks.section_address = dwfl_offline_section_address;
	s->debuginfo_path = cst_debugdirs_path();
	s->callbacks.debuginfo_path = &s->debuginfo_path;
	/* without memory for a memo every lookup is simply made again */
	s->func_memo = cst_memo_new(sizeof(struct func_memo), MEMO_MAX_ENTRIES);
	s->where_memo = cst_memo_new(sizeof(struct where_memo), MEMO_MAX_ENTRIES);
	s->readable_memo = cst_memo_new(sizeof(const char *), MEMO_MAX_ENTRIES);
	s->cfi_memo = cst_memo_new(sizeof(struct cfi_memo), MEMO_MAX_ENTRIES / 4);
	s->dwfl = dwfl_begin(&s->callbacks);
	return s;
}

/* The GNU build-id of the ELF image mapped at BASE, read from the target's memory (the
 * kernel dumps the first page of every mapped ELF file): ELF header, program headers, then
 * the NT_GNU_BUILD_ID note of a PT_NOTE segment (gABI, "Program Header"; the note layout is
 * <elf.h> ElfW(Nhdr)).  Only 64-bit images.  Returns the id's length (at most MAX bytes
 * stored in ID, its address in *VADDR), or 0. */
static int memory_build_id(struct cst_target *t, uint64_t base, uint8_t *id, int max, uint64_t *vaddr)
{
	uint8_t eh[64];
	if (cst_target_read(t, base, eh, sizeof eh) < 0 || memcmp(eh, ELFMAG, SELFMAG) != 0 ||
	    eh[EI_CLASS] != ELFCLASS64)
		return 0;
	uint64_t phoff, w;
	cst_target_read_word(t, base + 0x20, 8, &phoff);      /* e_phoff */
	cst_target_read_word(t, base + 0x38, 4, &w);          /* e_phnum (u16) + e_shentsize */
	unsigned phnum = t->big_endian ? (unsigned)(w >> 16) : (unsigned)(w & 0xffff);
	if (phnum > 64 || phoff > 4096)
		return 0;
	uint64_t first_load = UINT64_MAX;
	uint64_t notes[8][2];
	int nnotes = 0;
	for (unsigned i = 0; i < phnum; i++) {
		uint64_t ph = base + phoff + 56 * i, type, va, sz;
		if (cst_target_read_word(t, ph, 4, &type) < 0 ||
		    cst_target_read_word(t, ph + 16, 8, &va) < 0 ||
		    cst_target_read_word(t, ph + 32, 8, &sz) < 0)
			return 0;
		if (type == PT_LOAD && first_load == UINT64_MAX)
			first_load = va & ~(uint64_t)0xfff;
		if (type == PT_NOTE && nnotes < 8) {
			notes[nnotes][0] = va;
			notes[nnotes][1] = sz;
			nnotes++;
		}
	}
	if (first_load == UINT64_MAX)
		return 0;
	uint64_t bias = base - first_load;
	for (int k = 0; k < nnotes; k++) {
		uint64_t a = bias + notes[k][0], end = a + (notes[k][1] < 4096 ? notes[k][1] : 4096);
		while (a + 12 <= end) {
			uint64_t namesz, descsz, type;
			if (cst_target_read_word(t, a, 4, &namesz) < 0 || cst_target_read_word(t, a + 4, 4, &descsz) < 0 ||
			    cst_target_read_word(t, a + 8, 4, &type) < 0 || namesz > 256 || descsz > 256)
				break;
			uint64_t name = a + 12, desc = name + ((namesz + 3) & ~3ull);
			char nm[4];
			if (type == NT_GNU_BUILD_ID && namesz == 4 && descsz > 0 && (int)descsz <= max &&
			    cst_target_read(t, name, nm, 4) == 0 && memcmp(nm, "GNU", 4) == 0 &&
			    cst_target_read(t, desc, id, descsz) == 0) {
				*vaddr = desc;
				return (int)descsz;
			}
			a = desc + ((descsz + 3) & ~3ull);
		}
	}
	return 0;
}

/* True when the file the core recorded as NAME looks like an ELF file: its first page in
 * the core's memory at BASE, else the local file's first bytes (opened without blocking,
 * regular files only). */
static bool looks_like_elf(struct cst_symbols *s, const char *name, uint64_t base)
{
	char magic[SELFMAG];
	if (cst_target_read(cst_core_target(s->core), base, magic, SELFMAG) == 0)
		return memcmp(magic, ELFMAG, SELFMAG) == 0;
	struct stat st;
	char err[128], path[PATH_MAX];
	int fd = cst_core_open_file(s->core, name, &st, path, sizeof path, err, sizeof err);
	if (fd < 0)
		return false;
	bool ok = pread(fd, magic, SELFMAG, 0) == SELFMAG && memcmp(magic, ELFMAG, SELFMAG) == 0;
	close(fd);
	return ok;
}

/* Reports one module per ELF file of the core's NT_FILE note.  libdwfl's own
 * dwfl_core_file_report would open the recorded paths itself, blocking on a FIFO planted in
 * a hostile core; here every file is opened by core_find_elf, which opens regular files
 * only.  The build-id recorded in the core's memory is reported with each module, so a
 * file on disk with another id is refused.  Returns the number of modules; *EXE is the
 * main executable's module when -e was given for it, else NULL. */
static int report_nt_file(struct cst_symbols *s, Dwfl_Module **exe)
{
	struct cst_core *c = s->core;
	size_t n = cst_core_nmappings(c);
	int reported = 0;
	*exe = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct cst_core_mapping *m = cst_core_mapping(c, i);
		if (m->offset != 0)
			continue;
		/* the module spans this file's mappings that follow its header mapping */
		uint64_t high = m->end;
		for (size_t j = i + 1; j < n; j++) {
			const struct cst_core_mapping *k = cst_core_mapping(c, j);
			if (k->file != m->file || k->offset == 0)
				break;
			if (!cst_in_module_layout(m->start, k->start, k->offset))
				break;
			high = k->end;
		}
		if (!looks_like_elf(s, m->name, m->start))
			continue;
		Dwfl_Module *mod = dwfl_report_module(s->dwfl, m->name, m->start, high);
		if (!mod)
			continue;
		reported++;
		if (cst_core_exe_option(c, m->name))
			*exe = mod;
		uint8_t id[64];
		uint64_t idaddr = 0;
		int len = memory_build_id(cst_core_target(c), m->start, id, sizeof id, &idaddr);
		if (len > 0)
			dwfl_module_report_build_id(mod, id, (size_t)len, idaddr);
		/* -e's module is left to be read when listed: its pages beyond the core's come
		 * from the -e file until the module's file is looked up, which may reject it */
		struct module_info *mi = module_info(mod);
		if (mi && !mi->package_read && !cst_core_exe_option(c, m->name)) {
			char err[160];
			mi->package_rc = cst_package_note_from_memory(cst_core_target(c), m->start, &mi->package,
								      err, sizeof err);
			mi->package_err = mi->package_rc < 0 ? strdup(err) : NULL;
			mi->package_base = m->start;
			mi->package_read = mi->package_rc != -CST_E_NOMEM && (mi->package_rc == 0 || mi->package_err);
		}
	}
	return reported;
}

int cst_symbols_memory_package_note(Dwfl_Module *mod, struct cst_target *t, uint64_t base,
				    struct cst_package_note **out, char *err, size_t errlen)
{
	void **userdata;
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	struct module_info *mi = *userdata;
	if (!mi || !mi->package_read || mi->package_base != base)
		return cst_package_note_from_memory(t, base, out, err, errlen);
	mi->package_read = false;
	*out = mi->package;
	mi->package = NULL;
	if (mi->package_err)
		snprintf(err, errlen, "%s", mi->package_err);
	free(mi->package_err);
	mi->package_err = NULL;
	return mi->package_rc;
}

/* The address of the vDSO's ELF header in process PID: its AT_SYSINFO_EHDR entry of
 * /proc/PID/auxv (pairs of native words, <elf.h>); 0 when there is none. */
static uint64_t proc_vdso(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/auxv", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	unsigned long av[2];
	uint64_t at = 0;
	while (read(fd, av, sizeof av) == (ssize_t)sizeof av && av[0] != AT_NULL)
		if (av[0] == AT_SYSINFO_EHDR)
			at = av[1];
	close(fd);
	return at;
}

/* Reports one module per file mapped at offset 0 in process PID (/proc/PID/maps), as
 * report_nt_file does for a core: the module spans the mappings of the same file that
 * follow where its ELF layout puts them, not (as dwfl_linux_proc_report's modules) every
 * address from the file's first mapping to its last, so that anonymous code between them
 * (a JIT's) is no part of it.  The vDSO gets the name dwfl_linux_proc_find_elf reads from
 * the process's memory ("[vdso: PID]").  Returns the number of modules, or -1 when the maps
 * cannot be read. */
static int report_proc_maps(struct cst_symbols *s, pid_t pid)
{
	struct cst_procmap *m;
	size_t n;
	if (cst_procmaps_read(pid, &m, &n) < 0)
		return -1;
	uint64_t vdso = proc_vdso(pid);
	int reported = 0;
	for (size_t i = 0; i < n; i++) {
		if (vdso && m[i].start == vdso) {
			char name[32];
			snprintf(name, sizeof name, "[vdso: %d]", (int)pid);
			reported += dwfl_report_module(s->dwfl, name, m[i].start, m[i].end) != NULL;
			continue;
		}
		if (m[i].offset != 0 || m[i].ino == 0 || m[i].name[0] != '/')
			continue;
		uint64_t high = m[i].end;
		for (size_t j = i + 1; j < n; j++) {
			const struct cst_procmap *k = &m[j];
			if (k->ino == 0 && k->dev_major == 0 && k->dev_minor == 0)
				continue;       /* anonymous memory (bss, heap) between the file's mappings */
			if (k->ino != m[i].ino || k->dev_major != m[i].dev_major || k->dev_minor != m[i].dev_minor ||
			    k->offset == 0 || !cst_in_module_layout(m[i].start, k->start, k->offset))
				break;
			high = k->end;
		}
		reported += dwfl_report_module(s->dwfl, m[i].name, m[i].start, high) != NULL;
	}
	cst_procmaps_free(m, n);
	return reported;
}

/* A new cst_symbols finding module files with FIND_ELF, its module report begun
 * (dwfl_report_begin).  NULL with *RC set and a reason in ERR when out of memory or
 * libdwfl cannot start. */
static struct cst_symbols *begin_report(__typeof__(((Dwfl_Callbacks *)0)->find_elf) find_elf,
					int *rc, char *err, size_t errlen)
{
	struct cst_symbols *s = new_symbols(find_elf);
	if (!s) {
		*rc = cst_fail(err, errlen, -CST_E_NOMEM, "out of memory");
		return NULL;
	}
	if (!s->dwfl) {
		*rc = cst_fail(err, errlen, -CST_E_DWFL, "cannot start libdwfl: %s", dwfl_errmsg(-1));
		cst_symbols_close(s);
		return NULL;
	}
	dwfl_report_begin(s->dwfl);
	return s;
}

/* Ends S's module report: when OK and libdwfl accepts it, *OUT = S and 0; else S is closed
 * and -CST_E_DWFL returned, with "WHAT: libdwfl's reason" in ERR. */
static int end_report(struct cst_symbols *s, bool ok, struct cst_symbols **out, const char *what,
		      char *err, size_t errlen)
{
	if (dwfl_report_end(s->dwfl, NULL, NULL) == 0 && ok) {
		*out = s;
		return 0;
	}
	/* dwfl_core_file_report can fail without setting an error (a core whose segments do not
	 * hold what its link_map points to) */
	int e = dwfl_errno();
	cst_fail(err, errlen, -CST_E_DWFL, "%s: %s", what,
		 e ? dwfl_errmsg(e) : "libdwfl found none it could use in the core's memory");
	cst_symbols_close(s);
	return -CST_E_DWFL;
}

int cst_symbols_open_pid(struct cst_symbols **out, pid_t pid, char *err, size_t errlen)
{
	int rc;
	struct cst_symbols *s = begin_report(dwfl_linux_proc_find_elf, &rc, err, errlen);
	if (!s)
		return rc;
	bool ok = report_proc_maps(s, pid) >= 0;
	char what[64];
	snprintf(what, sizeof what, "cannot read the modules of process %d", (int)pid);
	return end_report(s, ok, out, what, err, errlen);
}

int cst_symbols_open_files(struct cst_symbols **out, size_t n, const char *const *paths,
			   const uint64_t *biases, char *err, size_t errlen)
{
	int rc;
	struct cst_symbols *s = begin_report(dwfl_build_id_find_elf, &rc, err, errlen);
	if (!s)
		return rc;
	size_t reported = 0;
	for (size_t i = 0; i < n; i++)
		if (dwfl_report_elf(s->dwfl, paths[i], paths[i], -1, biases[i], false))
			reported++;
	char what[4200];
	snprintf(what, sizeof what, "cannot read the modules %s...", n ? paths[0] : "");
	return end_report(s, reported > 0, out, what, err, errlen);
}

/* Bound on the PT_NOTE bytes of a core whose modules libdwfl looks for in its memory
 * (dwfl_core_file_report, for a core without NT_FILE): it reads the notes whole into memory
 * (elf_getdata_rawchunk) besides the segments it looks at.  64 MiB of notes are about
 * 180,000 threads on x86-64. */
#define MAX_FALLBACK_NOTES (64ull << 20)

/* Bytes in C's PT_NOTE segments, as their program headers give them. */
static uint64_t note_bytes(struct cst_core *c)
{
	Elf *elf = cst_core_elf(c);
	size_t n = 0;
	uint64_t total = 0;
	if (!elf || elf_getphdrnum(elf, &n) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_NOTE)
			total += ph.p_filesz < UINT64_MAX - total ? ph.p_filesz : UINT64_MAX - total;
	}
	return total;
}

int cst_symbols_open_core(struct cst_symbols **out, struct cst_core *c, char *err, size_t errlen)
{
	int rc;
	struct cst_symbols *s = begin_report(core_find_elf, &rc, err, errlen);
	if (!s)
		return rc;
	s->core = c;
	current = s;
	Dwfl_Module *exe;
	int n = report_nt_file(s, &exe);
	/* without NT_FILE and mappings, libdwfl searches the core's memory for modules */
	const bool search = n == 0 && cst_core_nmappings(c) == 0;
	/* the notes counted only for that search: a core of many threads has a program header
	 * per stack */
	uint64_t notes = search ? note_bytes(c) : 0;
	char why[160];
	if (search && notes > MAX_FALLBACK_NOTES) {
		cst_core_warn(c, "no NT_FILE note, and %llu bytes of notes: over the %llu MiB bound of "
			      "libdwfl's search for modules in the core's memory; frames are not symbolized",
			      (unsigned long long)notes, MAX_FALLBACK_NOTES >> 20);
	} else if (search && !cst_linkmap_check(c, why, sizeof why)) {
		cst_core_warn(c, "no NT_FILE note, and %s: libdwfl's search for modules in the core's "
			      "memory is not run on it; frames are not symbolized", why);
	} else if (search) {
		/* libdwfl opens the link_map's file names itself (guarded_open.h) */
		struct cst_core *guard = cst_guarded_open_begin(c);
		n = dwfl_core_file_report(s->dwfl, cst_core_elf(c), cst_core_executable(c));
		cst_guarded_open_begin(guard);
	}
	rc = end_report(s, n >= 0, out, "cannot report the core's modules", err, errlen);
	/* -e's file is checked against the core now, not at the first frame in it: when it is
	 * not the core's program, the executable named before the frames is the file used */
	Dwarf_Addr bias;
	if (rc == 0 && exe)
		dwfl_module_getelf(exe, &bias);
	return rc;
}

static int free_userdata(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start, void *arg)
{
	struct module_info *mi = *userdata;
	if (mi) {
		free(mi->fde_starts);
		cst_symindex_free(mi->symindex);
		cst_callsites_free(mi->callsites);
		cst_package_note_free(mi->package);
		free(mi->package_err);
	}
	free(*userdata);
	*userdata = NULL;
	return DWARF_CB_OK;
}

static void free_inline_chain(uint64_t key, void *value, void *arg)
{
	free(((struct where_memo *)value)->chain);
}

void cst_symbols_close(struct cst_symbols *s)
{
	if (!s)
		return;
	if (s->dwfl) {
		dwfl_getmodules(s->dwfl, free_userdata, NULL, 0);
		dwfl_end(s->dwfl);
	}
	if (current == s)
		current = NULL;
	for (size_t i = 0; i < s->names_cap; i++)
		free(s->names[i]);
	free(s->names);
	cst_memo_free(s->func_memo);
	cst_memo_free(s->readable_memo);
	cst_memo_each(s->where_memo, free_inline_chain, NULL);
	cst_memo_free(s->where_memo);
	cst_memo_free(s->cfi_memo);
	for (size_t i = 0; i < s->ncfi_rows; i++)
		free(s->cfi_rows[i]);
	free(s->cfi_rows);
	free(s->cfi_spill);
	free(s);
}

Dwfl *cst_symbols_dwfl(struct cst_symbols *s) { return s->dwfl; }

void cst_symbols_set_raw(struct cst_symbols *s, bool raw)
{
	s->raw = raw;
}

size_t cst_symbols_go_abi_stripped_len(const char *name)
{
	const char *dot = strrchr(name, '.');
	if (!dot || dot == name || (strcmp(dot, ".abi0") != 0 && strcmp(dot, ".abiinternal") != 0))
		return 0;
	return (size_t)(dot - name);
}

/* True when NAME's display name may differ from NAME: the one test made on every name. */
static bool display_differs(const char *name)
{
	return cst_demangle_candidate(name) || cst_symbols_go_abi_stripped_len(name);
}

char *cst_symbols_display_name(const char *name)
{
	if (!name || !display_differs(name))
		return NULL;
	if (cst_demangle_candidate(name))
		return cst_demangle(name);
	return strndup(name, cst_symbols_go_abi_stripped_len(name));
}

const char *cst_symbols_readable(struct cst_symbols *s, const char *name)
{
	if (!s || s->raw || !name || !display_differs(name))
		return name;
	/* keyed by the name's address: every name given here lives as long as S (a string
	 * table of a module, or interned) */
	const char *const *m = cst_memo_get(s->readable_memo, (uint64_t)(uintptr_t)name);
	if (m)
		return *m;
	char *d = cst_symbols_display_name(name);
	const char *r = d ? intern(s, d, strlen(d)) : NULL;
	free(d);
	if (!r)
		r = name;
	cst_memo_put(s->readable_memo, (uint64_t)(uintptr_t)name, &r);
	return r;
}
int cst_symbols_mismatches(struct cst_symbols *s) { return s ? s->mismatches : 0; }

static Dwfl_Module *module_at(struct cst_symbols *s, uint64_t addr)
{
	if (!s)
		return NULL;
	current = s;
	return dwfl_addrmodule(s->dwfl, addr);
}

Dwarf_Frame *cst_symbols_cfi(struct cst_symbols *s, uint64_t addr, uint64_t *biasp)
{
	Dwfl_Module *mod = module_at(s, addr);
	if (!mod)
		return NULL;
	Dwarf_Addr bias;
	Dwarf_Frame *frame = NULL;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
	if (cfi && dwarf_cfi_addrframe(cfi, addr - bias, &frame) == 0) {
		if (biasp)
			*biasp = bias;
		return frame;
	}
	cfi = may_find_dwarf(mod, false) ? dwfl_module_dwarf_cfi(mod, &bias) : NULL;
	if (cfi && dwarf_cfi_addrframe(cfi, addr - bias, &frame) == 0) {
		if (biasp)
			*biasp = bias;
		return frame;
	}
	return NULL;
}

Dwarf_Frame *cst_symbols_cfi_cached(struct cst_symbols *s, uint64_t addr, uint64_t *biasp)
{
	if (!s)
		return NULL;
	const struct cfi_memo *m = cst_memo_get(s->cfi_memo, addr);
	if (m) {
		if (biasp)
			*biasp = m->bias;
		return m->row;
	}
	struct cfi_memo v = { NULL, 0 };
	v.row = cst_symbols_cfi(s, addr, &v.bias);
	if (biasp)
		*biasp = v.bias;
	if (s->ncfi_rows == s->cfi_rows_cap) {
		size_t cap = s->cfi_rows_cap ? 2 * s->cfi_rows_cap : 256;
		Dwarf_Frame **rows = realloc(s->cfi_rows, cap * sizeof *rows);
		if (rows) {
			s->cfi_rows = rows;
			s->cfi_rows_cap = cap;
		}
	}
	if (s->ncfi_rows < s->cfi_rows_cap && cst_memo_put(s->cfi_memo, addr, &v)) {
		if (v.row)
			s->cfi_rows[s->ncfi_rows++] = v.row;
	} else {
		free(s->cfi_spill);              /* not remembered: valid until the next call */
		s->cfi_spill = v.row;
	}
	return v.row;
}

bool cst_symbols_cfi_kept(const struct cst_symbols *s, const Dwarf_Frame *row)
{
	return row && row != s->cfi_spill;
}

static int func_uncached(struct cst_symbols *s, uint64_t addr, struct cst_func *fn)
{
	memset(fn, 0, sizeof *fn);
	Dwfl_Module *mod = module_at(s, addr);
	if (!mod)
		return -CST_E_NO_FUNC;
	fn->module = mod;
	GElf_Off off;
	GElf_Sym sym;
	struct module_info *mi = module_info(mod);
	if (mi && !mi->symindex_built) {
		mi->symindex_built = true;
		mi->symindex = cst_symindex_build(mod);
	}
	const char *name = cst_symindex_addrinfo(mi ? mi->symindex : NULL, mod, addr, &off, &sym);
	if (name && (sym.st_size == 0 || off < sym.st_size)) {
		fn->name = name;
		fn->start = addr - off;
		fn->end = sym.st_size ? fn->start + sym.st_size : 0;
		if (GELF_ST_TYPE(sym.st_info) == STT_FUNC || GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC ||
		    sym.st_size)
			return 0;
	}
	/* No symbol: the CFI's FDE bounds are the function's, when CFI covers ADDR. */
	uint64_t bias;
	Dwarf_Frame *frame = cst_symbols_cfi(s, addr, &bias);
	if (frame) {
		free(frame);
		uint64_t start, end;
		if (fde_bounds(s, mod, addr, &start, &end)) {
			fn->start = start;
			fn->end = end;
			fn->name = NULL;
			return 0;
		}
	}
	return fn->name ? 0 : -CST_E_NO_FUNC;
}

int cst_symbols_func(struct cst_symbols *s, uint64_t addr, struct cst_func *fn)
{
	if (!s)
		return -CST_E_NO_FUNC;
	const struct func_memo *m = cst_memo_get(s->func_memo, addr);
	if (m) {
		*fn = m->fn;
		return m->rc;
	}
	struct func_memo v;
	v.rc = func_uncached(s, addr, &v.fn);
	cst_memo_put(s->func_memo, addr, &v);
	*fn = v.fn;
	return v.rc;
}

bool cst_symbols_exec_range(struct cst_symbols *s, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	Dwfl_Module *mod = module_at(s, addr);
	Dwarf_Addr bias;
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	size_t nph;
	if (!elf || elf_getphdrnum(elf, &nph) < 0)
		return false;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (addr - bias >= ph.p_vaddr && addr - bias - ph.p_vaddr < ph.p_memsz) {
			*lo = ph.p_vaddr + bias;
			*hi = *lo + ph.p_memsz;
			return true;
		}
	}
	return false;
}

Elf *cst_symbols_module_elf(struct cst_symbols *s, uint64_t addr, uint64_t *bias)
{
	Dwfl_Module *mod = module_at(s, addr);
	Dwarf_Addr b = 0;
	Elf *elf = mod ? dwfl_module_getelf(mod, &b) : NULL;
	*bias = b;
	return elf;
}

bool cst_symbols_read_only(struct cst_symbols *s, uint64_t addr)
{
	Dwfl_Module *mod = module_at(s, addr);
	Dwarf_Addr bias;
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	size_t nph;
	if (!elf || elf_getphdrnum(elf, &nph) != 0)
		return false;
	bool load_ro = false, relro = false;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || addr - bias < ph.p_vaddr ||
		    addr - bias - ph.p_vaddr >= ph.p_memsz)
			continue;
		if (ph.p_type == PT_LOAD && !(ph.p_flags & PF_W))
			load_ro = true;
		if (ph.p_type == PT_GNU_RELRO)
			relro = true;
	}
	return load_ro || relro;
}

bool cst_symbols_object(struct cst_symbols *s, uint64_t addr, uint64_t *start, uint64_t *size)
{
	Dwfl_Module *mod = module_at(s, addr);
	int n = mod ? dwfl_module_getsymtab(mod) : -1;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr value;
		if (!dwfl_module_getsym_info(mod, i, &sym, &value, NULL, NULL, NULL) ||
		    GELF_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_size == 0 ||
		    addr < value || addr - value >= sym.st_size)
			continue;
		*start = value;
		*size = sym.st_size;
		return true;
	}
	Dwarf_Addr bias;
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	Elf_Scn *scn = NULL;
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || (sh.sh_flags & SHF_EXECINSTR) ||
		    sh.sh_type == SHT_NOBITS || addr - bias < sh.sh_addr || addr - bias - sh.sh_addr >= sh.sh_size)
			continue;
		*start = sh.sh_addr + bias;
		*size = sh.sh_size;
		return true;
	}
	return false;
}

struct cst_callsites *cst_symbols_callsites(struct cst_symbols *s, uint64_t addr)
{
	Dwfl_Module *mod = module_at(s, addr);
	struct module_info *mi = mod ? module_info(mod) : NULL;
	if (mi && !mi->callsites_built) {
		mi->callsites_built = true;
		mi->callsites = cst_callsites_new(mod);
	}
	return mi ? mi->callsites : NULL;
}

bool cst_symbols_in_module(struct cst_symbols *s, uint64_t addr)
{
	return module_at(s, addr) != NULL;
}

const char *cst_symbols_base_name(const char *name, char *buf, size_t len)
{
	static const char *const suffixes[] = { ".cold", ".part.", ".isra.", ".constprop.",
						".lto_priv.", ".localalias", " [clone .", NULL };
	if (len == 0)
		return buf;
	size_t n = name ? strnlen(name, len - 1) : 0;     /* as snprintf "%s" would cut it */
	memcpy(buf, name ? name : "", n);
	buf[n] = 0;
	if (!strpbrk(buf, ".@"))
		return buf;          /* nothing to cut: every suffix has a '.' */
	char *cut = strchr(buf, '@');
	for (int i = 0; suffixes[i]; i++) {
		char *p = strstr(buf, suffixes[i]);
		if (p && p != buf && (!cut || p < cut))
			cut = p;
	}
	if (cut)
		*cut = 0;
	return buf;
}

/* The compilation unit of MOD whose ranges hold ADDR (a target address), with *BIAS the
 * module's load bias; NULL when no unit covers it.  libdw finds the unit through
 * .debug_aranges; a file without that section (Go's linker writes none) has its units'
 * own ranges searched in order, and *SCANNED says so: libdwfl's line lookup, which goes
 * through .debug_aranges too, then cannot be used. */
static Dwarf_Die *module_cu(Dwfl_Module *mod, uint64_t addr, Dwarf_Addr *bias, bool *scanned)
{
	*scanned = false;
	if (!may_find_dwarf(mod, false))
		return NULL;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, bias);
	if (cu)
		return dwarf_haspc(cu, addr - *bias) > 0 ? cu : NULL;
	Dwarf *dw = dwfl_module_getdwarf(mod, bias);
	Dwarf_Aranges *ar;
	size_t nar = 0;
	if (!dw || dwarf_getaranges(dw, &ar, &nar) != 0 || nar > 0)
		return NULL;
	*scanned = true;
	Dwarf_Addr b;
	for (cu = dwfl_module_nextcu(mod, NULL, &b); cu; cu = dwfl_module_nextcu(mod, cu, &b))
		if (dwarf_haspc(cu, addr - b) > 0) {
			*bias = b;
			return cu;
		}
	return NULL;
}

enum { SCOPES_MAX_DEPTH = 64 };

/* Descends PARENT's children for the code DIEs (subprogram, inlined subroutine, lexical
 * block) holding PC, through the namespaces, modules and classes that hold functions without
 * code ranges of their own (Rust nests functions in namespaces, C++ classes may hold
 * definitions); appends them to PATH (*N used), outermost first.  True when a code DIE holds
 * PC.  DEPTH and *BUDGET (DIEs looked at) are bounded: a hostile file's tree may be deep or
 * large. */
static bool scopes_descend(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *path, int *n, int depth, int *budget)
{
	Dwarf_Die c;
	if (depth >= SCOPES_MAX_DEPTH || dwarf_child(parent, &c) != 0)
		return false;
	do {
		if (--*budget < 0)
			return false;
		int tag = dwarf_tag(&c);
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) {
			if (dwarf_haspc(&c, pc) <= 0)
				continue;
			if (*n < SCOPES_MAX_DEPTH)
				path[(*n)++] = c;
			scopes_descend(&c, pc, path, n, depth + 1, budget);
			return true;
		}
		if ((tag == DW_TAG_namespace || tag == DW_TAG_module || tag == DW_TAG_class_type ||
		     tag == DW_TAG_structure_type || tag == DW_TAG_union_type) &&
		    scopes_descend(&c, pc, path, n, depth + 1, budget))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* The code DIEs of CU's concrete tree whose ranges hold PC (a DWARF address), innermost
 * first, through lexical blocks, into *OUT (malloc'd); their number, 0 when none, -1 when out
 * of memory.  dwarf_getscopes gives nothing for an inlined subroutine whose abstract origin
 * is in another unit (gcc's LTO units refer to the compile-time units' DIEs), so the nesting
 * is found by descending the unit's tree, which is what the concrete chain is made of. */
static int concrete_scopes(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die **out)
{
	Dwarf_Die path[SCOPES_MAX_DEPTH];
	int n = 0, budget = 1000000;
	scopes_descend(cu, pc, path, &n, 0, &budget);
	*out = NULL;
	if (n == 0)
		return 0;
	*out = malloc((size_t)n * sizeof **out);
	if (!*out)
		return -1;
	for (int i = 0; i < n; i++)
		(*out)[i] = path[n - 1 - i];
	return n;
}

static const char *function_names(struct cst_symbols *s, Dwarf_Die *die, const char **symbol);

/* The name to show for SYMBOL (a symbol-table name with a gcc clone suffix, such as
 * "string_at.lto_priv.0" or "run.cold") from the DWARF subprogram of CU holding PC (a DWARF
 * address), as gdb names it: the function's own name, the suffix being no part of it; NULL
 * when no subprogram holds PC. */
static const char *clone_dwarf_name(struct cst_symbols *s, Dwarf_Die *cu, Dwarf_Addr pc)
{
	Dwarf_Die *scopes = NULL;
	int n = concrete_scopes(cu, pc, &scopes);
	const char *name = NULL, *ignored;
	for (int i = 0; i < n && !name; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			name = function_names(s, &scopes[i], &ignored);
	free(scopes);
	return name;
}

static void locate_uncached(struct cst_symbols *s, uint64_t addr, uint64_t pc, struct cst_location *loc)
{
	memset(loc, 0, sizeof *loc);
	Dwfl_Module *mod = module_at(s, addr);
	if (!mod)
		return;
	void **userdata;
	Dwarf_Addr start;
	const char *mainfile = NULL, *debugfile = NULL;
	const char *name = dwfl_module_info(mod, &userdata, &start, NULL, NULL, NULL, &mainfile, &debugfile);
	loc->module_base = start;
	/* Trigger the search for the file so that mainfile and the mismatch flag are known. */
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	name = dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
	loc->module = mainfile ? mainfile : name;
	struct module_info *mi = userdata ? *userdata : NULL;
	loc->mismatch = mi && mi->mismatch;
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &bits, &vaddr);
	build_id_hex(bits, n, loc->build_id);
	loc->no_file = !elf;
	if (!elf)
		return;
	struct cst_func fn;
	if (cst_symbols_func(s, addr, &fn) == 0 && fn.name) {
		/* "__libc_start_main@@GLIBC_2.34": the symbol version is not part of the name */
		const char *at = strchr(fn.name, '@');
		if (at && at != fn.name) {
			loc->symbol = intern(s, fn.name, (size_t)(at - fn.name));
		} else {
			loc->symbol = fn.name;
		}
		loc->function = cst_symbols_readable(s, loc->symbol);
		if (!loc->function)
			loc->symbol = NULL;
		loc->offset = pc - fn.start;
	}
	/* a line only for an address inside a compilation unit's ranges: libdw takes the
	 * nearest unit otherwise (crt1.o's _start, which has no DWARF, got the next unit's
	 * last line) */
	bool scanned;
	Dwarf_Die *cu = module_cu(mod, addr, &bias, &scanned);
	int lineno = 0;
	const char *file = NULL;
	if (cu && !scanned) {
		Dwfl_Line *line = dwfl_module_getsrc(mod, addr);
		file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
	} else if (cu) {
		Dwarf_Line *line = dwarf_getsrc_die(cu, addr - bias);
		file = line && dwarf_lineno(line, &lineno) == 0 ? dwarf_linesrc(line, NULL, NULL) : NULL;
	}
	if (file && lineno > 0) {
		loc->file = file;
		loc->line = lineno;
	}
	char base[256];
	if (cu && loc->function && !s->raw &&
	    strcmp(cst_symbols_base_name(loc->symbol, base, sizeof base), loc->symbol) != 0) {
		const char *own = clone_dwarf_name(s, cu, addr - bias);
		loc->function = own ? own : loc->function;
	}
}

void cst_symbols_locate(struct cst_symbols *s, uint64_t addr, uint64_t pc, struct cst_location *loc)
{
	cst_symbols_frame(s, addr, pc, loc, NULL, 0);
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = NULL;
	if (dwarf_attr_integrate(die, DW_AT_name, &a))
		n = dwarf_formstring(&a);
	return n;
}

/* The DIE that declares function DIE (through DW_AT_abstract_origin and DW_AT_specification),
 * whose parents are its scopes; DIE itself when it has none. */
static Dwarf_Die declaration(Dwarf_Die *die, Dwarf_Die *buf)
{
	Dwarf_Die d = *die;
	Dwarf_Attribute a;
	/* bounded: a hostile file's references may loop */
	for (int i = 0; i < 8; i++) {
		if (!dwarf_attr(&d, DW_AT_abstract_origin, &a) && !dwarf_attr(&d, DW_AT_specification, &a))
			break;
		if (!dwarf_formref_die(&a, buf))
			break;
		d = *buf;
	}
	return d;
}

static const char *qualified_name(struct cst_symbols *s, Dwarf_Die *die, const char *name);

/* Appends STR to BUF (CAP bytes, *LEN used); false when it does not fit. */
static bool put_part(char *buf, size_t cap, size_t *len, const char *str)
{
	size_t n = strlen(str);
	if (*len + n + 1 > cap)
		return false;
	memcpy(buf + *len, str, n + 1);
	*len += n;
	return true;
}

/* Appends the C++ name of type DIE as the Itanium demangler spells it in a parameter list
 * ("int", "char const*", "std::__cxx11::basic_string<...> const&"): typedefs resolved, as a
 * mangled name has the type itself; top-level const and volatile left out when TOP, as a
 * parameter's are no part of a function's type.  False for a type this does not spell, or
 * when BUF is full.  DEPTH bounds the chain (a hostile file's types may loop). */
static bool type_name(struct cst_symbols *s, Dwarf_Die *type, bool top, int depth, char *buf, size_t cap,
		      size_t *len)
{
	Dwarf_Attribute a;
	Dwarf_Die inner, *in = dwarf_attr_integrate(type, DW_AT_type, &a) && dwarf_formref_die(&a, &inner) ?
			      &inner : NULL;
	const char *name = die_name(type);
	if (depth > 16)
		return false;
	switch (dwarf_tag(type)) {
	case DW_TAG_base_type:
		return name && put_part(buf, cap, len, name);
	case DW_TAG_structure_type: case DW_TAG_class_type: case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		return name && put_part(buf, cap, len, qualified_name(s, type, name));
	case DW_TAG_typedef:
		return in && type_name(s, in, top, depth + 1, buf, cap, len);
	case DW_TAG_pointer_type: case DW_TAG_reference_type: case DW_TAG_rvalue_reference_type:
		if (in ? !type_name(s, in, false, depth + 1, buf, cap, len) : !put_part(buf, cap, len, "void"))
			return false;
		return put_part(buf, cap, len, dwarf_tag(type) == DW_TAG_pointer_type ? "*" :
					       dwarf_tag(type) == DW_TAG_reference_type ? "&" : "&&");
	case DW_TAG_const_type: case DW_TAG_volatile_type:
		if (in ? !type_name(s, in, top, depth + 1, buf, cap, len) : !put_part(buf, cap, len, "void"))
			return false;
		return top || put_part(buf, cap, len, dwarf_tag(type) == DW_TAG_const_type ? " const" : " volatile");
	default:
		return false;
	}
}

/* The parameter list of a closure type CLOSURE's operator() as the demangler spells it,
 * "(int, char const*)", into BUF; false when it has no operator() or a parameter's type is
 * one type_name does not spell. */
static bool lambda_params(struct cst_symbols *s, Dwarf_Die *closure, char *buf, size_t cap)
{
	Dwarf_Die m, p;
	if (dwarf_child(closure, &m) != 0)
		return false;
	do {
		const char *n = die_name(&m);
		if (dwarf_tag(&m) != DW_TAG_subprogram || !n || strcmp(n, "operator()") != 0)
			continue;
		size_t len = 0;
		bool first = true;
		if (!put_part(buf, cap, &len, "("))
			return false;
		if (dwarf_child(&m, &p) == 0) {
			do {
				if (dwarf_tag(&p) != DW_TAG_formal_parameter || dwarf_hasattr(&p, DW_AT_artificial))
					continue;
				Dwarf_Attribute a;
				Dwarf_Die t;
				if ((!first && !put_part(buf, cap, &len, ", ")) ||
				    !dwarf_attr_integrate(&p, DW_AT_type, &a) || !dwarf_formref_die(&a, &t) ||
				    !type_name(s, &t, true, 0, buf, cap, &len))
					return false;
				first = false;
			} while (dwarf_siblingof(&p, &p) == 0);
		}
		return put_part(buf, cap, &len, ")");
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

/* Counts, in DWARF order under SCOPE (through lexical blocks), the closure types whose
 * operator() has the parameter list PARAMS, up to and with the one at offset TARGET.
 * Returns true when TARGET was met; *N the count.  BUDGET bounds the DIEs looked at. */
static bool count_lambdas(struct cst_symbols *s, Dwarf_Die *scope, Dwarf_Off target, const char *params,
			  int *n, int *budget)
{
	Dwarf_Die c;
	if (dwarf_child(scope, &c) != 0)
		return false;
	do {
		if (--*budget < 0)
			return false;
		int tag = dwarf_tag(&c);
		char p[512];
		if (tag == DW_TAG_lexical_block) {
			if (count_lambdas(s, &c, target, params, n, budget))
				return true;
		} else if ((tag == DW_TAG_class_type || tag == DW_TAG_structure_type) && !die_name(&c) &&
			   lambda_params(s, &c, p, sizeof p) && strcmp(p, params) == 0) {
			++*n;
			if (dwarf_dieoffset(&c) == target)
				return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* The name gcc's mangling gives closure type CLOSURE, a class without a name whose scopes
 * are SCOPES[0..N) (innermost first, CLOSURE itself not among them): "{lambda(int)#2}", the
 * second closure type with that parameter list in its function (Itanium C++ ABI 5.1.8,
 * closure types: numbered in lexical order among those of the same signature), interned;
 * NULL when its operator() or function is not found. */
static const char *lambda_name(struct cst_symbols *s, Dwarf_Die *closure, Dwarf_Die *scopes, int n)
{
	char params[512], name[600];
	if (!lambda_params(s, closure, params, sizeof params))
		return NULL;
	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		int count = 0, budget = 100000;
		if (!count_lambdas(s, &scopes[i], dwarf_dieoffset(closure), params, &count, &budget))
			return NULL;
		int w = snprintf(name, sizeof name, "{lambda%s#%d}", params, count);
		return w > 0 && (size_t)w < sizeof name ? intern(s, name, (size_t)w) : NULL;
	}
	return NULL;
}

/* DIE's name qualified by its enclosing namespaces, classes, structures and unions
 * ("app::Derived::run"), interned; DW_AT_name alone when it has no such scope.  A class local
 * to a function is qualified by that function's name; an unnamed class is named as its
 * mangled name would be ("{lambda(int)#1}", lambda_name; "{lambda}" when that cannot be
 * told) when NAME is its operator() (gcc's closure types have no name in DWARF), else
 * "{unnamed type}". */
static const char *qualified_name(struct cst_symbols *s, Dwarf_Die *die, const char *name)
{
	Dwarf_Die buf, decl = declaration(die, &buf);
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes_die(&decl, &scopes);
	char q[1024];
	size_t len = 0;
	bool ok = true;
	for (int i = n - 1; i > 0 && ok; i--) {          /* outermost first; scopes[0] is DECL */
		int tag = dwarf_tag(&scopes[i]);
		const char *part = die_name(&scopes[i]), *ignored;
		if (tag == DW_TAG_subprogram) {
			len = 0;               /* a local class: the function is its whole scope */
			part = function_names(s, &scopes[i], &ignored);
		} else if (tag == DW_TAG_namespace) {
			part = part ? part : "(anonymous namespace)";
		} else if (tag == DW_TAG_class_type || tag == DW_TAG_structure_type || tag == DW_TAG_union_type) {
			if (!part && i == 1 && strcmp(name, "operator()") == 0) {
				part = lambda_name(s, &scopes[i], scopes + i + 1, n - i - 1);
				part = part ? part : "{lambda}";
			}
			part = part ? part : "{unnamed type}";
		} else {
			continue;
		}
		if (!part)
			continue;
		int w = snprintf(q + len, sizeof q - len, "%s::", part);
		ok = w >= 0 && (size_t)w < sizeof q - len;
		len += ok ? (size_t)w : 0;
	}
	free(scopes);
	int w = ok && len ? snprintf(q + len, sizeof q - len, "%s", name) : -1;
	if (w < 0 || (size_t)w >= sizeof q - len)
		return name;
	const char *r = intern(s, q, len + (size_t)w);
	return r ? r : name;
}

/* The names of function DIE: *SYMBOL its DW_AT_linkage_name, else DW_AT_name; the name to
 * show, the linkage name demangled, else DW_AT_name qualified by its scopes (C++ and Rust
 * compilers give most functions a linkage name; main and extern "C" functions have none). */
static const char *function_names(struct cst_symbols *s, Dwarf_Die *die, const char **symbol)
{
	Dwarf_Attribute a;
	const char *link = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		link = dwarf_formstring(&a);
	const char *name = die_name(die);
	*symbol = link ? link : name;
	if (link) {
		const char *r = cst_symbols_readable(s, link);
		if (r != link || s->raw)
			return r;
	}
	if (!name || s->raw)
		return *symbol;
	return qualified_name(s, die, name);
}

static int inlines_uncached(struct cst_symbols *s, uint64_t addr, struct cst_inline *out, int max)
{
	Dwfl_Module *mod = module_at(s, addr);
	Dwarf_Addr bias;
	bool scanned;
	Dwarf_Die *cu = mod ? module_cu(mod, addr, &bias, &scanned) : NULL;
	if (!cu || max < 2)
		return 0;
	Dwarf_Die *scopes = NULL;
	int n = concrete_scopes(cu, addr - bias, &scopes);
	int first = -1;
	for (int i = 0; i < n && first < 0; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine)
			first = i;
	if (first < 0) {
		free(scopes);
		return 0;
	}
	const char *file = NULL;
	int line = 0;
	if (!scanned) {
		Dwfl_Line *l = dwfl_module_getsrc(mod, addr);
		if (l)
			file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	} else {
		Dwarf_Line *l = dwarf_getsrc_die(cu, addr - bias);
		if (l && dwarf_lineno(l, &line) == 0)
			file = dwarf_linesrc(l, NULL, NULL);
	}
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	dwarf_getsrcfiles(cu, &files, &nfiles);
	int k = 0;
	for (int i = first; i < n && k < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		out[k].function = function_names(s, &scopes[i], &out[k].symbol);
		out[k].file = line > 0 ? file : NULL;
		out[k].line = line > 0 ? line : 0;
		k++;
		if (tag == DW_TAG_subprogram)
			break;
		/* the next function out is at the line of this inlined call */
		Dwarf_Attribute a;
		Dwarf_Word fidx = 0, cl = 0;
		file = NULL;
		line = 0;
		if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &a), &fidx) == 0 && files &&
		    fidx < nfiles)
			file = dwarf_filesrc(files, fidx, NULL, NULL);
		if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &cl) == 0)
			line = (int)cl;
	}
	free(scopes);
	return k;
}

int cst_symbols_inlines(struct cst_symbols *s, uint64_t addr, struct cst_inline *out, int max)
{
	if (!s)
		return 0;
	if (max > MEMO_MAX_INLINES)
		return inlines_uncached(s, addr, out, max);
	struct cst_location loc;
	return cst_symbols_frame(s, addr, addr, &loc, out, max);
}

/* What a memo entry gives a frame: M's location, as for PC, and at most MAX of its chain */
static int where_frame(const struct where_memo *m, uint64_t pc, struct cst_location *loc,
		       struct cst_inline *out, int max)
{
	*loc = m->loc;
	loc->offset = loc->function ? pc - m->base : 0;
	int n = max < 2 ? 0 : m->ninl < max ? m->ninl : max;
	if (n > 0)
		memcpy(out, m->chain, (size_t)n * sizeof *out);
	return n;
}

/* cst_symbols_frame for an address the memo does not hold: looked up, and kept when the
 * memo has room */
static __attribute__((noinline)) int frame_uncached(struct cst_symbols *s, uint64_t addr, uint64_t pc,
						    struct cst_location *loc, struct cst_inline *out, int max)
{
	struct cst_inline chain[MEMO_MAX_INLINES];
	struct where_memo v;
	locate_uncached(s, addr, pc, &v.loc);
	v.base = pc - v.loc.offset;
	v.ninl = inlines_uncached(s, addr, chain, MEMO_MAX_INLINES);
	/* the memo holds a copy of the chain's own length: most addresses have none */
	v.chain = NULL;
	if (v.ninl > 0 && s->nchains < MEMO_MAX_CHAINS &&
	    (v.chain = malloc((size_t)v.ninl * sizeof *chain)))
		memcpy(v.chain, chain, (size_t)v.ninl * sizeof *chain);
	if ((v.ninl > 0 && !v.chain) || !cst_memo_put(s->where_memo, addr, &v))
		free(v.chain);
	else if (v.chain)
		s->nchains++;
	v.chain = chain;
	return where_frame(&v, pc, loc, out, max);
}

int cst_symbols_frame(struct cst_symbols *s, uint64_t addr, uint64_t pc, struct cst_location *loc,
		      struct cst_inline *out, int max)
{
	if (!s) {
		memset(loc, 0, sizeof *loc);
		return 0;
	}
	if (max > MEMO_MAX_INLINES) {
		cst_symbols_locate(s, addr, pc, loc);
		return inlines_uncached(s, addr, out, max);
	}
	const struct where_memo *m = cst_memo_get(s->where_memo, addr);
	return m ? where_frame(m, pc, loc, out, max) : frame_uncached(s, addr, pc, loc, out, max);
}

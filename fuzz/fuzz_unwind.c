/* libFuzzer harness for the unwinder (common/unwind.c, cfi.c, arch/x86_64/) over a
 * synthetic process: registers and memory come from the fuzz input, code and CFI from real
 * ELF files loaded at addresses the input chooses.
 *
 * Input layout (little-endian; missing bytes read as 0):
 *   u8   module mask: bit i reports module i (the files in $CST_FUZZ_MODULES, colon-separated,
 *        at most 4); bit 7 lets the memory regions override the modules' bytes (hostile code)
 *   u16  frame limit (0: the unwinder's default)
 *   u64  valid mask of the registers, DWARF numbers 0..16 (x86-64 psABI, "DWARF Register
 *        Number Mapping": 0 rax ... 7 rsp, 8-15 r8-r15, 16 return address = pc)
 *   u64  x 17 the register values
 *   then memory regions to the end: u64 address, u16 length, length bytes (cut at the end)
 * Module i is loaded with the fixed load bias BIAS(i) (target address - file address), the
 * addresses a non-randomized x86-64 Linux process would use.
 * A read is served from the modules' PT_LOAD file contents, else from the first region that
 * holds all of it (with bit 7: the other way round); anything else is unreadable.  The walk runs to its end with
 * cst_unwind_start / cst_unwind_next, and every frame's stop reason and names are used.
 * With $CST_FUZZ_PRINT set, the frames and the stop reason are printed on stderr. */
#include "error.h"
#include "fuzz_input.h"
#include "symbols.h"
#include "unwind.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_MODULES 4
#define MAX_REGIONS 256
#define MAX_SEGS 16
#define BIAS(i) ((i) == 0 ? 0x555555554000ull : 0x7ff000000000ull + ((uint64_t)(i) << 32))

struct seg {                     /* one PT_LOAD of a module file, at file addresses */
	uint64_t vaddr, filesz, offset;
};

struct module {
	char *path;
	const uint8_t *image;    /* the file, mmapped */
	size_t size;
	struct seg segs[MAX_SEGS];
	int nsegs;
};

static struct module modules[MAX_MODULES];
static int nmodules = -1;

struct region {
	uint64_t addr;
	size_t len;
	const uint8_t *bytes;
};

struct fake {
	struct region regions[MAX_REGIONS];
	int nregions;
	unsigned mask;
	bool overlay;            /* regions before modules */
};

static void load_module(const char *path)
{
	struct module *m = &modules[nmodules];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t nph;
	if (p == MAP_FAILED || !elf || elf_getphdrnum(elf, &nph) < 0) {
		if (elf)
			elf_end(elf);
		close(fd);
		return;
	}
	m->path = strdup(path);
	m->image = p;
	m->size = (size_t)st.st_size;
	for (size_t i = 0; i < nph && m->nsegs < MAX_SEGS; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_offset <= m->size &&
		    ph.p_filesz <= m->size - ph.p_offset)
			m->segs[m->nsegs++] = (struct seg){ ph.p_vaddr, ph.p_filesz, ph.p_offset };
	}
	elf_end(elf);
	close(fd);
	if (m->path)
		nmodules++;
}

static void load_modules(void)
{
	nmodules = 0;
	const char *env = getenv("CST_FUZZ_MODULES");
	char *list = env ? strdup(env) : NULL, *save = NULL;
	for (char *p = list ? strtok_r(list, ":", &save) : NULL; p && nmodules < MAX_MODULES;
	     p = strtok_r(NULL, ":", &save))
		load_module(p);
	free(list);
}

static int region_read(const struct fake *f, uint64_t addr, void *buf, size_t len)
{
	for (int i = 0; i < f->nregions; i++) {
		const struct region *r = &f->regions[i];
		if (addr - r->addr < r->len && len <= r->len - (addr - r->addr)) {
			memcpy(buf, r->bytes + (addr - r->addr), len);
			return 0;
		}
	}
	return -CST_E_MEMORY;
}

static int module_read(const struct fake *f, uint64_t addr, void *buf, size_t len)
{
	for (int i = 0; i < nmodules; i++) {
		if (!(f->mask >> i & 1))
			continue;
		const struct module *m = &modules[i];
		uint64_t a = addr - BIAS(i);
		for (int k = 0; k < m->nsegs; k++) {
			const struct seg *s = &m->segs[k];
			if (a - s->vaddr < s->filesz && len <= s->filesz - (a - s->vaddr)) {
				memcpy(buf, m->image + s->offset + (a - s->vaddr), len);
				return 0;
			}
		}
	}
	return -CST_E_MEMORY;
}

static int fake_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	const struct fake *f = priv;
	if (f->overlay)
		return region_read(f, addr, buf, len) == 0 ? 0 : module_read(f, addr, buf, len);
	return module_read(f, addr, buf, len) == 0 ? 0 : region_read(f, addr, buf, len);
}

static const struct cst_target_ops fake_ops = { .read = fake_read };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (nmodules < 0)
		load_modules();
	static int print = -1;        /* $CST_FUZZ_PRINT set: the frames on stderr (for replays) */
	if (print < 0)
		print = getenv("CST_FUZZ_PRINT") != NULL;
	struct cst_fuzz_in in = { data, size };
	static struct fake f;
	memset(&f, 0, sizeof f);
	unsigned mask = cst_fuzz_u8(&in);
	f.mask = mask & ((1u << nmodules) - 1);
	f.overlay = mask & 0x80;
	unsigned max_frames = cst_fuzz_u16(&in);
	uint64_t valid = cst_fuzz_u64(&in);
	struct cst_regs regs;
	memset(&regs, 0, sizeof regs);
	for (int r = 0; r < 17; r++) {
		uint64_t v = cst_fuzz_u64(&in);
		if (valid >> r & 1)
			cst_reg_set(&regs, r, v);
	}
	while (in.left >= 10 && f.nregions < MAX_REGIONS) {
		struct region *r = &f.regions[f.nregions++];
		r->addr = cst_fuzz_u64(&in);
		r->len = cst_fuzz_u16(&in);
		if (r->len > in.left)
			r->len = in.left;
		r->bytes = in.p;
		in.p += r->len;
		in.left -= r->len;
	}

	/* Reporting the modules (and libdw's lazily loaded debug information) costs far more
	 * than a walk: the symbols of each module mask are made once and kept, and so are the
	 * decoded CFI rows (the cfi_cache), unless the input may override the modules' bytes.
	 * Both come from the module files alone, so a walk's result does not depend on which
	 * inputs ran before.  The instructions the architecture decoded (its arch_cache) and the
	 * address-taken functions with the paths inferred from them (the tail_cache) are made
	 * again for each input: they hold what the target's memory said, and the input gives
	 * every byte outside the modules' file contents (code at other addresses, .bss). */
	static struct cst_symbols *syms_of[1 << MAX_MODULES];
	static void *cfi_cache_of[1 << MAX_MODULES];
	static bool made[1 << MAX_MODULES];
	if (!made[f.mask]) {
		const char *paths[MAX_MODULES];
		uint64_t bases[MAX_MODULES];
		size_t n = 0;
		for (int i = 0; i < nmodules; i++)
			if (f.mask >> i & 1) {
				paths[n] = modules[i].path;
				bases[n++] = BIAS(i);
			}
		char err[256];
		if (n > 0 && cst_symbols_open_files(&syms_of[f.mask], n, paths, bases, err, sizeof err) < 0)
			syms_of[f.mask] = NULL;
		made[f.mask] = true;
	}
	struct cst_symbols *syms = syms_of[f.mask];

	struct cst_target target = { .ops = &fake_ops, .priv = &f, .big_endian = false };
	struct cst_unwind_env env = {
		.arch = &cst_arch_x86_64, .target = &target, .syms = syms, .max_frames = max_frames,
		.cfi_cache = f.overlay ? NULL : cfi_cache_of[f.mask],
	};
	struct cst_unwind u;
	struct cst_frame fr;
	if (cst_unwind_start(&u, &env, &regs) == 0) {
		int rc;
		unsigned guard = 0;
		while ((rc = cst_unwind_next(&u, &fr)) > 0 && ++guard < 100000) {
			if (syms) {
				struct cst_location loc;
				struct cst_inline chain[16];
				cst_symbols_locate(syms, fr.lookup_pc, fr.pc, &loc);
				cst_symbols_inlines(syms, fr.lookup_pc, chain, 16);
			}
			const char *by = cst_found_by_token(fr.found_by), *mark = cst_marker_name(fr.marker);
			if (print)
				fprintf(stderr, "#%u 0x%llx %s%s%s\n", fr.index, (unsigned long long)fr.pc, by,
					mark ? " " : "", mark ? mark : "");
		}
		if (guard >= 100000)
			abort();            /* the frame limit did not end the walk */
		const char *why = cst_unwind_stop_reason(&u);
		if (print)
			fprintf(stderr, "end %d: %s\n", rc, why);
	}
	if (!f.overlay) {
		cfi_cache_of[f.mask] = env.cfi_cache;
		env.cfi_cache = NULL;
	}
	cst_unwind_env_free(&env);   /* the rest holds what this input's memory said */
	return 0;
}

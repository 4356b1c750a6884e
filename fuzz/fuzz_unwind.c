/* libFuzzer harness for the unwinder (common/unwind.c, cfi.c, arch_x86_64.c) over a
 * synthetic process: registers and memory come from the fuzz input, code and CFI from real
 * ELF files loaded at addresses the input chooses.
 *
 * Input layout (little-endian; missing bytes read as 0):
 *   u8   module mask: bit i reports module i (the files in $CST_FUZZ_MODULES, colon-separated,
 *        at most 4)
 *   u64  load bias of each of the 4 modules (target address - file address)
 *   u16  frame limit (0: the unwinder's default)
 *   u64  valid mask of the registers, DWARF numbers 0..16 (x86-64 psABI, "DWARF Register
 *        Number Mapping": 0 rax ... 7 rsp, 8-15 r8-r15, 16 return address = pc)
 *   u64  x 17 the register values
 *   then memory regions to the end: u64 address, u16 length, length bytes (cut at the end)
 * A read is served from the first region that holds all of it, else from the modules'
 * PT_LOAD file contents; anything else is unreadable.  The walk runs to its end with
 * cst_unwind_start / cst_unwind_next, and every frame's stop reason and names are used. */
#include "error.h"
#include "fuzz_input.h"
#include "symbols.h"
#include "unwind.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_MODULES 4
#define MAX_REGIONS 256
#define MAX_SEGS 16

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
	uint64_t bias[MAX_MODULES];
	unsigned mask;
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

static int fake_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	struct fake *f = priv;
	for (int i = 0; i < f->nregions; i++) {
		const struct region *r = &f->regions[i];
		if (addr - r->addr < r->len && len <= r->len - (addr - r->addr)) {
			memcpy(buf, r->bytes + (addr - r->addr), len);
			return 0;
		}
	}
	for (int i = 0; i < nmodules; i++) {
		if (!(f->mask >> i & 1))
			continue;
		const struct module *m = &modules[i];
		uint64_t a = addr - f->bias[i];
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

static const struct cst_target_ops fake_ops = { .read = fake_read };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (nmodules < 0)
		load_modules();
	struct cst_fuzz_in in = { data, size };
	static struct fake f;
	memset(&f, 0, sizeof f);
	f.mask = cst_fuzz_u8(&in) & ((1u << nmodules) - 1);
	for (int i = 0; i < MAX_MODULES; i++)
		f.bias[i] = cst_fuzz_u64(&in);
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

	const char *paths[MAX_MODULES];
	uint64_t bases[MAX_MODULES];
	size_t n = 0;
	for (int i = 0; i < nmodules; i++)
		if (f.mask >> i & 1) {
			paths[n] = modules[i].path;
			bases[n++] = f.bias[i];
		}
	struct cst_symbols *syms = NULL;
	char err[256];
	if (n > 0 && cst_symbols_open_files(&syms, paths, bases, n, err, sizeof err) < 0)
		syms = NULL;

	struct cst_target target = { .ops = &fake_ops, .priv = &f, .big_endian = false };
	struct cst_unwind_env env = {
		.arch = &cst_arch_x86_64, .target = &target, .syms = syms, .max_frames = max_frames,
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
			volatile const char *s = cst_found_by_token(fr.found_by);
			s = cst_marker_name(fr.marker);
			(void)s;
		}
		if (guard >= 100000)
			abort();            /* the frame limit did not end the walk */
		volatile size_t l = strlen(cst_unwind_stop_reason(&u));
		(void)l;
	}
	cst_unwind_env_free(&env);
	cst_symbols_close(syms);
	return 0;
}

/* The program of a remote target and its modules.  See remote.h. */
#include "remote.h"
#include "error.h"

#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_MODULES 512      /* link map entries followed; more is a corrupt list */
#define MAX_DYN     4096     /* dynamic entries read looking for DT_DEBUG */

/* The program's PT_DYNAMIC address and its ELF header fields, read with libelf. */
static int program_elf(const char *path, GElf_Ehdr *eh, uint64_t *dynamic)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	int rc = -1;
	size_t n;
	if (e && gelf_getehdr(e, eh) && elf_getphdrnum(e, &n) == 0) {
		*dynamic = 0;
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_DYNAMIC)
				*dynamic = ph.p_vaddr;
		}
		rc = 0;
	}
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

int cst_remote_open(struct cst_inferior *inf, const char *program)
{
	struct stat st;
	if (stat(program, &st) < 0)
		return cst_inferior_unusable(inf, -CST_E_NOENT, "cannot read the program %s of the remote target", program);
	if (inf->kind == CST_INF_REMOTE && strcmp(inf->program, program) == 0 &&
	    inf->program_dev == st.st_dev && inf->program_ino == st.st_ino)
		return 0;
	cst_inferior_close(inf);
	GElf_Ehdr eh;
	uint64_t dyn;
	if (program_elf(program, &eh, &dyn) < 0)
		return cst_inferior_unusable(inf, -CST_E_NOENT, "%s: not an ELF file", program);
	if (eh.e_type != ET_EXEC)
		return cst_inferior_unusable(inf, -CST_E_NOENT,
			      "%s: a position-independent program on a remote target (its load address is unknown)",
			      program);
	inf->arch = cst_arch_find(eh.e_machine, eh.e_ident[EI_CLASS]);
	if (!inf->arch)
		return cst_inferior_unusable(inf, -CST_E_ARCH, "%s: an architecture corestack does not unwind", program);
	char err[256];
	if (cst_process_open_external(&inf->proc, inf->arch, err, sizeof err) < 0)
		return cst_inferior_unusable(inf, -CST_E_NOMEM, "%s", err);
	inf->kind = CST_INF_REMOTE;
	snprintf(inf->program, sizeof inf->program, "%s", program);
	inf->program_dev = st.st_dev;
	inf->program_ino = st.st_ino;
	return 0;
}

struct modlist {
	size_t n;
	char *paths[MAX_MODULES];
	uint64_t biases[MAX_MODULES];
};

static void modlist_free(struct modlist *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->paths[i]);
	m->n = 0;
}

static void modlist_add(struct modlist *m, const char *path, uint64_t bias)
{
	if (m->n < MAX_MODULES && (m->paths[m->n] = strdup(path)))
		m->biases[m->n++] = bias;
}

/* A NUL-terminated string of at most SIZE - 1 bytes at ADDR; false when unreadable. */
static bool read_string(const struct cst_target *t, uint64_t addr, char *buf, size_t size)
{
	for (size_t i = 0; i + 1 < size; i++) {
		if (cst_target_read(t, addr + i, &buf[i], 1) < 0)
			return false;
		if (!buf[i])
			return true;
	}
	buf[size - 1] = 0;
	return true;
}

/* The shared objects of the link map: struct r_debug and struct link_map (glibc <link.h>:
 * r_debug { int r_version; struct link_map *r_map; ... }, link_map { l_addr, l_name, l_ld,
 * l_next, l_prev }, each a pointer-sized word), found through the DT_DEBUG entry the
 * dynamic linker fills (System V gABI, "Dynamic Section").  The first entry, the program
 * itself, is skipped. */
static void read_link_map(const struct cst_target *t, unsigned w, uint64_t dynamic,
			  const char *sysroot, struct modlist *m)
{
	uint64_t r_debug = 0, tag, val;
	for (unsigned i = 0; dynamic && i < MAX_DYN; i++) {
		if (cst_target_read_word(t, dynamic + 2ull * w * i, w, &tag) < 0 ||
		    cst_target_read_word(t, dynamic + 2ull * w * i + w, w, &val) < 0 || tag == DT_NULL)
			break;
		if (tag == DT_DEBUG)
			r_debug = val;
	}
	uint64_t lm;
	if (!r_debug || cst_target_read_word(t, r_debug + w, w, &lm) < 0)
		return;
	for (unsigned i = 0; lm && i < MAX_MODULES; i++) {
		uint64_t addr, name, next;
		char file[4096], path[8192];
		if (cst_target_read_word(t, lm, w, &addr) < 0 ||
		    cst_target_read_word(t, lm + w, w, &name) < 0 ||
		    cst_target_read_word(t, lm + 3ull * w, w, &next) < 0)
			return;
		if (i > 0 && name && read_string(t, name, file, sizeof file) && file[0] == '/') {
			snprintf(path, sizeof path, "%s%s", sysroot, file);
			if (access(path, R_OK) == 0)
				modlist_add(m, path, addr);
		}
		lm = next;
	}
}

/* FNV-1a (64-bit) of the module list. */
static uint64_t modlist_hash(const struct modlist *m)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < m->n; i++) {
		for (const char *p = m->paths[i]; *p; p++)
			h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
		for (int k = 0; k < 8; k++)
			h = (h ^ ((m->biases[i] >> (8 * k)) & 0xff)) * 0x100000001b3ull;
	}
	return h;
}

/* What find_flushw looks for: the instruction word, in the target's byte order. */
struct flush_search {
	uint32_t word;
	bool big_endian;
	uint64_t found;          /* its address, 0 when not found yet */
};

/* The architecture's window flush instruction in the executable sections of one module. */
static int find_flushw(Dwfl_Module *mod, void **ud, const char *name, Dwarf_Addr start, void *arg)
{
	struct flush_search *fs = arg;
	uint64_t *found = &fs->found;
	Dwarf_Addr bias;
	Elf *e = dwfl_module_getelf(mod, &bias);
	Elf_Scn *scn = NULL;
	while (e && !*found && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		Elf_Data *d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf || sh.sh_addr % 4)
			continue;
		const unsigned char *p = d->d_buf;
		for (size_t off = 0; off + 4 <= d->d_size; off += 4) {
			uint32_t word = fs->big_endian ?
				(uint32_t)p[off] << 24 | p[off + 1] << 16 | p[off + 2] << 8 | p[off + 3] :
				(uint32_t)p[off + 3] << 24 | p[off + 2] << 16 | p[off + 1] << 8 | p[off];
			if (word == fs->word) {
				*found = sh.sh_addr + off + bias;
				break;
			}
		}
	}
	return *found ? DWARF_CB_ABORT : DWARF_CB_OK;
}

int cst_remote_modules(struct cst_inferior *inf, const struct cst_target *t, const char *sysroot)
{
	GElf_Ehdr eh;
	uint64_t dynamic = 0;
	struct modlist *m = calloc(1, sizeof *m);
	if (!m)
		return -CST_E_NOMEM;
	modlist_add(m, inf->program, 0);
	if (program_elf(inf->program, &eh, &dynamic) == 0)
		read_link_map(t, inf->arch->addr_size, dynamic, sysroot, m);
	uint64_t h = modlist_hash(m);
	int rc = 0;
	if (!cst_process_symbols(inf->proc) || h != inf->maps_hash) {
		char err[256];
		inf->maps_hash = 0;
		inf->flushw = 0;
		rc = cst_process_report_files(inf->proc, m->n, (const char *const *)m->paths, m->biases,
					      err, sizeof err);
		if (rc < 0) {
			snprintf(inf->why, sizeof inf->why, "%s", err);
		} else {
			inf->maps_hash = h;
			if (inf->arch->window_flush) {
				struct flush_search fs = { .word = inf->arch->window_flush,
							   .big_endian = inf->arch->big_endian };
				dwfl_getmodules(cst_symbols_dwfl(cst_process_symbols(inf->proc)), find_flushw,
						&fs, 0);
				inf->flushw = fs.found;
			}
		}
	}
	modlist_free(m);
	free(m);
	return rc;
}

/* Whether a core may be handed to libdwfl's walk of its link_map.  See linkmap_check.h. */
#include "linkmap_check.h"
#include "core.h"
#include "note_segment.h"
#include "target.h"
#include "util.h"

#include <elf.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAX_PHNUM 0xffff         /* e_phnum is an Elf32_Half / Elf64_Half */

/* Checks the program headers libdwfl would read for the auxiliary vector DESC (SIZE bytes)
 * taken as pairs of W-byte words in byte order BE. */
static bool check_auxv(struct cst_core *c, const uint8_t *desc, size_t size, unsigned w, bool be,
		       char *why, size_t len)
{
	uint64_t phdr = 0, phent = 0, phnum = 0;
	for (size_t off = 0; off + 2 * w <= size; off += 2 * w) {
		uint64_t type = cst_word(desc + off, w, be), val = cst_word(desc + off + w, w, be);
		if (type == AT_PHDR)
			phdr = val;
		else if (type == AT_PHENT)
			phent = val;
		else if (type == AT_PHNUM)
			phnum = val;
	}
	/* libdwfl reads the headers only when their size is the word size's */
	if (phdr == 0 || phnum == 0 || phent != (w == 8 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
		return true;
	if (phnum > MAX_PHNUM) {
		snprintf(why, len, "NT_AUXV's AT_PHNUM %" PRIu64 " is over 65535", phnum);
		return false;
	}
	struct cst_target *t = cst_core_target(c);
	uint64_t dyn_min = w == 8 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
	for (uint64_t i = 0; i < phnum; i++) {
		uint8_t ph[sizeof(Elf64_Phdr)];
		if (cst_target_read(t, phdr + i * phent, ph, (size_t)phent) < 0)
			return true;      /* then libdwfl cannot read them either */
		/* p_type at 0; p_filesz at 32 in an Elf64_Phdr, at 16 in an Elf32_Phdr */
		uint64_t type = cst_word(ph, 4, be), filesz = w == 8 ? cst_word(ph + 32, 8, be) : cst_word(ph + 16, 4, be);
		if (type == PT_DYNAMIC && filesz > 0 && filesz < dyn_min) {
			snprintf(why, len, "the program headers at NT_AUXV's AT_PHDR 0x%" PRIx64
				 " hold a PT_DYNAMIC of %" PRIu64 " bytes", phdr, filesz);
			return false;
		}
	}
	return true;
}

bool cst_linkmap_check(struct cst_core *c, char *why, size_t len)
{
	Elf *elf = cst_core_elf(c);
	size_t nph;
	if (!elf || elf_getphdrnum(elf, &nph) != 0)
		return true;
	for (size_t i = 0; i < nph; i++) {
		Elf_Data *d = cst_note_segment(elf, i);      /* as dwfl_core_file_report reads them */
		GElf_Nhdr nh;
		size_t pos = 0, name, desc;
		while (d && (pos = gelf_getnote(d, pos, &nh, &name, &desc)) > 0) {
			if (nh.n_type != NT_AUXV || nh.n_namesz != sizeof "CORE" ||
			    memcmp((const char *)d->d_buf + name, "CORE", sizeof "CORE") != 0)
				continue;
			const uint8_t *p = (const uint8_t *)d->d_buf + desc;
			for (unsigned w = 4; w <= 8; w += 4)
				for (int be = 0; be <= 1; be++)
					if (!check_auxv(c, p, nh.n_descsz, w, be, why, len))
						return false;
		}
	}
	return true;
}

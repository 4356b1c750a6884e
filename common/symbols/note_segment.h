/* The notes of one PT_NOTE segment of an ELF file, as libelf reads them. */
#ifndef CST_NOTE_SEGMENT_H
#define CST_NOTE_SEGMENT_H

#include <gelf.h>
#include <stddef.h>

/* The notes of program header I of ELF (elf_getdata_rawchunk, note headers in the host's
 * byte order: walk them with gelf_getnote), the 8-byte note layout when the segment is
 * 8-byte aligned (gABI, "Note Section"); NULL when header I is no PT_NOTE or libelf cannot
 * read it. */
static inline Elf_Data *cst_note_segment(Elf *elf, size_t i)
{
	GElf_Phdr ph;
	if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
		return NULL;
	return elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
				    ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
}

#endif

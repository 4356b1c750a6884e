/* The ELF package metadata note: which package a module came from.
 *
 * Distributions link a note into each program and library (systemd's "Package Metadata
 * for ELF Files", https://systemd.io/ELF_PACKAGE_METADATA/): owner "FDO", type 0xcafe1a7e
 * (NT_FDO_PACKAGING_METADATA), descriptor a NUL-terminated JSON object such as
 *     {"type":"deb","name":"coreutils","version":"9.1-1","architecture":"amd64","os":"debian"}
 * in a section usually named .note.package.  The names are not a closed list, so every
 * member with a scalar value is kept, in the order of the object. */
#ifndef CST_PACKAGE_NOTE_H
#define CST_PACKAGE_NOTE_H

#include <gelf.h>
#include <stddef.h>

#define CST_NT_FDO_PACKAGING_METADATA 0xcafe1a7e
#define CST_PACKAGE_NOTE_MAX_BYTES 65536   /* bigger descriptors are refused */
#define CST_PACKAGE_NOTE_MAX_KEYS  32      /* members kept at most */
#define CST_PACKAGE_NOTE_MAX_VALUE 256     /* bytes of a key or value kept at most */

struct cst_package_member {
	char *key, *value;       /* control characters replaced by '?'; cut at MAX_VALUE bytes */
};

struct cst_package_note {
	struct cst_package_member m[CST_PACKAGE_NOTE_MAX_KEYS];
	size_t n;
};

/* Parses descriptor DESC (LEN bytes, from the file: hostile) into *OUT, to be freed with
 * cst_package_note_free.  Members whose value is an object or array are skipped.  Returns
 * 0, or -CST_E_BAD_NOTE with a one-line reason in ERR (no NUL terminator, bigger than
 * CST_PACKAGE_NOTE_MAX_BYTES, not JSON, not a JSON object), or -CST_E_NOMEM. */
int cst_package_note_parse(const void *desc, size_t len, struct cst_package_note **out,
			   char *err, size_t errlen);

/* Finds and parses the package note of ELF file ELF: an SHT_NOTE section, else a PT_NOTE
 * segment, holding a note of owner "FDO" and type CST_NT_FDO_PACKAGING_METADATA.  Returns
 * 0 with *OUT set, 0 with *OUT NULL when the file has no such note, or a negative code
 * from cst_package_note_parse with a reason in ERR. */
int cst_package_note_find(Elf *elf, struct cst_package_note **out, char *err, size_t errlen);

/* Finds and parses the package note of the ELF image loaded at target address BASE, from
 * the target's memory (what systemd-coredump does: the kernel dumps the first page of each
 * mapped ELF file, where the linker puts the notes): the ELF header and program headers at
 * BASE, then the PT_NOTE segments within the first CST_PACKAGE_NOTE_IMAGE bytes that are
 * readable.  Returns as cst_package_note_find; 0 with *OUT NULL also when the image is not
 * readable or not ELF. */
struct cst_target;
#define CST_PACKAGE_NOTE_IMAGE (64u << 10)
int cst_package_note_from_memory(struct cst_target *t, uint64_t base, struct cst_package_note **out,
				 char *err, size_t errlen);

/* Value of member KEY, or NULL. */
const char *cst_package_note_get(const struct cst_package_note *p, const char *key);

void cst_package_note_free(struct cst_package_note *p);

#endif

/* ELF package metadata notes.  See package_note.h. */
#include "package_note.h"
#include "note_segment.h"
#include "error.h"
#include "target.h"

#include <json.h>
#include <stdlib.h>
#include <string.h>

static char *clean_copy(const char *s)
{
	size_t len = strnlen(s, CST_PACKAGE_NOTE_MAX_VALUE);
	char *c = malloc(len + 1);
	if (!c)
		return NULL;
	for (size_t i = 0; i < len; i++)
		c[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	c[len] = 0;
	return c;
}

int cst_package_note_parse(const void *desc, size_t len, struct cst_package_note **out,
			   char *err, size_t errlen)
{
	*out = NULL;
	if (len > CST_PACKAGE_NOTE_MAX_BYTES)
		return cst_fail(err, errlen, -CST_E_BAD_NOTE, "package note of %zu bytes (more than %d)", len,
				CST_PACKAGE_NOTE_MAX_BYTES);
	size_t slen = strnlen(desc, len);
	if (slen == len)
		return cst_fail(err, errlen, -CST_E_BAD_NOTE, "package note without its NUL terminator");
	struct json_tokener *tok = json_tokener_new_ex(8);
	if (!tok)
		return cst_fail(err, errlen, -CST_E_NOMEM, "out of memory");
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	struct json_object *obj = json_tokener_parse_ex(tok, desc, (int)slen);
	enum json_tokener_error jerr = json_tokener_get_error(tok);
	int rc = 0;
	if (!obj || jerr != json_tokener_success || json_tokener_get_parse_end(tok) != slen) {
		rc = cst_fail(err, errlen, -CST_E_BAD_NOTE, "package note is not valid JSON (%s)",
			      jerr == json_tokener_success ? "text after the value" :
			      jerr == json_tokener_continue ? "unexpected end of data" : json_tokener_error_desc(jerr));
		goto out;
	}
	if (!json_object_is_type(obj, json_type_object)) {
		rc = cst_fail(err, errlen, -CST_E_BAD_NOTE, "package note is JSON but not an object");
		goto out;
	}
	struct cst_package_note *p = calloc(1, sizeof *p);
	if (!p) {
		rc = cst_fail(err, errlen, -CST_E_NOMEM, "out of memory");
		goto out;
	}
	json_object_object_foreach(obj, key, val) {
		if (p->n == CST_PACKAGE_NOTE_MAX_KEYS)
			break;
		enum json_type t = json_object_get_type(val);
		if (t != json_type_string && t != json_type_int && t != json_type_double &&
		    t != json_type_boolean)
			continue;
		struct cst_package_member *m = &p->m[p->n];
		m->key = clean_copy(key);
		m->value = clean_copy(json_object_get_string(val));
		if (!m->key || !m->value) {
			free(m->key);
			free(m->value);
			cst_package_note_free(p);
			rc = cst_fail(err, errlen, -CST_E_NOMEM, "out of memory");
			goto out;
		}
		p->n++;
	}
	*out = p;
out:
	if (obj)
		json_object_put(obj);
	json_tokener_free(tok);
	return rc;
}

/* The FDO packaging note in note data D, or -1 when none: offset of its descriptor and its
 * size in *DESC and *DESCSZ. */
static int find_in_data(Elf *elf, Elf_Data *d, size_t *desc, size_t *descsz)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;
	while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == CST_NT_FDO_PACKAGING_METADATA && nh.n_namesz == 4 &&
		    memcmp((const char *)d->d_buf + name_off, "FDO", 4) == 0) {
			*desc = desc_off;
			*descsz = nh.n_descsz;
			return 0;
		}
		off = next;
	}
	return -1;
}

int cst_package_note_find(Elf *elf, struct cst_package_note **out, char *err, size_t errlen)
{
	*out = NULL;
	size_t desc, descsz;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (d && find_in_data(elf, d, &desc, &descsz) == 0)
			return cst_package_note_parse((const char *)d->d_buf + desc, descsz, out, err, errlen);
	}
	size_t nph;
	if (elf_getphdrnum(elf, &nph) < 0)
		return 0;
	for (size_t i = 0; i < nph; i++) {
		Elf_Data *d = cst_note_segment(elf, i);
		if (d && find_in_data(elf, d, &desc, &descsz) == 0)
			return cst_package_note_parse((const char *)d->d_buf + desc, descsz, out, err, errlen);
	}
	return 0;
}

/* Hides the section headers of the image IMG (LEN bytes) if it is ELF: they are not loaded,
 * the image has program headers only.  Returns false when it is not ELF. */
static bool image_headers(char *img, size_t len)
{
	if (len < sizeof(Elf64_Ehdr) || memcmp(img, ELFMAG, SELFMAG) != 0)
		return false;
	if (img[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
		eh->e_shoff = 0, eh->e_shnum = 0, eh->e_shstrndx = 0;
	} else if (img[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr *eh = (Elf32_Ehdr *)img;
		eh->e_shoff = 0, eh->e_shnum = 0, eh->e_shstrndx = 0;
	}
	return true;
}

/* The bytes of the image whose first LEN bytes are IMG that its PT_NOTE segments need
 * (cst_package_note_find reads a note at its p_offset in the image), at most MAX; MAX
 * when the program headers lie beyond LEN. */
static size_t notes_extent(char *img, size_t len, size_t max)
{
	Elf *elf = elf_memory(img, len);
	size_t n, need = len;
	if (!elf || elf_getphdrnum(elf, &n) < 0) {
		need = max;
		n = 0;
	}
	for (size_t i = 0; i < n && need < max; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph))
			need = max;
		else if (ph.p_type == PT_NOTE && (ph.p_offset > max || ph.p_filesz > max - ph.p_offset))
			need = max;
		else if (ph.p_type == PT_NOTE && ph.p_offset + ph.p_filesz > need)
			need = (size_t)(ph.p_offset + ph.p_filesz);
	}
	if (elf)
		elf_end(elf);
	return need;
}

/* Whether IMG (LEN bytes) holds the package note's owner name "FDO" with its NUL; memchr
 * runs over the mostly zero page faster than memmem. */
static bool has_owner(const char *img, size_t len)
{
	for (const char *p = img, *end = img + len; (p = memchr(p, 'F', (size_t)(end - p))) != NULL; p++)
		if (end - p >= 4 && memcmp(p, "FDO", 4) == 0)
			return true;
	return false;
}

int cst_package_note_from_memory(struct cst_target *t, uint64_t base, struct cst_package_note **out,
				 char *err, size_t errlen)
{
	*out = NULL;
	/* the first page, then only as many more as the notes reach: most images need no
	 * more, and then no buffer is allocated */
	char first[4096], *img = first;
	size_t len = cst_target_read(t, base, first, sizeof first) == 0 ? sizeof first : 0;
	bool is_elf = image_headers(first, len);
	size_t want = is_elf ? notes_extent(first, len, CST_PACKAGE_NOTE_IMAGE) : 0;
	if (want > len) {
		if (!(img = malloc(CST_PACKAGE_NOTE_IMAGE)))
			return cst_fail(err, errlen, -CST_E_NOMEM, "out of memory");
		memcpy(img, first, len);
	}
	while (len < want && cst_target_read(t, base + len, img + len, 4096) == 0)
		len += 4096;
	int rc = 0;
	/* the notes read lie in the image: without the owner's name anywhere in it, none is
	 * the package note (most images have none) */
	if (is_elf && want <= len && !has_owner(img, len))
		is_elf = false;
	if (is_elf) {
		Elf *elf = elf_memory(img, len);
		if (elf) {
			rc = cst_package_note_find(elf, out, err, errlen);
			elf_end(elf);
		}
	}
	if (img != first)
		free(img);
	return rc;
}

const char *cst_package_note_get(const struct cst_package_note *p, const char *key)
{
	for (size_t i = 0; p && i < p->n; i++)
		if (strcmp(p->m[i].key, key) == 0)
			return p->m[i].value;
	return NULL;
}

void cst_package_note_free(struct cst_package_note *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		free(p->m[i].key);
		free(p->m[i].value);
	}
	free(p);
}

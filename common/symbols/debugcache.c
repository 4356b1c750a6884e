/* The cache of decompressed separate debug files.  See debugcache.h. */
#include "debugcache.h"
#include "error.h"
#include "openfile.h"
#include "util.h"

#include <dirent.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_ID 64                /* bytes of a build-id we name entries after */
#define MAX_ENTRIES 100000       /* entries looked at when the directory is pruned */
#define STALE_TMP_SECONDS 3600   /* a temporary file this old was left by a killed writer */

static bool disabled;
static const char *chosen_dir;
/* cache_dir's answer, found once per process: a core's every module looks its debug file up */
static enum { DIR_UNKNOWN, DIR_USABLE, DIR_NONE } dir_state;
static char dir_found[PATH_MAX];

void cst_debugcache_disable(void)
{
	disabled = true;
}

/* The names in the cache directory, read once per process (and again after
 * cst_debugcache_set_dir) for cst_debugcache_has, sorted: a module per lookup would
 * otherwise cost a failed lstat each.  NULL when not read, or when the directory could not
 * be read whole (then each name is looked up). */
static char **listing;
static size_t nlisted;
static bool listing_tried;

static void free_listing(void)
{
	for (size_t i = 0; listing && i < nlisted; i++)
		free(listing[i]);
	free(listing);
	listing = NULL;
	nlisted = 0;
	listing_tried = false;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads the names in DIR into the listing; none on failure or beyond MAX_ENTRIES names. */
static void read_listing(const char *dir)
{
	listing_tried = true;
	DIR *d = opendir(dir);
	if (!d)
		return;
	size_t cap = 0;
	bool ok = true;
	struct dirent *de;
	while (ok && (de = readdir(d)) != NULL) {
		if (nlisted == cap) {
			char **t = nlisted < MAX_ENTRIES ? realloc(listing, (cap = cap ? 2 * cap : 64) * sizeof *t) : NULL;
			if (!t) {
				ok = false;
				break;
			}
			listing = t;
		}
		if (!(listing[nlisted] = strdup(de->d_name)))
			ok = false;
		else
			nlisted++;
	}
	closedir(d);
	if (!ok) {
		free_listing();
		listing_tried = true;
		return;
	}
	if (nlisted > 1)
		qsort(listing, nlisted, sizeof *listing, cmp_name);
}

int cst_debugcache_set_dir(const char *dir)
{
	if (dir[0] != '/')
		return -CST_E_INVAL;
	chosen_dir = dir;
	dir_state = DIR_UNKNOWN;
	free_listing();
	return 0;
}

/* The byte count in environment variable NAME, else DEF. */
static uint64_t env_size(const char *name, uint64_t def)
{
	const char *v = getenv(name);
	char *end;
	if (!v || !*v || *v == '-')
		return def;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	return errno || *end ? def : n;
}

/* Creates directory PATH (mode 0700) unless it exists. */
static bool make_dir(const char *path)
{
	return mkdir(path, 0700) == 0 || errno == EEXIST;
}

/* The cache directory, created when missing, in BUF (LEN bytes); false when there is none
 * we may use: not a directory, not owned by us, or writable by group or others (another
 * user could plant entries). */
static bool find_cache_dir(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;
	if (chosen_dir) {
		n = snprintf(buf, len, "%s", chosen_dir);
		if (n < 0 || (size_t)n >= len || !make_dir(buf))
			return false;
	} else {
		/* the specification asks to ignore a relative XDG_CACHE_HOME */
		if (xdg && xdg[0] == '/')
			n = snprintf(buf, len, "%s", xdg);
		else if (home && home[0] == '/')
			n = snprintf(buf, len, "%s/.cache", home);
		else
			return false;
		if (n < 0 || (size_t)n + sizeof "/corestack/debug" > len || !make_dir(buf))
			return false;
		strcat(buf, "/corestack");
		if (!make_dir(buf))
			return false;
		strcat(buf, "/debug");
		if (!make_dir(buf))
			return false;
	}
	struct stat st;
	return lstat(buf, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/* find_cache_dir, asked once per process (and again after cst_debugcache_set_dir). */
static bool cache_dir(char *buf, size_t len)
{
	if (dir_state == DIR_UNKNOWN)
		dir_state = find_cache_dir(dir_found, sizeof dir_found) ? DIR_USABLE : DIR_NONE;
	if (dir_state == DIR_NONE || strlen(dir_found) >= len)
		return false;
	strcpy(buf, dir_found);
	return true;
}

/* Whether E's GNU build-id note (dwelf_elf_gnu_build_id) is ID, IDLEN bytes. */
static bool same_build_id(Elf *e, const uint8_t *id, size_t idlen)
{
	const void *got;
	ssize_t n = dwelf_elf_gnu_build_id(e, &got);
	return n > 0 && (size_t)n == idlen && memcmp(got, id, idlen) == 0;
}

/* Whether E has sections, and every section header and every section with file content
 * lies inside the file's SIZE bytes, and (when NONE_COMPRESSED) no section has SHF_COMPRESSED. */
static bool sections_inside(Elf *e, uint64_t size, bool none_compressed)
{
	GElf_Ehdr eh;
	size_t shnum;
	/* libelf takes a file whose section header table does not fit as one without sections */
	if (!gelf_getehdr(e, &eh) || elf_getshdrnum(e, &shnum) < 0 || shnum < 2 ||
	    (eh.e_shnum != 0 && eh.e_shnum != shnum) || eh.e_shoff > size ||
	    (size - eh.e_shoff) / (eh.e_shentsize ? eh.e_shentsize : 1) < shnum)
		return false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn)) != NULL;) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			return false;
		if (none_compressed && (sh.sh_flags & SHF_COMPRESSED))
			return false;
		if (sh.sh_type != SHT_NOBITS && (sh.sh_offset > size || size - sh.sh_offset < sh.sh_size))
			return false;
	}
	return true;
}

/* Whether the file open on FD (ST its status) is a usable entry for build-id ID. */
static bool entry_valid(int fd, const struct stat *st, const uint8_t *id, size_t idlen)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	bool ok = e && elf_kind(e) == ELF_K_ELF && sections_inside(e, (uint64_t)st->st_size, true) &&
		  same_build_id(e, id, idlen);
	elf_end(e);
	return ok;
}

/* The bytes E would have with its compressed sections decompressed (ch_size of each
 * SHF_COMPRESSED section's Elf32_Chdr / Elf64_Chdr, gABI "Compressed Sections"), with
 * *NCOMP the number of compressed sections; UINT64_MAX when a header cannot be read. */
static uint64_t decompressed_size(Elf *e, size_t *ncomp)
{
	GElf_Ehdr eh;
	*ncomp = 0;
	if (!gelf_getehdr(e, &eh))
		return UINT64_MAX;
	uint64_t total = eh.e_ehsize + (uint64_t)eh.e_phnum * eh.e_phentsize;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn)) != NULL;) {
		GElf_Shdr sh;
		GElf_Chdr ch;
		uint64_t n;
		if (!gelf_getshdr(scn, &sh))
			return UINT64_MAX;
		if (sh.sh_flags & SHF_COMPRESSED) {
			if (!gelf_getchdr(scn, &ch))
				return UINT64_MAX;
			n = ch.ch_size;
			++*ncomp;
		} else {
			n = sh.sh_type == SHT_NOBITS ? 0 : sh.sh_size;
		}
		total += (uint64_t)eh.e_shentsize + 64;   /* the header, plus alignment at most */
		if (n > UINT64_MAX - total)
			return UINT64_MAX;
		total += n;
	}
	return total;
}

struct placed { size_t index; uint64_t old_offset; };

static int by_old_offset(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;
	if (x->old_offset != y->old_offset)
		return x->old_offset < y->old_offset ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* Writes SRC (opened ELF_C_READ_MMAP_PRIVATE: its sections are decompressed in place) to
 * OUT with every SHF_COMPRESSED section decompressed by libelf's elf_compress.  The layout
 * is our own (ELF_F_LAYOUT): the ELF header, the program headers and every section before
 * the first compressed one keep their offsets, so the program headers stay true (in a debug
 * file they describe the stripped image: PT_NOTE still covers the notes); the sections from
 * there on follow one another at their alignment, then the section header table.  Returns
 * false on any failure. */
static bool write_decompressed(Elf *src, int out)
{
	GElf_Ehdr eh;
	size_t shnum, phnum;
	if (!gelf_getehdr(src, &eh) || elf_getshdrnum(src, &shnum) < 0 || elf_getphdrnum(src, &phnum) < 0 ||
	    shnum < 2 || shnum >= SHN_LORESERVE)
		return false;
	struct placed *moved = calloc(shnum, sizeof *moved);
	uint64_t *offset = calloc(shnum, sizeof *offset);
	bool *was_compressed = calloc(shnum, sizeof *was_compressed);
	Elf *dst = NULL;
	bool ok = false;
	if (!moved || !offset || !was_compressed)
		goto out;

	/* where the compressed part begins */
	uint64_t cut = UINT64_MAX;
	for (size_t i = 1; i < shnum; i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(src, i);
		if (!scn || !gelf_getshdr(scn, &sh))
			goto out;
		offset[i] = sh.sh_offset;
		was_compressed[i] = sh.sh_flags & SHF_COMPRESSED;
		if (was_compressed[i] && sh.sh_offset < cut)
			cut = sh.sh_offset;
	}
	uint64_t phend = eh.e_phoff + (uint64_t)phnum * eh.e_phentsize;
	if (cut == UINT64_MAX || (phnum && phend > cut) || eh.e_ehsize > cut)
		goto out;

	/* sections before the cut stay; the others are placed after them in file order */
	uint64_t pos = phnum ? phend : eh.e_ehsize;
	size_t nmoved = 0;
	for (size_t i = 1; i < shnum; i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(src, i);
		if (!gelf_getshdr(scn, &sh))
			goto out;
		if (sh.sh_offset >= cut) {
			moved[nmoved++] = (struct placed){ i, sh.sh_offset };
			if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
				goto out;
		} else if (sh.sh_type != SHT_NOBITS && sh.sh_offset + sh.sh_size > pos) {
			pos = sh.sh_offset + sh.sh_size;
		}
	}
	qsort(moved, nmoved, sizeof *moved, by_old_offset);
	for (size_t k = 0; k < nmoved; k++) {
		GElf_Shdr sh;
		if (!gelf_getshdr(elf_getscn(src, moved[k].index), &sh))
			goto out;
		pos = align_up(pos, sh.sh_addralign);
		offset[moved[k].index] = pos;
		if (sh.sh_type != SHT_NOBITS)
			pos += sh.sh_size;
	}

	dst = elf_begin(out, ELF_C_WRITE, NULL);
	if (!dst || !gelf_newehdr(dst, gelf_getclass(src)) || (phnum && !gelf_newphdr(dst, phnum)))
		goto out;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(src, (int)i, &ph) || !gelf_update_phdr(dst, (int)i, &ph))
			goto out;
	}
	for (size_t i = 1; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(src, i), *nscn = elf_newscn(dst);
		GElf_Shdr sh;
		if (!nscn || !gelf_getshdr(scn, &sh))
			goto out;
		sh.sh_offset = offset[i];
		if (!gelf_update_shdr(nscn, &sh))
			goto out;
		if (sh.sh_type == SHT_NOBITS || sh.sh_size == 0)
			continue;
		/* a decompressed section holds its data in memory form, the others are copied
		 * as the file has them */
		Elf_Data *d = was_compressed[i] ? elf_getdata(scn, NULL) : elf_rawdata(scn, NULL);
		Elf_Data *nd = elf_newdata(nscn);
		if (!d || !nd || d->d_size != sh.sh_size)
			goto out;
		nd->d_buf = d->d_buf;
		nd->d_size = d->d_size;
		nd->d_type = d->d_type;
		nd->d_align = d->d_align;
		nd->d_off = 0;
		nd->d_version = EV_CURRENT;
	}
	eh.e_shoff = align_up(pos, 8);
	if (!gelf_update_ehdr(dst, &eh))
		goto out;
	elf_flagelf(dst, ELF_C_SET, ELF_F_LAYOUT);
	ok = elf_update(dst, ELF_C_WRITE) >= 0;
out:
	elf_end(dst);
	free(moved);
	free(offset);
	free(was_compressed);
	return ok;
}

struct entry { char name[2 * MAX_ID + sizeof ".debug"]; time_t mtime; uint64_t size; };

static int by_mtime(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

/* Deletes the least recently used entries of DIR (never KEEP) until the entries total at
 * most MAX bytes, and temporary files left by killed writers. */
static void prune(const char *dir, const char *keep, uint64_t max)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct entry *e = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	time_t now = time(NULL);
	struct dirent *de;
	while ((de = readdir(d)) != NULL && n < MAX_ENTRIES) {
		struct stat st;
		size_t len = strlen(de->d_name);
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (strncmp(de->d_name, ".tmp-", 5) == 0) {
			if (now - st.st_mtime > STALE_TMP_SECONDS)
				unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		if (len < sizeof ".debug" || len >= sizeof e->name || strcmp(de->d_name + len - 6, ".debug") != 0)
			continue;
		if (n == cap) {
			struct entry *t = realloc(e, (cap = cap ? 2 * cap : 64) * sizeof *e);
			if (!t)
				break;
			e = t;
		}
		memcpy(e[n].name, de->d_name, len + 1);
		e[n].mtime = st.st_mtime;
		e[n].size = (uint64_t)st.st_size;
		total += e[n].size;
		n++;
	}
	if (total > max) {
		qsort(e, n, sizeof *e, by_mtime);
		for (size_t i = 0; i < n && total > max; i++) {
			if (strcmp(e[i].name, keep) == 0)
				continue;
			if (unlinkat(dirfd(d), e[i].name, 0) == 0)
				total -= e[i].size;
		}
	}
	free(e);
	closedir(d);
}

/* Writes the entry DIR/NAME for build-id ID from SRC.  Returns a descriptor of the new entry, or -1. */
static int build_entry(Elf *src, const char *dir, const char *name, const uint8_t *id, size_t idlen)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	if (snprintf(tmp, sizeof tmp, "%s/.tmp-%s-XXXXXX", dir, name) >= (int)sizeof tmp ||
	    snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
		return -1;
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (!write_decompressed(src, fd) || fstat(fd, &st) < 0 || !entry_valid(fd, &st, id, idlen) ||
	    rename(tmp, path) < 0) {
		unlink(tmp);
		close(fd);
		return -1;
	}
	return fd;
}

/* Whether the cache is on: not turned off, and ID names an entry. */
static bool usable(size_t idlen)
{
	const char *env = getenv("CORESTACK_DEBUG_CACHE");
	return !disabled && !(env && strcmp(env, "0") == 0) && idlen > 0 && idlen <= MAX_ID;
}

/* The entry name for ID: lowercase hex, then ".debug", in NAME. */
static void entry_name(const uint8_t *id, size_t idlen, char name[2 * MAX_ID + sizeof ".debug"])
{
	strcpy(cst_hex(id, idlen, name) + 2 * idlen, ".debug");
}

/* The path of the entry for ID in ENTRY; false when the cache is off or has no directory. */
static bool entry_path(const uint8_t *id, size_t idlen, char entry[PATH_MAX + 2 * MAX_ID + sizeof ".debug"])
{
	char dir[PATH_MAX], name[2 * MAX_ID + sizeof ".debug"];
	if (!usable(idlen) || !cache_dir(dir, sizeof dir))
		return false;
	entry_name(id, idlen, name);
	snprintf(entry, PATH_MAX + sizeof name, "%s/%s", dir, name);
	return true;
}

int cst_debugcache_open(const uint8_t *id, size_t idlen, char **path)
{
	char entry[PATH_MAX + 2 * MAX_ID + sizeof ".debug"], err[128];
	struct stat st;
	if (!entry_path(id, idlen, entry))
		return -1;
	elf_version(EV_CURRENT);
	int fd = cst_open_regular(entry, O_NOFOLLOW, &st, err, sizeof err);
	if (fd < 0)
		return -1;
	char *p = entry_valid(fd, &st, id, idlen) ? strdup(entry) : NULL;
	if (!p) {
		close(fd);
		return -1;
	}
	futimens(fd, NULL);      /* the mtime orders the entries for pruning */
	*path = p;
	return fd;
}

bool cst_debugcache_has(const uint8_t *id, size_t idlen)
{
	char dir[PATH_MAX], name[2 * MAX_ID + sizeof ".debug"], entry[PATH_MAX + sizeof name];
	if (!usable(idlen) || !cache_dir(dir, sizeof dir))
		return false;
	entry_name(id, idlen, name);
	if (!listing_tried)
		read_listing(dir);
	if (listing) {
		const char *key = name;
		return bsearch(&key, listing, nlisted, sizeof *listing, cmp_name) != NULL;
	}
	struct stat st;
	snprintf(entry, sizeof entry, "%s/%s", dir, name);
	return lstat(entry, &st) == 0;
}

/* Whether E has a section named NAME. */
static bool has_section(Elf *e, const char *name)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx) < 0)
		return false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn)) != NULL;) {
		GElf_Shdr sh;
		const char *n;
		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(e, shstrndx, sh.sh_name)) && strcmp(n, name) == 0)
			return true;
	}
	return false;
}

void cst_debugcache_store(const uint8_t *id, size_t idlen, int fd)
{
	char dir[PATH_MAX], name[2 * MAX_ID + sizeof ".debug"];
	struct stat st;
	size_t ncomp;
	uint64_t size;
	uint64_t file_max = env_size("CORESTACK_DEBUG_CACHE_FILE_MAX", CST_DEBUGCACHE_FILE_MAX);
	uint64_t total_max = env_size("CORESTACK_DEBUG_CACHE_TOTAL_MAX", CST_DEBUGCACHE_TOTAL_MAX);
	if (!usable(idlen) || fd < 0)
		return;
	elf_version(EV_CURRENT);
	Elf *src = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	/* only a debug file with compressed sections and the module's own build-id; not one
	 * that refers to a dwz alternate file (.gnu_debugaltlink, found relative to the debug
	 * file's directory) */
	if (src && elf_kind(src) == ELF_K_ELF && fstat(fd, &st) == 0 &&
	    sections_inside(src, (uint64_t)st.st_size, false) &&
	    (size = decompressed_size(src, &ncomp)) <= file_max && size <= total_max && ncomp > 0 &&
	    same_build_id(src, id, idlen) && !has_section(src, ".gnu_debugaltlink") &&
	    cache_dir(dir, sizeof dir)) {
		entry_name(id, idlen, name);
		int nfd = build_entry(src, dir, name, id, idlen);
		if (nfd >= 0) {
			close(nfd);
			prune(dir, name, total_max);
		}
	}
	elf_end(src);
}

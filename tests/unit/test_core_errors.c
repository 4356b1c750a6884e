/* The core reader (common/target/core.c): each error cst_core_open returns, with its code
 * and its message, for a tiny file written here; the warnings of a core that still opens
 * (an impossible program header, a cut segment, a short NT_PRSTATUS); and a valid core's
 * thread and memory; the bounds on NT_AUXV and NT_FILE; the order of threads and segments.
 * Usage: test_core_errors [DIR] (where the files go; default /tmp). */
#include "core.h"
#include "error.h"
#include "unit.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[4096];

/* ---- building files -------------------------------------------------------------- */

struct img {
	uint8_t b[8192];
	size_t len;
};

static size_t put(struct img *m, const void *p, size_t n)
{
	size_t at = m->len;
	memcpy(m->b + at, p, n);
	m->len += n;
	return at;
}

static void pad4(struct img *m)
{
	while (m->len % 4)
		m->b[m->len++] = 0;
}

/* An ELF64 header of TYPE and MACHINE, little-endian, with NPH program headers after it. */
static Elf64_Ehdr ehdr(int type, int machine, int nph)
{
	Elf64_Ehdr e = { 0 };
	memcpy(e.e_ident, ELFMAG, SELFMAG);
	e.e_ident[EI_CLASS] = ELFCLASS64;
	e.e_ident[EI_DATA] = ELFDATA2LSB;
	e.e_ident[EI_VERSION] = EV_CURRENT;
	e.e_type = (Elf64_Half)type;
	e.e_machine = (Elf64_Half)machine;
	e.e_version = EV_CURRENT;
	e.e_phoff = nph ? sizeof e : 0;
	e.e_ehsize = sizeof e;
	e.e_phentsize = sizeof(Elf64_Phdr);
	e.e_phnum = (Elf64_Half)nph;
	return e;
}

/* Appends a "CORE" note of TYPE with DESC (LEN bytes). */
static void note(struct img *m, int type, const void *desc, size_t len)
{
	Elf64_Nhdr nh = { .n_namesz = 5, .n_descsz = (Elf64_Word)len, .n_type = (Elf64_Word)type };
	put(m, &nh, sizeof nh);
	put(m, "CORE", 5);
	pad4(m);
	put(m, desc, len);
	pad4(m);
}

#define TID 4242
#define RIP_AT 0x401234ull
#define LOAD_VADDR 0x10000ull

/* Reads the 8-byte word at ADDR of TG and expects it to be WANT (WHAT names it). */
static bool expect_word(struct cst_target *tg, uint64_t addr, uint64_t want, const char *what)
{
	uint64_t w = 0;
	return unit_expect(cst_target_read_word(tg, addr, 8, &w) == 0 && w == want, "%s: 0x%llx", what,
			   (unsigned long long)w);
}

/* struct elf_prstatus of x86-64 (336 bytes): pr_cursig at 12, pr_pid at 32, pr_reg at 112
 * (user_regs_struct: rip is word 16, rsp word 19). */
static void prstatus(uint8_t d[336], int sig)
{
	memset(d, 0, 336);
	uint16_t s = (uint16_t)sig;
	int32_t pid = TID;
	uint64_t rip = RIP_AT, rsp = LOAD_VADDR + 0x100;
	memcpy(d + 12, &s, 2);
	memcpy(d + 32, &pid, 4);
	memcpy(d + 112 + 16 * 8, &rip, 8);
	memcpy(d + 112 + 19 * 8, &rsp, 8);
}

/* A core: a PT_NOTE with NOTE_TYPE (its descriptor NOTE_LEN bytes of an NT_PRSTATUS) and
 * NLOADS PT_LOAD segments of 0x100 bytes each (the bytes' values are their offset in the
 * segment); LOAD_FILESZ, when not 0, is what the first one claims in the file. */
static void core(struct img *m, int note_type, size_t note_len, int nloads, uint64_t load_filesz)
{
	int nph = 1 + nloads;
	Elf64_Ehdr e = ehdr(ET_CORE, EM_X86_64, nph);
	m->len = 0;
	put(m, &e, sizeof e);
	Elf64_Phdr ph[4] = { 0 };
	size_t ph_at = put(m, ph, (size_t)nph * sizeof ph[0]);
	size_t note_at = m->len;
	uint8_t d[336];
	prstatus(d, 11);
	note(m, note_type, d, note_len);
	ph[0] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_offset = note_at, .p_filesz = m->len - note_at };
	for (int i = 0; i < nloads; i++) {
		while (m->len % 16)
			m->b[m->len++] = 0;
		size_t at = m->len;
		for (int k = 0; k < 0x100; k++)
			m->b[m->len++] = (uint8_t)k;
		ph[1 + i] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_offset = at, .p_flags = PF_R | PF_W,
					  .p_vaddr = LOAD_VADDR + 0x1000ull * (uint64_t)i,
					  .p_filesz = 0x100, .p_memsz = 0x100 };
	}
	if (nloads && load_filesz)
		ph[1].p_filesz = ph[1].p_memsz = load_filesz;
	memcpy(m->b + ph_at, ph, (size_t)nph * sizeof ph[0]);
}

static const char *write_file(const char *name, const void *p, size_t n)
{
	static char path[4200];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		printf("FAIL core_%s: cannot write %s\n", name, path);
		exit(1);
	}
	return path;
}

/* ---- checks ---------------------------------------------------------------------- */

/* The glue: opens PATH and returns the code; the message goes into ERR. */
static int open_core(const char *path, struct cst_core **c, char *err, size_t errlen)
{
	err[0] = 0;
	return cst_core_open(path, NULL, c, err, errlen);
}

/* cst_core_open of PATH (case NAME) fails with CODE and a message containing WANT. */
static void expect_error_at(const char *name, const char *path, int code, const char *want)
{
	struct cst_core *c = NULL;
	char err[256];
	unit_begin("core_error_%s", name);
	int rc = open_core(path, &c, err, sizeof err);
	unit_expect(rc == code, "returned %d (%s), want %d (%s); message \"%s\"", rc, cst_strerror(rc),
		    code, cst_strerror(code), err);
	unit_expect(strstr(err, want) != NULL, "message \"%s\" lacks \"%s\"", err, want);
	unit_expect(strchr(err, '\n') == NULL, "message \"%s\" is not one line", err);
	unit_expect(c == NULL, "a core handed out with an error");
	unit_end();
	if (c)
		cst_core_close(c);
}

/* The same for a file NAME holding BYTES (LEN bytes), removed afterwards. */
static void expect_error(const char *name, const void *bytes, size_t len, int code, const char *want)
{
	const char *path = write_file(name, bytes, len);
	expect_error_at(name, path, code, want);
	unlink(path);
}

/* Opens core M as NAME; it must open.  Returns the core (NULL, with the case failed). */
static struct cst_core *expect_open(const char *name, const struct img *m)
{
	const char *path = write_file(name, m->b, m->len);
	struct cst_core *c = NULL;
	char err[256];
	int rc = open_core(path, &c, err, sizeof err);
	unlink(path);
	unit_expect(rc == 0 && c, "cst_core_open returned %d: %s", rc, err);
	return rc == 0 ? c : NULL;
}

static bool has_warning(const struct cst_core *c, const char *want)
{
	for (size_t i = 0; i < cst_core_nwarnings(c); i++)
		if (strstr(cst_core_warning(c, i), want))
			return true;
	return false;
}

static void errors(void)
{
	expect_error_at("missing", "/nonexistent/corestack-unit.core", -CST_E_NOENT, "No such file");
	expect_error_at("directory", dir, -CST_E_IO, "not a regular file");
	expect_error("empty", "", 0, -CST_E_NOT_ELF, "not an ELF file (0 bytes)");
	char text[100];
	memset(text, 'x', sizeof text);
	expect_error("text", text, sizeof text, -CST_E_NOT_ELF, "not an ELF file");

	Elf64_Ehdr e = ehdr(ET_CORE, EM_X86_64, 0);
	expect_error("cut_header", &e, 40, -CST_E_TRUNCATED, "shorter than the ELF header (64 bytes)");
	e = ehdr(ET_EXEC, EM_X86_64, 0);
	expect_error("executable", &e, sizeof e, -CST_E_NOT_CORE, "an ELF executable, not a core file");
	e = ehdr(ET_DYN, EM_X86_64, 0);
	expect_error("shared_object", &e, sizeof e, -CST_E_NOT_CORE, "shared object or PIE executable");
	e = ehdr(ET_REL, EM_X86_64, 0);
	expect_error("object_file", &e, sizeof e, -CST_E_NOT_CORE, "an ELF object file, not a core file");
	e = ehdr(ET_CORE, 0x1234, 0);
	expect_error("unknown_machine", &e, sizeof e, -CST_E_ARCH,
		     "unsupported architecture (e_machine 4660, 64-bit)");

	/* x86-64 written big-endian: every field in the other byte order */
	uint8_t be[sizeof e];
	e = ehdr(ET_CORE, EM_X86_64, 0);
	memcpy(be, &e, sizeof e);
	be[EI_DATA] = ELFDATA2MSB;
	for (size_t off = EI_NIDENT; off + 1 < sizeof be;) {
		/* e_type, e_machine (2 bytes), e_version (4), e_entry, e_phoff, e_shoff (8),
		 * e_flags (4), then six 2-byte fields */
		size_t w = off < 20 ? 2 : off < 24 ? 4 : off < 48 ? 8 : off < 52 ? 4 : 2;
		for (size_t i = 0; i < w / 2; i++) {
			uint8_t t = be[off + i];
			be[off + i] = be[off + w - 1 - i];
			be[off + w - 1 - i] = t;
		}
		off += w;
	}
	expect_error("byte_order", be, sizeof be, -CST_E_CLASS, "byte order does not match e_machine 62");

	struct img m;
	core(&m, NT_PRSTATUS, 336, 1, 0);
	Elf64_Ehdr *h = (Elf64_Ehdr *)m.b;
	h->e_phoff = 1 << 20;
	/* libelf refuses them first ("unreadable"), or the reader ("lie beyond the end") */
	expect_error("phdrs_beyond_end", m.b, m.len, -CST_E_TRUNCATED, "program headers");

	core(&m, NT_PRPSINFO, 136, 1, 0);
	expect_error("no_prstatus", m.b, m.len, -CST_E_NO_THREADS,
		     "no usable NT_PRSTATUS note: no threads to unwind");
	core(&m, NT_PRSTATUS, 100, 1, 0);
	expect_error("short_prstatus", m.b, m.len, -CST_E_NO_THREADS, "(the notes are damaged)");
}

static void usable(void)
{
	struct img m;
	unit_begin("core_valid");
	core(&m, NT_PRSTATUS, 336, 2, 0);
	struct cst_core *c = expect_open("valid", &m);
	if (c) {
		EXPECT_EQ(cst_core_nthreads(c), 1, "threads");
		const struct cst_core_thread *t = cst_core_thread(c, 0);
		EXPECT_EQ(t->tid, TID, "tid");
		EXPECT_EQ(t->cursig, 11, "cursig");
		uint64_t rip = 0, w = 0;
		unit_expect(cst_reg_get(&t->regs, 16, &rip) && rip == RIP_AT, "rip 0x%llx",
			    (unsigned long long)rip);
		struct cst_target *tg = cst_core_target(c);
		expect_word(tg, LOAD_VADDR + 0x1000 + 8, 0x0f0e0d0c0b0a0908ull, "word in the second PT_LOAD");
		int rc = cst_target_read_word(tg, LOAD_VADDR + 0xfc, 8, &w);
		EXPECT_EQ(rc, -CST_E_MEMORY, "read across a segment's end");
		rc = cst_target_read_word(tg, 0x500000, 8, &w);
		EXPECT_EQ(rc, -CST_E_MEMORY, "read outside every segment");
		EXPECT_EQ(cst_core_nwarnings(c), 0, "warnings");
		cst_core_close(c);
	}
	unit_end();

	/* The first PT_LOAD claims bytes that run into the second's: it is named. */
	unit_begin("core_warning_impossible_phdr");
	core(&m, NT_PRSTATUS, 336, 2, 0x200);
	c = expect_open("impossible", &m);
	if (c) {
		unit_expect(has_warning(c, "program header 1 (PT_LOAD at 0x10000) is impossible"),
			    "no impossible-program-header warning (%zu warnings)", cst_core_nwarnings(c));
		/* its memory is left out, as the warning says; the next segment's is not */
		struct cst_target *tg = cst_core_target(c);
		uint64_t w = 0;
		int rc = cst_target_read_word(tg, LOAD_VADDR + 8, 8, &w);
		EXPECT_EQ(rc, -CST_E_MEMORY, "read in the impossible segment");
		rc = cst_target_read_word(tg, LOAD_VADDR + 0x1f8, 8, &w);
		EXPECT_EQ(rc, -CST_E_MEMORY, "read in the impossible segment's claimed tail");
		expect_word(tg, LOAD_VADDR + 0x1000 + 8, 0x0f0e0d0c0b0a0908ull, "word in the second PT_LOAD");
		cst_core_close(c);
	}
	unit_end();

	/* The last PT_LOAD claims more bytes than the file has: a cut core. */
	unit_begin("core_warning_truncated");
	core(&m, NT_PRSTATUS, 336, 1, 0x1000);
	c = expect_open("truncated", &m);
	if (c) {
		unit_expect(has_warning(c, "file is truncated: it has"),
			    "no truncation warning (%zu warnings)", cst_core_nwarnings(c));
		cst_core_close(c);
	}
	unit_end();

	/* Another thread's NT_PRSTATUS too short to hold the registers is skipped with a warning. */
	unit_begin("core_warning_short_prstatus");
	core(&m, NT_PRSTATUS, 336, 1, 0);
	uint8_t d[336];
	prstatus(d, 0);
	Elf64_Phdr *ph = (Elf64_Phdr *)(m.b + sizeof(Elf64_Ehdr));
	/* a second note at the end of the file, and the PT_NOTE moved there with both */
	size_t start = m.len;
	put(&m, m.b + ph[0].p_offset, ph[0].p_filesz);
	note(&m, NT_PRSTATUS, d, 200);
	ph[0].p_offset = start;
	ph[0].p_filesz = m.len - start;
	c = expect_open("short_thread", &m);
	if (c) {
		EXPECT_EQ(cst_core_nthreads(c), 1, "threads");
		unit_expect(has_warning(c, "NT_PRSTATUS of 200 bytes is too short"),
			    "no short-note warning (%zu warnings)", cst_core_nwarnings(c));
		cst_core_close(c);
	}
	unit_end();
}

/* NT_AUXV of 1 MiB (AT_ENTRY, then zeros) and NT_FILE of 200 MiB, in a sparse file: the
 * first 64 KiB of NT_AUXV are read, NT_FILE is over its bound and ignored, both said. */
static void bounds(void)
{
	struct img m;
	unit_begin("core_note_bounds");
	core(&m, NT_PRSTATUS, 336, 0, 0);
	Elf64_Phdr *ph = (Elf64_Phdr *)(m.b + sizeof(Elf64_Ehdr));
	const uint32_t auxv_len = 1u << 20, file_len = 200u << 20;
	uint64_t auxv_at = m.len, file_at = auxv_at + 20 + auxv_len, end = file_at + 20 + file_len;
	ph[0].p_filesz = end - ph[0].p_offset;
	const char *path = write_file("bounds", m.b, m.len);
	Elf64_Nhdr nh = { .n_namesz = 5, .n_descsz = auxv_len, .n_type = NT_AUXV };
	uint64_t entry[2] = { AT_ENTRY, RIP_AT };
	int fd = open(path, O_WRONLY);
	bool ok = fd >= 0 && pwrite(fd, &nh, sizeof nh, (off_t)auxv_at) == sizeof nh &&
		  pwrite(fd, "CORE\0\0\0", 8, (off_t)auxv_at + 12) == 8 &&
		  pwrite(fd, entry, sizeof entry, (off_t)auxv_at + 20) == sizeof entry;
	nh = (Elf64_Nhdr){ .n_namesz = 5, .n_descsz = file_len, .n_type = NT_FILE };
	ok = ok && pwrite(fd, &nh, sizeof nh, (off_t)file_at) == sizeof nh &&
	     pwrite(fd, "CORE\0\0\0", 8, (off_t)file_at + 12) == 8 && ftruncate(fd, (off_t)end) == 0;
	if (fd >= 0)
		close(fd);
	unit_expect(ok, "cannot write %s", path);
	struct cst_core *c = NULL;
	char err[256];
	int rc = ok ? open_core(path, &c, err, sizeof err) : -1;
	unlink(path);
	unit_expect(rc == 0 && c, "cst_core_open returned %d: %s", rc, err);
	if (c) {
		uint64_t v = 0;
		unit_expect(cst_core_auxv(c, AT_ENTRY, &v) && v == RIP_AT, "AT_ENTRY 0x%llx", (unsigned long long)v);
		unit_expect(has_warning(c, "NT_AUXV has 1048576 bytes; only its first 65536 are read"),
			    "no NT_AUXV bound warning (%zu warnings)", cst_core_nwarnings(c));
		unit_expect(has_warning(c, "NT_FILE has 209715200 bytes, more than the 128 MiB bound"),
			    "no NT_FILE bound warning (%zu warnings)", cst_core_nwarnings(c));
		EXPECT_EQ(cst_core_nmappings(c), 0, "mappings");
		EXPECT_EQ(cst_core_nthreads(c), 1, "threads");
		cst_core_close(c);
	}
	unit_end();
}

/* Two PT_LOADs whose target ranges overlap: the first 4 KiB at LOAD_VADDR (bytes 0x11, at
 * file offset 0x800, so that its second half lies in the core's second 4 KiB block), the
 * second 2 KiB at LOAD_VADDR + 0x100 (bytes 0x22).  Where both have bytes the later one's
 * are read, whatever was read before: also after a read past the second's end, from the
 * first's second block. */
static void overlapping(void)
{
	struct img m;
	unit_begin("core_overlapping_loads");
	core(&m, NT_PRSTATUS, 336, 0, 0);
	Elf64_Ehdr *e = (Elf64_Ehdr *)m.b;
	e->e_phnum = 3;
	Elf64_Phdr ph[3];
	memcpy(&ph[0], m.b + sizeof *e, sizeof ph[0]);
	size_t note_at = (size_t)ph[0].p_offset, note_len = (size_t)ph[0].p_filesz;
	/* the note moves past the three program headers */
	memmove(m.b + sizeof *e + sizeof ph, m.b + note_at, note_len);
	ph[0].p_offset = sizeof *e + sizeof ph;
	ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_offset = 0x800, .p_flags = PF_R | PF_W,
			      .p_vaddr = LOAD_VADDR, .p_filesz = 0x1000, .p_memsz = 0x1000 };
	ph[2] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_offset = 0x1800, .p_flags = PF_R | PF_W,
			      .p_vaddr = LOAD_VADDR + 0x100, .p_filesz = 0x800, .p_memsz = 0x800 };
	memcpy(m.b + sizeof *e, ph, sizeof ph);
	memset(m.b + 0x800, 0x11, 0x1000);
	memset(m.b + 0x1800, 0x22, 0x800);
	m.len = 0x2000;
	struct cst_core *c = expect_open("overlapping", &m);
	if (c) {
		struct cst_target *tg = cst_core_target(c);
		expect_word(tg, LOAD_VADDR + 0x880, 0x2222222222222222ull, "in both, first read");
		expect_word(tg, LOAD_VADDR + 0xa00, 0x1111111111111111ull, "in the first only");
		expect_word(tg, LOAD_VADDR + 0x880, 0x2222222222222222ull, "in both, after a read in the first only");
		cst_core_close(c);
	}
	unit_end();
}

/* Threads: the first NT_PRSTATUS (the dumping thread) stays first, the others follow in tid
 * order (negative tids first, tids that differ in each of their bytes), threads of one tid
 * in the order of their notes, each with its own registers; PT_LOADs listed in descending
 * address order are found. */
static void order(void)
{
	static const int32_t tids[] = { 500, 7, -3, 300000, 7, 65536, 256, 1, 0x7fffffff, -70000 };
	static const int32_t want[] = { 500, -70000, -3, 1, 7, 7, 256, 65536, 300000, 0x7fffffff };
	const size_t n = sizeof tids / sizeof tids[0];
	struct img m;
	unit_begin("core_thread_order");
	Elf64_Ehdr e = ehdr(ET_CORE, EM_X86_64, 3);
	m.len = 0;
	put(&m, &e, sizeof e);
	Elf64_Phdr ph[3] = { 0 };
	size_t ph_at = put(&m, ph, sizeof ph);
	size_t note_at = m.len;
	for (size_t i = 0; i < n; i++) {
		uint8_t d[336];
		prstatus(d, (int)i + 1);          /* the note's place, as its cursig */
		memcpy(d + 32, &tids[i], 4);
		uint64_t rip = RIP_AT + i;        /* and as its pc */
		memcpy(d + 112 + 16 * 8, &rip, 8);
		note(&m, NT_PRSTATUS, d, sizeof d);
	}
	ph[0] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_offset = note_at, .p_filesz = m.len - note_at };
	for (int i = 0; i < 2; i++) {     /* the higher segment first */
		while (m.len % 16)
			m.b[m.len++] = 0;
		size_t at = m.len;
		memset(m.b + at, 0x11 * (i + 1), 0x100);
		m.len += 0x100;
		ph[1 + i] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_offset = at, .p_flags = PF_R | PF_W,
					  .p_vaddr = LOAD_VADDR + 0x1000ull * (uint64_t)(1 - i),
					  .p_filesz = 0x100, .p_memsz = 0x100 };
	}
	memcpy(m.b + ph_at, ph, sizeof ph);
	struct cst_core *c = expect_open("thread_order", &m);
	if (c) {
		EXPECT_EQ(cst_core_nthreads(c), n, "threads");
		int cursig7 = 0;
		for (size_t i = 0; i < n && i < cst_core_nthreads(c); i++) {
			const struct cst_core_thread *t = cst_core_thread(c, i);
			unit_expect(t->tid == want[i], "thread %zu: tid %d, want %d", i, t->tid, want[i]);
			uint64_t rip = 0;
			unit_expect(cst_reg_get(&t->regs, 16, &rip) && rip == RIP_AT + (uint64_t)t->cursig - 1,
				    "thread %zu (note %d): its registers are another's (rip 0x%llx)", i,
				    t->cursig, (unsigned long long)rip);
			if (t->tid == 7) {       /* the notes' order: the one of cursig 2, then 5 */
				unit_expect(t->cursig > cursig7, "tid 7 of note %d after note %d",
					    t->cursig, cursig7);
				cursig7 = t->cursig;
			}
		}
		struct cst_target *tg = cst_core_target(c);
		expect_word(tg, LOAD_VADDR + 8, 0x2222222222222222ull, "the lower segment");
		expect_word(tg, LOAD_VADDR + 0x1008, 0x1111111111111111ull, "the higher segment");
		cst_core_close(c);
	}
	unit_end();
}

int main(int argc, char **argv)
{
	snprintf(dir, sizeof dir, "%s/core-errors.XXXXXX", argc > 1 ? argv[1] : "/tmp");
	if (!mkdtemp(dir)) {
		printf("FAIL core_errors: cannot create %s\n", dir);
		return 1;
	}
	errors();
	usable();
	bounds();
	overlapping();
	order();
	rmdir(dir);
	return unit_exit();
}

/* ELF core files: notes, threads and memory.  See core.h. */
#include "core.h"
#include "error.h"
#include "escape.h"
#include "openfile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sched.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Bounds on what a hostile core can make us allocate. */
#define MAX_THREADS   1000000
#define MAX_MAPPINGS  1000000
#define MAX_WARNINGS  64

/* Bytes read of a descriptor whose fields lie at its start (NT_PRSTATUS, NT_PRPSINFO,
 * NT_SIGINFO): more than any architecture's struct elf_prstatus (336 bytes on x86-64, 408 on
 * sparc64), struct elf_prpsinfo (136) or siginfo_t (128). */
#define DESC_READ 1024
/* Bytes of the notes read at once: notes are parsed through this window, never held whole. */
#define NOTE_WINDOW   (64u << 10)
/* A note whose descriptor has at least this many bytes is skipped by the reads, not copied
 * (note_skipped): about as many bytes as a read's own cost copies.  Each thread of a core of
 * an x86-64 with AMX has an NT_X86_XSTATE of 11 KiB, 92% of its notes. */
#define NOTE_SKIP     (4u << 10)
/* Bytes of NT_AUXV kept: the kernel writes at most AT_VECTOR_SIZE (a few dozen) pairs
 * (include/linux/auxvec.h, mm_types.h saved_auxv), 1 KiB; the rest of a longer one is not
 * read. */
#define MAX_AUXV      (64u << 10)
/* Bytes of NT_FILE read: the kernel writes at most 16 MiB of it (fs/binfmt_elf.c,
 * core_file_note_size_limit); a longer one (gdb's gcore has no bound) up to this one is read
 * whole, for the mappings' names point into it; past it the note is ignored. */
#define MAX_FILE_NOTE (128u << 20)

/* One thread as the notes give it: its registers are read again from its NT_PRSTATUS when
 * asked for (cst_core_thread), so that a core of a million threads costs 24 bytes each,
 * unless they were kept when the notes were read (struct kept_regs). */
struct thread_index {
	uint64_t desc;           /* file offset of its NT_PRSTATUS descriptor */
	int32_t tid;             /* pr_pid */
	uint16_t len;            /* bytes of the descriptor read, at most DESC_READ */
	uint16_t cursig;         /* pr_cursig */
	uint32_t kept;           /* 1 + the index of its registers in the kept ones; 0: not kept */
};

/* Bytes of registers kept from the first pass over the notes: the registers of the first
 * threads (about 116,000 on x86-64) are not read again, each with a pread of its own, when
 * they are walked; the rest are. */
#define MAX_KEPT_REGS (16u << 20)

/* The registers kept from the note pass, per thread 1 + arch->nregs words (the valid mask of
 * registers 0..nregs-1, their values); once the threads are sorted, in their order, which
 * the walk follows. */
struct kept_regs {
	uint64_t *w;
	size_t n, cap;           /* threads kept, room for threads */
};

struct load {                    /* one PT_LOAD */
	uint64_t vaddr, memsz;   /* target addresses [vaddr, vaddr + memsz) */
	uint64_t offset, avail;  /* file offset and bytes really present in the file */
	uint64_t claimed;        /* bytes the header says are in the file (p_filesz, at most p_memsz) */
	size_t phdr;             /* index of the program header */
	bool exec;               /* PF_X */
};

struct mapped_file {             /* a file named by NT_FILE, opened on first use and kept open */
	const char *recorded;
	char *local;             /* path opened on this machine */
	int fd;                  /* -1 when it could not be opened */
	bool tried;
	uint64_t size;
	struct stat st;          /* its status at the open */
	int rc;                  /* fd < 0: cst_core_open_file's code, ERR its reason */
	char *err;
	Elf *elf;                /* cst_core_file_elf's handle on fd; NULL until asked, or not ELF */
	bool elf_tried;
	uint8_t *map;            /* the file mapped whole under ELF (private), NULL when not */
};

/* PT_LOAD bytes are read with pread through this cache, not through the file's mapping: a
 * walk reads a few words from each thread's stack, and a page fault on a mapped file maps a
 * whole window of pages around the one touched, which cost more than the walk itself.  The
 * files NT_FILE names (code the kernel left out of the core) are read through a cache of
 * their own, so that the stacks of many threads do not push out the few pages of code that
 * every frame's return address points into. */
#define BLOCK_SHIFT 12
#define BLOCK_SIZE (1u << BLOCK_SHIFT)
#define NBLOCKS 64               /* 256 KiB */
#define WAYS 4                   /* set-associative: two hot blocks of code that map to one
				  * set do not push each other out at every frame */
#define NSETS (NBLOCKS / WAYS)
/* A block of a segment without PF_X (a stack) is read from the piece of this many bytes
 * that holds the first byte asked for up to its end: a walk reads a stack upwards from
 * its stack pointer, and the bytes below it are seldom asked for (and then read too). */
#define PIECE_SHIFT 9

struct block_cache {
	uint64_t block[NBLOCKS];     /* file offset >> BLOCK_SHIFT, + 1 (0: empty); set s holds
				      * slots s * WAYS .. s * WAYS + WAYS - 1 */
	uint32_t src[NBLOCKS];       /* whose block: 0 the core, 1 + i the mapped file i */
	uint32_t used[NBLOCKS];      /* the cache's clock at the slot's last use: the least
				      * recently used slot of a set is replaced */
	uint16_t lo[NBLOCKS];        /* bytes of the block before this offset are not read */
	uint32_t clock;
	unsigned last;               /* the slot of the last read: a walk reads one stack */
	uint8_t data[NBLOCKS][BLOCK_SIZE];
};

/* Whether the reads of a file find its bytes in the page cache (see read_block). */
struct residency {
	bool plain;              /* RWF_NOWAIT is refused here (an older kernel, a file system
				  * without it): plain preads */
	bool cold;               /* a read had to wait for the disk */
	bool probe;              /* the next read asks (while neither of the above) */
};

/* The first read of the core and the first after every this many threads handed out ask
 * whether their bytes are in the page cache, not every read: the question costs more time
 * in the kernel than a pread (preadv2's vector), and a cold core is found out at its first
 * read as well. */
#define PROBE_EVERY 16

/* A child process that reads the notes past the second thread's while the caller walks the
 * first thread (cst_core_options.notes_beside); its results come back through a memfd. */
struct beside {
	enum cst_notes_beside mode;  /* the options', CST_NOTES_HERE with more than one PT_NOTE */
	bool tried;              /* a child was started, or could not be */
	bool child;              /* this process is the child */
	pid_t pid;               /* the child's (reaped at the join when it failed: REAPED, else
				  * by cst_core_close); 0 when none was started */
	bool joined;             /* its results were taken (or it failed) */
	bool failed;             /* it did, and the notes were read here */
	bool reaped;             /* a failed child was waited for at the join: STATUS */
	int status;              /* its wait status */
	char how[48];            /* cst_core_notes_read's answer */
	int fd;                  /* the memfd of its results */
	int done;                /* the pipe's end the child writes a byte to once they are in
				  * the memfd (the parent's: the other end) */
	uint64_t off, size, pos; /* the PT_NOTE, and the offset in it where the child took over */
	size_t nwarnings;        /* the parent's count of warnings when it did */
};

struct cst_core {
	int fd;
	Elf *elf;
	struct block_cache *blocks;  /* NULL until the first read; NULL again if malloc failed */
	struct block_cache *file_blocks; /* the mapped files' blocks, as BLOCKS */
	struct residency residency;  /* of the reads into BLOCKS */
	size_t advised;          /* threads below this index had their stacks advised (or were
				  * passed by) while the core was cold: see prefetch_stacks */
	size_t prefetched;       /* threads whose stacks were advised */
	uint64_t size;           /* bytes of the file when it was opened */
	const struct cst_arch *arch;
	/* TARGET's span: the bytes of one cached block of the core as target memory, in a slot
	 * of BLOCKS that no read has replaced since (a walk reads words of one stack page after
	 * another: they are copied from there without the segment search and the cache's
	 * lookup). */
	struct cst_target target;

	struct load *loads;
	size_t nloads;
	size_t last_load;        /* the PT_LOAD the last read came from: a walk reads one stack */

	struct thread_index *threads;
	size_t nthreads, cap_threads;
	size_t mapped;           /* THREADS and KEPT.W are a child's, mapped (beside_read): bytes of
				  * each mapping, to unmap; 0: they are the heap's */
	uint64_t notes_end;      /* file offset where the PT_NOTE being read ends */
	struct kept_regs kept;
	struct cst_core_thread thread;   /* the one cst_core_thread last returned */

	struct cst_core_signal signal;
	int pid;
	char fname[17];
	char psargs[81];
	uint8_t *auxv;           /* NT_AUXV's descriptor, a copy */
	size_t auxv_size;
	uint8_t *file_note;      /* NT_FILE's descriptor, a copy: the mappings' names point into it */

	struct cst_core_mapping *maps;   /* sorted by start */
	size_t nmaps;
	uint64_t page_size;
	struct mapped_file *files;
	size_t nfiles;
	int *file_slot;          /* open-addressing hash of the files' names: index into files or -1 */
	size_t file_hsize;       /* its size, a power of two */

	char *executable;               /* -e, or the mapping holding AT_ENTRY */
	bool exe_given;                 /* EXECUTABLE is -e's */
	const char *exe_recorded;       /* the core's own path for it */
	char *sysroot;
	int sysroot_fd;          /* O_PATH descriptor of the sysroot, -1 without one */
	char *warnings[MAX_WARNINGS];
	size_t nwarnings;
	bool prpsinfo;           /* an NT_PRPSINFO was read (the first one counts) */
	struct beside beside;    /* the child reading the notes beside the first walk */
};

/* Keeps warning S (escaped, allocated; taken over) unless the bound is reached or it was
 * said already: one warning of each kind is enough. */
static void keep_warning(struct cst_core *c, char *s)
{
	for (size_t i = 0; i < c->nwarnings; i++)
		if (strcmp(c->warnings[i], s) == 0) {
			free(s);
			return;
		}
	if (c->nwarnings < MAX_WARNINGS)
		c->warnings[c->nwarnings++] = s;
	else
		free(s);
}

void cst_core_warn(struct cst_core *c, const char *fmt, ...)
{
	if (c->nwarnings >= MAX_WARNINGS)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *raw = NULL, *s = NULL;
	/* a warning names paths from the core: escaped for the terminal it goes to */
	if (vasprintf(&raw, fmt, ap) >= 0 && (s = cst_escape_dup(raw)))
		keep_warning(c, s);
	free(raw);
	va_end(ap);
}

/* A field of the core's notes, in the core's byte order. */
static inline uint64_t rd(const struct cst_core *c, const uint8_t *p, unsigned size)
{
	return cst_word(p, size, c->arch->big_endian);
}

/* ---- memory ---------------------------------------------------------------------- */

/* qsort of the N SIZE-byte elements at BASE, unless they are in order already: the kernel
 * writes a core's segments and mappings in address order, and a core of thousands of
 * threads has as many stack segments, which qsort compares n log n times. */
static void sort_unless_sorted(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	const char *p = base;
	size_t i = 1;
	while (i < n && cmp(p + (i - 1) * size, p + i * size) <= 0)
		i++;
	if (i < n)
		qsort(base, n, size, cmp);
}

static int cmp_load(const void *a, const void *b)
{
	const struct load *x = a, *y = b;
	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static int cmp_map(const void *a, const void *b)
{
	const struct cst_core_mapping *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Index of the last element whose start is <= ADDR, or -1.  START_OF gives the start. */
#define UPPER_BOUND(arr, n, field, addr) ({                                   \
	size_t lo_ = 0, hi_ = (n);                                            \
	while (lo_ < hi_) {                                                   \
		size_t mid_ = lo_ + (hi_ - lo_) / 2;                          \
		if ((arr)[mid_].field <= (addr)) lo_ = mid_ + 1; else hi_ = mid_; \
	}                                                                     \
	(ptrdiff_t)lo_ - 1; })

/* How many bytes at ADDR the PT_LOADs can supply, and at which file offset; 0 when none. Overlapping
 * segments are allowed: a few earlier ones are looked at too. */
static size_t load_span(struct cst_core *c, uint64_t addr, uint64_t *off)
{
	/* the segment of the last read or one near it (the next thread's stack, past a guard
	 * page's segment), when the search would find it first: it holds ADDR and the next
	 * segment starts above ADDR */
	static const int near[] = { 0, -2, 2, -1, 1 };
	for (size_t k = 0; k < sizeof near / sizeof near[0]; k++) {
		size_t i = c->last_load + (size_t)(ptrdiff_t)near[k];
		if (i >= c->nloads)
			continue;
		const struct load *l = &c->loads[i];
		uint64_t rel = addr - l->vaddr;
		if (addr >= l->vaddr && rel < l->avail &&
		    (i + 1 == c->nloads || c->loads[i + 1].vaddr > addr)) {
			c->last_load = i;
			*off = l->offset + rel;
			return l->avail - rel;
		}
	}
	ptrdiff_t i = UPPER_BOUND(c->loads, c->nloads, vaddr, addr);
	for (int back = 0; i >= 0 && back < 8; i--, back++) {
		const struct load *l = &c->loads[i];
		uint64_t rel = addr - l->vaddr;
		if (rel < l->avail) {
			c->last_load = (size_t)i;
			*off = l->offset + rel;
			return l->avail - rel;
		}
	}
	return 0;
}

static int open_file(struct cst_core *c, const char *recorded, struct stat *st, char *path,
		     size_t pathlen, char *err, size_t errlen);

/* Opens F once: the core reader, the symbols and the package notes all read the same
 * descriptor (cst_core_open_file hands out duplicates), so each file is looked up, opened
 * and checked once.  A failure is kept with its reason and said once. */
static struct mapped_file *open_mapped(struct cst_core *c, struct mapped_file *f)
{
	if (f->tried)
		return f;
	f->tried = true;
	f->fd = -1;
	/* a FIFO or device planted in NT_FILE is not even opened */
	char err[128], path[PATH_MAX];
	int fd = open_file(c, f->recorded, &f->st, path, sizeof path, err, sizeof err);
	f->local = strdup(path);
	if (fd < 0)
		f->err = strdup(err);
	if (!f->local || (fd < 0 && !f->err)) {
		if (fd >= 0)
			close(fd);
		f->rc = -CST_E_NOMEM;
		return f;
	}
	if (fd < 0) {
		f->rc = fd;
		cst_core_warn(c, "cannot open mapped file %s: %s", f->local, err);
	} else {
		f->fd = fd;
		f->size = (uint64_t)f->st.st_size;
	}
	return f;
}

static struct mapped_file *map_file(struct cst_core *c, struct cst_core_mapping *m)
{
	return m->file < 0 ? NULL : open_mapped(c, &c->files[m->file]);
}

/* Reads the bytes of block B of FD (SIZE bytes long when opened) from offset AT of the block
 * up to offset END (its start: the bytes it holds from END on stay) into slot K of BC.  With
 * R->probe set (and R neither plain nor cold), first the bytes the page cache holds are read,
 * without waiting (preadv2 RWF_NOWAIT, Linux 4.14): when some are missing R is marked cold
 * and the rest read with a pread that waits.  A read costs one system call either way, but
 * for the rest of a cold block.
 * Returns 0, or -CST_E_MEMORY when the file ends before them or cannot be read. */
static int read_block(struct block_cache *bc, unsigned k, int fd, uint64_t size, uint64_t b,
		      unsigned at, unsigned end, struct residency *r)
{
	uint64_t start = (b << BLOCK_SHIFT) + at;
	uint8_t *dst = bc->data[k] + at;
	uint64_t want = size > start ? size - start : 0;
	if (want > end - at)
		want = end - at;
	ssize_t got = 0;
	if (r && r->probe && !r->plain && !r->cold) {
		r->probe = false;
		struct iovec iov = { .iov_base = dst, .iov_len = end - at };
		got = preadv2(fd, &iov, 1, (off_t)start, RWF_NOWAIT);
		if (got >= 0 && (uint64_t)got >= want)
			return 0;
		if (got < 0 && (errno == EOPNOTSUPP || errno == EINVAL || errno == ENOSYS))
			r->plain = true;
		else
			r->cold = true;
		if (got < 0)
			got = 0;
	}
	ssize_t more = pread(fd, dst + got, end - at - (size_t)got, (off_t)(start + (uint64_t)got));
	return more < 0 || (uint64_t)got + (uint64_t)more < want ? -CST_E_MEMORY : 0;
}

/* Copies N bytes at offset OFF of FD (SRC in the cache's tags, SIZE bytes long when opened;
 * OFF + N <= SIZE) to OUT through the block cache *CACHE, allocated on first use; a block
 * missing from it is read whole, or with PIECES from the piece of OFF on.  Returns 0, or
 * -CST_E_MEMORY when the file could not be read there (it shrank since it was opened, or a
 * read error).  R is read_block's (NULL: plain preads). */
static int read_cached(struct block_cache **cache, uint32_t src, int fd, uint64_t size, uint64_t off,
		       uint8_t *out, size_t n, bool pieces, struct residency *r)
{
	if (!*cache && fd >= 0)
		*cache = calloc(1, sizeof **cache);
	struct block_cache *bc = *cache;
	if (!bc) {                   /* no memory for the cache: straight from the file */
		ssize_t got = pread(fd, out, n, (off_t)off);
		return got == (ssize_t)n ? 0 : -CST_E_MEMORY;
	}
	while (n > 0) {
		uint64_t b = off >> BLOCK_SHIFT;
		unsigned k = bc->last;
		if (bc->block[k] != b + 1 || bc->src[k] != src) {
			unsigned set = (unsigned)((b + src) % NSETS) * WAYS;
			k = set;
			for (unsigned w = set; w < set + WAYS; w++) {
				if (bc->block[w] == b + 1 && bc->src[w] == src) {
					k = w;
					break;
				}
				if (bc->used[w] < bc->used[k])
					k = w;
			}
		}
		size_t at = (size_t)(off & (BLOCK_SIZE - 1));
		unsigned from = pieces ? (unsigned)(at >> PIECE_SHIFT << PIECE_SHIFT) : 0;
		if (bc->block[k] != b + 1 || bc->src[k] != src) {
			bc->block[k] = 0;
			if (read_block(bc, k, fd, size, b, from, BLOCK_SIZE, r) < 0)
				return -CST_E_MEMORY;
			bc->block[k] = b + 1;
			bc->src[k] = src;
			bc->lo[k] = (uint16_t)from;
		} else if (at < bc->lo[k]) {     /* bytes below those read: the pieces up to them */
			if (read_block(bc, k, fd, size, b, from, bc->lo[k], r) < 0) {
				bc->block[k] = 0;
				return -CST_E_MEMORY;
			}
			bc->lo[k] = (uint16_t)from;
		}
		bc->used[k] = ++bc->clock;
		bc->last = k;
		size_t m = BLOCK_SIZE - at < n ? BLOCK_SIZE - at : n;
		if (m == 8)
			memcpy(out, bc->data[k] + at, 8);    /* a word: one move, not a copy loop */
		else
			memcpy(out, bc->data[k] + at, m);
		out += m;
		off += m;
		n -= m;
	}
	return 0;
}

/* Bytes at ADDR from the file mapping that covers it. */
static size_t file_span(struct cst_core *c, uint64_t addr, void *buf, size_t len)
{
	ptrdiff_t i = UPPER_BOUND(c->maps, c->nmaps, start, addr);
	if (i < 0 || addr >= c->maps[i].end)
		return 0;
	struct cst_core_mapping *m = &c->maps[i];
	struct mapped_file *f = map_file(c, m);
	if (!f || f->fd < 0)
		return 0;
	uint64_t off = m->offset + (addr - m->start);
	if (off < m->offset || off >= f->size)
		return 0;
	uint64_t n = len;
	if (n > m->end - addr)
		n = m->end - addr;
	if (n > f->size - off)
		n = f->size - off;
	/* Read, not copied from f->map: a file that shrinks while it is open gives a short
	 * read here, where a load from the mapping would raise SIGBUS. */
	return read_cached(&c->file_blocks, (uint32_t)(f - c->files) + 1, f->fd, f->size, off, buf, n, false, NULL) == 0 ?
	       (size_t)n : 0;
}

/* Copies N bytes at core file offset OFF (inside the file: load_span checked it, in PT_LOAD
 * C->last_load) to OUT.  Code is read in whole blocks: a walk reads the instructions before a
 * return address too. */
static int read_file_bytes(struct cst_core *c, uint64_t off, uint8_t *out, size_t n)
{
	return read_cached(&c->blocks, 0, c->fd, c->size, off, out, n, !c->loads[c->last_load].exec,
			   &c->residency);
}

/* Sets C's span to the block of C->blocks that the last read of N bytes at core file offset
 * OFF, from target address ADDR in PT_LOAD C->last_load, left in the cache's last slot:
 * the part of the block that the segment supplies, and that load_span gives from that
 * segment (up to the next segment's start). */
static void set_span(struct cst_core *c, uint64_t addr, uint64_t off, size_t n)
{
	struct block_cache *bc = c->blocks;
	uint64_t b = off >> BLOCK_SHIFT;
	if (!bc || n == 0 || (off + n - 1) >> BLOCK_SHIFT != b)
		return;
	const struct load *l = &c->loads[c->last_load];
	uint64_t lo = (b << BLOCK_SHIFT) + bc->lo[bc->last], hi = (b << BLOCK_SHIFT) + BLOCK_SIZE;
	if (lo < l->offset)
		lo = l->offset;
	if (hi > l->offset + l->avail)
		hi = l->offset + l->avail;
	uint64_t va = l->vaddr + (lo - l->offset), len = hi - lo;
	if (c->last_load + 1 < c->nloads) {
		/* a next segment that starts at or below the block's first byte overlaps it
		 * (a hostile core): load_span answers from that one where it has bytes */
		uint64_t next = c->loads[c->last_load + 1].vaddr;
		if (next <= va)
			return;
		if (next - va < len)
			len = next - va;
	}
	if (addr < va || addr - va >= len)
		return;
	c->target.span.addr = va;
	c->target.span.len = (size_t)len;
	c->target.span.data = bc->data[bc->last] + (lo & (BLOCK_SIZE - 1));
}

static int core_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	struct cst_core *c = priv;
	uint8_t *out = buf;
	uint64_t rel = addr - c->target.span.addr;
	if (rel < c->target.span.len && len <= c->target.span.len - rel) {
		if (len == 8)
			memcpy(out, c->target.span.data + rel, 8);    /* a word: one move, not a call */
		else
			memcpy(out, c->target.span.data + rel, len);
		return 0;
	}
	while (len > 0) {
		uint64_t off;
		size_t n = load_span(c, addr, &off);
		if (n > 0) {
			if (n > len)
				n = len;
			c->target.span.len = 0;         /* the read may replace its block */
			if (read_file_bytes(c, off, out, n) < 0)
				return -CST_E_MEMORY;
			set_span(c, addr, off, n);
		} else {
			n = file_span(c, addr, out, len);
			if (n == 0)
				return -CST_E_MEMORY;
		}
		out += n;
		addr += n;
		len -= n;
	}
	return 0;
}

/* A PT_LOAD with PF_X holds ADDR and no NT_FILE entry covers it: code the process made
 * itself (a JIT's), which the kernel dumps whole as anonymous memory. */
static bool core_anon_code(void *priv, uint64_t addr)
{
	const struct cst_core *c = priv;
	ptrdiff_t i = UPPER_BOUND(c->loads, c->nloads, vaddr, addr);
	if (i < 0 || addr - c->loads[i].vaddr >= c->loads[i].memsz || !c->loads[i].exec)
		return false;
	ptrdiff_t m = UPPER_BOUND(c->maps, c->nmaps, start, addr);
	return m < 0 || addr >= c->maps[m].end;
}

/* A PT_LOAD with PF_X holds ADDR, and the NT_FILE entry that covers it lies far from where
 * its file's layout puts it, from the file's mapping of offset 0 before it (the NT_FILE
 * entries of one file follow each other, as report_nt_file in symbols.c takes them). */
static const char *core_copied_code(void *priv, uint64_t addr)
{
	const struct cst_core *c = priv;
	ptrdiff_t i = UPPER_BOUND(c->loads, c->nloads, vaddr, addr);
	if (i < 0 || addr - c->loads[i].vaddr >= c->loads[i].memsz || !c->loads[i].exec)
		return NULL;
	ptrdiff_t m = UPPER_BOUND(c->maps, c->nmaps, start, addr);
	if (m < 0 || addr >= c->maps[m].end || c->maps[m].offset == 0)
		return NULL;
	const struct cst_core_mapping *k = &c->maps[m];
	/* bounded: a hostile core may list one file a million times */
	for (ptrdiff_t j = m - 1; j >= 0 && m - j <= 256; j--) {
		const struct cst_core_mapping *h = &c->maps[j];
		if (strcmp(h->name, k->name) != 0)
			return NULL;
		if (h->offset == 0)
			return cst_in_module_layout(h->start, k->start, k->offset) ? NULL : k->name;
	}
	return NULL;
}

static const struct cst_target_ops core_target_ops = {
	.read = core_read, .anon_code = core_anon_code, .copied_code = core_copied_code,
	.fixed = true, .span = true,
};

/* ---- notes ----------------------------------------------------------------------- */

static size_t kept_words(const struct cst_core *c)
{
	return 1 + (size_t)c->arch->nregs;
}

/* The kept registers grown to room for N threads, at most MAX_KEPT_REGS bytes (left as they
 * are without memory for it); whether one more thread's fit. */
static bool kept_room(struct cst_core *c, size_t n)
{
	struct kept_regs *k = &c->kept;
	size_t words = kept_words(c);
	if (n > MAX_KEPT_REGS / (words * sizeof *k->w))
		n = MAX_KEPT_REGS / (words * sizeof *k->w);
	if (n > k->cap) {
		uint64_t *w = realloc(k->w, n * words * sizeof *w);
		if (w) {
			k->w = w;
			k->cap = n;
		}
	}
	return k->n < k->cap;
}

/* Keeps REGS while the bound allows; returns 1 + their index among the kept, or 0 (they are
 * read again). */
static uint32_t keep_regs(struct cst_core *c, const struct cst_regs *regs)
{
	struct kept_regs *k = &c->kept;
	size_t words = kept_words(c);
	int nregs = c->arch->nregs;
	if (nregs < 64 && regs->valid[0] >> nregs)
		return 0;
	if (k->n == k->cap && !kept_room(c, k->cap ? 2 * k->cap : 64))
		return 0;
	uint64_t *t = k->w + k->n++ * words;
	t[0] = regs->valid[0];
	memcpy(t + 1, regs->val, (size_t)nregs * sizeof *t);
	return (uint32_t)k->n;
}

/* The kept registers put in the order of the (sorted) threads: the walk reads them one
 * thread after the other, not scattered over megabytes.  Without memory for the copy they
 * stay in the notes' order. */
static void order_kept(struct cst_core *c)
{
	struct kept_regs *k = &c->kept;
	size_t words = kept_words(c);
	uint64_t *w = k->n ? malloc(k->n * words * sizeof *w) : NULL;
	if (!w)
		return;
	uint32_t n = 0;
	for (size_t i = 0; i < c->nthreads; i++) {
		struct thread_index *x = &c->threads[i];
		if (!x->kept)
			continue;
		memcpy(w + (size_t)n * words, k->w + (size_t)(x->kept - 1) * words, words * sizeof *w);
		x->kept = ++n;
	}
	free(k->w);
	k->w = w;
	k->cap = k->n;
}

/* The thread index grown to room for N threads, at most MAX_THREADS (left as it is without
 * memory for it); whether one more thread fits. */
static bool threads_room(struct cst_core *c, size_t n)
{
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	if (n > c->cap_threads) {
		void *p = realloc(c->threads, n * sizeof *c->threads);
		if (p) {
			c->threads = p;
			c->cap_threads = n;
		}
	}
	return c->nthreads < c->cap_threads;
}

/* A thread from the NT_PRSTATUS descriptor at file offset AT, of SIZE bytes; DESC holds its
 * first LEN of them (LEN <= SIZE, at least DESC_READ when SIZE is). */
static int add_thread(struct cst_core *c, uint64_t at, const uint8_t *desc, size_t len, size_t size)
{
	/* The kernel writes the same notes for every thread after the first (whose group also
	 * holds the process's notes): the bytes from the second thread's NT_PRSTATUS to the
	 * third's, in the rest of the segment, tell about how many threads are left. */
	if (c->nthreads == 2 && at > c->threads[1].desc && at < c->notes_end) {
		/* room for them at once, not grown by doubling, each step a copy of all; an
		 * estimate too low is grown as before, one too high costs address space only
		 * (its tail is never written) */
		size_t n = 3 + (size_t)((c->notes_end - at) / (at - c->threads[1].desc));
		threads_room(c, n);
		kept_room(c, n);
	}
	if (c->nthreads >= MAX_THREADS) {
		cst_core_warn(c, "more than %d threads; the rest are ignored", MAX_THREADS);
		return 0;
	}
	struct cst_regs regs;
	int tid, cursig;
	if (c->arch->prstatus(desc, len, &regs, &tid, &cursig) < 0) {
		cst_core_warn(c, "NT_PRSTATUS of %zu bytes is too short; thread ignored", size);
		return 0;
	}
	if (c->nthreads == c->cap_threads && !threads_room(c, c->cap_threads ? c->cap_threads * 2 : 16))
		return -CST_E_NOMEM;
	c->threads[c->nthreads++] = (struct thread_index){
		.desc = at, .tid = tid, .len = (uint16_t)len, .cursig = (uint16_t)cursig,
		.kept = keep_regs(c, &regs),
	};
	return 0;
}

/* NT_SIGINFO: siginfo_t as the kernel lays it out (include/uapi/asm-generic/siginfo.h):
 * si_signo, si_errno, si_code (3 x int32), then the union at offset 16 on 64-bit targets
 * (12 on 32-bit), whose first member for faults is si_addr. */
static void parse_siginfo(struct cst_core *c, const uint8_t *d, size_t size)
{
	if (c->signal.present || size < 12)
		return;
	c->signal.present = true;
	c->signal.signo = (int32_t)rd(c, d, 4);
	c->signal.err = (int32_t)rd(c, d + 4, 4);
	c->signal.code = (int32_t)rd(c, d + 8, 4);
	unsigned uoff = c->arch->addr_size == 8 ? 16 : 12;
	int s = c->arch->generic_signal ? c->arch->generic_signal(c->signal.signo) : c->signal.signo;
	/* si_code > 0 means the kernel filled the fault union (SI_KERNEL / fault codes). */
	if ((s == 11 || s == 7 || s == 4 || s == 8 || s == 5) && c->signal.code > 0 &&
	    size >= uoff + c->arch->addr_size) {
		c->signal.has_addr = true;
		c->signal.addr = rd(c, d + uoff, c->arch->addr_size);
	}
	/* SI_USER (0), SI_QUEUE (-1), SI_TKILL (-6): the union's _kill / _rt member, si_pid then
	 * si_uid (two 32-bit words) */
	if ((c->signal.code == 0 || c->signal.code == -1 || c->signal.code == -6) && size >= uoff + 8) {
		c->signal.has_sender = true;
		c->signal.sender_pid = (int32_t)rd(c, d + uoff, 4);
		c->signal.sender_uid = (uint32_t)rd(c, d + uoff + 4, 4);
	}
}

/* NT_PRPSINFO: struct elf_prpsinfo (include/linux/elfcore.h).  On 64-bit targets pr_pid is
 * at offset 24 and pr_fname[16], pr_psargs[80] at 40 and 56; on 32-bit at 12, 28, 44.  The
 * first one counts, as for the process's other notes. */
static void parse_prpsinfo(struct cst_core *c, const uint8_t *d, size_t size)
{
	size_t pid_off = c->arch->addr_size == 8 ? 24 : 12;
	size_t fname_off = c->arch->addr_size == 8 ? 40 : 28;
	if (c->prpsinfo || size < fname_off + 16 + 80)
		return;
	c->prpsinfo = true;
	c->pid = (int32_t)rd(c, d + pid_off, 4);
	memcpy(c->fname, d + fname_off, 16);
	c->fname[16] = 0;
	memcpy(c->psargs, d + fname_off + 16, 80);
	c->psargs[80] = 0;
}

/* The slot of C->file_slot that holds NAME's file, or the empty slot where it goes (FNV-1a
 * of the name, linear probing). */
static size_t file_slot(const struct cst_core *c, const char *name)
{
	uint64_t h = 1469598103934665603ull;
	for (const char *p = name; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ull;
	size_t k = h & (c->file_hsize - 1);
	while (c->file_slot[k] >= 0 && strcmp(c->files[c->file_slot[k]].recorded, name) != 0)
		k = (k + 1) & (c->file_hsize - 1);
	return k;
}

/* The file of NT_FILE recorded as NAME, or NULL. */
static struct mapped_file *recorded_file(struct cst_core *c, const char *name)
{
	if (!c->file_slot)
		return NULL;
	int i = c->file_slot[file_slot(c, name)];
	return i < 0 ? NULL : &c->files[i];
}

/* NT_FILE (fs/binfmt_elf.c, fill_files_note): count and page size as words, then count
 * triples (start, end, page offset) of words, then count NUL-terminated names. */
static int parse_nt_file(struct cst_core *c, const uint8_t *d, size_t size)
{
	unsigned w = c->arch->addr_size;
	if (c->maps || size < 2 * w)
		return 0;
	uint64_t count = rd(c, d, w), page = rd(c, d + w, w);
	if (count > MAX_MAPPINGS || count > (size - 2 * w) / (3 * w)) {
		cst_core_warn(c, "NT_FILE claims %llu mappings in %zu bytes; ignored",
		     (unsigned long long)count, size);
		return 0;
	}
	if (page == 0 || page > (1u << 30) || (page & (page - 1))) {
		cst_core_warn(c, "NT_FILE page size %llu is not plausible; ignored", (unsigned long long)page);
		return 0;
	}
	c->maps = calloc(count ? count : 1, sizeof *c->maps);
	c->files = calloc(count ? count : 1, sizeof *c->files);
	if (!c->maps || !c->files)
		return -CST_E_NOMEM;
	c->page_size = page;
	const uint8_t *names = d + 2 * w + count * 3 * w, *end = d + size;
	size_t n = 0;
	for (uint64_t i = 0; i < count && names < end; i++) {
		const uint8_t *z = memchr(names, 0, (size_t)(end - names));
		if (!z)
			break;
		const uint8_t *t = d + 2 * w + i * 3 * w;
		struct cst_core_mapping *m = &c->maps[n];
		m->start = rd(c, t, w);
		m->end = rd(c, t + w, w);
		uint64_t pg = rd(c, t + 2 * w, w);
		m->offset = pg * page;
		m->name = (const char *)names;
		m->file = -1;
		names = z + 1;
		if (m->end <= m->start || (page && pg > UINT64_MAX / page))
			continue;
		n++;
	}
	if (n < count)
		cst_core_warn(c, "NT_FILE: %llu of %llu mappings unusable",
		     (unsigned long long)(count - n), (unsigned long long)count);
	c->nmaps = n;
	sort_unless_sorted(c->maps, n, sizeof *c->maps, cmp_map);
	/* Distinct file names, through an open-addressing hash of the names. */
	size_t hsize = 16;
	while (hsize < 2 * n)
		hsize *= 2;
	int *slot = malloc(hsize * sizeof *slot);
	if (!slot)
		return -CST_E_NOMEM;
	memset(slot, 0xff, hsize * sizeof *slot);
	c->file_slot = slot;
	c->file_hsize = hsize;
	for (size_t i = 0; i < n; i++) {
		size_t k = file_slot(c, c->maps[i].name);
		if (slot[k] < 0) {
			slot[k] = (int)c->nfiles;
			c->files[c->nfiles].recorded = c->maps[i].name;
			c->files[c->nfiles].fd = -1;
			c->nfiles++;
		}
		c->maps[i].file = slot[k];
	}
	return 0;
}

/* The notes are read in order through a window of the file. */
struct note_reader {
	uint8_t *buf;            /* NOTE_WINDOW bytes */
	uint64_t base;           /* file offset of buf[0] */
	size_t len;              /* bytes in buf */
	uint64_t reach;          /* file offset after the last bytes used of the window */
	uint64_t group;          /* file offset of the first note after the last large one skipped */
	size_t next;             /* bytes the next read asks for, 0 for NOTE_WINDOW */
};

/* N bytes (at most NOTE_WINDOW) at file offset OFF, through R's window; NULL when the file
 * ends before them (it shrank since it was opened) or cannot be read. */
static inline const uint8_t *note_bytes(struct cst_core *c, struct note_reader *r, uint64_t off, size_t n)
{
	if (off >= r->base && off - r->base <= r->len && n <= r->len - (off - r->base)) {
		if (off + n > r->reach)
			r->reach = off + n;
		return r->buf + (off - r->base);
	}
	size_t ask = !r->next ? NOTE_WINDOW : r->next > n ? r->next : n;
	ssize_t got = pread(c->fd, r->buf, ask, (off_t)off);
	r->base = off;
	r->len = got > 0 ? (size_t)got : 0;
	r->reach = off + n;
	r->next = 0;
	return n <= r->len ? r->buf : NULL;
}

/* The note before file offset NEXT had a descriptor of SIZE bytes.  A large one ends a group
 * of notes (a core's threads after the first have groups alike), and when NEXT lies past R's
 * window the next read asks for as many bytes as the group used, rounded up to 64 and at
 * least 512, not for the whole window: the large notes between the groups are not copied. */
static void note_skipped(struct note_reader *r, uint64_t next, uint64_t size)
{
	if (size < NOTE_SKIP)
		return;
	uint64_t used = r->reach > r->group ? (r->reach - r->group + 63) & ~(uint64_t)63 : 0;
	r->group = next;
	if (next >= r->base + r->len)
		r->next = used < 512 ? 512 : used < NOTE_WINDOW ? (size_t)used : 0;
}

/* A copy of the SIZE bytes at file offset OFF, or NULL (*RC: -CST_E_NOMEM, or
 * -CST_E_TRUNCATED when the file ends before them). */
static uint8_t *note_copy(struct cst_core *c, uint64_t off, size_t size, int *rc)
{
	uint8_t *p = malloc(size ? size : 1);
	*rc = -CST_E_NOMEM;
	if (p && pread(c->fd, p, size, (off_t)off) != (ssize_t)size) {
		free(p);
		p = NULL;
		*rc = -CST_E_TRUNCATED;
	}
	return p;
}

#define NOTE_ALIGN4(x) (((x) + 3) & ~(uint64_t)3)

/* One "CORE" or "LINUX" note: type TYPE, its descriptor of SIZE bytes at file offset AT.
 * Returns 0, -CST_E_NOMEM, or -CST_E_TRUNCATED when the file ends before the descriptor. */
static int parse_note(struct cst_core *c, struct note_reader *r, uint32_t type, uint64_t at, size_t size)
{
	size_t len = size < DESC_READ ? size : DESC_READ;
	const uint8_t *d = NULL;
	int rc = 0;
	switch (type) {
	case NT_PRSTATUS: case NT_PRPSINFO: case NT_SIGINFO:
		if (!(d = note_bytes(c, r, at, len)))
			return -CST_E_TRUNCATED;
		break;
	case NT_AUXV:
		if (c->auxv)
			return 0;
		if (size > MAX_AUXV) {
			cst_core_warn(c, "NT_AUXV has %zu bytes; only its first %u are read", size, MAX_AUXV);
			size = MAX_AUXV;
		}
		if (!(c->auxv = note_copy(c, at, size, &rc)))
			return rc;
		c->auxv_size = size;
		return 0;
	case NT_FILE:
		if (c->file_note)
			return 0;
		if (size > MAX_FILE_NOTE) {
			cst_core_warn(c, "NT_FILE has %zu bytes, more than the %u MiB bound; the mapped files are not known",
				      size, MAX_FILE_NOTE >> 20);
			return 0;
		}
		if (!(c->file_note = note_copy(c, at, size, &rc)))
			return rc;
		rc = parse_nt_file(c, c->file_note, size);
		if (!c->maps) {              /* not used */
			free(c->file_note);
			c->file_note = NULL;
		}
		return rc;
	default:
		return 0;
	}
	switch (type) {
	case NT_PRSTATUS: return add_thread(c, at, d, len, size);
	case NT_PRPSINFO: parse_prpsinfo(c, d, len); break;
	case NT_SIGINFO:  parse_siginfo(c, d, len); break;
	}
	return 0;
}

static bool beside_start(struct cst_core *c, uint64_t off, uint64_t size, uint64_t pos);
static void beside_finish(struct cst_core *c, int rc);

/* The notes of the PT_NOTE at file offset OFF (SIZE bytes, gABI "Note Section": namesz,
 * descsz, type as 4-byte words, then the name and the descriptor, each padded to 4 bytes)
 * from offset POS in it, read in order through R: only those named "CORE" or "LINUX".
 * Returns 0 at their end (or when a child process took over the rest: beside_start), or
 * parse_note's error. */
static int parse_notes_from(struct cst_core *c, struct note_reader *r, uint64_t off, uint64_t size,
			    uint64_t pos)
{
	int rc = 0;
	while (pos < size && rc == 0) {
		if (beside_start(c, off, size, pos))
			return 0;
		const uint8_t *h = size - pos >= 12 ? note_bytes(c, r, off + pos, 12) : NULL;
		if (size - pos >= 12 && !h) {
			rc = -CST_E_TRUNCATED;
			break;
		}
		uint64_t namesz = h ? rd(c, h, 4) : 0, descsz = h ? rd(c, h + 4, 4) : 0;
		uint32_t type = h ? (uint32_t)rd(c, h + 8, 4) : 0;
		uint64_t name_at = pos + 12, desc_at = NOTE_ALIGN4(name_at + namesz);
		if (!h || namesz > size - name_at || desc_at > size || descsz > size - desc_at) {
			cst_core_warn(c, "malformed note at offset %llu; the notes after it are ignored",
			     (unsigned long long)(off + pos));
			break;
		}
		pos = NOTE_ALIGN4(desc_at + descsz);
		note_skipped(r, off + pos, descsz);
		if (namesz != 5 && namesz != 6)
			continue;
		const uint8_t *name = note_bytes(c, r, off + name_at, namesz);
		if (!name) {
			rc = -CST_E_TRUNCATED;
			break;
		}
		if ((namesz == 5 && memcmp(name, "CORE", 5) == 0) || (namesz == 6 && memcmp(name, "LINUX", 6) == 0))
			rc = parse_note(c, r, type, off + desc_at, descsz);
	}
	return rc;
}

/* The notes of PT_NOTE PH, read in order through a window of the file, never whole. */
static int parse_notes(struct cst_core *c, const GElf_Phdr *ph)
{
	uint64_t off = ph->p_offset, size = ph->p_filesz;
	if (off >= c->size) {
		cst_core_warn(c, "PT_NOTE at offset %llu lies beyond the end of the file", (unsigned long long)off);
		return 0;
	}
	if (size > c->size - off) {
		cst_core_warn(c, "PT_NOTE claims %llu bytes but the file has %llu; notes cut",
		     (unsigned long long)size, (unsigned long long)(c->size - off));
		size = c->size - off;
	}
	struct note_reader r = { .buf = malloc(NOTE_WINDOW), .group = off };
	if (!r.buf)
		return -CST_E_NOMEM;
	c->notes_end = off + size;
	int rc = parse_notes_from(c, &r, off, size, 0);
	beside_finish(c, rc);    /* in the child: never returns */
	free(r.buf);
	return rc;
}

static int cmp_tid(const void *a, const void *b)
{
	const struct thread_index *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The N threads at T in tid order, threads of one tid in the order they came: a radix sort,
 * a byte of the tid at a time (a stable sort, as glibc's qsort is, without a call per
 * comparison); qsort when there is no memory for the copy. */
static void sort_threads(struct thread_index *t, size_t n)
{
	struct thread_index *tmp = n > 1 ? malloc(n * sizeof *tmp) : NULL;
	if (!tmp) {
		if (n > 1)
			qsort(t, n, sizeof *t, cmp_tid);
		return;
	}
	struct thread_index *from = t, *to = tmp;
	for (unsigned shift = 0; shift < 32; shift += 8) {
		size_t count[257] = { 0 };
		for (size_t i = 0; i < n; i++)   /* the sign bit flipped: negative tids first */
			count[(((uint32_t)from[i].tid ^ 0x80000000u) >> shift & 0xff) + 1]++;
		for (unsigned k = 1; k < 257; k++)
			count[k] += count[k - 1];
		for (size_t i = 0; i < n; i++)
			to[count[((uint32_t)from[i].tid ^ 0x80000000u) >> shift & 0xff]++] = from[i];
		struct thread_index *x = from;
		from = to;
		to = x;
	}
	free(tmp);     /* four passes: the sorted threads are back in T */
}

/* ---- the notes read beside the first walk ----------------------------------------- */

/* A core's notes hold a group of notes for each thread, each group on pages of the page
 * cache that nothing touched since the core was read: on a core of thousands of threads the
 * note pass is a good part of the time before the first thread is printed.  With
 * cst_core_options.notes_beside, a child process reads the notes past the second thread's
 * while the caller walks the first thread, and the first call that needs the other threads
 * (or the warnings) waits for it: beside_join.
 *
 * The child can change nothing but the threads and the warnings: it starts only once every
 * note of the process was read (NT_PRPSINFO, NT_SIGINFO, NT_AUXV, NT_FILE: the first of each
 * counts), so that the first walk is told what it would have been told after the whole
 * pass. */

/* Bytes of notes left for the child to be worth its start (a fork): 2,500 threads with
 * AVX-512's notes, 700 with AMX's (bench/README.md). */
#define BESIDE_MIN_BYTES (8u << 20)

/* What the child writes first into the memfd.  Then, at page boundaries for the parent to
 * map them: all the threads' index entries, in their final order (finish_threads), at
 * BESIDE_ALIGN; their kept registers in that order at beside_kept_at; and after those, for
 * each warning of the child's, its length (uint32_t) and bytes. */
struct beside_head {
	int32_t rc;              /* parse_notes_from's */
	uint32_t nwarnings;      /* the child's own */
	uint64_t nthreads, nkept;    /* all of them */
};
#define BESIDE_ALIGN 4096u

static uint64_t beside_kept_at(uint64_t nthreads)
{
	return (BESIDE_ALIGN + nthreads * sizeof(struct thread_index) + BESIDE_ALIGN - 1) & ~(uint64_t)(BESIDE_ALIGN - 1);
}

/* The threads past the first two in tid order, their kept registers in that order. */
static void finish_threads(struct cst_core *c)
{
	/* The dumping thread stays first (see cst_core_thread); the others follow in tid order. */
	if (c->nthreads > 2)
		sort_threads(c->threads + 1, c->nthreads - 1);
	order_kept(c);
}

/* FD moved to a descriptor above standard error, closing FD (a process started with one of
 * 0-2 closed would get it, and the messages meant for stderr would go into it); FD itself
 * when it is above already or negative, -1 when it cannot be moved. */
static int above_stdio(int fd)
{
	if (fd < 0 || fd > STDERR_FILENO)
		return fd;
	int moved = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	close(fd);
	return moved;
}

/* Starts the child that reads the notes of the PT_NOTE at file offset OFF (SIZE bytes) from
 * offset POS in it, when it is allowed and worth it (once, after the second thread).  Returns
 * true in the parent when the child took over; false when none was started, and in the
 * child, which goes on reading. */
static bool beside_start(struct cst_core *c, uint64_t off, uint64_t size, uint64_t pos)
{
	struct beside *b = &c->beside;
	if (b->mode == CST_NOTES_HERE || b->tried || c->nthreads != 2)
		return false;
	b->tried = true;
	bool always = b->mode != CST_NOTES_BESIDE;
	if ((!always && size - pos < BESIDE_MIN_BYTES) || !c->prpsinfo || !c->signal.present || !c->auxv ||
	    !c->file_note)
		return false;
	/* another CPU for it: the child runs off the parent's CPU, to start at once (as
	 * coredump/workers.c's processes) */
	cpu_set_t cpus;
	int cpu = sched_getcpu();
	bool placed = sched_getaffinity(0, sizeof cpus, &cpus) == 0 && cpu >= 0 && CPU_ISSET(cpu, &cpus) &&
		      CPU_COUNT(&cpus) > 1;
	if (!placed && !always)
		return false;
	if (placed)
		CPU_CLR(cpu, &cpus);
	int fd = above_stdio(memfd_create("corestack-notes", MFD_CLOEXEC)), done[2] = { -1, -1 };
	if (fd < 0 || pipe2(done, O_CLOEXEC) < 0 || (done[0] = above_stdio(done[0])) < 0 ||
	    (done[1] = above_stdio(done[1])) < 0) {
		if (fd >= 0)
			close(fd);
		if (done[0] >= 0)
			close(done[0]);
		if (done[1] >= 0)
			close(done[1]);
		return false;
	}
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		close(fd);
		close(done[0]);
		close(done[1]);
		return false;
	}
	/* the child off the parent's CPU at once, by itself: run first there, it would keep the
	 * parent from running until the load balancer moved one of them */
	if (pid == 0 && placed)
		(void)sched_setaffinity(0, sizeof cpus, &cpus);
	*b = (struct beside){ .mode = b->mode, .tried = true, .child = pid == 0, .pid = pid, .fd = fd,
			      .done = done[pid == 0], .off = off, .size = size, .pos = pos,
			      .nwarnings = c->nwarnings };
	close(done[pid != 0]);
	if (pid == 0) {
		/* killed with the parent, even when it is killed from outside */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent || b->mode == CST_NOTES_BESIDE_FAILING)
			_exit(1);
		/* a file-size limit (ulimit -f) fails the memfd's writes with EFBIG, not the
		 * process with SIGXFSZ's core dump */
		signal(SIGXFSZ, SIG_IGN);
		return false;
	}
	if (placed)
		(void)sched_setaffinity(pid, sizeof cpus, &cpus);
	return true;
}

static bool pwrite_all(int fd, const void *p, size_t n, uint64_t *at)
{
	while (n) {
		ssize_t w = pwrite(fd, p, n, (off_t)*at);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p = (const char *)p + w;
		n -= (size_t)w;
		*at += (uint64_t)w;
	}
	return true;
}

/* In the child, once its notes are read (RC parse_notes_from's): puts the threads in order,
 * writes them and its warnings, and exits, with status 0 when all of it was written.  In any
 * other process nothing. */
static void beside_finish(struct cst_core *c, int rc)
{
	struct beside *b = &c->beside;
	if (!b->child)
		return;
	if (rc == 0)
		finish_threads(c);
	struct beside_head h = { .rc = rc, .nwarnings = (uint32_t)(c->nwarnings - b->nwarnings),
				 .nthreads = c->nthreads, .nkept = c->kept.n };
	size_t words = kept_words(c);
	uint64_t at = 0, threads_at = BESIDE_ALIGN, kept_at = beside_kept_at(h.nthreads);
	bool ok = pwrite_all(b->fd, &h, sizeof h, &at) &&
		  pwrite_all(b->fd, c->threads, h.nthreads * sizeof *c->threads, &threads_at) &&
		  pwrite_all(b->fd, c->kept.w, h.nkept * words * sizeof *c->kept.w, &kept_at);
	at = kept_at;
	for (size_t i = b->nwarnings; ok && i < c->nwarnings; i++) {
		uint32_t len = (uint32_t)strlen(c->warnings[i]);
		ok = pwrite_all(b->fd, &len, sizeof len, &at) && pwrite_all(b->fd, c->warnings[i], len, &at);
	}
	/* the parent goes on at this byte, not at the exit, which first takes this process's
	 * memory apart */
	if (ok)
		(void)!write(b->done, "", 1);
	_exit(ok ? 0 : 1);
}

static bool pread_all(int fd, void *p, size_t n, uint64_t *at)
{
	ssize_t got = pread(fd, p, n, (off_t)*at);
	*at += n;
	return got == (ssize_t)n;
}

/* The child's results taken into C: its arrays mapped in place of C's, its warnings kept.
 * Returns 0, or -1 when they cannot be (C is left as it was). */
static int beside_read(struct cst_core *c)
{
	struct beside *b = &c->beside;
	struct beside_head h;
	uint64_t at = 0;
	size_t words = kept_words(c);
	struct stat st;
	if (!pread_all(b->fd, &h, sizeof h, &at) || h.rc != 0 || h.nthreads < c->nthreads ||
	    h.nthreads > MAX_THREADS || h.nkept > h.nthreads || h.nwarnings > MAX_WARNINGS)
		return -1;
	uint64_t kept_at = beside_kept_at(h.nthreads), kept_bytes = h.nkept * words * sizeof *c->kept.w;
	/* what is mapped must be in the file: a page past its end is SIGBUS when read */
	if (kept_bytes > MAX_KEPT_REGS || fstat(b->fd, &st) < 0 || (uint64_t)st.st_size < kept_at + kept_bytes)
		return -1;
	at = kept_at + kept_bytes;
	char *warned[MAX_WARNINGS];
	size_t nw = 0;
	for (; nw < h.nwarnings; nw++) {
		uint32_t len;
		if (!pread_all(b->fd, &len, sizeof len, &at) || len > 4096 || !(warned[nw] = malloc(len + 1)))
			break;
		if (!pread_all(b->fd, warned[nw], len, &at)) {
			free(warned[nw]);
			break;
		}
		warned[nw][len] = 0;
	}
	/* one mapping of the threads and their registers, read-only: nothing changes them now */
	void *m = nw == h.nwarnings ? mmap(NULL, (size_t)(kept_at + kept_bytes), PROT_READ, MAP_SHARED, b->fd, 0)
				    : MAP_FAILED;
	bool ok = m != MAP_FAILED;
	struct thread_index *threads = ok ? (struct thread_index *)((char *)m + BESIDE_ALIGN) : NULL;
	for (size_t i = 0; ok && i < h.nthreads; i++)
		ok = threads[i].kept <= h.nkept && threads[i].len <= DESC_READ;
	if (!ok) {
		if (m != MAP_FAILED)
			munmap(m, (size_t)(kept_at + kept_bytes));
		while (nw)
			free(warned[--nw]);
		return -1;
	}
	free(c->threads);
	free(c->kept.w);
	c->threads = threads;
	c->nthreads = c->cap_threads = (size_t)h.nthreads;
	c->kept = (struct kept_regs){ .w = (uint64_t *)((char *)m + kept_at), .n = (size_t)h.nkept,
				      .cap = (size_t)h.nkept };
	c->mapped = (size_t)(kept_at + kept_bytes);
	for (size_t i = 0; i < nw; i++)
		keep_warning(c, warned[i]);
	return 0;
}

/* Waits for the child's byte, if a child reads the notes, and takes its threads and
 * warnings (it is reaped by cst_core_close, or left to the exit: its own exit first takes
 * its memory apart).  The warnings said since it started (by the first walk) go after those
 * of the notes, as they would have without it.  When the child failed, the notes it was to read are read
 * here; when that fails too (the file shrank since it was opened), a warning says so and the
 * threads found before are kept: the first thread may have been printed already. */
static void beside_join(struct cst_core *c)
{
	struct beside *b = &c->beside;
	if (!b->pid || b->child || b->joined)
		return;
	b->joined = true;
	char byte;
	ssize_t got;
	while ((got = read(b->done, &byte, 1)) < 0 && errno == EINTR)
		;
	close(b->done);
	char *later[MAX_WARNINGS];
	size_t nlater = c->nwarnings - b->nwarnings;
	memcpy(later, c->warnings + b->nwarnings, nlater * sizeof *later);
	c->nwarnings = b->nwarnings;
	if (got != 1 || beside_read(c) < 0) {
		b->failed = true;
		/* it exits once it wrote the byte, or has (the pipe's end closed) */
		while (waitpid(b->pid, &b->status, 0) < 0 && errno == EINTR)
			;
		b->reaped = true;
		struct note_reader r = { .buf = malloc(NOTE_WINDOW), .group = b->off + b->pos };
		c->notes_end = b->off + b->size;
		int rc = r.buf ? parse_notes_from(c, &r, b->off, b->size, b->pos) : -CST_E_NOMEM;
		free(r.buf);
		if (rc < 0)
			cst_core_warn(c, "the notes past offset %llu could not be read (%s); the threads there are left out",
				      (unsigned long long)(b->off + b->pos), cst_strerror(rc));
		finish_threads(c);
	}
	for (size_t i = 0; i < nlater; i++)
		keep_warning(c, later[i]);
	close(b->fd);
}

/* ---- segments the file does not hold --------------------------------------------- */

static int cmp_load_offset(const void *a, const void *b)
{
	const struct load *x = *(const struct load *const *)a, *y = *(const struct load *const *)b;
	return (x->offset > y->offset) - (x->offset < y->offset);
}

/* Says why PT_LOAD bytes are missing.  The kernel writes a core's segments one after the
 * other, so a file cut short loses the tail of the last ones; a header whose bytes would
 * run into the next segment's (or past 2^64) cannot describe any file and is named as such,
 * not blamed on a truncation.  None of an impossible segment's bytes are read from the core
 * (its avail becomes 0): which of them, if any, are its own cannot be told, and the
 * next segment's bytes read at its addresses would be a wrong stack or wrong code.  Its
 * addresses read as a segment the core left out: from the file NT_FILE maps there, if any.
 * Returns 0 or -CST_E_NOMEM. */
static int check_cut_loads(struct cst_core *c)
{
	struct load **by_off = malloc((c->nloads ? c->nloads : 1) * sizeof *by_off);
	if (!by_off)
		return -CST_E_NOMEM;
	size_t n = 0, cut = 0, impossible = 0;
	for (size_t i = 0; i < c->nloads; i++)
		if (c->loads[i].claimed > 0)
			by_off[n++] = &c->loads[i];
	sort_unless_sorted(by_off, n, sizeof *by_off, cmp_load_offset);
	uint64_t need = 0;
	const struct load *first_bad = NULL;
	uint64_t first_bad_next = 0;
	for (size_t k = 0; k < n; k++) {
		struct load *l = by_off[k];
		uint64_t end = l->offset + l->claimed;
		size_t j = k + 1;
		while (j < n && by_off[j]->offset == l->offset)
			j++;
		if (end < l->offset || (j < n && end > by_off[j]->offset)) {
			if (!impossible++) {
				first_bad = l;
				first_bad_next = j < n ? by_off[j]->offset : 0;
			}
			l->avail = 0;
			continue;
		}
		if (end > need)
			need = end;
		if (l->avail < l->claimed)
			cut++;
	}
	free(by_off);
	if (first_bad)
		cst_core_warn(c, "program header %zu (PT_LOAD at 0x%llx) is impossible: %llu bytes at file offset "
			      "%llu %s; its memory is left out%s", first_bad->phdr,
			      (unsigned long long)first_bad->vaddr, (unsigned long long)first_bad->claimed,
			      (unsigned long long)first_bad->offset,
			      first_bad_next ? "run into the next segment's bytes" : "run past 2^64",
			      impossible > 1 ? " (and so are other program headers)" : "");
	if (cut)
		cst_core_warn(c, "file is truncated: it has %llu bytes, its program headers describe %llu; "
			      "%zu memory segment(s) missing or cut", (unsigned long long)c->size,
			      (unsigned long long)need, cut);
	return 0;
}

/* ---- open ------------------------------------------------------------------------ */

static int open_elf(struct cst_core *c, const char *path, int fd, char *err, size_t errlen)
{
	c->fd = fd > 0 ? fd : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (c->fd < 0) {
		int e = errno;
		return cst_fail(err, errlen, e == ENOENT ? -CST_E_NOENT : e == EACCES ? -CST_E_PERM : -CST_E_IO,
			    "%s", strerror(e));
	}
	struct stat st;
	if (fstat(c->fd, &st) < 0 || !S_ISREG(st.st_mode))
		return cst_fail(err, errlen, -CST_E_IO, "not a regular file");
	/* A file that begins like an ELF file but ends before its header is a cut core. */
	unsigned char ident[EI_NIDENT] = { 0 };
	ssize_t got = pread(c->fd, ident, sizeof ident, 0);
	size_t ehdr = got > EI_CLASS && ident[EI_CLASS] == ELFCLASS32 ? sizeof(Elf32_Ehdr) : sizeof(Elf64_Ehdr);
	if (got >= (ssize_t)SELFMAG && memcmp(ident, ELFMAG, SELFMAG) == 0 && (uint64_t)st.st_size < ehdr)
		return cst_fail(err, errlen, -CST_E_TRUNCATED,
				"file is truncated: %lld bytes, shorter than the ELF header (%zu bytes)",
				(long long)st.st_size, ehdr);
	if (st.st_size < EI_NIDENT)
		return cst_fail(err, errlen, -CST_E_NOT_ELF, "not an ELF file (%lld bytes)",
			    (long long)st.st_size);
	c->size = (uint64_t)st.st_size;
	/* Not mapped: libelf reads the headers and each note segment with pread into memory of
	 * its own, so a file that shrinks while it is read gives short reads, never SIGBUS. */
	elf_version(EV_CURRENT);
	c->elf = elf_begin(c->fd, ELF_C_READ, NULL);
	if (!c->elf || elf_kind(c->elf) != ELF_K_ELF)
		return cst_fail(err, errlen, -CST_E_NOT_ELF, "not an ELF file");
	GElf_Ehdr eh;
	if (!gelf_getehdr(c->elf, &eh))
		return cst_fail(err, errlen, -CST_E_TRUNCATED, "ELF header unreadable: %s", elf_errmsg(-1));
	if (eh.e_type != ET_CORE)
		return cst_fail(err, errlen, -CST_E_NOT_CORE, "an ELF %s, not a core file",
			    eh.e_type == ET_EXEC ? "executable" : eh.e_type == ET_DYN ?
			    "shared object or PIE executable" : eh.e_type == ET_REL ? "object file" : "file");
	int cls = eh.e_ident[EI_CLASS];
	c->arch = cst_arch_find(eh.e_machine, cls);
	if (!c->arch)
		return cst_fail(err, errlen, -CST_E_ARCH, "core of an unsupported architecture (e_machine %u, %s)",
			    eh.e_machine, cls == ELFCLASS64 ? "64-bit" : cls == ELFCLASS32 ? "32-bit" : "bad class");
	int data = eh.e_ident[EI_DATA];
	if (data != (c->arch->big_endian ? ELFDATA2MSB : ELFDATA2LSB))
		return cst_fail(err, errlen, -CST_E_CLASS, "byte order does not match e_machine %u", eh.e_machine);
	return 0;
}

/* Program header I of C into *PH: from PHDRS (a 64-bit core's headers as libelf holds them)
 * when there are, else through gelf; false when gelf cannot read it. */
static bool phdr_at(struct cst_core *c, const Elf64_Phdr *phdrs, size_t i, GElf_Phdr *ph)
{
	if (phdrs) {
		*ph = phdrs[i];
		return true;
	}
	return gelf_getphdr(c->elf, (int)i, ph) != NULL;
}

int cst_core_open(const char *path, const struct cst_core_options *opt, struct cst_core **out,
		 char *err, size_t errlen)
{
	struct cst_core *c = calloc(1, sizeof *c);
	if (!c)
		return cst_fail(err, errlen, -CST_E_NOMEM, "out of memory");
	c->fd = -1;
	c->sysroot_fd = -1;
	c->residency.probe = true;
	*out = NULL;
	int rc = open_elf(c, path, opt ? opt->fd : 0, err, errlen);
	if (rc < 0)
		goto bad;
	c->beside.mode = opt ? opt->notes_beside : CST_NOTES_HERE;
	if (opt && opt->sysroot) {
		c->sysroot = strdup(opt->sysroot);
		c->sysroot_fd = open(opt->sysroot, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (!c->sysroot || c->sysroot_fd < 0) {
			rc = cst_fail(err, errlen, -CST_E_NOENT, "--sysroot %s: %s", opt->sysroot,
				      c->sysroot ? strerror(errno) : "out of memory");
			goto bad;
		}
	}

	size_t nph;
	if (elf_getphdrnum(c->elf, &nph) < 0) {
		rc = cst_fail(err, errlen, -CST_E_TRUNCATED, "program headers unreadable: %s", elf_errmsg(-1));
		goto bad;
	}
	GElf_Ehdr eh;
	gelf_getehdr(c->elf, &eh);
	if (eh.e_phoff >= c->size || nph > (c->size - eh.e_phoff) / (eh.e_phentsize ? eh.e_phentsize : 1)) {
		rc = cst_fail(err, errlen, -CST_E_TRUNCATED, "program headers (%zu at offset %llu) lie beyond the end of the file",
			  nph, (unsigned long long)eh.e_phoff);
		goto bad;
	}
	/* every field of a load is set below: no clearing */
	c->loads = malloc((nph ? nph : 1) * sizeof *c->loads);
	if (!c->loads) {
		rc = cst_fail(err, errlen, -CST_E_NOMEM, "out of memory");
		goto bad;
	}
	/* the headers of a 64-bit core as libelf holds them, without a copy through gelf for
	 * each of its thousands of segments */
	const Elf64_Phdr *phdrs = gelf_getclass(c->elf) == ELFCLASS64 ? elf64_getphdr(c->elf) : NULL;
	/* The segments first, then the notes: the notes' child (beside_start) shares with this
	 * process, copy-on-write, every page written before it starts, and the segments' table
	 * filled after it would be copied page by page (check_cut_loads, after the notes,
	 * writes to it only for an impossible segment).  The notes are read beside the first
	 * walk only from a core's one PT_NOTE: a second one would be read before the first's
	 * end. */
	size_t notes = 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!phdr_at(c, phdrs, i, &ph))
			continue;
		if (ph.p_type == PT_NOTE && ++notes > 1)
			c->beside.mode = CST_NOTES_HERE;
		if (ph.p_type != PT_LOAD || ph.p_memsz == 0)
			continue;
		struct load *l = &c->loads[c->nloads];
		l->vaddr = ph.p_vaddr;
		l->memsz = ph.p_memsz;
		if (l->vaddr + l->memsz < l->vaddr)
			l->memsz = UINT64_MAX - l->vaddr;
		l->offset = ph.p_offset;
		uint64_t fs = ph.p_filesz < ph.p_memsz ? ph.p_filesz : ph.p_memsz;
		l->claimed = fs;
		l->phdr = i;
		l->exec = (ph.p_flags & PF_X) != 0;
		if (l->offset >= c->size)
			fs = 0;
		else if (fs > c->size - l->offset)
			fs = c->size - l->offset;
		l->avail = fs;
		c->nloads++;
	}
	for (size_t i = 0; notes && i < nph; i++) {
		GElf_Phdr ph;
		if (!phdr_at(c, phdrs, i, &ph))
			continue;
		if (ph.p_type == PT_NOTE && (rc = parse_notes(c, &ph)) < 0) {
			if (rc == -CST_E_TRUNCATED)
				cst_fail(err, errlen, rc, "file is truncated: it shrank while its notes "
					 "(PT_NOTE at offset %llu) were read",
					 (unsigned long long)ph.p_offset);
			else
				cst_fail(err, errlen, rc, "%s", cst_strerror(rc));
			goto bad;
		}
	}
	if ((rc = check_cut_loads(c)) < 0) {
		cst_fail(err, errlen, rc, "out of memory");
		goto bad;
	}
	sort_unless_sorted(c->loads, c->nloads, sizeof *c->loads, cmp_load);
	if (c->nthreads == 0) {
		rc = cst_fail(err, errlen, -CST_E_NO_THREADS, "no usable NT_PRSTATUS note: no threads to unwind%s",
			  c->nwarnings ? " (the notes are damaged)" : "");
		goto bad;
	}
	if (!c->beside.pid)
		finish_threads(c);      /* else when the child is joined */
	if (!c->pid)
		c->pid = c->threads[0].tid;

	c->target.ops = &core_target_ops;
	c->target.priv = c;
	c->target.big_endian = c->arch->big_endian;

	/* The main executable: the mapping that holds the entry point. */
	uint64_t entry;
	if (cst_core_auxv(c, AT_ENTRY, &entry)) {
		ptrdiff_t i = UPPER_BOUND(c->maps, c->nmaps, start, entry);
		if (i >= 0 && entry < c->maps[i].end)
			c->exe_recorded = c->maps[i].name;
	}
	c->exe_given = opt && opt->executable;
	if (c->exe_given)
		c->executable = strdup(opt->executable);
	else if (c->exe_recorded)
		c->executable = strdup(cst_core_local_path(c, c->exe_recorded));
	*out = c;
	return 0;
bad:
	cst_core_close(c);
	return rc;
}

void cst_core_close(struct cst_core *c)
{
	if (!c)
		return;
	if (c->beside.pid > 0 && !c->beside.child) {
		if (!c->beside.joined) {
			kill(c->beside.pid, SIGKILL);
			close(c->beside.fd);
			close(c->beside.done);
		}
		while (!c->beside.reaped && waitpid(c->beside.pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	for (size_t i = 0; i < c->nfiles; i++) {
		if (c->files[i].elf)
			elf_end(c->files[i].elf);
		if (c->files[i].map)
			munmap(c->files[i].map, (size_t)c->files[i].size);
		if (c->files[i].fd >= 0)
			close(c->files[i].fd);
		free(c->files[i].local);
		free(c->files[i].err);
	}
	free(c->file_slot);
	for (size_t i = 0; i < c->nwarnings; i++)
		free(c->warnings[i]);
	free(c->files);
	free(c->maps);
	free(c->loads);
	free(c->blocks);
	free(c->file_blocks);
	if (c->mapped)           /* one mapping, at BESIDE_ALIGN before the threads */
		munmap((char *)c->threads - BESIDE_ALIGN, c->mapped);
	else {
		free(c->threads);
		free(c->kept.w);
	}
	free(c->auxv);
	free(c->file_note);
	free(c->executable);
	free(c->sysroot);
	if (c->sysroot_fd >= 0)
		close(c->sysroot_fd);
	if (c->elf)
		elf_end(c->elf);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

/* ---- accessors ------------------------------------------------------------------- */

Elf *cst_core_elf(struct cst_core *c) { return c->elf; }
const struct cst_arch *cst_core_arch(const struct cst_core *c) { return c->arch; }
struct cst_target *cst_core_target(struct cst_core *c) { return &c->target; }
size_t cst_core_nthreads(struct cst_core *c)
{
	beside_join(c);
	return c->nthreads;
}

/* Thread I's registers into *REGS: the kept ones, or those of its NT_PRSTATUS read again
 * (none valid when the file shrank since it was opened). */
static void thread_regs(struct cst_core *c, size_t i, struct cst_regs *regs)
{
	const struct thread_index *x = &c->threads[i];
	if (x->kept) {
		const uint64_t *w = c->kept.w + (size_t)(x->kept - 1) * kept_words(c);
		cst_regs_clear(regs);
		regs->valid[0] = w[0];
		memcpy(regs->val, w + 1, (size_t)c->arch->nregs * sizeof *w);
		return;
	}
	uint8_t d[DESC_READ];
	int tid, cursig;
	if (pread(c->fd, d, x->len, (off_t)x->desc) != (ssize_t)x->len ||
	    c->arch->prstatus(d, x->len, regs, &tid, &cursig) < 0)
		cst_regs_clear(regs);
}

/* Threads after the one handed out whose stacks are advised while the core is cold: enough
 * reads in flight for the disk to serve many at once, few enough that the pages advised
 * stay in the page cache until their walks. */
#define PREFETCH_THREADS 64
/* Bytes of a stack above its stack pointer whose blocks are advised: a walk reads a stack
 * upwards from there, most of them within the block that holds the stack pointer, and the
 * kernel reads ahead of a deeper one.  A block more for every thread costs more than the
 * few walks that need it lose. */
#define PREFETCH_BYTES 1024

/* Asks the kernel to read the stacks of threads I .. I + PREFETCH_THREADS - 1 of a cold
 * core into the page cache (posix_fadvise POSIX_FADV_WILLNEED, which starts the reads and
 * does not wait for them), each thread at most once, so that the disk serves the stack
 * reads of the walks to come while the walks before them go on.  A stack is found at its
 * stack pointer plus the stack bias (SPARC V9: the register window save area is at
 * %sp + 2047). */
static void prefetch_stacks(struct cst_core *c, size_t i)
{
	size_t to = c->nthreads - i > PREFETCH_THREADS ? i + PREFETCH_THREADS : c->nthreads;
	size_t last_load = c->last_load;   /* the walk's, kept for its next read */
	for (size_t j = c->advised > i ? c->advised : i; j < to; j++) {
		struct cst_regs regs;
		thread_regs(c, j, &regs);
		uint64_t sp, off;
		if (!cst_reg_get(&regs, c->arch->sp_reg, &sp))
			continue;
		size_t n = load_span(c, sp + c->arch->stack_bias, &off);
		if (n == 0)
			continue;
		if (n > PREFETCH_BYTES)
			n = PREFETCH_BYTES;
		uint64_t from = off >> BLOCK_SHIFT << BLOCK_SHIFT, len = off + n - from;
		if (posix_fadvise(c->fd, (off_t)from, (off_t)len, POSIX_FADV_WILLNEED) == 0)
			c->prefetched++;
	}
	c->last_load = last_load;
	if (to > c->advised)
		c->advised = to;
}

const struct cst_core_thread *cst_core_thread(struct cst_core *c, size_t i)
{
	if (i != 0 || c->residency.cold)
		beside_join(c);
	if (i >= c->nthreads)
		return NULL;
	if (c->residency.cold)
		prefetch_stacks(c, i);
	else if (i % PROBE_EVERY == 0)
		c->residency.probe = true;
	const struct thread_index *x = &c->threads[i];
	struct cst_core_thread *t = &c->thread;
	*t = (struct cst_core_thread){
		.tid = x->tid, .cursig = x->cursig,
		/* the kernel writes the dumping thread first; it is the crashed one when it
		 * carries a signal */
		.crashed = i == 0 && cst_core_is_crash(c),
	};
	thread_regs(c, i, &t->regs);
	return t;
}

size_t cst_core_prefetched(const struct cst_core *c) { return c->prefetched; }
bool cst_core_cold(const struct cst_core *c) { return c->residency.cold; }
const struct cst_core_signal *cst_core_signal(const struct cst_core *c) { return &c->signal; }
bool cst_core_is_crash(const struct cst_core *c)
{
	int signo = c->signal.present ? c->signal.signo : c->nthreads ? c->threads[0].cursig : 0;
	int host = c->arch->generic_signal ? c->arch->generic_signal(signo) : signo;
	return signo != 0 && host != SIGSTOP;
}
int cst_core_pid(const struct cst_core *c) { return c->pid; }
const char *cst_core_fname(const struct cst_core *c) { return c->fname; }
const char *cst_core_psargs(const struct cst_core *c) { return c->psargs; }
const char *cst_core_executable(const struct cst_core *c) { return c->executable; }
size_t cst_core_nmappings(const struct cst_core *c) { return c->nmaps; }
const struct cst_core_mapping *cst_core_mapping(const struct cst_core *c, size_t i)
{
	return i < c->nmaps ? &c->maps[i] : NULL;
}
const char *cst_core_notes_read(struct cst_core *c)
{
	beside_join(c);
	struct beside *b = &c->beside;
	if (!b->pid || !b->failed)
		return !b->pid ? "here" : "child";
	if (b->reaped && WIFSIGNALED(b->status))
		snprintf(b->how, sizeof b->how, "child failed (killed by signal %d)", WTERMSIG(b->status));
	else
		snprintf(b->how, sizeof b->how, "child failed");
	return b->how;
}

size_t cst_core_nwarnings(struct cst_core *c)
{
	beside_join(c);
	return c->nwarnings;
}
const char *cst_core_warning(struct cst_core *c, size_t i)
{
	beside_join(c);
	return i < c->nwarnings ? c->warnings[i] : NULL;
}

bool cst_core_auxv(const struct cst_core *c, uint64_t type, uint64_t *val)
{
	unsigned w = c->arch->addr_size;
	for (size_t off = 0; off + 2 * w <= c->auxv_size; off += 2 * w) {
		uint64_t t = rd(c, c->auxv + off, w);
		if (t == 0)
			break;
		if (t == type) {
			*val = rd(c, c->auxv + off + w, w);
			return true;
		}
	}
	return false;
}

/* True when FD is not an ELF file of another class than the core (a 64-bit library for a
 * 32-bit core). */
static bool fits_core(const struct cst_core *c, int fd)
{
	unsigned char id[EI_NIDENT];
	if (pread(fd, id, sizeof id, 0) == (ssize_t)sizeof id && memcmp(id, ELFMAG, SELFMAG) == 0)
		return id[EI_CLASS] == c->arch->elf_class;
	return true;
}

/* RECORDED (an absolute path on the machine that dumped) under --sysroot, resolved inside
 * it.  When it is not there, or is of the other ELF class, the same file name in the
 * sysroot's library directories of the core's class: Debian's cross sysroots keep a sparc64
 * system's /lib/sparc64-linux-gnu and /lib64 libraries in lib/, and 32-bit ones in lib32/. */
static int open_in_sysroot(struct cst_core *c, const char *recorded, struct stat *st, char *path,
			   size_t pathlen, char *err, size_t errlen)
{
	static const char *const dirs64[] = { "/lib64/", "/lib/", "/usr/lib64/", "/usr/lib/", NULL };
	static const char *const dirs32[] = { "/lib32/", "/lib/", "/usr/lib32/", "/usr/lib/", NULL };
	int fd = cst_open_regular_in_root(c->sysroot_fd, c->sysroot, recorded, st, path, pathlen, err, errlen);
	if (fd >= 0 && fits_core(c, fd))
		return fd;
	const char *base = strrchr(recorded, '/') + 1;
	for (const char *const *d = c->arch->addr_size == 8 ? dirs64 : dirs32; *d; d++) {
		char try[PATH_MAX], tpath[PATH_MAX], terr[128];
		struct stat tst;
		snprintf(try, sizeof try, "%s%s", *d, base);
		int t = cst_open_regular_in_root(c->sysroot_fd, c->sysroot, try, &tst, tpath, sizeof tpath,
						 terr, sizeof terr);
		if (t < 0)
			continue;
		if (!fits_core(c, t)) {
			close(t);
			continue;
		}
		if (fd >= 0)
			close(fd);
		*st = tst;
		snprintf(path, pathlen, "%s", tpath);
		return t;
	}
	if (fd < 0)                  /* for messages: where it was looked for */
		snprintf(path, pathlen, "%s%s", c->sysroot, recorded);
	return fd;
}

const char *cst_core_exe_option(const struct cst_core *c, const char *recorded)
{
	return c->exe_given && c->exe_recorded && c->executable && strcmp(recorded, c->exe_recorded) == 0 ?
	       c->executable : NULL;
}

int cst_core_exe_option_rejected(struct cst_core *c, const char *path)
{
	char *used = strdup(path);
	if (!used)
		return -CST_E_NOMEM;
	free(c->executable);
	c->executable = used;
	c->exe_given = false;
	/* the -e file opened for the executable's mappings gives way to the one the core names */
	struct mapped_file *f = c->exe_recorded ? recorded_file(c, c->exe_recorded) : NULL;
	if (f && f->tried) {
		/* the handle, mapping and cached blocks are the -e file's, and the named file
		 * takes its index, which tags blocks in the cache; a handle someone still holds
		 * keeps its mapping */
		bool unmap = !f->elf || elf_end(f->elf) == 0;
		if (f->map && unmap)
			munmap(f->map, (size_t)f->size);
		uint32_t src = (uint32_t)(f - c->files) + 1;
		for (unsigned k = 0; c->file_blocks && k < NBLOCKS; k++)
			if (c->file_blocks->src[k] == src)
				c->file_blocks->block[k] = 0;
		if (f->fd >= 0)
			close(f->fd);
		free(f->local);
		free(f->err);
		*f = (struct mapped_file){ .recorded = f->recorded, .fd = -1 };
	}
	return 0;
}

static int open_file(struct cst_core *c, const char *recorded, struct stat *st, char *path,
		     size_t pathlen, char *err, size_t errlen)
{
	if (c->exe_given && c->exe_recorded && c->executable && strcmp(recorded, c->exe_recorded) == 0) {
		snprintf(path, pathlen, "%s", c->executable);
		return cst_open_regular(c->executable, 0, st, err, errlen);
	}
	return cst_core_open_named(c, recorded, st, path, pathlen, err, errlen);
}

int cst_core_open_named(struct cst_core *c, const char *recorded, struct stat *st, char *path,
			size_t pathlen, char *err, size_t errlen)
{
	if (c->sysroot && recorded[0] == '/')
		return open_in_sysroot(c, recorded, st, path, pathlen, err, errlen);
	snprintf(path, pathlen, "%s", recorded);
	return cst_open_regular(recorded, 0, st, err, errlen);
}

int cst_core_open_file(struct cst_core *c, const char *recorded, struct stat *st, char *path,
		       size_t pathlen, char *err, size_t errlen)
{
	struct mapped_file *f = recorded_file(c, recorded);
	if (!f)
		return open_file(c, recorded, st, path, pathlen, err, errlen);
	open_mapped(c, f);
	snprintf(path, pathlen, "%s", f->local ? f->local : recorded);
	if (f->fd < 0) {
		snprintf(err, errlen, "%s", f->err ? f->err : "out of memory");
		return f->rc;
	}
	int fd = fcntl(f->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -CST_E_IO;
	}
	*st = f->st;
	return fd;
}

Elf *cst_core_file_elf(struct cst_core *c, const char *recorded)
{
	struct mapped_file *f = recorded_file(c, recorded);
	if (!f || open_mapped(c, f)->fd < 0)
		return NULL;
	if (!f->elf_tried) {
		f->elf_tried = true;
		/* Mapped here, privately and copy-on-write as libdwfl maps the files it opens
		 * itself (ELF_C_READ_MMAP_PRIVATE), so that libelf reads the file in place; the
		 * core reader's own reads of the file's code stay preads (file_span). */
		void *map = f->size > 0 && f->size <= SIZE_MAX ?
			    mmap(NULL, (size_t)f->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, f->fd, 0) : MAP_FAILED;
		f->map = map != MAP_FAILED ? map : NULL;
		f->elf = f->map ? elf_memory((char *)f->map, (size_t)f->size) : elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
		if (f->elf && elf_kind(f->elf) != ELF_K_ELF) {
			elf_end(f->elf);
			f->elf = NULL;
		}
		if (!f->elf && f->map) {
			munmap(f->map, (size_t)f->size);
			f->map = NULL;
		}
	}
	/* with a handle that is no archive, libelf counts a reference and returns the handle */
	return f->elf ? elf_begin(-1, ELF_C_READ, f->elf) : NULL;
}

const char *cst_core_local_path(struct cst_core *c, const char *recorded)
{
	static __thread char buf[PATH_MAX];
	struct mapped_file *f = recorded_file(c, recorded);
	if (f && open_mapped(c, f)->local) {
		snprintf(buf, sizeof buf, "%s", f->local);
		return buf;
	}
	struct stat st;
	char err[128];
	int fd = open_file(c, recorded, &st, buf, sizeof buf, err, sizeof err);
	if (fd >= 0)
		close(fd);
	return buf;
}

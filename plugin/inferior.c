/* Finding gdb's inferior from gdb's own descriptors.  See inferior.h. */
#include "inferior.h"
#include "error.h"
#include "fpbt.h"
#include "live.h"
#include "remote.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* True when open file FD starts with an ELF header of type ET_CORE (gABI, "ELF Header":
 * e_type at byte 16, 16 bits in the file's byte order). */
static bool is_core_file(int fd)
{
	unsigned char h[18];
	if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h || memcmp(h, ELFMAG, SELFMAG) != 0)
		return false;
	bool be = h[EI_DATA] == ELFDATA2MSB;
	return (be ? h[16] << 8 | h[17] : h[17] << 8 | h[16]) == ET_CORE;
}

#define MAX_CORES 8

struct found {
	int npids, ncores;
	pid_t pid;
	int pid_fd, core_fd;         /* gdb's descriptors of the last memory file and core seen */
	struct stat pid_st, core_st;
	char core[4096];
	dev_t dev;
	ino_t ino;
	struct {                     /* the first MAX_CORES cores seen (add-inferior, core-file) */
		int fd;
		struct stat st;
		char path[4096];
	} cores[MAX_CORES];
};

/* Looks through gdb's descriptors for /proc/PID/.../mem files and open core files. */
static void scan_fds(struct found *fo)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return;
	int dfd = dirfd(d);
	struct dirent *e;
	char target[4096];
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		ssize_t n = readlinkat(dfd, e->d_name, target, sizeof target - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		int pid, tid;
		char tail[8];
		if ((sscanf(target, "/proc/%d/task/%d/me%7s", &pid, &tid, tail) == 3 ||
		     sscanf(target, "/proc/%d/me%7s", &pid, tail) == 2) && strcmp(tail, "m") == 0) {
			if (fo->npids == 0 || fo->pid != pid)
				fo->npids++;
			fo->pid = pid;
			fo->pid_fd = atoi(e->d_name);
			if (fstat(fo->pid_fd, &fo->pid_st) < 0)
				fo->pid_fd = -1;
			continue;
		}
		if (target[0] != '/')
			continue;
		int fd = atoi(e->d_name);
		struct stat st;
		if (fd == dfd || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !is_core_file(fd))
			continue;
		bool seen = false;
		for (int i = 0; i < fo->ncores && i < MAX_CORES; i++)
			seen = seen || (fo->cores[i].st.st_dev == st.st_dev && fo->cores[i].st.st_ino == st.st_ino);
		if (seen)
			continue;
		if (fo->ncores < MAX_CORES) {
			fo->cores[fo->ncores].fd = fd;
			fo->cores[fo->ncores].st = st;
			snprintf(fo->cores[fo->ncores].path, sizeof fo->cores[0].path, "%s", target);
		}
		fo->ncores++;
		snprintf(fo->core, sizeof fo->core, "%s", target);
		fo->dev = st.st_dev;
		fo->ino = st.st_ino;
		fo->core_fd = fd;
		fo->core_st = st;
	}
	closedir(d);
}

/* Processes gdb traces, when no memory file names one: every /proc/N with TracerPid = gdb. */
static void scan_traced(struct found *fo)
{
	DIR *d = opendir("/proc");
	if (!d)
		return;
	pid_t self = getpid();
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || cst_live_tracer((pid_t)pid) != self)
			continue;
		fo->npids++;
		fo->pid = (pid_t)pid;
	}
	closedir(d);
}

/* FNV-1a (64-bit) of /proc/PID/maps: changes when modules are mapped or unmapped. */
static uint64_t maps_hash(pid_t pid)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	uint64_t h = 0xcbf29ce484222325ull;
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ (unsigned char)buf[i]) * 0x100000001b3ull;
	close(fd);
	return h;
}

void cst_inferior_close(struct cst_inferior *inf)
{
	if (inf->live_maps.ops)
		cst_live_close_target(&inf->live_maps);
	cst_process_close(inf->proc);
	free(inf->contexts);
	memset(inf, 0, sizeof *inf);
}

int cst_inferior_unusable(struct cst_inferior *inf, int code, const char *fmt, const char *arg)
{
	char why[sizeof inf->why];
	snprintf(why, sizeof why, fmt, arg);
	cst_inferior_close(inf);
	snprintf(inf->why, sizeof inf->why, "%s", why);
	return code;
}

/* INF's image PROC, or why it cannot be used (ERR from opening it, WHAT naming it). */
static int use_process(struct cst_inferior *inf, int rc, struct cst_process *proc, const char *what,
		       const char *err)
{
	char why[sizeof inf->why];
	if (rc < 0) {
		if (what)
			snprintf(why, sizeof why, "%s: %s", what, err);
		else
			snprintf(why, sizeof why, "%s", err);
		return cst_inferior_unusable(inf, rc, "%s", why);
	}
	inf->proc = proc;
	inf->arch = cst_process_arch(proc);
	if (!cst_process_symbols(proc))
		return cst_inferior_unusable(inf, -CST_E_DWFL, "%s", cst_process_symbols_error(proc));
	return 0;
}

/* Keeps FD, the descriptor of gdb's found as ST, as the one that names INF. */
static void keep_fd(struct cst_inferior *inf, int fd, const struct stat *st)
{
	inf->gdb_fd = fd;
	inf->gdb_fd_dev = st->st_dev;
	inf->gdb_fd_ino = st->st_ino;
	inf->gdb_fd_mtime = st->st_mtim;
}

/* True when INF is open and gdb's descriptor that named it still names the same file. */
static bool fd_unchanged(const struct cst_inferior *inf)
{
	struct stat st;
	return inf->proc && (inf->kind == CST_INF_LIVE || inf->kind == CST_INF_CORE) && inf->gdb_fd >= 0 &&
	       fstat(inf->gdb_fd, &st) == 0 && st.st_dev == inf->gdb_fd_dev && st.st_ino == inf->gdb_fd_ino &&
	       st.st_mtim.tv_sec == inf->gdb_fd_mtime.tv_sec && st.st_mtim.tv_nsec == inf->gdb_fd_mtime.tv_nsec;
}

static int cmp_context(const void *a, const void *b)
{
	const struct cst_inferior_context *x = a, *y = b;
	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return x->sp < y->sp ? -1 : x->sp > y->sp;
}

/* The pc and sp of every thread of core INF, sorted for cst_inferior_is_context: read once,
 * where the frames gdb unwinds would read every thread's NT_PRSTATUS again for each. */
static int read_contexts(struct cst_inferior *inf)
{
	const struct cst_arch *a = inf->arch;
	size_t n = 0, cap = 0;
	struct cst_process_thread t;
	for (size_t i = 0; cst_process_thread(inf->proc, i, &t) == 0; i++) {
		uint64_t pc, sp;
		if (!cst_reg_get(t.regs, a->pc_reg, &pc) || !cst_reg_get(t.regs, a->sp_reg, &sp))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			void *p = realloc(inf->contexts, cap * sizeof *inf->contexts);
			if (!p)
				return cst_inferior_unusable(inf, -CST_E_NOMEM, "%s", "out of memory");
			inf->contexts = p;
		}
		inf->contexts[n++] = (struct cst_inferior_context){ pc, sp };
	}
	if (n)
		qsort(inf->contexts, n, sizeof *inf->contexts, cmp_context);
	inf->ncontexts = n;
	return 0;
}

static int open_live(struct cst_inferior *inf, pid_t pid, uint64_t hash)
{
	char err[256];
	struct cst_process *proc = NULL;
	int rc = cst_process_open_pid(&proc, pid, false, err, sizeof err);
	inf->kind = CST_INF_LIVE;
	inf->pid = pid;
	inf->maps_hash = hash;
	rc = use_process(inf, rc, proc, NULL, err);
	if (rc == 0 && cst_live_open_maps(pid, &inf->live_maps) < 0)
		inf->live_maps.ops = NULL;  /* out of memory: no JIT code known */
	return rc;
}

const struct cst_target *cst_inferior_code_facts(const struct cst_inferior *inf)
{
	if (inf->kind == CST_INF_LIVE)
		return inf->live_maps.ops ? &inf->live_maps : NULL;
	return inf->proc ? cst_process_own_target(inf->proc) : NULL;
}

/* Keeps the bytes at the lowest stack pointer of INF's threads, as the core holds them: what
 * tells this core's memory from another inferior's.  The lowest, as gdb looks a core's
 * address up through its sections in address order (one or two per thread). */
static void set_probe(struct cst_inferior *inf)
{
	struct cst_process_thread t;
	const struct cst_target *own = cst_process_env(inf->proc)->target;
	inf->probe_len = 0;
	for (size_t i = 0; own && cst_process_thread(inf->proc, i, &t) == 0; i++) {
		uint64_t sp;
		unsigned char b[sizeof inf->probe];
		if (cst_reg_get(t.regs, inf->arch->sp_reg, &sp) && (!inf->probe_len || sp < inf->probe_addr) &&
		    cst_target_read(own, sp, b, sizeof b) == 0) {
			memcpy(inf->probe, b, sizeof b);
			inf->probe_addr = sp;
			inf->probe_len = sizeof b;
		}
	}
}

/* True when MEMORY (gdb's current inferior) holds INF's probe, or either cannot tell. */
static bool probe_matches(const struct cst_inferior *inf, const struct cst_target *memory)
{
	unsigned char b[sizeof inf->probe];
	if (!memory || inf->probe_len == 0)
		return true;
	return cst_target_read(memory, inf->probe_addr, b, inf->probe_len) == 0 &&
	       memcmp(b, inf->probe, inf->probe_len) == 0;
}

static int open_core(struct cst_inferior *inf, const struct found *fo)
{
	char err[256];
	struct cst_core_options opt = { 0 };
	struct cst_process *proc = NULL;
	int rc = cst_process_open_core(&proc, fo->core, &opt, err, sizeof err);
	if (rc == 0) {
		inf->kind = CST_INF_CORE;
		snprintf(inf->core_path, sizeof inf->core_path, "%s", fo->core);
		inf->core_dev = fo->dev;
		inf->core_ino = fo->ino;
		keep_fd(inf, fo->core_fd, &fo->core_st);
	}
	rc = use_process(inf, rc, proc, fo->core, err);
	if (rc == 0)
		set_probe(inf);
	return rc < 0 ? rc : read_contexts(inf);
}

/* Several cores are open (inferiors added with their own core file): opens the one whose
 * memory is MEMORY's, gdb's current inferior's. */
static int open_current_core(struct cst_inferior *inf, const struct found *fo, const struct cst_target *memory)
{
	struct found one = *fo;
	for (int i = 0; i < fo->ncores && i < MAX_CORES; i++) {
		const struct stat *st = &fo->cores[i].st;
		bool open_now = inf->kind == CST_INF_CORE && inf->proc && inf->core_dev == st->st_dev &&
				inf->core_ino == st->st_ino && inf->gdb_fd_mtime.tv_sec == st->st_mtim.tv_sec &&
				inf->gdb_fd_mtime.tv_nsec == st->st_mtim.tv_nsec;
		if (open_now && probe_matches(inf, memory)) {
			keep_fd(inf, fo->cores[i].fd, st);
			return 0;
		}
		snprintf(one.core, sizeof one.core, "%s", fo->cores[i].path);
		one.dev = st->st_dev;
		one.ino = st->st_ino;
		one.core_fd = fo->cores[i].fd;
		one.core_st = *st;
		cst_inferior_close(inf);
		if (open_core(inf, &one) == 0 && inf->probe_len && probe_matches(inf, memory))
			return 0;
	}
	return cst_inferior_unusable(inf, -CST_E_NOENT, "%s",
				     "several core files are open in gdb, none with the current inferior's memory");
}

int cst_inferior_update(struct cst_inferior *inf, const struct cst_target *memory)
{
	if (fd_unchanged(inf) && (inf->kind != CST_INF_CORE || probe_matches(inf, memory))) {
		if (inf->kind == CST_INF_CORE)
			return 0;
		uint64_t h = maps_hash(inf->pid);
		if (h == inf->maps_hash)
			return 0;
		pid_t pid = inf->pid;
		cst_inferior_close(inf);
		return open_live(inf, pid, h);
	}
	struct found fo = { .pid_fd = -1, .core_fd = -1 };
	scan_fds(&fo);
	if (fo.npids == 1 && cst_live_tracer(fo.pid) != getpid())
		fo.npids = 0;
	if (fo.npids == 0 && fo.ncores == 0)
		scan_traced(&fo);
	if (fo.npids + fo.ncores == 0) {
		/* a remote target: the program the fpbt command found in `info inferiors` */
		char program[4096];
		int rc = cst_fpbt_read_file("program", program, sizeof program) > 0 && program[0] == '/' ?
			 cst_remote_open(inf, program) :
			 cst_inferior_unusable(inf, -CST_E_NOENT, "%s", "no process or core file found in gdb");
		inf->no_local = true;
		return rc;
	}
	if (fo.npids == 0 && fo.ncores > 1 && memory)
		return open_current_core(inf, &fo, memory);
	if (fo.npids + fo.ncores > 1)
		return cst_inferior_unusable(inf, -CST_E_NOENT, "%s", "several processes or core files are open in gdb");

	if (fo.npids == 1) {
		uint64_t h = maps_hash(fo.pid);
		if (!(inf->kind == CST_INF_LIVE && inf->pid == fo.pid && inf->maps_hash == h && inf->proc)) {
			cst_inferior_close(inf);
			int rc = open_live(inf, fo.pid, h);
			if (rc < 0)
				return rc;
		}
		keep_fd(inf, fo.pid_fd, &fo.pid_st);
		return 0;
	}
	if (inf->kind == CST_INF_CORE && inf->core_dev == fo.dev && inf->core_ino == fo.ino && inf->proc &&
	    inf->gdb_fd_mtime.tv_sec == fo.core_st.st_mtim.tv_sec &&
	    inf->gdb_fd_mtime.tv_nsec == fo.core_st.st_mtim.tv_nsec) {
		keep_fd(inf, fo.core_fd, &fo.core_st);
		return 0;
	}
	cst_inferior_close(inf);
	return open_core(inf, &fo);
}

bool cst_inferior_is_context(struct cst_inferior *inf, uint64_t pc, uint64_t sp)
{
	const struct cst_arch *a = inf->arch;
	uint64_t tpc, tsp;
	if (!a)
		return false;
	if (inf->kind == CST_INF_CORE) {
		struct cst_inferior_context key = { pc, sp };
		return inf->ncontexts &&
		       bsearch(&key, inf->contexts, inf->ncontexts, sizeof key, cmp_context) != NULL;
	}
	if (inf->kind != CST_INF_LIVE || !a->ptrace_regs)
		return false;
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)inf->pid);
	DIR *d = opendir(path);
	if (!d)
		return false;
	bool found = false;
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		struct cst_regs r;
		if (*end || tid <= 0 || cst_live_getregs(a, (int)tid, &r) < 0)
			continue;
		found = cst_reg_get(&r, a->pc_reg, &tpc) && cst_reg_get(&r, a->sp_reg, &tsp) &&
			tpc == pc && tsp == sp;
	}
	closedir(d);
	return found;
}

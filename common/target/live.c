/* Live processes through ptrace and /proc.  See live.h. */
#include "live.h"
#include "arch.h"
#include "error.h"
#include "procmaps.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_LIVE_THREADS 100000

struct cst_live {
	pid_t pid;
	const struct cst_arch *arch;
	struct cst_target target;
	struct cst_live_thread *threads;
	size_t n, cap;
	int *skipped;            /* tids of the threads that exited while being attached */
	size_t nskipped, cap_skipped;
};

struct live_mem {                /* a live target's private part */
	int fd;                  /* /proc/PID/mem */
	struct cst_procmap *maps;  /* /proc/PID/maps when the target was opened */
	size_t nmaps;
};

static int mem_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	const struct live_mem *m = priv;
	if (addr > INT64_MAX)
		return -CST_E_MEMORY;
	ssize_t got = pread(m->fd, buf, len, (off_t)addr);
	return got == (ssize_t)len ? 0 : -CST_E_MEMORY;
}

/* The mapping that holds ADDR, or NULL. */
static const struct cst_procmap *map_at(const struct live_mem *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nmaps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (addr < m->maps[mid].start)
			hi = mid;
		else if (addr >= m->maps[mid].end)
			lo = mid + 1;
		else
			return &m->maps[mid];
	}
	return NULL;
}

/* An anonymous executable mapping (cst_procmap_anon_code) holds ADDR: a JIT's code. */
static bool mem_anon_code(void *priv, uint64_t addr)
{
	const struct cst_procmap *k = map_at(priv, addr);
	return k && cst_procmap_anon_code(k);
}

/* An executable mapping of a file holds ADDR, far from where the file's layout puts it from
 * the file's mapping of offset 0 before it (as report_proc_maps in symbols.c takes them). */
static const char *mem_copied_code(void *priv, uint64_t addr)
{
	const struct live_mem *m = priv;
	const struct cst_procmap *k = map_at(m, addr);
	if (!k || !k->exec || k->ino == 0 || k->offset == 0)
		return NULL;
	for (const struct cst_procmap *h = k; h-- > m->maps;) {
		if (h->ino == 0 && h->dev_major == 0 && h->dev_minor == 0)
			continue;       /* anonymous memory between the file's mappings */
		if (h->ino != k->ino || h->dev_major != k->dev_major || h->dev_minor != k->dev_minor)
			return NULL;
		if (h->offset == 0)
			return cst_in_module_layout(h->start, k->start, k->offset) ? NULL : k->name;
	}
	return NULL;
}

static const struct cst_target_ops live_ops = {
	.read = mem_read, .anon_code = mem_anon_code, .copied_code = mem_copied_code,
};

/* cst_live_open_target, or cst_live_open_maps when WITH_MEMORY is false. */
static int open_target(pid_t pid, bool with_memory, struct cst_target *t)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
	struct live_mem *m = calloc(1, sizeof *m);
	if (!m)
		return -CST_E_NOMEM;
	m->fd = with_memory ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (with_memory && m->fd < 0) {
		int en = errno;
		free(m);
		return en == ENOENT ? -CST_E_NOENT : -CST_E_PERM;
	}
	/* without the maps no address is taken for JIT code (anon_code answers false) */
	if (cst_procmaps_read(pid, &m->maps, &m->nmaps) < 0)
		m->nmaps = 0;
	t->ops = &live_ops;
	t->priv = m;
	t->big_endian = false;
	return 0;
}

int cst_live_open_target(pid_t pid, struct cst_target *t)
{
	return open_target(pid, true, t);
}

int cst_live_open_maps(pid_t pid, struct cst_target *t)
{
	return open_target(pid, false, t);
}

void cst_live_close_target(struct cst_target *t)
{
	if (t->ops == &live_ops) {
		struct live_mem *m = t->priv;
		if (m->fd >= 0)
			close(m->fd);
		cst_procmaps_free(m->maps, m->nmaps);
		free(m);
	}
	t->ops = NULL;
}

int cst_live_getregs(const struct cst_arch *arch, int tid, struct cst_regs *out)
{
	return arch->ptrace_regs ? arch->ptrace_regs(tid, out) : -CST_E_ARCH;
}

/* Whether TID was attached or skipped already: a later pass of the task list sees it again. */
static bool attached(const struct cst_live *l, int tid)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->threads[i].tid == tid)
			return true;
	for (size_t i = 0; i < l->nskipped; i++)
		if (l->skipped[i] == tid)
			return true;
	return false;
}

/* PF_KTHREAD, the task flag of a kernel thread (include/linux/sched.h). */
#define PF_KTHREAD 0x00200000u

/* The state letter and the flags of thread TID of process PID, from the fields after the
 * command's closing parenthesis in /proc/PID/task/TID/stat (proc(5): state is field 3, flags
 * field 9).  Returns 0; -1 with errno set when the file cannot be read (ESRCH when it is
 * empty: the thread is gone). */
static int task_stat(pid_t pid, int tid, char *state, unsigned long *flags)
{
	char path[80], buf[512];
	snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t got = read(fd, buf, sizeof buf - 1);
	int en = errno;
	close(fd);
	if (got <= 0) {
		errno = got == 0 ? ESRCH : en;
		return -1;
	}
	buf[got] = 0;
	const char *paren = strrchr(buf, ')');
	*state = paren && paren[1] == ' ' ? paren[2] : 0;
	*flags = 0;
	if (paren && sscanf(paren + 2, "%*c %*d %*d %*d %*d %*d %lu", flags) != 1)
		*flags = 0;
	return 0;
}

/* Whether thread TID of process PID has exited or is exiting: its /proc entry is gone, or
 * its state is zombie or dead.  The kernel refuses PTRACE_ATTACH to an exiting thread with
 * EPERM, as it does a thread it does not let us trace; this tells the two apart, and only
 * one way: a thread never comes back from exiting. */
static bool thread_gone(pid_t pid, int tid)
{
	char state;
	unsigned long flags;
	if (task_stat(pid, tid, &state, &flags) < 0)
		return errno == ENOENT || errno == ESRCH;
	return state == 'Z' || state == 'X' || state == 'x';
}

/* Whether TID of process PID is a kernel thread (which has no user-space stack). */
static bool kernel_thread(pid_t pid, int tid)
{
	char state;
	unsigned long flags;
	return task_stat(pid, tid, &state, &flags) == 0 && (flags & PF_KTHREAD);
}

/* Records TID as skipped.  Returns 1, or -CST_E_NOMEM with ERR set. */
static int skip_thread(struct cst_live *l, int tid, char *err, size_t errlen)
{
	if (l->nskipped == l->cap_skipped) {
		size_t cap = l->cap_skipped ? 2 * l->cap_skipped : 16;
		int *p = realloc(l->skipped, cap * sizeof *p);
		if (!p)
			return cst_fail(err, errlen, -CST_E_NOMEM, "out of memory");
		l->skipped = p;
		l->cap_skipped = cap;
	}
	l->skipped[l->nskipped++] = tid;
	return 1;
}

/* Attaches to thread TID of L's process, waits for it to stop and reads its registers into
 * a new entry of L's threads.  Returns 0 when attached; 1 when skipped, for it exited
 * meanwhile (ESRCH or an exiting thread's EPERM from PTRACE_ATTACH, its exit reported by
 * waitpid, or ESRCH reading its registers); or a negative code with ERR set. */
static int attach_thread(struct cst_live *l, int tid, char *err, size_t errlen)
{
	if (ptrace(PTRACE_ATTACH, tid, NULL, NULL) < 0) {
		int en = errno;
		if (en == ESRCH || (en == EPERM && thread_gone(l->pid, tid)))
			return skip_thread(l, tid, err, errlen);
		if (en == EPERM && kernel_thread(l->pid, tid))
			return cst_fail(err, errlen, -CST_E_PERM, "the process is a kernel thread: it has no "
					"user-space stack to walk");
		return cst_fail(err, errlen, en == EPERM ? -CST_E_PERM : -CST_E_PTRACE,
				"cannot attach to thread %d of process %d: %s%s", tid, (int)l->pid,
				strerror(en), en == EPERM ?
				" (another tracer, /proc/sys/kernel/yama/ptrace_scope, or not your process)" : "");
	}
	int st = 0;
	pid_t w;
	do
		w = waitpid(tid, &st, __WALL);
	while (w < 0 && errno == EINTR);
	if (w < 0 || WIFEXITED(st) || WIFSIGNALED(st))
		return skip_thread(l, tid, err, errlen);       /* it exited before it stopped */
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		void *p = realloc(l->threads, cap * sizeof *l->threads);
		if (!p) {
			ptrace(PTRACE_DETACH, tid, NULL, NULL);
			return cst_fail(err, errlen, -CST_E_NOMEM, "out of memory");
		}
		l->threads = p;
		l->cap = cap;
	}
	struct cst_live_thread *t = &l->threads[l->n];
	t->tid = tid;
	errno = 0;
	if (cst_live_getregs(l->arch, tid, &t->regs) < 0) {
		if (errno == ESRCH)           /* killed while stopped */
			return skip_thread(l, tid, err, errlen);
		cst_regs_clear(&t->regs);
	}
	l->n++;
	return 0;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct cst_live_thread *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

int cst_live_attach(pid_t pid, const struct cst_arch *arch, struct cst_live **out, char *err,
		    size_t errlen)
{
	*out = NULL;
	if (!arch->ptrace_regs)
		return cst_fail(err, errlen, -CST_E_ARCH, "live %s processes are not supported on this host",
				arch->name);
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	struct cst_live *l = calloc(1, sizeof *l);
	if (!l)
		return cst_fail(err, errlen, -CST_E_NOMEM, "out of memory");
	l->pid = pid;
	l->arch = arch;
	int rc = 0;
	/* Threads may be created while we attach: scan until a pass finds no new one. */
	for (int pass = 0; pass < 100; pass++) {
		DIR *d = opendir(path);
		if (!d) {
			rc = cst_fail(err, errlen, -CST_E_NOENT, "no process %d", (int)pid);
			goto bad;
		}
		bool added = false;
		struct dirent *e;
		while ((e = readdir(d))) {
			int tid = atoi(e->d_name);
			if (tid <= 0 || attached(l, tid))
				continue;
			if (l->n + l->nskipped >= MAX_LIVE_THREADS)
				break;
			if ((rc = attach_thread(l, tid, err, errlen)) < 0) {
				closedir(d);
				goto bad;
			}
			added |= rc == 0;
		}
		closedir(d);
		if (!added)
			break;
	}
	char state;
	unsigned long flags;
	if (l->n == 0 && task_stat(pid, (int)pid, &state, &flags) == 0 && state == 'Z') {
		rc = cst_fail(err, errlen, -CST_E_NOENT, "the process is a zombie: it has exited and "
			      "its parent has not reaped it; there is no stack to walk");
		goto bad;
	}
	if (l->n == 0) {
		rc = cst_fail(err, errlen, -CST_E_NOENT, "no threads in process %d", (int)pid);
		goto bad;
	}
	qsort(l->threads, l->n, sizeof *l->threads, cmp_thread);
	for (size_t i = 0; i < l->n; i++)
		if (l->threads[i].tid == pid && i > 0) {
			struct cst_live_thread m = l->threads[i];
			memmove(l->threads + 1, l->threads, i * sizeof m);
			l->threads[0] = m;
		}
	rc = cst_live_open_target(pid, &l->target);
	if (rc < 0) {
		cst_fail(err, errlen, rc, "cannot open /proc/%d/mem", (int)pid);
		goto bad;
	}
	*out = l;
	return 0;
bad:
	cst_live_detach(l);
	return rc;
}

void cst_live_detach(struct cst_live *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		ptrace(PTRACE_DETACH, l->threads[i].tid, NULL, NULL);
	if (l->target.ops)
		cst_live_close_target(&l->target);
	free(l->threads);
	free(l->skipped);
	free(l);
}

struct cst_target *cst_live_target(struct cst_live *l) { return &l->target; }
size_t cst_live_nskipped(const struct cst_live *l) { return l->nskipped; }
int cst_live_skipped(const struct cst_live *l, size_t i)
{
	return i < l->nskipped ? l->skipped[i] : 0;
}
size_t cst_live_nthreads(const struct cst_live *l) { return l->n; }
const struct cst_live_thread *cst_live_thread(const struct cst_live *l, size_t i)
{
	return i < l->n ? &l->threads[i] : NULL;
}

pid_t cst_live_tracer(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	pid_t t = -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "TracerPid: %d", &t) == 1)
			break;
	fclose(f);
	return t;
}

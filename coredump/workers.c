/* Threads walked by forked workers, their text put out in thread order (workers.h). */
#include "workers.h"
#include "util.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* at most this many processes, whatever --jobs says (main checks the option's range) */
#define MAX_JOBS 64
/* threads in a chunk: enough that a chunk's header and the wait for it are small against its
 * walk, few enough that the processes finish close together */
#define MAX_CHUNK 64
/* auto: workers only for a core of this many threads or more */
#define AUTO_MIN_THREADS 256
#define AUTO_MAX_JOBS 4
/* Each worker writes a chunk's text into one of SLOTS slots of memory it shares with the
 * parent, which writes it out from there: the text is copied once, as a serial run copies it
 * into stdout's buffer.  A slot is used again once the parent says (a byte back) that it took
 * the chunk in it.  A chunk's text longer than a slot goes through the socket itself. */
#define SLOTS 4
#define SLOT_BYTES_DEFAULT ((size_t)4 << 20)

/* The test hooks (doc/testing.md): CORESTACK_WORKERS_SLOT, a slot's size in bytes (4096 to
 * 64 MiB), so that a test can send text through the socket; CORESTACK_WORKERS_LOG, a file to
 * which each walk with workers appends what it did. */
static size_t slot_bytes = SLOT_BYTES_DEFAULT;

static void read_hooks(void)
{
	const char *e = getenv("CORESTACK_WORKERS_SLOT");
	char *end;
	unsigned long long n = e ? strtoull(e, &end, 10) : 0;
	slot_bytes = e && !*end && n >= 4096 && n <= (64ULL << 20) ? (size_t)n : SLOT_BYTES_DEFAULT;
}

static void log_walk(unsigned processes, size_t nchunks, size_t here, size_t given_back, size_t through_socket,
		     unsigned failed)
{
	const char *path = getenv("CORESTACK_WORKERS_LOG");
	FILE *f = path && *path ? fopen(path, "ae") : NULL;
	if (!f)
		return;
	fprintf(f, "processes %u chunks %zu walked-here %zu given-back %zu through-socket %zu failed %u\n",
		processes, nchunks, here, given_back, through_socket, failed);
	fclose(f);
}

/* What a worker sends before each chunk's text. */
struct chunk_head {
	uint64_t chunk;         /* the chunk's number */
	uint64_t len;           /* bytes of text (0 when given back) */
	uint32_t given_back;    /* the parent walks this chunk and every later one */
	int32_t slot;           /* the slot holding the text, or -1: the text follows on the socket */
};

struct worker {
	pid_t pid;
	int fd;                 /* the parent's end of the worker's socket, -1 once closed */
	char *slots;            /* SLOTS * slot_bytes, shared with the worker */
};

unsigned workers_jobs(unsigned jobs, size_t nthreads)
{
	if (jobs)
		return jobs > MAX_JOBS ? MAX_JOBS : jobs;
	if (nthreads < AUTO_MIN_THREADS)
		return 1;
	cpu_set_t set;
	long n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		return 1;
	return n > AUTO_MAX_JOBS ? AUTO_MAX_JOBS : (unsigned)n;
}

/* Writes the N bytes at BUF to FD; -1 when they did not all go. */
static int write_full(int fd, const void *buf, size_t n)
{
	return cst_write_all(fd, buf, n) == (ssize_t)n ? 0 : -1;
}

/* The threads of chunk C (of CHUNK threads each, from FIRST; the last one ends at END): FIRST
 * to END - 1 in *A and *B. */
static void chunk_threads(size_t c, size_t chunk, size_t first, size_t end, size_t *a, size_t *b)
{
	*a = first + c * chunk;
	*b = *a + chunk < end ? *a + chunk : end;
}

static int read_full(int fd, void *buf, size_t n)
{
	char *p = buf;
	while (n) {
		ssize_t r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* A chunk's text in a worker: in its slot, or on the heap once it outgrows the slot. */
struct text {
	char *p;
	size_t len, cap;
	bool heap, failed;
};

static ssize_t text_write(void *cookie, const char *buf, size_t n)
{
	struct text *t = cookie;
	if (n > t->cap - t->len) {
		size_t cap = t->cap * 2;
		while (cap - t->len < n)
			cap *= 2;
		char *p = t->heap ? realloc(t->p, cap) : malloc(cap);
		if (!p) {
			t->failed = true;
			return -1;
		}
		if (!t->heap)
			memcpy(p, t->p, t->len);
		t->p = p;
		t->cap = cap;
		t->heap = true;
	}
	memcpy(t->p + t->len, buf, n);
	t->len += n;
	return (ssize_t)n;
}

/* Waits until the parent took the worker's chunk number TAKEN (counted from 0), from *ACKED
 * bytes received so far; -1 when the parent is gone. */
static int wait_taken(int fd, uint64_t taken, uint64_t *acked)
{
	char b[64];
	while (*acked <= taken) {
		ssize_t r = read(fd, b, sizeof b);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		*acked += (uint64_t)r;
	}
	return 0;
}

/* The worker's life: chunks K, K + JOBS, ... of NCHUNKS, each told on socket FD, its text in
 * SLOTS.  Never returns. */
static void work(const struct workers_walk *w, size_t first, size_t end, size_t chunk, size_t nchunks,
		 unsigned k, unsigned jobs, int fd, char *slots)
{
	/* what a serial run would print on standard error is not printed here: it is caught
	 * (the file's size) and the chunk given back */
	int err = memfd_create("corestack-worker-stderr", MFD_CLOEXEC);
	if (err < 0 || dup2(err, 2) < 0)
		_exit(0);       /* end of the socket: the parent walks the chunks itself */
	struct text text = { 0 };
	FILE *out = fopencookie(&text, "w", (cookie_io_functions_t){ .write = text_write });
	if (!out)
		_exit(0);
	uint64_t mine = 0, acked = 0;
	for (size_t c = k; c < nchunks; c += jobs, mine++) {
		size_t a, b;
		chunk_threads(c, chunk, first, end, &a, &b);
		if (mine >= SLOTS && wait_taken(fd, mine - SLOTS, &acked) < 0)
			_exit(0);
		int slot = (int)(mine % SLOTS);
		if (text.heap)
			free(text.p);
		text = (struct text){ .p = slots + (size_t)slot * slot_bytes, .cap = slot_bytes };
		int back = w->walk_away(w->ctx, a, b, out);
		back |= fflush(out) != 0 || ferror(out) != 0 || text.failed;
		if (lseek(2, 0, SEEK_END) != 0)
			back = 1;
		struct chunk_head h = { .chunk = c, .len = back ? 0 : text.len, .given_back = back != 0,
					.slot = text.heap ? -1 : slot };
		if (write_full(fd, &h, sizeof h) < 0 || back || (text.heap && write_full(fd, text.p, text.len) < 0))
			_exit(0);
	}
	/* the parent ends the socket when it took everything */
	wait_taken(fd, UINT64_MAX - 1, &acked);
	_exit(0);
}

/* Writes LEN bytes to standard output: from P, or (P NULL) read from socket FD.  A write
 * error (the reader went away, a full disk) drops the rest, as stdio's buffer would; returns -1
 * when FD ends early. */
static int pass_on(int fd, const char *p, uint64_t len)
{
	static char buf[64 << 10];
	bool dropping = false;
	while (len) {
		size_t n = len < sizeof buf ? (size_t)len : sizeof buf;
		if (p) {
			n = (size_t)len;
		} else {
			ssize_t r = read(fd, buf, n);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return -1;
			n = (size_t)r;
		}
		if (!dropping && write_full(1, p ? p : buf, n) < 0)
			dropping = true;
		len -= n;
	}
	return 0;
}

/* Ends workers WS[0] to WS[N - 1]; returns how many of them had failed: exited with a status
 * other than 0, or killed by a signal other than the SIGKILL sent here (for the test hook). */
static unsigned stop(struct worker *ws, unsigned n)
{
	unsigned failed = 0;
	for (unsigned i = 0; i < n; i++) {
		if (ws[i].fd >= 0)
			close(ws[i].fd);
		ws[i].fd = -1;
		if (ws[i].pid > 0) {
			int st = 0;
			kill(ws[i].pid, SIGKILL);
			while (waitpid(ws[i].pid, &st, 0) < 0 && errno == EINTR)
				;
			failed += WIFEXITED(st) ? WEXITSTATUS(st) != 0 : !WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL;
		}
		ws[i].pid = 0;
		if (ws[i].slots)
			munmap(ws[i].slots, SLOTS * slot_bytes);
		ws[i].slots = NULL;
	}
	return failed;
}

/* Starts workers 1 to JOBS - 1 into WS; returns how many processes walk: 1 + N, workers 1 to N
 * started (a failed fork, or a lack of descriptors or memory for one, leaves the chunks of that
 * worker and every later one to the parent). */
static unsigned start(const struct workers_walk *w, struct worker *ws, size_t first, size_t end,
		      size_t chunk, size_t nchunks, unsigned jobs)
{
	pid_t parent = getpid();
	unsigned n = 0;
	for (unsigned k = 1; k < jobs; k++) {
		int sv[2];
		char *slots = mmap(NULL, SLOTS * slot_bytes, PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (slots == MAP_FAILED)
			break;
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
			munmap(slots, SLOTS * slot_bytes);
			break;
		}
		pid_t pid = fork();
		if (pid < 0) {
			close(sv[0]);
			close(sv[1]);
			munmap(slots, SLOTS * slot_bytes);
			break;
		}
		if (pid == 0) {
			/* killed with the parent, even when it is killed from outside */
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
				_exit(0);
			close(sv[0]);
			for (unsigned i = 0; i < n; i++)
				close(ws[i].fd);
			work(w, first, end, chunk, nchunks, k, jobs, sv[1], slots);
		}
		close(sv[1]);
		ws[n++] = (struct worker){ .pid = pid, .fd = sv[0], .slots = slots };
	}
	return 1 + n;
}

int workers_run(const struct workers_walk *w, size_t first, size_t end, unsigned jobs)
{
	if (jobs > MAX_JOBS)
		jobs = MAX_JOBS;
	if (jobs < 2 || end - first < 2)
		return w->walk_here(w->ctx, first, end);
	size_t chunk = (end - first) / ((size_t)jobs * 16);
	chunk = chunk < 1 ? 1 : chunk > MAX_CHUNK ? MAX_CHUNK : chunk;
	size_t nchunks = (end - first + chunk - 1) / chunk;
	struct worker ws[MAX_JOBS - 1];
	read_hooks();
	w->flush(w->ctx);        /* nothing of the parent's buffers is copied into a worker */
	fflush(stderr);
	/* the chunks stay dealt among JOBS processes, as the workers that started were told;
	 * those of workers that did not start are the parent's */
	unsigned processes = start(w, ws, first, end, chunk, nchunks, jobs);
	int partial = 0;
	bool alone = processes < 2;
	size_t here = 0, given_back = 0, through_socket = 0;
	unsigned failed = 0;
	for (size_t c = 0; c < nchunks; c++) {
		size_t a, b;
		chunk_threads(c, chunk, first, end, &a, &b);
		unsigned k = (unsigned)(c % jobs);
		if (!alone && k && k < processes) {
			struct worker *wk = &ws[k - 1];
			struct chunk_head h;
			if (read_full(wk->fd, &h, sizeof h) == 0 && h.chunk == c && !h.given_back &&
			    h.slot < SLOTS && (h.slot < 0 || h.len <= slot_bytes)) {
				w->flush(w->ctx);
				if (pass_on(wk->fd, h.slot < 0 ? NULL : wk->slots + (size_t)h.slot * slot_bytes,
					    h.len) < 0) {
					stop(ws, processes - 1);
					fprintf(stderr, "corestack: a worker process ended in the middle of its text\n");
					exit(2);
				}
				/* the slot is free again; a worker that is gone is found at its next header */
				(void)send(wk->fd, "", 1, MSG_NOSIGNAL);
				through_socket += h.slot < 0;
				w->took(w->ctx, b - a);
				continue;
			}
			failed = stop(ws, processes - 1);
			alone = true;    /* this chunk and every later one walked here */
			given_back++;
		}
		partial |= w->walk_here(w->ctx, a, b);
		here++;
	}
	if (!alone)
		failed = stop(ws, processes - 1);
	log_walk(processes, nchunks, here, given_back, through_socket, failed);
	return partial;
}

/* Threads walked by forked workers, their text put out in thread order (workers.h). */
#include "workers.h"
#include "jsonw.h"
#include "util.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
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
 * into stdout's buffer (JSON is written there in place by the JSON writer: struct jw_sink,
 * text_room).  A slot is used again once the parent says (a byte back) that it took
 * the chunk in it.  A chunk's text longer than a slot goes through the socket itself.
 * Three slots: one for the chunk the worker walks, one for the chunk the parent takes next
 * and one to spare.  Each slot's pages are made once per worker, as many as a chunk takes
 * (about 800 KiB of JSON): a slot more costs that many more pages. */
#define SLOTS 3
#define SLOT_BYTES_DEFAULT ((size_t)4 << 20)
/* A worker has the kernel make the pages of a slot (MADV_POPULATE_WRITE, one call) before it
 * writes a chunk there, rather than one page fault at a time: as many bytes as its last chunk
 * took and an eighth more, in steps of SLOT_POPULATE_STEP; SLOT_POPULATE_FIRST before its
 * first chunk.  A chunk of 64 threads of 34 frames takes about 200 KiB of text and 800 KiB of
 * JSON (bench/README.md): pages made and never written cost as much as those written. */
#define SLOT_POPULATE_FIRST ((size_t)256 << 10)
#define SLOT_POPULATE_STEP ((size_t)64 << 10)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23   /* Linux 5.14, include/uapi/asm-generic/mman-common.h */
#endif

/* How the chunks are shared.  The parent walks them in order and puts each out as it goes:
 * a chunk nobody claimed it walks itself; one a worker claimed it takes from the worker,
 * waiting for it at most about as long as it takes to walk a chunk itself (on the CPU first:
 * SPIN_NS), and walks it itself when the worker is late (the worker's text is then dropped).
 * A worker claims the first chunk nobody claimed from JOBS chunks past its last one, and
 * LEAD past the one the parent puts out next: the processes take turns while they walk at
 * one speed, and a worker that runs late (its CPU busy with something else) skips ahead of
 * the parent.  The parent never waits long for a worker that does not run, and a worker that
 * runs walks as many chunks as it can.
 * Before its first chunk a worker walks the first thread without printing it, so that the
 * pages it writes are copied and what walks look up is loaded before it claims.
 * CORESTACK_WORKERS_DEAL=turns (a test hook) deals the chunks in turns instead, the
 * parent's first: chunk C is process C mod JOBS's (the parent's when that worker did not
 * start), and the parent waits for every chunk of a worker, whatever the processes' speeds;
 * CORESTACK_WORKERS_DEAL=late has the parent wait for none, so that it walks a worker's chunk
 * itself unless it was ready, and drops the worker's text later.
 * LEAD 3: with a chunk more between the one the parent puts out and the one a worker
 * claims than 2 gives, the worker's chunk is ready more often when the parent comes to it.
 * A larger LEAD leaves the worker waiting for a free slot (SLOTS) while its chunks wait for
 * the parent, which then walks more of them itself (bench/README.md). */
#define LEAD 3
/* the parent's wait for a worker's chunk: its own last chunk's walk (a worker's chunk of deep
 * stacks takes as long as the parent's), within these bounds */
#define MIN_WAIT_NS 20000
#define MAX_WAIT_NS 1000000000
/* how long the parent waits on the CPU before it sleeps: a sleeping CPU of a virtual machine
 * can take milliseconds to wake */
#define SPIN_NS 200000
/* milliseconds without a byte of a chunk's text on a worker's socket after which the worker
 * is taken for gone (and killed) */
#define TEXT_STALL_MS 10000

/* The test hooks (doc/testing.md): CORESTACK_WORKERS_SLOT, a slot's size in bytes (4096 to
 * 64 MiB), so that a test can send text through the socket; CORESTACK_WORKERS_LOG, a file to
 * which each walk with workers appends what it did; CORESTACK_WORKERS_DEAL (above). */
static size_t slot_bytes = SLOT_BYTES_DEFAULT;
static bool in_turns, no_wait;

static void read_hooks(void)
{
	const char *e = getenv("CORESTACK_WORKERS_SLOT");
	char *end;
	unsigned long long n = e ? strtoull(e, &end, 10) : 0;
	slot_bytes = e && !*end && n >= 4096 && n <= (64ULL << 20) ? (size_t)n : SLOT_BYTES_DEFAULT;
	const char *deal = getenv("CORESTACK_WORKERS_DEAL");
	in_turns = deal && strcmp(deal, "turns") == 0;
	no_wait = deal && strcmp(deal, "late") == 0;
}

static void log_walk(unsigned processes, size_t nchunks, size_t here, size_t taken, size_t given_back,
		     size_t through_socket, unsigned failed)
{
	const char *path = getenv("CORESTACK_WORKERS_LOG");
	FILE *f = path && *path ? fopen(path, "ae") : NULL;
	if (!f)
		return;
	fprintf(f, "processes %u chunks %zu walked-here %zu taken %zu given-back %zu through-socket %zu "
		"failed %u\n", processes, nchunks, here, taken, given_back, through_socket, failed);
	fclose(f);
}

/* What the processes share besides their slots: the chunk the parent puts out next, and for
 * each chunk who claimed it (0 the parent, K worker K; -1 nobody), with READY once the
 * worker sent the chunk's header. */
#define READY 0x10000
struct claims {
	uint64_t out;
	int32_t owner[];
};

/* A walk's chunks: threads FIRST to END - 1 in NCHUNKS chunks of CHUNK threads, among JOBS
 * processes, claimed through CL. */
struct deal {
	size_t first, end, chunk, nchunks;
	unsigned jobs;
	struct claims *cl;
};

static size_t claims_bytes(size_t nchunks)
{
	return sizeof(struct claims) + nchunks * sizeof(int32_t);
}

/* Claims chunk C for process K: false when another one has it. */
static bool claim(struct claims *cl, size_t c, unsigned k)
{
	int32_t none = -1;
	return __atomic_compare_exchange_n(&cl->owner[c], &none, (int32_t)k, false, __ATOMIC_ACQ_REL,
					   __ATOMIC_ACQUIRE);
}

/* The next chunk worker K claims after chunk LAST (SIZE_MAX: none yet); D->nchunks when none
 * is left. */
static size_t claim_next(const struct deal *d, unsigned k, size_t last)
{
	size_t c = last == SIZE_MAX ? 0 : last + 1;
	if (in_turns) {
		while (c < d->nchunks && c % d->jobs != k)
			c++;
		return c;
	}
	if (last != SIZE_MAX)
		c = last + d->jobs;
	size_t out = (size_t)__atomic_load_n(&d->cl->out, __ATOMIC_ACQUIRE);
	if (c < out + LEAD)
		c = out + LEAD;
	while (c < d->nchunks && !claim(d->cl, c, k))
		c++;
	return c < d->nchunks ? c : d->nchunks;
}

/* Whether the worker that claimed chunk C sent its header. */
static bool chunk_ready(const struct deal *d, size_t c)
{
	return __atomic_load_n(&d->cl->owner[c], __ATOMIC_ACQUIRE) & READY;
}

/* Who has chunk C when the parent gets to it: claimed by the parent when nobody had it.  In
 * turns, the chunk's process, or the parent when that worker did not start (STARTED processes
 * run). */
static unsigned owner_of(const struct deal *d, size_t c, unsigned started)
{
	if (in_turns)
		return c % d->jobs < started ? (unsigned)(c % d->jobs) : 0;
	if (claim(d->cl, c, 0))
		return 0;
	return (unsigned)(__atomic_load_n(&d->cl->owner[c], __ATOMIC_ACQUIRE) & ~READY);
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
	size_t late[SLOTS];     /* its chunks the parent walked itself, whose headers are still to
				 * be read and dropped (at most SLOTS: it claims no chunk while
				 * SLOTS of its chunks are not taken or dropped) */
	unsigned nlate;
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

/* A chunk's text in a worker: in its slot, or on the heap once it outgrows the slot.  It is
 * written through OUT (text_write) or, by a JSON writer, in place (text_room, text_commit). */
struct text {
	char *p;
	size_t len, cap;
	bool heap, failed;
	bool room_held;         /* a JSON writer writes past LEN (text_room) */
	FILE *out;
};

/* Room for N more bytes; false (FAILED set) when memory ran out. */
static bool text_reserve(struct text *t, size_t n)
{
	if (n <= t->cap - t->len)
		return true;
	size_t cap = t->cap * 2;
	while (cap - t->len < n)
		cap *= 2;
	char *p = t->heap ? realloc(t->p, cap) : malloc(cap);
	if (!p) {
		t->failed = true;
		return false;
	}
	if (!t->heap)
		memcpy(p, t->p, t->len);
	t->p = p;
	t->cap = cap;
	t->heap = true;
	return true;
}

static ssize_t text_write(void *cookie, const char *buf, size_t n)
{
	struct text *t = cookie;
	/* the bytes past LEN are a JSON writer's, which it has not committed yet */
	if (t->room_held)
		t->failed = true;
	if (t->failed || !text_reserve(t, n))
		return -1;
	memcpy(t->p + t->len, buf, n);
	t->len += n;
	return (ssize_t)n;
}

/* struct jw_sink over a struct text: what OUT's buffer holds goes first */
static char *text_room(void *ctx, size_t n, size_t *cap)
{
	struct text *t = ctx;
	if (fflush(t->out) != 0 || !text_reserve(t, n))
		return NULL;
	t->room_held = true;
	*cap = t->cap - t->len;
	return t->p + t->len;
}

static void text_commit(void *ctx, size_t n)
{
	struct text *t = ctx;
	/* bytes written to OUT while the room was held belong before the room's: the order
	 * is lost, and the chunk given back */
	if (__fpending(t->out) != 0)
		t->failed = true;
	t->len += n;
	t->room_held = false;
}

/* Has the kernel make the pages of SLOT up to WANT bytes (rounded up to SLOT_POPULATE_STEP, at
 * most a slot) of which MADE are made; returns the bytes made now.  A kernel before 5.14
 * refuses MADV_POPULATE_WRITE: the pages are then made by faults as the text is written. */
static size_t slot_made(char *slot, size_t made, size_t want)
{
	want = (want + SLOT_POPULATE_STEP - 1) / SLOT_POPULATE_STEP * SLOT_POPULATE_STEP;
	if (want > slot_bytes)
		want = slot_bytes;
	if (want <= made)
		return made;
	(void)madvise(slot + made, want - made, MADV_POPULATE_WRITE);
	return want;
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

/* The worker's life: the chunks it claims, each told on socket FD, its text in SLOTS; CPUS
 * (NULL: none) the CPUs it may run on once it runs.  Never returns. */
static void work(const struct workers_walk *w, const struct deal *d, unsigned k, int fd, char *slots,
		 const cpu_set_t *cpus)
{
	/* a parent that closed the socket (it walks the rest itself) makes a write fail, which
	 * ends the worker as a closed socket does, not SIGPIPE; a file-size limit (ulimit -f)
	 * fails a write to the memfd below with EFBIG, not the worker with SIGXFSZ */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	/* what a serial run would print on standard output or error is not printed here: it is
	 * caught (the file's size) and the chunk given back */
	int err = memfd_create("corestack-worker-output", MFD_CLOEXEC);
	if (err < 0 || dup2(err, 2) < 0 || dup2(err, 1) < 0)
		_exit(0);       /* end of the socket: the parent walks the chunks itself */
	struct text text = { .p = slots, .cap = slot_bytes };
	FILE *out = fopencookie(&text, "w", (cookie_io_functions_t){ .write = text_write });
	if (!out)
		_exit(0);
	text.out = out;
	/* bytes made of each slot, and how many the next chunk is expected to take */
	size_t made[SLOTS] = { 0 }, expect = SLOT_POPULATE_FIRST;
	const struct jw_sink sink = { .room = text_room, .commit = text_commit, .ctx = &text };
	/* a first walk that would say more than frames: this worker claims nothing, and the
	 * parent walks that thread as a serial run does */
	if (!in_turns && w->warm &&
	    (w->warm(w->ctx, d->first, out) || fflush(out) != 0 || lseek(2, 0, SEEK_END) != 0))
		_exit(0);
	/* kept off the parent's CPU to start at once (start), it may run on any of CPUS again
	 * now that it runs: for the rest of a long walk the scheduler places it as it will */
	if (cpus)
		(void)sched_setaffinity(0, sizeof *cpus, cpus);
	uint64_t mine = 0, acked = 0;
	for (size_t c = SIZE_MAX;; mine++) {
		if (mine >= SLOTS && wait_taken(fd, mine - SLOTS, &acked) < 0)
			_exit(0);
		if ((c = claim_next(d, k, c)) >= d->nchunks)
			break;
		size_t a, b;
		chunk_threads(c, d->chunk, d->first, d->end, &a, &b);
		int slot = (int)(mine % SLOTS);
		if (text.heap)
			free(text.p);
		text = (struct text){ .p = slots + (size_t)slot * slot_bytes, .cap = slot_bytes, .out = out };
		made[slot] = slot_made(text.p, made[slot], expect);
		int back = w->walk_away(w->ctx, a, b, out, &sink);
		back |= fflush(out) != 0 || ferror(out) != 0 || text.failed;
		expect = text.len + text.len / 8;
		if (lseek(2, 0, SEEK_END) != 0)
			back = 1;
		struct chunk_head h = { .chunk = c, .len = back ? 0 : text.len, .given_back = back != 0,
					.slot = text.heap ? -1 : slot };
		if (write_full(fd, &h, sizeof h) < 0)
			_exit(0);
		__atomic_or_fetch(&d->cl->owner[c], READY, __ATOMIC_RELEASE);
		if (back || (text.heap && write_full(fd, text.p, text.len) < 0))
			_exit(0);
	}
	/* the parent ends the socket when it took everything */
	wait_taken(fd, UINT64_MAX - 1, &acked);
	_exit(0);
}

/* Writes LEN bytes to standard output (with DROP, nowhere): from P, or (P NULL) read from
 * socket FD.  A write error (the reader went away, a full disk) drops the rest, as stdio's
 * buffer would.  Returns 0; when FD ends early (or is silent for TEXT_STALL_MS), -1 before
 * any of the bytes came, -2 after some of them. */
static int pass_on(int fd, const char *p, uint64_t len, bool drop)
{
	static char buf[64 << 10];
	int ended = -1;
	while (len) {
		size_t n = len < sizeof buf ? (size_t)len : sizeof buf;
		if (p) {
			n = (size_t)len;
		} else {
			/* the worker writes text it holds whole: a socket silent this long is a
			 * worker stopped from outside, taken for one gone */
			struct pollfd pf = { .fd = fd, .events = POLLIN };
			int ready = poll(&pf, 1, TEXT_STALL_MS);
			if (ready < 0 && errno == EINTR)
				continue;
			if (ready == 0)
				return ended;
			ssize_t r = read(fd, buf, n);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return ended;
			n = (size_t)r;
		}
		if (!drop && write_full(1, p ? p : buf, n) < 0)
			drop = true;
		len -= n;
		ended = -2;
	}
	return 0;
}

/* Workers killed and not yet waited for: the next walk with workers waits for them, and
 * those of the last one are left to exit with corestack, which need not wait for their
 * memory to be given back. */
static pid_t unreaped[MAX_JOBS];
static unsigned nunreaped;

static void reap(void)
{
	for (unsigned i = 0; i < nunreaped; i++)
		while (waitpid(unreaped[i], NULL, 0) < 0 && errno == EINTR)
			;
	nunreaped = 0;
}

/* Ends workers WS[0] to WS[N - 1].  With COUNT (the test hook's log), waits for them and
 * returns how many had failed: exited with a status other than 0, or killed by a signal
 * other than the SIGKILL sent here; else returns 0. */
static unsigned stop(struct worker *ws, unsigned n, bool count)
{
	unsigned failed = 0;
	for (unsigned i = 0; i < n; i++) {
		if (ws[i].fd >= 0)
			close(ws[i].fd);
		ws[i].fd = -1;
		if (ws[i].pid > 0) {
			kill(ws[i].pid, SIGKILL);
			int st = 0;
			if (!count) {
				unreaped[nunreaped++] = ws[i].pid;
			} else {
				while (waitpid(ws[i].pid, &st, 0) < 0 && errno == EINTR)
					;
				failed += WIFEXITED(st) ? WEXITSTATUS(st) != 0 :
					  !WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL;
			}
		}
		ws[i].pid = 0;
		if (ws[i].slots)
			munmap(ws[i].slots, SLOTS * slot_bytes);
		ws[i].slots = NULL;
	}
	return failed;
}

/* The CPUs of ALLOWED but the one this process runs on now (PLACE: ALLOWED has more than
 * one) into *ELSEWHERE, and that CPU into *CPU; false, *ELSEWHERE untouched, when it is not
 * known or not among them. */
static bool off_this_cpu(bool place, const cpu_set_t *allowed, int *cpu, cpu_set_t *elsewhere)
{
	*cpu = place ? sched_getcpu() : -1;
	if (*cpu < 0 || !CPU_ISSET(*cpu, allowed))
		return false;
	*elsewhere = *allowed;
	CPU_CLR(*cpu, elsewhere);
	return true;
}

/* Starts workers 1 to D->jobs - 1 into WS; returns how many processes walk: 1 + N, workers 1
 * to N started (a failed fork, or a lack of descriptors or memory for one, leaves the others
 * out).  Each worker is kept off the CPU the parent runs on: a forked process is queued on
 * its parent's CPU and, while the parent keeps that CPU busy, waits there until the load
 * balancer moves it (up to a scheduler tick, 4 ms at HZ=250); one that may not run there is
 * moved to another CPU at once.  Both the worker (its first call) and the parent (right
 * after the fork) set that, whichever runs first: a worker run first on the parent's CPU
 * would otherwise keep the parent from running until the load balancer moved one of them. */
static unsigned start(const struct workers_walk *w, struct worker *ws, const struct deal *d)
{
	pid_t parent = getpid();
	cpu_set_t allowed;
	bool place = sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) > 1;
	unsigned n = 0;
	for (unsigned k = 1; k < d->jobs; k++) {
		int sv[2];
		char *slots = mmap(NULL, SLOTS * slot_bytes, PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (slots == MAP_FAILED)
			break;
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
			munmap(slots, SLOTS * slot_bytes);
			break;
		}
		int cpu, here;
		cpu_set_t elsewhere;
		bool away = off_this_cpu(place, &allowed, &cpu, &elsewhere);
		pid_t pid = fork();
		if (pid < 0) {
			close(sv[0]);
			close(sv[1]);
			munmap(slots, SLOTS * slot_bytes);
			break;
		}
		if (pid == 0) {
			/* off the parent's CPU at once: run first there, it would keep the parent
			 * from running until the load balancer moved one of them */
			if (away)
				(void)sched_setaffinity(0, sizeof elsewhere, &elsewhere);
			/* killed with the parent, even when it is killed from outside */
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
				_exit(0);
			close(sv[0]);
			for (unsigned i = 0; i < n; i++)
				close(ws[i].fd);
			work(w, d, k, sv[1], slots, place ? &allowed : NULL);
		}
		close(sv[1]);
		ws[n++] = (struct worker){ .pid = pid, .fd = sv[0], .slots = slots };
		/* the parent's CPU now: the load balancer may have moved it during the fork */
		cpu_set_t now;
		if (off_this_cpu(place, &allowed, &here, &now) && here != cpu) {
			elsewhere = now;
			away = true;
		}
		if (away)
			(void)sched_setaffinity(pid, sizeof elsewhere, &elsewhere);  /* else where it is */
	}
	return 1 + n;
}

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* What the parent did, for the log. */
struct tally {
	size_t here, taken, given_back, through_socket;
};

/* Reads worker WK's next header into *H, which must be for a chunk up to C; -1 when the
 * worker is gone or says nonsense. */
static int read_head(struct worker *wk, size_t c, struct chunk_head *h)
{
	return read_full(wk->fd, h, sizeof *h) < 0 || h->chunk > c || h->slot >= SLOTS ||
	       (h->slot >= 0 && h->len > slot_bytes) ? -1 : 0;
}

/* Tells worker WK that the parent is done with its oldest chunk not acknowledged: its slot is
 * free again (a worker that is gone is found at its next header). */
static void ack(struct worker *wk)
{
	(void)send(wk->fd, "", 1, MSG_NOSIGNAL);
}

/* Drops the text of WK's chunk H (the parent walked it) and frees its slot; -1 when the
 * worker is gone. */
static int drop(struct worker *wk, const struct chunk_head *h)
{
	/* text in a slot needs nothing; text on the socket is read and thrown away */
	if (!h->given_back && h->slot < 0 && pass_on(wk->fd, NULL, h->len, true) < 0)
		return -1;
	ack(wk);
	wk->nlate--;
	memmove(wk->late, wk->late + 1, wk->nlate * sizeof *wk->late);
	return 0;
}

/* Drops the texts of WK's late chunks that are ready, so that the worker has slots for more. */
static void drop_ready(const struct deal *d, struct worker *wk)
{
	struct chunk_head h;
	while (wk->nlate && chunk_ready(d, wk->late[0]) &&
	       read_head(wk, wk->late[0], &h) == 0 && h.chunk == wk->late[0] && drop(wk, &h) == 0)
		;
}

/* Chunk C from worker WK, whose headers come in the order of its chunks: those of its late
 * chunks before C are dropped.  Waits for C's header at most WAIT_NS nanoseconds (forever when
 * WAIT_NS is 0).  Returns 1 when C's text went out, 0 when it is late (the parent walks C),
 * -1 when the worker gave C back or is gone (the parent walks C and every later one).  Exits
 * with status 2 when the worker ended in the middle of text that went out in part. */
static int take(const struct workers_walk *w, const struct deal *d, struct worker *wk, size_t c, size_t threads,
		uint64_t wait_ns, struct tally *t)
{
	if (wait_ns) {
		uint64_t start = now_ns(), until = start + wait_ns;
		for (unsigned spins = 1; !chunk_ready(d, c); spins++) {
			if (spins % 64)
				continue;
			uint64_t at = now_ns();
			if (at >= until) {
				if (wk->nlate == SLOTS)
					return -1;    /* cannot be: it has no slot for C */
				wk->late[wk->nlate++] = c;
				return 0;
			}
			if (at - start < SPIN_NS) {
				sched_yield();   /* for a worker that shares this CPU */
				continue;
			}
			/* a long wait sleeps until the worker's socket has something: C's header,
			 * or those of late chunks, dropped here */
			drop_ready(d, wk);
			struct pollfd p = { .fd = wk->fd, .events = POLLIN };
			struct timespec left = { .tv_sec = (time_t)((until - at) / 1000000000u),
						 .tv_nsec = (long)((until - at) % 1000000000u) };
			if (ppoll(&p, 1, &left, NULL) > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)) &&
			    !chunk_ready(d, c))
				return -1;       /* gone before C */
		}
	}
	struct chunk_head h;
	while (wk->nlate) {
		if (read_head(wk, c, &h) < 0 || h.chunk != wk->late[0] || drop(wk, &h) < 0)
			return -1;
	}
	if (read_head(wk, c, &h) < 0 || h.chunk != c || h.given_back)
		return -1;
	w->flush(w->ctx);
	int passed = pass_on(wk->fd, h.slot < 0 ? NULL : wk->slots + (size_t)h.slot * slot_bytes, h.len, false);
	if (passed == -1)
		return -1;      /* gone before any of C's text went out: the parent walks C */
	if (passed < 0) {
		fprintf(stderr, "corestack: a worker process ended in the middle of its text\n");
		exit(2);
	}
	ack(wk);
	t->through_socket += h.slot < 0;
	t->taken++;
	w->took(w->ctx, threads);
	return 1;
}

int workers_run(const struct workers_walk *w, size_t first, size_t end, unsigned jobs)
{
	if (jobs > MAX_JOBS)
		jobs = MAX_JOBS;
	if (jobs < 2 || end - first < 3)
		return w->walk_here(w->ctx, first, end);
	/* The range's first thread is walked here, before the fork: the threads after the
	 * crashed one are mostly alike (a pool blocked in one place), and the first of them
	 * loads what the others look up (the lines of their compilation units, their
	 * functions' symbols).  A worker forked after it inherits that; one forked before it
	 * loads the same at the same time as the parent, which slows both. */
	int partial = w->walk_here(w->ctx, first, first + 1);
	first++;
	reap();
	read_hooks();
	size_t chunk = (end - first) / ((size_t)jobs * 16);
	chunk = chunk < 1 ? 1 : chunk > MAX_CHUNK ? MAX_CHUNK : chunk;
	struct deal d = { .first = first, .end = end, .chunk = chunk, .jobs = jobs,
			  .nchunks = (end - first + chunk - 1) / chunk };
	/* a worker claims no chunk before LEAD past the parent's first one (claim_next): with
	 * no more chunks than that, a worker forked would walk nothing */
	if (!in_turns && d.nchunks <= LEAD)
		return partial | w->walk_here(w->ctx, first, end);
	d.cl = mmap(NULL, claims_bytes(d.nchunks), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (d.cl == MAP_FAILED)
		return partial | w->walk_here(w->ctx, first, end);
	memset(d.cl->owner, 0xff, d.nchunks * sizeof *d.cl->owner);    /* -1: nobody's */
	bool logged = getenv("CORESTACK_WORKERS_LOG") != NULL;
	struct worker ws[MAX_JOBS - 1];
	w->flush(w->ctx);        /* nothing of the parent's buffers is copied into a worker */
	fflush(stderr);
	unsigned processes = start(w, ws, &d);
	bool alone = processes < 2;
	struct tally t = { 0 };
	unsigned failed = 0;
	uint64_t wait_ns = MIN_WAIT_NS;
	for (size_t c = 0; c < d.nchunks; c++) {
		size_t a, b;
		chunk_threads(c, chunk, first, end, &a, &b);
		if (!alone)
			for (unsigned i = 0; i + 1 < processes; i++)
				drop_ready(&d, &ws[i]);
		unsigned k = alone ? 0 : owner_of(&d, c, processes);
		int got = k ? take(w, &d, &ws[k - 1], c, b - a, in_turns ? 0 : no_wait ? 1 : wait_ns, &t) : 0;
		if (got < 0) {
			failed = stop(ws, processes - 1, logged);
			alone = true;    /* this chunk and every later one walked here */
			t.given_back++;
		}
		if (got <= 0) {
			if (alone)      /* the rest at once */
				b = end;
			uint64_t at = now_ns();
			partial |= w->walk_here(w->ctx, a, b);
			at = now_ns() - at;
			wait_ns = at < MIN_WAIT_NS ? MIN_WAIT_NS : at > MAX_WAIT_NS ? MAX_WAIT_NS : at;
			if (alone) {
				t.here += d.nchunks - c;
				break;
			}
			t.here++;
		}
		__atomic_store_n(&d.cl->out, (uint64_t)c + 1, __ATOMIC_RELEASE);
	}
	if (!alone)
		failed = stop(ws, processes - 1, logged);
	munmap(d.cl, claims_bytes(d.nchunks));
	log_walk(processes, d.nchunks, t.here, t.taken, t.given_back, t.through_socket, failed);
	return partial;
}

/* tests/sweep/sweep.c: the accuracy sweep.  Runs a test program (tests/sweep/sweep_prog.c,
 * tests/sweep/sweep_interp.c) under ptrace, single-steps it from main's entry until main
 * returns, and at every instruction of the program's own functions compares corestack's
 * unwind (build/libcorestack.a, live target) with the truth kept on a shadow stack.
 *
 * Usage: sweep BUILD PROGRAM [SYMBOL-FILE]
 *   BUILD        the name printed in the result line (fp, cfi, fp-stripped, ...)
 *   PROGRAM      the executable to run (may be stripped)
 *   SYMBOL-FILE  an unstripped twin of PROGRAM for the truth's function ranges (default
 *                PROGRAM); corestack itself sees only what PROGRAM has.
 * Prints "sweep BUILD: N/M instructions exact (P%); lost tail calls: recall F/T (R%), of the
 * determined F2/D (R2%), ambiguous A, call-site determined F3/C (R3%), precision F/I (Q%)"
 * (the call-site part only when the program has call-site records naming the targets of
 * its calls) and exits 0 when N == M, every inserted frame is true and every determined and
 * call-site determined lost tail call is found, 1 when not, 2 when the sweep itself could
 * not run.  Env: SWEEP_MISSES=1 logs every stop with a missed lost tail call,
 * SWEEP_CHAINS=1 every true chain with its kind, SWEEP_MAX_REPORTS the reports logged.
 *
 * The truth.  Before each step the instruction at rip is decoded (capstone).  After it:
 *   call      pushes a frame: the program's function holding the new rip, or "outside" (the
 *             C library, a PLT stub), entry rsp = new rsp;
 *   jmp/jcc   landing on the entry of a function other than the top's is a tail call: the
 *             top frame's function is appended to its lost chain and replaced; a jump out
 *             of the program makes the top an outside frame; a jump from outside into the
 *             middle of a function of the program returns to its frame (longjmp);
 *   a signal  delivered during the step stops the child at the handler's entry: the
 *             kernel's frame (outside) and the handler's are pushed;
 *   and then every frame whose return address lies above rsp is gone (ret, longjmp,
 *   rt_sigreturn; main's return ends the sweep).
 * Compared, innermost first: each real frame of the program (its lookup_pc in the function's
 * [start, end): ranges, not names, so stripped builds compare too) with its marker: the
 * first real caller is CST_MARK_RECOVERED_CALLER iff rbp != entry rsp of the top - 8 (the
 * top's frame record, rbp = CFA - 16, is not set up), others CST_MARK_NONE, and a frame whose
 * callee is outside is not checked; a run of outside frames matches one or more frames
 * outside the program.  The lost-tail-call frames after a real frame are scored against its
 * true chain (every function that tail-jumped away, however it was called): one that is the
 * next function of the chain or a later one is found, any other is wrong.  An instruction is
 * exact when its real frames and markers are, and the walk goes on past main through the C
 * library's start code to the thread's outermost frame (cst_unwind_next returns 0).
 *
 * What can be found.  Every true lost tail call counted at a stop is kept with its real
 * caller's call site (the frame's return address), the callee (the frame's function) and its
 * chain; after the run, from all the chains the truth saw, each is determined or ambiguous
 * (classify): ambiguous when the same call site and callee were reached through chains
 * that begin with different functions, or when the function before it in the chain went on
 * to the same callee along different chains (from any call site: its code is the same), and
 * so is every lost tail call after an ambiguous one in its chain; no rule that reads the
 * code, the call site and the callee is right both times.  This is the truth's alone; only
 * the call-site determined count reads the program's DWARF (record_names). */
#include "arch.h"
#include "callsite.h"
#include "error.h"
#include "live.h"
#include "symbols.h"
#include "target.h"
#include "unwind.h"

#include <capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_STEPS      2000000   /* instructions swept at most */
#define MAX_FUNCS      4096
#define MAX_DEPTH      256       /* real frames on the shadow stack */
#define MAX_CHAIN      CST_MAX_TAIL_DEPTH
#define MAX_EXPECTED   (MAX_DEPTH * (MAX_CHAIN + 1))
#define MAX_REPORTS    20        /* mismatches printed; env SWEEP_MAX_REPORTS overrides */
#define MAX_SEEN       4096      /* distinct true lost-tail-call chains */
#define STR(x)         #x
#define XSTR(x)        STR(x)

/* ---- the program's functions (from the unstripped symbol table) --------------------- */

struct func {
	uint64_t start, end;       /* target addresses, after the load bias */
	char *name;
};

static struct func funcs[MAX_FUNCS];
static int nfuncs;
static int memfd = -1;         /* /proc/PID/mem of the child */
static csh cs;

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

/* Reads STT_FUNC symbols with a size from PATH's .symtab; addresses are file addresses
 * (the bias is added later).  *FIRST_LOAD gets the lowest PT_LOAD p_vaddr, page-aligned. */
static int load_symbols(const char *path, uint64_t *first_load)
{
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e) {
		close(fd);
		return -1;
	}
	size_t nph = 0;
	elf_getphdrnum(e, &nph);
	*first_load = UINT64_MAX;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < *first_load)
			*first_load = ph.p_vaddr & ~(uint64_t)0xfff;
	}
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; d && i < n && nfuncs < MAX_FUNCS; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    s.st_size == 0 || s.st_value == 0)
				continue;
			const char *nm = elf_strptr(e, sh.sh_link, s.st_name);
			struct func *f = &funcs[nfuncs++];
			f->start = s.st_value;
			f->end = s.st_value + s.st_size;
			f->name = strdup(nm ? nm : "?");
		}
	}
	elf_end(e);
	close(fd);
	qsort(funcs, (size_t)nfuncs, sizeof funcs[0], cmp_func);
	return nfuncs > 0 && *first_load != UINT64_MAX ? 0 : -1;
}

static struct func *func_at(uint64_t addr)
{
	int lo = 0, hi = nfuncs;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (funcs[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= funcs[lo - 1].end)
		return NULL;
	return &funcs[lo - 1];
}

static struct func *func_named(const char *name)
{
	for (int i = 0; i < nfuncs; i++)
		if (strcmp(funcs[i].name, name) == 0)
			return &funcs[i];
	return NULL;
}

static const char *name_at(uint64_t addr)
{
	struct func *f = func_at(addr);
	return f ? f->name : "??";
}

static int read_mem(uint64_t addr, void *buf, size_t len)
{
	return pread(memfd, buf, len, (off_t)addr) == (ssize_t)len ? 0 : -1;
}

/* ---- the shadow stack --------------------------------------------------------------- */

/* A frame of the truth.  FN NULL: a frame of code outside the program's functions (the C
 * library, a linkage stub, the signal trampoline), whose calls are followed but whose
 * frames are compared only as a run of at least one frame outside the program. */
struct real_frame {
	struct func *fn;
	uint64_t entry_rsp;              /* rsp at the function's entry: points at the return address */
	uint64_t ra;                     /* that return address: the real caller's call site */
	bool named;                      /* the call-site record at RA names the function called */
	int nchain;                      /* functions of the program that tail-jumped away, in the order run */
	struct func *chain[MAX_CHAIN];
};

static struct real_frame stack[MAX_DEPTH];
static int depth;

/* ---- what can be determined ------------------------------------------------------- */

/* A true lost-tail-call chain as the stops saw it: the real caller's call site RA, the
 * function running above it (the callee), the functions that tail-jumped away (outermost
 * first), and how often each was found.  The kinds are told apart after the run, from all
 * the chains it saw (classify). */
struct seen_chain {
	uint64_t ra;
	const struct func *callee;
	bool named;                      /* real_frame.named */
	int n;
	const struct func *chain[MAX_CHAIN];
	long stops;                      /* stops at which the truth had this chain */
	long found[MAX_CHAIN];           /* of them, stops at which chain[k] was found */
};

static struct seen_chain seen[MAX_SEEN];
static int nseen;
static bool seen_full;           /* more than MAX_SEEN distinct chains: the sweep cannot tell */

/* The entry of R's chain (R has one), added on its first stop; NULL when the table is full. */
static struct seen_chain *seen_entry(const struct real_frame *r)
{
	for (int i = 0; i < nseen; i++) {
		struct seen_chain *e = &seen[i];
		if (e->ra == r->ra && e->callee == r->fn && e->named == r->named && e->n == r->nchain &&
		    memcmp(e->chain, r->chain, sizeof r->chain[0] * (size_t)r->nchain) == 0)
			return e;
	}
	if (nseen == MAX_SEEN) {
		seen_full = true;
		return NULL;
	}
	struct seen_chain *e = &seen[nseen++];
	*e = (struct seen_chain){ .ra = r->ra, .callee = r->fn, .named = r->named, .n = r->nchain };
	memcpy(e->chain, r->chain, sizeof r->chain[0] * (size_t)r->nchain);
	return e;
}

/* Whether every chain seen at call site RA below CALLEE begins with FIRST: the function the
 * call entered follows from the call site and the callee alone. */
static bool begins_alike(uint64_t ra, const struct func *callee, const struct func *first)
{
	for (int i = 0; i < nseen; i++)
		if (seen[i].ra == ra && seen[i].callee == callee && seen[i].chain[0] != first)
			return false;
	return true;
}

/* Whether every chain seen below CALLEE, at any call site, that holds P goes on from P to
 * NEXT (NULL: P jumped to the callee).  P's code is the same whichever call entered it. */
static bool goes_on_alike(const struct func *callee, const struct func *p, const struct func *next)
{
	for (int i = 0; i < nseen; i++) {
		const struct seen_chain *e = &seen[i];
		for (int j = 0; e->callee == callee && j < e->n; j++)
			if (e->chain[j] == p && (j + 1 < e->n ? e->chain[j + 1] : NULL) != next)
				return false;
	}
	return true;
}

/* The true lost tail calls by kind, counted over the stops; *_found: of them, found. */
struct tally {
	long all, all_found;
	long determined, determined_found;     /* the rest are ambiguous */
	long callsite, callsite_found;         /* determined given the call-site record */
};

/* A lost tail call is determined when the code, the call site and the callee settle it:
 * the first of a chain when every chain seen at that call site below that callee begins
 * with it (the same call site and callee reached through chains that begin differently:
 * no rule can be right both times), a later one when the one before it is determined and
 * every chain seen below that callee goes on from the one before it to it (the code from
 * there on is the same whichever call entered it).  Call-site determined: the same, with
 * the first function of the chain named by the call-site record at the call site.  The
 * misses of those two kinds are logged (at most MAX_REPORTS), and with env SWEEP_CHAINS
 * every chain. */
static void classify(struct tally *y, const char *build, int max_reports)
{
	bool list = getenv("SWEEP_CHAINS") != NULL;
	memset(y, 0, sizeof *y);
	int reports = 0;
	for (int i = 0; i < nseen; i++) {
		const struct seen_chain *e = &seen[i];
		bool det = false, cs = false;
		for (int k = 0; k < e->n; k++) {
			if (k == 0) {
				det = begins_alike(e->ra, e->callee, e->chain[0]);
				cs = e->named;
			} else {
				bool alike = goes_on_alike(e->callee, e->chain[k - 1], e->chain[k]);
				det = det && alike;
				cs = cs && alike;
			}
			y->all += e->stops;
			y->all_found += e->found[k];
			if (det) {
				y->determined += e->stops;
				y->determined_found += e->found[k];
			}
			if (cs) {
				y->callsite += e->stops;
				y->callsite_found += e->found[k];
			}
			if (list)
				fprintf(stderr, "  chain at 0x%" PRIx64 " below %s: %s%s found %ld of %ld stops, %s%s\n",
					e->ra, e->callee->name, e->chain[k]->name, e->named ? " (record names the first)" : "",
					e->found[k], e->stops, det ? "determined" : "ambiguous", cs ? ", call-site determined" : "");
			if ((det || cs) && e->found[k] < e->stops && reports++ < max_reports)
				fprintf(stderr, "sweep %s: missed %s lost tail call %s (%ld of %ld stops) "
					"below %s, called at 0x%" PRIx64 "\n", build,
					det ? "determined" : "call-site determined", e->chain[k]->name,
					e->stops - e->found[k], e->stops, e->callee->name, e->ra);
		}
	}
}

/* ---- comparing one walk with the truth -------------------------------------------- */

struct score {
	long lost_true;      /* lost tail calls in the truth (every one, however it was called) */
	long lost_found;     /* inserted lost-tail-call frames that are true */
	long lost_wrong;     /* inserted lost-tail-call frames that are not */
	bool real_ok;        /* every real frame and marker as the truth has them, and the walk
			      * ends at the thread's outermost frame past main */
	char why[160];
};

/* The walk's frames, read one ahead. */
struct walk {
	struct cst_unwind *u;
	struct cst_frame fr[MAX_EXPECTED];
	int n, pos, rc;              /* frames read, the next to look at, the cursor's last result */
};

static const struct cst_frame *peek(struct walk *w)
{
	if (w->pos < w->n)
		return &w->fr[w->pos];
	if (w->n == MAX_EXPECTED || w->rc <= 0 || (w->rc = cst_unwind_next(w->u, &w->fr[w->n])) <= 0)
		return NULL;
	return &w->fr[w->n++];
}

static bool in_program(uint64_t pc) { return func_at(pc) != NULL; }

static bool lost(const struct cst_frame *f) { return f && f->marker == CST_MARK_LOST_TAIL_CALL; }

/* Consumes the lost-tail-call frames after real frame R and scores them against R's chain:
 * in the truth's order (innermost first), a frame is right when it is the next function of
 * the chain or a later one (a path cut short inserts the called function only). */
static void score_chain(struct walk *w, const struct real_frame *r, struct score *sc)
{
	int j = r->nchain - 1;
	bool hit[MAX_CHAIN] = { false };
	sc->lost_true += r->nchain;
	const struct cst_frame *f;
	while ((f = peek(w)) && lost(f)) {
		w->pos++;
		int k = j;
		while (k >= 0 && (f->lookup_pc < r->chain[k]->start || f->lookup_pc >= r->chain[k]->end))
			k--;
		if (k >= 0) {
			sc->lost_found++;
			hit[k] = true;
			j = k - 1;
		} else {
			sc->lost_wrong++;
			if (!sc->why[0])
				snprintf(sc->why, sizeof sc->why, "wrong lost tail call %s (0x%" PRIx64 ") above %s",
					 name_at(f->lookup_pc), f->lookup_pc, r->fn ? r->fn->name : "??");
		}
	}
	struct seen_chain *e = r->nchain ? seen_entry(r) : NULL;
	if (e) {
		e->stops++;
		for (int k = 0; k < r->nchain; k++)
			e->found[k] += hit[k];
	}
}

/* Compares the walk of U with the truth for the registers RBP. */
static void compare(struct cst_unwind *u, struct walk *w, uint64_t rbp, struct score *sc)
{
	w->u = u;
	w->n = w->pos = 0;
	w->rc = 1;
	memset(sc, 0, sizeof *sc);
	sc->real_ok = true;
	for (int i = depth - 1; i >= 0; i--) {
		const struct real_frame *r = &stack[i];
		const struct cst_frame *f = peek(w);
		if (!r->fn) {
			if (i < depth - 1 && !stack[i + 1].fn)
				continue;               /* one run of frames outside the program */
			if (!f || in_program(f->lookup_pc)) {
				sc->real_ok = false;
				snprintf(sc->why, sizeof sc->why, "frame %d: no frame outside the program", w->pos);
				return;
			}
			while ((f = peek(w)) && !in_program(f->lookup_pc))
				w->pos++;
			continue;
		}
		enum cst_marker m = CST_MARK_NONE;
		bool check_marker = true;
		if (i < depth - 1 && !stack[i + 1].fn)
			check_marker = false;       /* its callee is not the program's: not decided here */
		else if (i == depth - 2 && rbp != stack[depth - 1].entry_rsp - 8)
			m = CST_MARK_RECOVERED_CALLER;
		if (!f || lost(f) || f->lookup_pc < r->fn->start || f->lookup_pc >= r->fn->end ||
		    (check_marker && f->marker != m)) {
			sc->real_ok = false;
			snprintf(sc->why, sizeof sc->why, "frame %d: expected %s%s", w->pos, r->fn->name,
				 m == CST_MARK_RECOVERED_CALLER ? " [recovered caller]" : "");
			return;
		}
		w->pos++;
		score_chain(w, r, sc);
	}
	/* past main: main's callers in libc, down to the outermost frame */
	int past = 0;
	while (peek(w)) {
		w->pos++;
		past++;
	}
	if (w->rc != 0 || past == 0) {
		sc->real_ok = false;
		snprintf(sc->why, sizeof sc->why, "then %d frames past main, walk ended: %s", past,
			 cst_unwind_stop_reason(u));
	}
}

static void print_truth(void)
{
	for (int i = depth - 1; i >= 0; i--) {
		fprintf(stderr, "%s%s", i < depth - 1 ? " < " : "", stack[i].fn ? stack[i].fn->name : "(outside)");
		for (int j = stack[i].nchain - 1; j >= 0; j--)
			fprintf(stderr, " < %s[lost]", stack[i].chain[j]->name);
	}
}

static void print_walk(const struct walk *w)
{
	for (int i = 0; i < w->n; i++) {
		const struct cst_frame *f = &w->fr[i];
		const char *m = cst_marker_name(f->marker);
		fprintf(stderr, "%s%s%s%s%s(%s 0x%" PRIx64 "%s%s)", i ? " < " : "",
			name_at(f->lookup_pc), m ? "[" : "",
			m ? (f->marker == CST_MARK_LOST_TAIL_CALL ? "lost" : "recovered") : "",
			m ? "]" : "", cst_found_by_token(f->found_by), f->lookup_pc,
			f->note[0] ? ": " : "", f->note);
	}
}

/* ---- the child ---------------------------------------------------------------------- */

static int wait_trap(pid_t pid, const char *what)
{
	int st;
	if (waitpid(pid, &st, 0) < 0) {
		perror("sweep: waitpid");
		return -1;
	}
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP) {
		fprintf(stderr, "sweep: %s: child %s %d\n", what,
			WIFEXITED(st) ? "exited with" : WIFSIGNALED(st) ? "killed by signal" : "stopped by signal",
			WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? WTERMSIG(st) : WSTOPSIG(st));
		return -1;
	}
	return 0;
}

/* Load address of the executable: the start of its mapping at file offset 0. */
static uint64_t load_base(pid_t pid)
{
	char path[64], exe[PATH_MAX], line[PATH_MAX + 256];
	snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(path, exe, sizeof exe - 1);
	if (n <= 0)
		return 0;
	exe[n] = 0;
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	uint64_t base = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned long long lo, off;
		char file[PATH_MAX];
		file[0] = 0;
		if (sscanf(line, "%llx-%*x %*s %llx %*s %*s %4095s", &lo, &off, file) >= 2 &&
		    off == 0 && strcmp(file, exe) == 0) {
			base = lo;
			break;
		}
	}
	fclose(f);
	return base;
}

/* N of M as a percentage in BUF (16 bytes): "100" only when N == M (also for 0 of 0). */
static const char *percent(long n, long m, char *buf)
{
	if (n >= m)
		return strcpy(buf, "100");
	double p = 100.0 * (double)n / (double)m;
	snprintf(buf, 16, "%.1f", p > 99.9 ? 99.9 : p);
	return buf;
}

/* Whether the DWARF call-site record of the call returning to RA names TARGET, the address
 * the call went to, in a form corestack evaluates (callsite.h): a constant address, or a
 * register the psABI preserves across calls plus an offset, read here from REGS, the
 * registers at the call.  This reads the program's DWARF, not the truth.  *RECORDS counts
 * the calls that have a record naming a target in such a form. */
static bool record_names(struct cst_symbols *syms, const struct cst_regs *regs, uint64_t ra,
			 uint64_t target, long *records)
{
	struct cst_call_target ct;
	uint64_t v;
	if (!cst_callsites_target(cst_symbols_callsites(syms, ra), ra, &ct))
		return false;
	if (ct.kind == CST_TARGET_ADDR) {
		++*records;
		return ct.addr == target;
	}
	if (ct.reg < 0 || ct.reg >= 64 || !(cst_arch_x86_64.preserved_regs >> ct.reg & 1) ||
	    !cst_reg_get(regs, ct.reg, &v))
		return false;
	++*records;
	return v + (uint64_t)ct.offset == target;
}

/* Single-steps the child.  A signal it gets on the way is delivered (the kernel then stops
 * it at the handler's first instruction): *SIGNALLED is set.  Returns 0, or -1. */
static int single_step(pid_t pid, bool *signalled)
{
	int sig = 0;
	*signalled = false;
	for (int i = 0; i < 4; i++) {
		int st;
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, (void *)(long)sig) < 0 || waitpid(pid, &st, 0) < 0)
			return -1;
		if (!WIFSTOPPED(st)) {
			fprintf(stderr, "sweep: step: child ended (status 0x%x)\n", st);
			return -1;
		}
		if (WSTOPSIG(st) == SIGTRAP)
			return 0;
		sig = WSTOPSIG(st);
		*signalled = true;
	}
	return -1;
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: sweep BUILD PROGRAM [SYMBOL-FILE]\n");
		return 2;
	}
	const char *build = argv[1], *prog = argv[2], *symfile = argc > 3 ? argv[3] : argv[2];
	uint64_t first_load;
	if (load_symbols(symfile, &first_load) < 0) {
		fprintf(stderr, "sweep: %s: no function symbols\n", symfile);
		return 2;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return 2;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);

	pid_t pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	if (wait_trap(pid, "exec") < 0)
		return 2;
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_EXITKILL);
	uint64_t base = load_base(pid);
	if (!base) {
		fprintf(stderr, "sweep: no load address for %s\n", prog);
		kill(pid, SIGKILL);
		return 2;
	}
	uint64_t bias = base - first_load;
	for (int i = 0; i < nfuncs; i++) {
		funcs[i].start += bias;
		funcs[i].end += bias;
	}
	struct func *mainf = func_named("main");
	if (!mainf) {
		fprintf(stderr, "sweep: no main in %s\n", symfile);
		kill(pid, SIGKILL);
		return 2;
	}

	/* Run to main: int3 at its entry, then restore the byte and rewind rip. */
	errno = 0;
	long orig = ptrace(PTRACE_PEEKTEXT, pid, (void *)mainf->start, NULL);
	if (errno ||
	    ptrace(PTRACE_POKETEXT, pid, (void *)mainf->start, (void *)((orig & ~0xffL) | 0xcc)) < 0 ||
	    ptrace(PTRACE_CONT, pid, NULL, NULL) < 0 || wait_trap(pid, "run to main") < 0) {
		fprintf(stderr, "sweep: cannot stop at main\n");
		kill(pid, SIGKILL);
		return 2;
	}
	struct user_regs_struct ur;
	ptrace(PTRACE_GETREGS, pid, NULL, &ur);
	if (ur.rip != mainf->start + 1) {
		fprintf(stderr, "sweep: stopped at 0x%llx, not main\n", ur.rip);
		kill(pid, SIGKILL);
		return 2;
	}
	ptrace(PTRACE_POKETEXT, pid, (void *)mainf->start, (void *)orig);
	ur.rip = mainf->start;
	ptrace(PTRACE_SETREGS, pid, NULL, &ur);

	char path[64], err[256];
	snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
	memfd = open(path, O_RDONLY);
	struct cst_symbols *syms = NULL;
	struct cst_target target;
	if (memfd < 0 || cst_symbols_open_pid(&syms, pid, err, sizeof err) < 0 ||
	    cst_live_open_target(pid, &target) < 0) {
		fprintf(stderr, "sweep: cannot open process %d: %s\n", (int)pid, memfd < 0 ? "mem" : err);
		kill(pid, SIGKILL);
		return 2;
	}
	struct cst_unwind_env env = { .arch = &cst_arch_x86_64, .target = &target, .syms = syms };

	stack[0] = (struct real_frame){ .fn = mainf, .entry_rsp = ur.rsp };
	read_mem(ur.rsp, &stack[0].ra, sizeof stack[0].ra);
	depth = 1;
	long total = 0, exact = 0, lost_true = 0, lost_found = 0, lost_wrong = 0, records = 0;
	int reports = 0, rc = 0, max_reports = MAX_REPORTS;
	if (getenv("SWEEP_MAX_REPORTS"))
		max_reports = atoi(getenv("SWEEP_MAX_REPORTS"));
	bool show_misses = getenv("SWEEP_MISSES") != NULL;
	static struct walk w;
	cs_insn *in = cs_malloc(cs);
	for (long step = 0; step < MAX_STEPS && depth > 0; step++) {
		ptrace(PTRACE_GETREGS, pid, NULL, &ur);
		struct func *top = func_at(ur.rip);
		if (top != stack[depth - 1].fn) {
			fprintf(stderr, "sweep: truth lost at pc 0x%llx (%s), expected in %s\n",
				ur.rip, name_at(ur.rip), stack[depth - 1].fn ? stack[depth - 1].fn->name : "(outside)");
			rc = 2;
			break;
		}

		/* compare, at the program's own instructions */
		struct cst_regs regs;
		bool have_regs = top && cst_live_getregs(&cst_arch_x86_64, pid, &regs) == 0;
		if (top) {
			struct cst_unwind u;
			struct score sc = { .real_ok = false };
			if (have_regs && cst_unwind_start(&u, &env, &regs) == 0)
				compare(&u, &w, ur.rbp, &sc);
			total++;
			exact += sc.real_ok;
			lost_true += sc.lost_true;
			lost_found += sc.lost_found;
			lost_wrong += sc.lost_wrong;
			bool miss = show_misses && sc.lost_found < sc.lost_true;
			if ((!sc.real_ok || sc.lost_wrong || miss) && reports++ < max_reports) {
				fprintf(stderr, "sweep %s: %s at pc 0x%llx (%s+0x%llx): %s\n  truth:  ", build,
					!sc.real_ok ? "mismatch" : sc.lost_wrong ? "wrong lost tail call" : "missed lost tail call",
					ur.rip, top->name, ur.rip - top->start, sc.why);
				print_truth();
				fprintf(stderr, "\n  walk:   ");
				print_walk(&w);
				fprintf(stderr, "\n");
			}
		}

		/* step, then update the truth */
		uint8_t code[16];
		const uint8_t *p = code;
		size_t left = sizeof code;
		uint64_t addr = ur.rip;
		bool signalled;
		if (read_mem(ur.rip, code, sizeof code) < 0 || !cs_disasm_iter(cs, &p, &left, &addr, in)) {
			fprintf(stderr, "sweep: cannot decode at 0x%llx\n", ur.rip);
			rc = 2;
			break;
		}
		if (single_step(pid, &signalled) < 0) {
			rc = 2;
			break;
		}
		struct user_regs_struct after;
		ptrace(PTRACE_GETREGS, pid, NULL, &after);
		if (depth + 2 > MAX_DEPTH) {
			fprintf(stderr, "sweep: stack deeper than %d frames at 0x%llx\n", MAX_DEPTH, ur.rip);
			rc = 2;
			break;
		}
		struct real_frame *t = &stack[depth - 1];
		struct func *dest = func_at(after.rip);
		if (signalled) {
			/* at the handler's entry: the kernel's signal frame (its trampoline's return
			 * address at rsp; rt_sigreturn pops it), then the handler's */
			stack[depth++] = (struct real_frame){ .fn = NULL, .entry_rsp = after.rsp + 8 };
			stack[depth] = (struct real_frame){ .fn = dest, .entry_rsp = after.rsp };
			read_mem(after.rsp, &stack[depth++].ra, sizeof stack[0].ra);
			continue;
		}
		if (in->id == X86_INS_CALL) {
			uint64_t ra = ur.rip + in->size;
			stack[depth++] = (struct real_frame){ .fn = dest, .entry_rsp = after.rsp, .ra = ra,
				.named = have_regs && record_names(syms, &regs, ra, after.rip, &records) };
		} else if (in->id != X86_INS_RET && cs_insn_group(cs, in, CS_GRP_JUMP)) {
			if (t->fn && dest != t->fn) {
				if (dest && dest->start == after.rip) {
					/* a tail call within the program */
					if (t->nchain == MAX_CHAIN) {
						fprintf(stderr, "sweep: tail-call chain too long at 0x%llx\n", ur.rip);
						rc = 2;
						break;
					}
					t->chain[t->nchain++] = t->fn;
					t->fn = dest;
				} else if (!dest) {
					t->fn = NULL;           /* a tail call out of the program */
					t->nchain = 0;
				}
			} else if (!t->fn && dest) {
				if (dest->start == after.rip) {
					t->fn = dest;           /* a jump from outside to a function's entry */
				} else {
					/* back into a frame of the program (longjmp) */
					while (depth > 1 && !stack[depth - 1].fn)
						depth--;
				}
			}
		}
		/* frames whose return address is above the stack pointer are gone (ret, longjmp,
		 * rt_sigreturn) */
		while (depth > 0 && stack[depth - 1].entry_rsp < after.rsp)
			depth--;
		/* a frame of the program left without a return (longjmp's code restores rsp, then
		 * jumps): the code outside runs in a frame of its own until it comes back */
		if (depth > 0 && stack[depth - 1].fn && !dest)
			stack[depth++] = (struct real_frame){ .fn = NULL, .entry_rsp = after.rsp };
	}
	if (in)
		cs_free(in, 1);
	if (depth > 0 && rc == 0) {
		fprintf(stderr, "sweep: main did not return within %d instructions\n", MAX_STEPS);
		rc = 2;
	}

	cst_unwind_env_free(&env);
	cst_live_close_target(&target);
	cst_symbols_close(syms);
	close(memfd);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	cs_close(&cs);

	struct tally y;
	classify(&y, build, max_reports);
	if (seen_full || y.all != lost_true || y.all_found != lost_found) {
		fprintf(stderr, "sweep: %s\n", seen_full ? "more than " XSTR(MAX_SEEN) " distinct lost-tail-call chains" :
			"the chains' counts do not add up");
		rc = 2;
	}
	char pct[16], rpct[16], dpct[16], cpct[16], ppct[16];
	long inserted = lost_found + lost_wrong;
	fprintf(stderr, "sweep %s: %ld instructions compared, %ld true lost tail calls, %ld found, "
		"%ld wrong; %ld determined, %ld found; %ld call-site determined, %ld found; "
		"%ld call-site records\n", build, total, lost_true, lost_found, lost_wrong, y.determined,
		y.determined_found, y.callsite, y.callsite_found, records);
	printf("sweep %s: %ld/%ld instructions exact (%s%%); lost tail calls: recall %ld/%ld (%s%%), "
	       "of the determined %ld/%ld (%s%%), ambiguous %ld, ", build, exact, total,
	       percent(exact, total, pct), lost_found, lost_true, percent(lost_found, lost_true, rpct),
	       y.determined_found, y.determined, percent(y.determined_found, y.determined, dpct),
	       y.all - y.determined);
	if (records)
		printf("call-site determined %ld/%ld (%s%%), ", y.callsite_found, y.callsite,
		       percent(y.callsite_found, y.callsite, cpct));
	printf("precision %ld/%ld (%s%%)\n", lost_found, inserted, percent(lost_found, inserted, ppct));
	if (rc)
		return rc;
	return exact == total && total > 0 && lost_wrong == 0 && y.determined_found == y.determined &&
	       y.callsite_found == y.callsite ? 0 : 1;
}

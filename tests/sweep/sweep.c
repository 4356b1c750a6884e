/* tests/sweep/sweep.c: the accuracy sweep.  Runs a test program (tests/sweep/sweep_prog.c)
 * under ptrace, single-steps it from main's entry until main returns, and at every
 * instruction compares corestack's unwind (build/libcorestack.a, live target) with the truth
 * kept on a shadow stack.
 *
 * Usage: sweep BUILD PROGRAM [SYMBOL-FILE]
 *   BUILD        the name printed in the result line (fp, cfi, fp-stripped, ...)
 *   PROGRAM      the executable to run (may be stripped)
 *   SYMBOL-FILE  an unstripped twin of PROGRAM for the truth's function ranges (default
 *                PROGRAM); corestack itself sees only what PROGRAM has.
 * Prints "sweep BUILD: N/M instructions exact (P%)" and exits 0 when N == M, 1 when not,
 * 2 when the sweep itself could not run.
 *
 * The truth.  Before each step the instruction at rip is decoded (capstone).  After the step:
 *   call      pushes a real frame: the function holding the new rip, entry rsp = new rsp;
 *   ret       pops the top real frame (main's ret ends the sweep);
 *   jmp/jcc   landing on the entry of a function other than the top's is a tail call: the
 *             top frame's function is appended to its lost chain and replaced.
 * Expected frames, innermost first: the top real frame; its lost chain (innermost first,
 * each CST_MARK_LOST_TAIL_CALL); the next real frame, and so on.  The first real caller
 * is CST_MARK_RECOVERED_CALLER iff rbp != entry rsp of the top - 8 (the top's frame record,
 * rbp = CFA - 16, is not set up), all other real frames CST_MARK_NONE.
 * Ambiguous chains: from a return address corestack knows only the called function; it
 * reports the whole chain when exactly one path of direct jumps (depth <= 8, the search of
 * common/unwind.c) leads from the called function to the current one, else only the called
 * function.  The truth decides that the same way, statically, from the binary's code
 * (count_paths below); in sweep_prog.c the only ambiguous chain is a1 -> b1|b2 -> final.
 * A frame matches when its lookup_pc lies in the expected function's [start, end) (ranges,
 * not names, so stripped builds compare too) and its marker is the expected one.  Past main
 * the walk must go on through the C library's start code and end at the thread's outermost
 * frame (cst_unwind_next returns 0: "outermost frame"), at least one frame further. */
#include "arch.h"
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
#define MAX_TARGETS    16

/* ---- the program's functions (from the unstripped symbol table) --------------------- */

struct func {
	uint64_t start, end;       /* target addresses, after the load bias */
	char *name;
	int ntargets;              /* -1 until decoded: direct jumps out of the function */
	uint64_t targets[MAX_TARGETS];
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
			f->ntargets = -1;
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

/* ---- static tail-jump paths, as common/unwind.c searches them ------------------------ */

/* The direct jumps (jmp or jcc) of F whose target lies outside F. */
static void decode_targets(struct func *f)
{
	f->ntargets = 0;
	size_t len = (size_t)(f->end - f->start);
	uint8_t *buf = malloc(len);
	if (!buf || read_mem(f->start, buf, len) < 0) {
		free(buf);
		return;
	}
	cs_insn *in = cs_malloc(cs);
	const uint8_t *p = buf;
	uint64_t addr = f->start;
	while (in && len > 0 && cs_disasm_iter(cs, &p, &len, &addr, in)) {
		const cs_x86 *x = &in->detail->x86;
		if (!cs_insn_group(cs, in, CS_GRP_JUMP) || x->op_count < 1 ||
		    x->operands[0].type != X86_OP_IMM)
			continue;
		uint64_t t = (uint64_t)x->operands[0].imm;
		if (t >= f->start && t < f->end)
			continue;
		int j;
		for (j = 0; j < f->ntargets && f->targets[j] != t; j++)
			;
		if (j == f->ntargets && f->ntargets < MAX_TARGETS)
			f->targets[f->ntargets++] = t;
	}
	if (in)
		cs_free(in, 1);
	free(buf);
}

/* Counts (up to 2) the paths of direct jumps from the entry FN_ADDR to a jump landing in
 * GOAL; PATH holds the functions on the way (loops are not followed), depth < 8. */
static int count_paths(uint64_t fn_addr, const struct func *goal, uint64_t *path, int depth)
{
	struct func *f = func_at(fn_addr);
	if (depth >= CST_MAX_TAIL_DEPTH || !f || f->start != fn_addr)
		return 0;
	for (int i = 0; i < depth; i++)
		if (path[i] == fn_addr)
			return 0;
	path[depth] = fn_addr;
	if (f->ntargets < 0)
		decode_targets(f);
	int n = 0;
	for (int i = 0; i < f->ntargets && n < 2; i++) {
		if (func_at(f->targets[i]) == goal)
			n++;
		else
			n += count_paths(f->targets[i], goal, path, depth + 1);
	}
	return n < 2 ? n : 2;
}

/* ---- the shadow stack --------------------------------------------------------------- */

struct real_frame {
	struct func *fn;
	uint64_t entry_rsp;              /* rsp at the function's entry: points at the return address */
	int nchain;                      /* functions that tail-jumped away, in the order run */
	struct func *chain[MAX_CHAIN];
};

struct expect {
	struct func *fn;
	enum cst_marker marker;
};

static struct real_frame stack[MAX_DEPTH];
static int depth;

/* The expected frames, innermost first, for the registers RBP; returns the count. */
static int expected_frames(uint64_t rbp, struct expect *out)
{
	int n = 0;
	for (int i = depth - 1; i >= 0; i--) {
		const struct real_frame *r = &stack[i];
		enum cst_marker m = CST_MARK_NONE;
		if (i == depth - 2 && rbp != stack[depth - 1].entry_rsp - 8)
			m = CST_MARK_RECOVERED_CALLER;
		out[n++] = (struct expect){ r->fn, i == depth - 1 ? CST_MARK_NONE : m };
		if (r->nchain == 0)
			continue;
		uint64_t path[CST_MAX_TAIL_DEPTH];
		if (count_paths(r->chain[0]->start, r->fn, path, 0) == 1) {
			for (int j = r->nchain - 1; j >= 0; j--)
				out[n++] = (struct expect){ r->chain[j], CST_MARK_LOST_TAIL_CALL };
		} else {
			out[n++] = (struct expect){ r->chain[0], CST_MARK_LOST_TAIL_CALL };
		}
	}
	return n;
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

static void print_expected(const struct expect *e, int n)
{
	for (int i = 0; i < n; i++)
		fprintf(stderr, "%s%s%s", i ? " < " : "", e[i].fn->name,
			e[i].marker == CST_MARK_LOST_TAIL_CALL ? "[lost]" :
			e[i].marker == CST_MARK_RECOVERED_CALLER ? "[recovered]" : "");
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
	depth = 1;
	long total = 0, exact = 0, n_frames = 0, n_lost = 0, n_recovered = 0;
	int reports = 0, rc = 0, max_reports = MAX_REPORTS;
	if (getenv("SWEEP_MAX_REPORTS"))
		max_reports = atoi(getenv("SWEEP_MAX_REPORTS"));
	static struct expect exp[MAX_EXPECTED];
	cs_insn *in = cs_malloc(cs);
	for (long step = 0; step < MAX_STEPS && depth > 0; step++) {
		ptrace(PTRACE_GETREGS, pid, NULL, &ur);
		struct func *top = func_at(ur.rip);
		if (top != stack[depth - 1].fn) {
			fprintf(stderr, "sweep: truth lost at pc 0x%llx (%s), expected in %s\n",
				ur.rip, name_at(ur.rip), stack[depth - 1].fn->name);
			rc = 2;
			break;
		}

		/* compare */
		int nexp = expected_frames(ur.rbp, exp);
		for (int i = 0; i < nexp; i++) {
			n_lost += exp[i].marker == CST_MARK_LOST_TAIL_CALL;
			n_recovered += exp[i].marker == CST_MARK_RECOVERED_CALLER;
		}
		n_frames += nexp;
		struct cst_regs regs;
		struct cst_unwind u;
		static struct cst_frame fr[MAX_EXPECTED];   /* ~1 KiB each: not on the stack */
		int nact = 0;
		bool ok = cst_live_getregs(&cst_arch_x86_64, pid, &regs) == 0 && cst_unwind_start(&u, &env, &regs) == 0;
		for (int i = 0; ok && i < nexp; i++) {
			if (cst_unwind_next(&u, &fr[nact]) <= 0) {
				ok = false;
				break;
			}
			const struct cst_frame *f = &fr[nact++];
			if (f->lookup_pc < exp[i].fn->start || f->lookup_pc >= exp[i].fn->end ||
			    f->marker != exp[i].marker)
				ok = false;
		}
		/* past main: main's callers in libc, down to the outermost frame */
		int past_main = 0, end_rc = 0;
		if (ok) {
			static struct cst_frame rest;
			while ((end_rc = cst_unwind_next(&u, &rest)) > 0 && past_main < MAX_EXPECTED)
				past_main++;
			if (end_rc != 0 || past_main == 0)
				ok = false;
		}
		total++;
		if (ok) {
			exact++;
		} else if (reports++ < max_reports) {
			fprintf(stderr, "sweep %s: mismatch at pc 0x%llx (%s+0x%llx)\n  expected: ", build,
				ur.rip, top->name, ur.rip - top->start);
			print_expected(exp, nexp);
			fprintf(stderr, "\n  actual:   ");
			for (int i = 0; i < nact; i++) {
				const char *m = cst_marker_name(fr[i].marker);
				fprintf(stderr, "%s%s%s%s%s(%s 0x%" PRIx64 "%s%s)", i ? " < " : "",
					name_at(fr[i].lookup_pc), m ? "[" : "",
					m ? (fr[i].marker == CST_MARK_LOST_TAIL_CALL ? "lost" : "recovered") : "",
					m ? "]" : "", cst_found_by_token(fr[i].found_by), fr[i].lookup_pc,
					fr[i].note[0] ? ": " : "", fr[i].note);
			}
			if (nact < nexp)
				fprintf(stderr, "%s(walk ended: %s)", nact ? " " : "", cst_unwind_stop_reason(&u));
			else if (end_rc != 0 || past_main == 0)
				fprintf(stderr, " (then %d frames past main, walk ended: %s)", past_main,
					cst_unwind_stop_reason(&u));
			fprintf(stderr, "\n");
		}

		/* step, then update the truth */
		uint8_t code[16];
		const uint8_t *p = code;
		size_t left = sizeof code;
		uint64_t addr = ur.rip;
		if (read_mem(ur.rip, code, sizeof code) < 0 || !cs_disasm_iter(cs, &p, &left, &addr, in)) {
			fprintf(stderr, "sweep: cannot decode at 0x%llx\n", ur.rip);
			rc = 2;
			break;
		}
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) < 0 || wait_trap(pid, "step") < 0) {
			rc = 2;
			break;
		}
		struct user_regs_struct after;
		ptrace(PTRACE_GETREGS, pid, NULL, &after);
		struct real_frame *t = &stack[depth - 1];
		if (in->id == X86_INS_CALL) {
			struct func *callee = func_at(after.rip);
			if (!callee || depth == MAX_DEPTH) {
				fprintf(stderr, "sweep: call at 0x%llx to 0x%llx leaves the program's functions\n",
					ur.rip, after.rip);
				rc = 2;
				break;
			}
			stack[depth++] = (struct real_frame){ .fn = callee, .entry_rsp = after.rsp };
		} else if (in->id == X86_INS_RET) {
			depth--;
		} else if (cs_insn_group(cs, in, CS_GRP_JUMP)) {
			struct func *dest = func_at(after.rip);
			if (dest && dest != t->fn && dest->start == after.rip) {
				if (t->nchain == MAX_CHAIN) {
					fprintf(stderr, "sweep: tail-call chain too long at 0x%llx\n", ur.rip);
					rc = 2;
					break;
				}
				t->chain[t->nchain++] = t->fn;
				t->fn = dest;
			}
		}
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

	char pct[16] = "100";
	if (exact < total) {
		double p = total ? 100.0 * (double)exact / (double)total : 0.0;
		snprintf(pct, sizeof pct, "%.2f", p > 99.99 ? 99.99 : p);   /* a miss never shows 100 */
	}
	fprintf(stderr, "sweep %s: %ld frames compared, %ld expected lost tail calls, %ld expected "
		"recovered callers\n", build, n_frames, n_lost, n_recovered);
	printf("sweep %s: %ld/%ld instructions exact (%s%%)\n", build, exact, total, pct);
	if (rc)
		return rc;
	return exact == total && total > 0 ? 0 : 1;
}

/* The shell's memory and code commands: address expressions, x/NFU ADDR (gdb's examine)
 * and disassemble (capstone), both reading through the core's target. */
#include "shell_int.h"
#include "error.h"

#include <capstone.h>
#include <ctype.h>
#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define X_MAX_UNITS 4096                  /* x/N: at most this many units per command */
#define DISAS_MAX_BYTES 65536             /* longest function disassembled */
#define DISAS_UNSIZED 64                  /* instructions shown when the end is not known */

/* One register of the selected frame by name: pc, sp, fp or the architecture's names. */
static int eval_register(struct shell *sh, const char *name, size_t n, uint64_t *out)
{
	const struct cst_arch *a = sh->env->arch;
	int r = -1;
	if (n == 2 && strncmp(name, "pc", 2) == 0)
		r = a->pc_reg;
	else if (n == 2 && strncmp(name, "sp", 2) == 0)
		r = a->sp_reg;
	else if (n == 2 && strncmp(name, "fp", 2) == 0)
		r = a->fp_reg;
	for (int i = 0; r < 0 && i < a->nregs; i++)
		if (strlen(a->reg_names[i]) == n && strncmp(a->reg_names[i], name, n) == 0)
			r = i;
	if (r < 0)
		return shell_error(sh, "No register $%.*s.", (int)n, name);
	const struct bt_frame *f = shell_frame(sh);
	if (!f || !cst_reg_get(&f->f.regs, r, out))
		return shell_error(sh, "$%.*s is not available in this frame (not recovered by the unwinder).",
				   (int)n, name);
	return 0;
}

int shell_eval(struct shell *sh, const char *expr, uint64_t *out)
{
	const char *p = expr;
	uint64_t sum = 0;
	int sign = 1, terms = 0;
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		if (terms && *p != '+' && *p != '-')
			return shell_error(sh, "A syntax error in expression, near `%s'.", p);
		if (*p == '+' || *p == '-') {
			if (!terms && *p == '+')
				return shell_error(sh, "A syntax error in expression, near `%s'.", p);
			sign = *p++ == '-' ? -1 : 1;
			while (isspace((unsigned char)*p))
				p++;
		}
		if (*p == '&')
			p++;                       /* &symbol: the symbol's address, as its name */
		uint64_t v;
		if (isdigit((unsigned char)*p)) {
			char *end;
			v = strtoull(p, &end, 0);  /* C syntax: 0x hex, 0 octal, else decimal */
			if (isalnum((unsigned char)*end) || *end == '_')
				return shell_error(sh, "Invalid number \"%.*s\".", (int)strcspn(p, " +-"), p);
			p = end;
		} else if (*p == '$') {
			size_t n = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz0123456789");
			if (eval_register(sh, p + 1, n, &v) < 0)
				return -1;
			p += 1 + n;
		} else if (isalpha((unsigned char)*p) || *p == '_' || *p == '.') {
			/* "::" joins the parts of a C++ or Rust name ("app::crash_null") */
			size_t n = 0;
			for (;;) {
				n += strspn(p + n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.");
				if (p[n] != ':' || p[n + 1] != ':')
					break;
				n += 2;
			}
			char name[256];
			snprintf(name, sizeof name, "%.*s", (int)n, p);
			if (!shell_sym_lookup(sh, name, &v))
				return shell_error(sh, "No symbol \"%s\" in the core's modules.", name);
			p += n;
		} else {
			return shell_error(sh, "A syntax error in expression, near `%s'.", p);
		}
		sum += sign > 0 ? v : -v;
		sign = 1;
		terms++;
	}
	if (!terms)
		return shell_error(sh, "Argument required (an address).");
	*out = sum;
	return 0;
}

/* ---- x ------------------------------------------------------------------------------- */

struct xfmt {
	long count;
	char fmt;                /* x d u o t a c */
	unsigned size;           /* bytes: 1 2 4 8 */
};

/* Parses "/NFU" (any order of F and U after N) at *S. */
static int parse_xfmt(struct shell *sh, const char **s, struct xfmt *f)
{
	const char *p = *s;
	bool size_given = false;
	f->count = 1;
	f->fmt = 'x';
	f->size = 4;
	if (*p != '/')
		return 0;
	p++;
	if (isdigit((unsigned char)*p)) {
		char *end;
		f->count = strtol(p, &end, 10);
		p = end;
	}
	for (; *p && !isspace((unsigned char)*p); p++) {
		switch (*p) {
		case 'x': case 'd': case 'u': case 'o': case 't': case 'a': case 'c': f->fmt = *p; break;
		case 'b': f->size = 1; size_given = true; break;
		case 'h': f->size = 2; size_given = true; break;
		case 'w': f->size = 4; size_given = true; break;
		case 'g': f->size = 8; size_given = true; break;
		default: return shell_error(sh, "Invalid format letter '%c' (x d u o t a c; sizes b h w g).", *p);
		}
	}
	if (f->fmt == 'a' && !size_given)
		f->size = sh->env->arch->addr_size;
	if (f->fmt == 'c' && !size_given)
		f->size = 1;
	if (f->count < 1 || f->count > X_MAX_UNITS)
		return shell_error(sh, "x: a count from 1 to %d.", X_MAX_UNITS);
	*s = p;
	return 0;
}

static void print_unit(struct shell *sh, const struct xfmt *f, uint64_t v)
{
	int bits = (int)f->size * 8;
	int64_t sv = bits == 64 ? (int64_t)v : (int64_t)(v << (64 - bits)) >> (64 - bits);
	char label[160];
	switch (f->fmt) {
	case 'x': fprintf(sh->out, "0x%0*" PRIx64, (int)f->size * 2, v); break;
	case 'd': fprintf(sh->out, "%" PRId64, sv); break;
	case 'u': fprintf(sh->out, "%" PRIu64, v); break;
	case 'o': fprintf(sh->out, "0%" PRIo64, v); break;
	case 't':
		for (int i = bits - 1; i >= 0; i--)
			fputc('0' + (int)((v >> i) & 1), sh->out);
		break;
	case 'a':
		shell_sym_label(sh, v, label, sizeof label);
		fprintf(sh->out, "0x%" PRIx64 "%s%s", v, label[0] ? " " : "", label);
		break;
	case 'c':
		fprintf(sh->out, "%" PRId64 " '", sv);
		if (isprint((int)(v & 0xff)))
			fputc((int)(v & 0xff), sh->out);
		else
			fprintf(sh->out, "\\%03o", (unsigned)(v & 0xff));
		fputc('\'', sh->out);
		break;
	}
}

int cmd_x(struct shell *sh, const char *args)
{
	struct xfmt f;
	if (parse_xfmt(sh, &args, &f) < 0)
		return -1;
	uint64_t addr;
	if (shell_eval(sh, args, &addr) < 0)
		return -1;
	int per_line = f.size == 8 ? 2 : f.size == 4 ? 4 : 8;
	const struct cst_target *t = sh->env->target;
	for (long i = 0; i < f.count; i++) {
		uint64_t a = addr + (uint64_t)i * f.size, v = 0;
		uint8_t b[8];
		if (cst_target_read(t, a, b, f.size) < 0) {
			if (i % per_line)
				fputc('\n', sh->out);
			return shell_error(sh, "Cannot access memory at address 0x%" PRIx64, a);
		}
		for (unsigned k = 0; k < f.size; k++)
			v |= (uint64_t)b[t->big_endian ? k : f.size - 1 - k] << (8 * (f.size - 1 - k));
		if (i % per_line == 0) {
			if (i)
				fputc('\n', sh->out);
			char label[160];
			shell_sym_label(sh, a, label, sizeof label);
			fprintf(sh->out, "0x%" PRIx64 "%s%s:", a, label[0] ? " " : "", label);
		}
		fputc('\t', sh->out);
		print_unit(sh, &f, v);
	}
	fputc('\n', sh->out);
	return 0;
}

/* ---- disassemble ----------------------------------------------------------------------- */

static int open_disassembler(struct shell *sh, csh *h)
{
	const struct cst_arch *a = sh->env->arch;
	if (!a->disassembler)
		return shell_error(sh, "No disassembler for %s.", a->name);
	cs_err e = cs_open((cs_arch)a->cs_arch, (cs_mode)a->cs_mode, h);
	if (e != CS_ERR_OK)
		return shell_error(sh, "capstone: %s", cs_strerror(e));
	if (a->cs_syntax)
		cs_option(*h, CS_OPT_SYNTAX, (size_t)a->cs_syntax);
	return 0;
}

/* Prints one instruction in gdb's layout, "=> " marking MARK, with the symbol of a direct
 * branch target. */
static void print_insn(struct shell *sh, const cs_insn *in, const struct cst_func *fn, uint64_t mark)
{
	fprintf(sh->out, "%s0x%016" PRIx64, in->address == mark ? "=> " : "   ", in->address);
	if (fn)
		fprintf(sh->out, " <+%" PRIu64 ">", in->address - fn->start);
	if (in->op_str[0])
		fprintf(sh->out, ":\t%-6s %s", in->mnemonic, in->op_str);
	else
		fprintf(sh->out, ":\t%s", in->mnemonic);
	char *end;
	const char *op = in->op_str;
	if (op[0] == '0' && op[1] == 'x') {
		uint64_t target = strtoull(op, &end, 16);
		char label[160];
		if (!*end) {
			shell_sym_label(sh, target, label, sizeof label);
			if (label[0])
				fprintf(sh->out, " %s", label);
		}
	}
	fputc('\n', sh->out);
}

int cmd_disassemble(struct shell *sh, const char *args)
{
	const struct bt_frame *b = shell_frame(sh);
	uint64_t addr, mark = b ? b->f.pc : 0;
	if (*args) {
		if (shell_eval(sh, args, &addr) < 0)
			return -1;
	} else if (b) {
		addr = b->f.lookup_pc;
	} else {
		return shell_error(sh, "No frame selected.");
	}
	struct cst_func fn;
	bool have_fn = sh->syms && cst_symbols_func(sh->syms, addr, &fn) == 0;
	if (!have_fn && *args)
		return shell_error(sh, "No function contains specified address 0x%" PRIx64 ".", addr);
	uint64_t start = have_fn ? fn.start : addr;
	uint64_t size = have_fn && fn.end > fn.start ? fn.end - fn.start : 0;
	bool sized = size != 0;
	if (!sized)
		size = DISAS_UNSIZED * 15;        /* x86 instructions are at most 15 bytes */
	if (size > DISAS_MAX_BYTES)
		return shell_error(sh, "Function at 0x%" PRIx64 " is %" PRIu64 " bytes long; at most %d are shown.",
				   start, size, DISAS_MAX_BYTES);
	uint8_t *code = malloc(size);
	if (!code)
		return shell_error(sh, "out of memory");
	/* an unsized range may run past readable memory: shrink it until it reads */
	while (cst_target_read(sh->env->target, start, code, size) < 0) {
		if (sized || size <= 16) {
			free(code);
			return shell_error(sh, "Cannot access memory at address 0x%" PRIx64, start);
		}
		size /= 2;
	}
	csh h;
	if (open_disassembler(sh, &h) < 0) {
		free(code);
		return -1;
	}
	struct cst_location loc = { 0 };
	if (have_fn && fn.name)
		cst_symbols_locate(sh->syms, start, start, &loc);    /* the name as frames show it */
	if (loc.function)
		fprintf(sh->out, "Dump of assembler code for function %s:\n", loc.function);
	else
		fprintf(sh->out, "Dump of assembler code from 0x%" PRIx64 " (no function known; %d instructions at most):\n",
			start, DISAS_UNSIZED);
	cs_insn *insn = cs_malloc(h);
	const uint8_t *p = code;
	size_t left = size;
	uint64_t pc = start;
	int count = 0;
	while (insn && cs_disasm_iter(h, &p, &left, &pc, insn)) {
		print_insn(sh, insn, have_fn ? &fn : NULL, mark);
		if (!sized && ++count >= DISAS_UNSIZED)
			break;
	}
	if (left && sized)
		fprintf(sh->out, "   (%zu bytes at 0x%" PRIx64 " do not decode)\n", left, pc);
	fprintf(sh->out, "End of assembler dump.\n");
	if (insn)
		cs_free(insn, 1);
	cs_close(&h);
	free(code);
	return 0;
}

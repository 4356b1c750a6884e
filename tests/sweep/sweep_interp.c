/* tests/sweep/sweep_interp.c: a small stack-machine interpreter, the larger program the
 * accuracy sweep (tests/sweep/sweep.c) single-steps.  It has the shapes of real software that
 * hide tail calls from a frame-pointer walk:
 *   run        the dispatch loop: each opcode's handler is called through the table ops[]
 *              (an indirect call); most handlers end in a tail call (op_lit -> push,
 *              op_add -> arith -> push, op_print -> note), lost behind that indirect call;
 *   each       calls a callback through a function pointer it keeps in a register across
 *              its loop (visit, which tail-calls note); op_each tail-calls each;
 *   op_sort    qsort with a comparator that tail-calls (by_value -> cmp_long);
 *   op_find    bsearch with one too (by_key -> cmp_long);
 *   op_raise   raise(SIGUSR1): the handler on_usr1 tail-calls count_signal;
 *   op_fail    longjmp back to run's setjmp (an error in the interpreted program);
 *   main       ends in a tail call (return finish(r)).
 * `make sweep-progs` checks with objdump that the tail calls are jumps (check_tails.sh). */
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline, noclone))

enum { OP_END, OP_LIT, OP_ADD, OP_MUL, OP_DUP, OP_NEG, OP_EACH, OP_SORT, OP_FIND, OP_RAISE,
       OP_FAIL, OP_PRINT, OP_DROP, NOPS };

struct vm {
	long stack[16];
	int sp;
	const unsigned char *pc;
	jmp_buf err;
	int errors;
};

typedef int (*op_fn)(struct vm *);
typedef int (*visit_fn)(struct vm *, long);

volatile long sink;
volatile int signals;

NOINLINE int push(struct vm *vm, long v)
{
	vm->stack[vm->sp++ & 15] = v;
	return 0;
}

NOINLINE long pop(struct vm *vm)
{
	return vm->stack[--vm->sp & 15];
}

/* every arithmetic opcode ends here */
NOINLINE int arith(struct vm *vm, long r)
{
	sink = r;
	return push(vm, r);
}

NOINLINE int note(struct vm *vm, long v)
{
	sink += v;
	return vm->sp;
}

NOINLINE int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

NOINLINE int count_signal(int signo)
{
	signals += signo;
	return signals;
}

NOINLINE int finish(int r)
{
	sink = r;
	return signals ? 0 : 1;
}

NOINLINE int each(struct vm *vm, visit_fn f)
{
	int n = 0;
	for (int i = 0; i < (vm->sp & 15); i++)
		n += f(vm, vm->stack[i]);
	return n;
}

static NOINLINE int visit(struct vm *vm, long v) { return note(vm, v * 2); }

/* descending order, for qsort and bsearch alike */
static NOINLINE int by_value(const void *a, const void *b) { return cmp_long(b, a); }
static NOINLINE int by_key(const void *key, const void *elem)
{
	sink++;
	return cmp_long(elem, key);
}

static void on_usr1(int signo) { count_signal(signo); }

static int op_lit(struct vm *vm) { long v = *vm->pc++; return push(vm, v); }
static int op_add(struct vm *vm) { long b = pop(vm), a = pop(vm); return arith(vm, a + b); }
static int op_mul(struct vm *vm) { long b = pop(vm), a = pop(vm); return arith(vm, a * b); }
static int op_dup(struct vm *vm) { long a = pop(vm); push(vm, a); return push(vm, a); }
static int op_neg(struct vm *vm)
{
	vm->stack[(vm->sp - 1) & 15] = -vm->stack[(vm->sp - 1) & 15];
	return 0;
}
static int op_each(struct vm *vm) { return each(vm, visit); }
static int op_sort(struct vm *vm)
{
	qsort(vm->stack, (size_t)(vm->sp & 15), sizeof(long), by_value);
	return 0;
}
static int op_find(struct vm *vm)
{
	long key = pop(vm);
	long *p = bsearch(&key, vm->stack, (size_t)(vm->sp & 15), sizeof(long), by_key);
	return push(vm, p ? *p : -1);
}
static int op_raise(struct vm *vm) { raise(SIGUSR1); return vm->sp; }
static int op_fail(struct vm *vm)
{
	vm->errors++;
	longjmp(vm->err, 1);
}
static int op_print(struct vm *vm) { return note(vm, pop(vm)); }
static int op_drop(struct vm *vm) { pop(vm); return 0; }

static const op_fn ops[NOPS] = {
	[OP_LIT] = op_lit, [OP_ADD] = op_add, [OP_MUL] = op_mul, [OP_DUP] = op_dup,
	[OP_NEG] = op_neg, [OP_EACH] = op_each, [OP_SORT] = op_sort, [OP_FIND] = op_find,
	[OP_RAISE] = op_raise, [OP_FAIL] = op_fail, [OP_PRINT] = op_print, [OP_DROP] = op_drop,
};

/* Runs CODE to OP_END; an OP_FAIL comes back here through longjmp and the loop goes on
 * after it (vm->pc is in memory, so it survives the jump). */
NOINLINE int run(struct vm *vm, const unsigned char *code)
{
	vm->pc = code;
	setjmp(vm->err);
	while (*vm->pc != OP_END) {
		op_fn f = ops[*vm->pc++ % NOPS];
		f(vm);
	}
	return vm->sp;
}

static const unsigned char program[] = {
	OP_LIT, 3, OP_LIT, 4, OP_ADD, OP_LIT, 5, OP_MUL, OP_DUP, OP_NEG, OP_LIT, 9,
	OP_EACH, OP_PRINT, OP_SORT, OP_LIT, 9, OP_FIND, OP_PRINT, OP_RAISE, OP_FAIL,
	OP_LIT, 2, OP_ADD, OP_PRINT, OP_DROP, OP_END,
};

int main(void)
{
	static struct vm vm;
	signal(SIGUSR1, on_usr1);
	int r = run(&vm, program);
	return finish(r);
}

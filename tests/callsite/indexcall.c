/* A lost tail call behind a call through a read-only table whose index is in a register
 * the call may clobber (tests/t_callsite.sh).  Both entries, ha and hb, tail-jump to crash,
 * which faults: neither the table nor the address-taken functions say which one ran.  None
 * of ha, hb and crash writes the index register (crash is written in assembly so that it
 * uses r11 alone), so at the fault it still holds the index that selected hb.  Built with
 * -DCLOBBER, the table selects ha, which sets every caller-saved register but rdi to 1,
 * hb's index: the index register is no longer trusted, and nothing is inserted between
 * crash and run. */
#define NOINLINE __attribute__((noinline, noclone))

typedef void (*handler)(int);
volatile int sink;

/* crash(x): *(int *)sink = x, through r11 (x86-64 psABI 3.2.3: x in edi) */
void crash(int x);
__asm__(".text\n"
	".globl crash\n"
	".type crash, @function\n"
	"crash:\n"
	".cfi_startproc\n"
	"\tmovslq sink(%rip), %r11\n"
	"\tmovl %edi, (%r11)\n"
	"\tret\n"
	".cfi_endproc\n"
	".size crash, .-crash\n");

static NOINLINE void ha(int x)
{
#ifdef CLOBBER
	__asm__ volatile("mov $1, %%eax; mov $1, %%ecx; mov $1, %%edx; mov $1, %%esi; "
			 "mov $1, %%r8d; mov $1, %%r9d; mov $1, %%r10d; mov $1, %%r11d"
			 ::: "rax", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11");
#endif
	crash(x + 1);
}

static NOINLINE void hb(int x) { crash(x * 2); }

static const handler tab[] = { ha, hb };
#ifdef CLOBBER
static volatile unsigned char script[] = { 0, 1 };
#else
static volatile unsigned char script[] = { 1, 0 };
#endif

NOINLINE void run(int n)
{
	for (int i = 0; i < n; i++)
		tab[script[i] % 2](i);
}

int main(int argc, char **argv)
{
	run(argc);
	return sink;
}

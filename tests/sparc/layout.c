/* layout.c: prints the sizes and offsets of the core-file structures of the C library's
 * <sys/procfs.h> and <signal.h> as the target sees them.  Built with the sparc64 cross
 * compiler (64-bit and -m32) and run under qemu-user by `make sparc-layout`; elfcore.py's
 * constants must agree with its output. */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/procfs.h>

#define P(what, val) printf("%-28s %zu\n", what, (size_t)(val))

int main(void)
{
	P("sizeof(prstatus_t)", sizeof(prstatus_t));
	P("offsetof(pr_reg)", offsetof(prstatus_t, pr_reg));
	P("sizeof(pr_reg)", sizeof(((prstatus_t *)0)->pr_reg));
	P("offsetof(pr_fpvalid)", offsetof(prstatus_t, pr_fpvalid));
	P("offsetof(pr_cursig)", offsetof(prstatus_t, pr_cursig));
	P("offsetof(pr_sigpend)", offsetof(prstatus_t, pr_sigpend));
	P("offsetof(pr_sighold)", offsetof(prstatus_t, pr_sighold));
	P("offsetof(pr_pid)", offsetof(prstatus_t, pr_pid));
	P("offsetof(pr_utime)", offsetof(prstatus_t, pr_utime));
	P("sizeof(prpsinfo_t)", sizeof(prpsinfo_t));
	P("offsetof(pr_flag)", offsetof(prpsinfo_t, pr_flag));
	P("offsetof(pr_uid)", offsetof(prpsinfo_t, pr_uid));
	P("sizeof(pr_uid)", sizeof(((prpsinfo_t *)0)->pr_uid));
	P("offsetof(ps.pr_pid)", offsetof(prpsinfo_t, pr_pid));
	P("offsetof(pr_fname)", offsetof(prpsinfo_t, pr_fname));
	P("offsetof(pr_psargs)", offsetof(prpsinfo_t, pr_psargs));
	P("sizeof(siginfo_t)", sizeof(siginfo_t));
	P("offsetof(si_addr)", offsetof(siginfo_t, si_addr));
	P("offsetof(si_pid)", offsetof(siginfo_t, si_pid));
	P("sizeof(elf_fpregset_t)", sizeof(elf_fpregset_t));
	return 0;
}

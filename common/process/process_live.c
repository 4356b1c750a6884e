/* A process image from a live process.  See process.h. */
#include "process_int.h"
#include "error.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The architecture /proc/PID/exe's ELF header names (e_ident class and data, e_machine at
 * byte 18, 16 bits in the file's byte order: gABI, "ELF Header").  Returns 0 with *ARCH set
 * (NULL: one corestack does not unwind), or -CST_E_NOENT when the file is unreadable. */
static int exe_arch(pid_t pid, const struct cst_arch **arch)
{
	char path[64];
	unsigned char h[20];
	snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -CST_E_NOENT;
	bool ok = pread(fd, h, sizeof h, 0) == (ssize_t)sizeof h && memcmp(h, ELFMAG, SELFMAG) == 0;
	close(fd);
	if (!ok)
		return -CST_E_NOENT;
	bool be = h[EI_DATA] == ELFDATA2MSB;
	int machine = be ? h[18] << 8 | h[19] : h[19] << 8 | h[18];
	*arch = cst_arch_find(machine, h[EI_CLASS]);
	return 0;
}

int cst_process_open_pid(struct cst_process **out, pid_t pid, bool attach, char *err, size_t errlen)
{
	*out = NULL;
	const struct cst_arch *arch = NULL;
	if (exe_arch(pid, &arch) < 0) {
		if (!attach)
			return cst_fail(err, errlen, -CST_E_NOENT, "cannot read the executable of process %d",
					(int)pid);
		/* attaching says why (no such process, no permission): until then the process
		 * is taken for one of this host's architecture */
		if (exe_arch(getpid(), &arch) < 0)
			arch = NULL;
	}
	if (!arch)
		return cst_fail(err, errlen, -CST_E_ARCH, "process %d: an architecture corestack does not unwind",
				(int)pid);
	struct cst_process *p = cst_process_new(arch);
	if (!p)
		return cst_fail(err, errlen, -CST_E_NOMEM, "out of memory");
	p->pid = pid;
	if (attach) {
		int rc = cst_live_attach(pid, arch, &p->live, err, errlen);
		if (rc < 0) {
			cst_process_close(p);
			return rc;
		}
		p->own_target = cst_live_target(p->live);
		p->env.target = p->own_target;
	}
	char link[64], exe[4096];
	snprintf(link, sizeof link, "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(link, exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = 0;
		p->executable = strdup(exe);
	}
	if (cst_symbols_open_pid(&p->syms, pid, p->syms_error, sizeof p->syms_error) == 0)
		p->syms_error[0] = 0;
	p->env.syms = p->syms;
	*out = p;
	return 0;
}

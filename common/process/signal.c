/* Signal names in an architecture's numbering.  See process.h. */
#include "process.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

/* SIGNO in the numbering of this (Linux) host, 0 when it has no equivalent. */
static int host_signal(const struct cst_arch *arch, int signo)
{
	return arch && arch->generic_signal ? arch->generic_signal(signo) : signo;
}

const char *cst_signal_text(const struct cst_arch *arch, int signo)
{
	int h = host_signal(arch, signo);
	return h > 0 ? strsignal(h) : "unknown signal";
}

const char *cst_signal_name(const struct cst_arch *arch, int signo)
{
	static __thread char buf[32];
	int h = host_signal(arch, signo);
	const char *abbrev = h > 0 && h < 65 ? sigabbrev_np(h) : NULL;
	if (abbrev)
		snprintf(buf, sizeof buf, "SIG%s", abbrev);
	else
		snprintf(buf, sizeof buf, "signal %d", signo);
	return buf;
}

/* The CLI's one-line messages on standard error. */
#ifndef CST_DIAG_H
#define CST_DIAG_H

/* Writes "corestack: FILE: MESSAGE\n" to standard error in one write, MESSAGE formatted from
 * FMT as printf does (cut at 4 KiB).  FILE (a core's path, or what stands for the walked
 * process) is escaped as common/report/escape.h says, because a path may come from a stranger;
 * the caller escapes whatever in MESSAGE came from the core. */
void cli_diag(const char *file, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif

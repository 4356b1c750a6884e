/* Error codes of the corestack core, from one table that also yields the messages.
 *
 * Functions of common/ return 0 (or a positive count) on success and a negated code
 * from this table on failure, e.g. -CST_E_MEMORY.  cst_strerror() maps a code (either
 * sign) to a one-line English message. */
#ifndef CST_ERROR_H
#define CST_ERROR_H

#include <stddef.h>

#define CST_ERRORS(X) \
	X(CST_OK,          "success") \
	X(CST_E_NOMEM,     "out of memory") \
	X(CST_E_IO,        "read error") \
	X(CST_E_NOT_ELF,   "not an ELF file") \
	X(CST_E_NOT_CORE,  "an ELF file but not a core file") \
	X(CST_E_ARCH,      "unsupported architecture") \
	X(CST_E_CLASS,     "unsupported ELF class or byte order") \
	X(CST_E_TRUNCATED, "file is truncated") \
	X(CST_E_CORRUPT,   "corrupt compressed data") \
	X(CST_E_BAD_NOTE,  "malformed note") \
	X(CST_E_NO_THREADS,"no NT_PRSTATUS note (no threads)") \
	X(CST_E_MEMORY,    "address not readable in the target") \
	X(CST_E_NO_CFI,    "no CFI for this address") \
	X(CST_E_CFI,       "unsupported CFI expression") \
	X(CST_E_NO_FUNC,   "no function known at this address") \
	X(CST_E_DECODE,    "instruction decoding failed") \
	X(CST_E_PTRACE,    "ptrace failed") \
	X(CST_E_PERM,      "permission denied") \
	X(CST_E_NOENT,     "no such file or process") \
	X(CST_E_LIMIT,     "size limit exceeded") \
	X(CST_E_DWFL,      "libdwfl failed") \
	X(CST_E_INVAL,     "invalid argument")

enum cst_error {
#define CST_ERR_ENUM(name, msg) name,
	CST_ERRORS(CST_ERR_ENUM)
#undef CST_ERR_ENUM
	CST_E_COUNT
};

/* Message for CODE (positive or negative); never NULL. */
const char *cst_strerror(int code);

/* Writes a one-line reason (printf FMT) into ERR (ERRLEN bytes) and returns CODE: for
 * functions that return a negative code with a reason for the user. */
int cst_fail(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif

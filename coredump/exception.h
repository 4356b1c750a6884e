/* The type of the C++ exception a thread was throwing when it ended in std::terminate (an
 * uncaught exception), read from the core's memory, for the crash signature. */
#ifndef CST_EXCEPTION_H
#define CST_EXCEPTION_H

#include <stdbool.h>
#include <stddef.h>
#include "backtrace.h"
#include "target.h"

/* When walked thread T (x86-64) has a __cxa_throw or __cxa_rethrow frame, looks for the
 * exception it threw and writes its type, demangled ("std::out_of_range"), into BUF (LEN
 * bytes); returns true when found.
 *
 * How: after _Unwind_RaiseException finds no handler, __cxa_throw calls __cxa_begin_catch and
 * std::terminate with the exception still in its callee-saved registers or spilled on the
 * stack above it.  Every register value the walk recovered in frames 0..__cxa_throw, and
 * every 8-byte word of the stack from frame 0's sp to __cxa_throw's caller's sp (at most
 * 64 KiB), is tried as a pointer to the exception's _Unwind_Exception, to the thrown object
 * just after it, or to the start of its __cxa_exception or __cxa_refcounted_exception
 * header.  A candidate counts only when the _Unwind_Exception's exception_class reads
 * "GNUCC++\0" (a primary C++ exception) and its header's exceptionType points to a
 * std::type_info whose name is a mangled type name.  Layout: the Itanium C++ ABI 2.2.1
 * (__cxa_exception, its unwindHeader last, the thrown object right after it) as libsupc++'s
 * unwind-cxx.h lays it out on x86-64: exceptionType 80 bytes before unwindHeader, which is
 * 32 bytes long; __cxa_refcounted_exception's __cxa_exception starts 16 bytes into it;
 * std::type_info is a vtable pointer and then its name (libstdc++'s <typeinfo>). */
bool exc_thrown_type(const struct cst_target *tg, const struct bt_thread *t, char *buf, size_t len);

#endif

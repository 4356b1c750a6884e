/* Readable names for C++ (Itanium C++ ABI) and Rust (legacy and v0) symbols, through
 * libiberty's demangler, as c++filt and gdb print them: parameter lists, cv-qualifiers, and
 * gcc's clone suffixes as " [clone .cold]".  A name that is not mangled is left as it is
 * ("foo.cold" stays "foo.cold", as c++filt leaves it). */
#ifndef CST_DEMANGLE_H
#define CST_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* Longest mangled name (bytes) demangled: libiberty's C++ demangler takes stack in
 * proportion to the name's length (about 80 bytes per byte), and a symbol table is input
 * like any other.  A longer name is shown mangled. */
#define CST_DEMANGLE_MAX_MANGLED 4096
/* Longest readable name (bytes, with its NUL) kept; a longer result is not used. */
#define CST_DEMANGLE_MAX_READABLE 16384

/* True when NAME may be a mangled C++ or Rust name ("_Z..." or "_R..."): the one test made
 * on every name, so that C programs pay nothing more. */
static inline bool cst_demangle_candidate(const char *name)
{
	return name && name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

/* The readable form of mangled name RAW, in a string the caller frees with free(); NULL
 * when RAW is not a mangled name libiberty reads (or is longer than
 * CST_DEMANGLE_MAX_MANGLED, or its readable form longer than CST_DEMANGLE_MAX_READABLE, or
 * memory ran out): the caller then shows RAW. */
char *cst_demangle(const char *raw);

/* The length in bytes of READABLE without its parameter list and what follows it
 * ("app::run(int) const" -> 8, "app::run" -> 8): the name a user types to look a function
 * up, as gdb takes "app::run" for "app::run(int)".  Template arguments and the parameter
 * lists of a lambda's enclosing function ("f()::{lambda(int)#1}::operator()(int)") are kept
 * up to the last top-level parameter list. */
size_t cst_demangle_unparamed_len(const char *readable);

#endif

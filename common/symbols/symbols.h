/* Modules, symbols, CFI and source lines of a target, through libdwfl.
 *
 * One cst_symbols serves one process image: a core file (modules from the core's link map
 * and NT_FILE) or a live process (/proc/PID/maps).  The build-id of each module file found on disk is compared
 * with the one recorded in the target; a mismatching file is not used and the module is
 * flagged.
 *
 * A target whose modules could not be reported has no cst_symbols: the lookups below take
 * S NULL and find nothing (no module, function, CFI, inlined function or mismatch), so that
 * a walk goes on without symbols. */
#ifndef CST_SYMBOLS_H
#define CST_SYMBOLS_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct cst_core;
struct cst_symbols;

/* A function: [start, end) in target virtual addresses (end 0 when its size is unknown),
 * its symbol name (NULL when only CFI bounds are known), and its module. */
struct cst_func {
	uint64_t start, end;
	const char *name;
	Dwfl_Module *module;
	bool uncertain;            /* bounds guessed in stripped code from its layout alone
				    * (unwind/entries.h): no lost tail call is inserted there */
	bool falls_in;             /* bounds guessed in stripped code, and the code before
				    * start runs on into it (no transfer or padding between): the
				    * function may be a piece of the one below (unwind/entries.h) */
};

/* What is known about one code address, for printing. */
struct cst_location {
	const char *module;        /* path of the module file (or the name the target recorded) */
	uint64_t module_base;      /* load address of the module */
	char build_id[41];         /* hex of the first 20 bytes, "" when unknown */
	bool mismatch;             /* the file found on disk has another build-id */
	bool no_file;              /* MODULE's file could not be used (missing, not ELF, another
				    * build-id): no symbols or CFI come from it */
	const char *function;      /* the name to show: demangled (demangle.h) unless S is raw;
				    * NULL when unknown */
	const char *symbol;        /* the symbol as its table spells it, without its version
				    * ("_ZN3app3runEi"); NULL when unknown or when FUNCTION does
				    * not come from a symbol table (a perf map's name) */
	uint64_t offset;           /* bytes from the function's start to the address */
	const char *file;          /* source file, NULL when unknown */
	int line;                  /* 0 when unknown */
};

/* Reports the modules of core C.  With -e, the main executable's file is opened and checked
 * here: when its build-id is not the core's and the file the core names matches, that file
 * takes its place (cst_core_exe_option_rejected).  Returns 0, or -CST_E_DWFL with a reason
 * in ERR. */
int cst_symbols_open_core(struct cst_symbols **out, struct cst_core *c, char *err, size_t errlen);
/* Reports the modules of live process PID.  Returns 0, or -CST_E_DWFL with a reason in ERR. */
int cst_symbols_open_pid(struct cst_symbols **out, pid_t pid, char *err, size_t errlen);
/* Reports N module files: PATHS[i] loaded with load bias BIASES[i] (target address - the
 * file's link-time address; 0 for an ET_EXEC file).  For a target whose module list comes
 * from its own link map (a remote debugger's target) or a synthetic target (fuzzing).  Returns 0 when at least one module
 * was reported, or -CST_E_DWFL / -CST_E_NOMEM with a reason in ERR. */
int cst_symbols_open_files(struct cst_symbols **out, size_t n, const char *const *paths,
			   const uint64_t *biases, char *err, size_t errlen);
void cst_symbols_close(struct cst_symbols *s);

/* With RAW, the names S gives to show (cst_location.function, cst_inline.function) are the
 * mangled ones, as the symbol table and DWARF spell them; else C++ and Rust names are
 * demangled (the default). */
void cst_symbols_set_raw(struct cst_symbols *s, bool raw);

/* The name to show for symbol name NAME, as gdb shows it: a C++ or Rust name demangled
 * (demangle.h), a Go name without its ".abi0" or ".abiinternal" suffix; in a string the
 * caller frees with free().  NULL when that is NAME itself (or NAME is NULL, or memory ran
 * out): the caller shows NAME.  The text and JSON output (cst_symbols_readable), signatures
 * and the shell's symbol names all take their names from here. */
char *cst_symbols_display_name(const char *name);

/* The length in bytes of NAME without Go's ABI suffix (".abi0": an assembly function or
 * wrapper of the stack-based ABI, ".abiinternal"), which gdb drops as the Go toolchain's
 * own tools do ("runtime.raise.abi0" -> "runtime.raise"); 0 when NAME has none. */
size_t cst_symbols_go_abi_stripped_len(const char *name);

/* cst_symbols_display_name of NAME, or NAME itself when that is NULL or S is raw;
 * remembered per name, valid until S is closed.  NULL for NULL. */
const char *cst_symbols_readable(struct cst_symbols *s, const char *name);
Dwfl *cst_symbols_dwfl(struct cst_symbols *s);

/* cst_package_note_from_memory (package_note.h) for module MOD of target T at BASE (the
 * module's start, a target address), with its return value, *OUT and ERR: the result read
 * when the core's modules were reported, where each image's first page is read for its
 * build-id (handed over once; a later call reads again), else read now (always for the
 * module of -e, whose file may be replaced by the one the core names after the report). */
struct cst_target;
struct cst_package_note;
int cst_symbols_memory_package_note(Dwfl_Module *mod, struct cst_target *t, uint64_t base,
				    struct cst_package_note **out, char *err, size_t errlen);

/* The function containing ADDR.  Returns 0, or -CST_E_NO_FUNC when no symbol or CFI covers
 * ADDR. */
int cst_symbols_func(struct cst_symbols *s, uint64_t addr, struct cst_func *fn);

/* The executable PT_LOAD segment of the module containing ADDR: [*LO, *HI) in target
 * addresses.  Returns false when no module or no such segment covers ADDR. */
bool cst_symbols_exec_range(struct cst_symbols *s, uint64_t addr, uint64_t *lo, uint64_t *hi);

/* The ELF file of the module containing target address ADDR (libdwfl's, owned by S) and its
 * load bias (target address = file address + *BIAS).  Returns NULL when no module covers
 * ADDR or its file cannot be read. */
Elf *cst_symbols_module_elf(struct cst_symbols *s, uint64_t addr, uint64_t *bias);

/* True when target address ADDR lies in memory its module maps read-only once relocated:
 * a PT_LOAD without PF_W, or the PT_GNU_RELRO range (the dynamic linker makes it read-only
 * after relocation; GOT slots of a program linked with -z now, function-pointer tables in
 * .data.rel.ro).  A word there holds what it held when the program ran. */
bool cst_symbols_read_only(struct cst_symbols *s, uint64_t addr);

/* The data object containing target address ADDR: an STT_OBJECT symbol of non-zero size
 * in its module's symbol table, else (a stripped module) the allocated section without
 * code that holds it.  Its start (target address) in *START and its size in bytes in
 * *SIZE.  False when no module covers ADDR or neither does. */
bool cst_symbols_object(struct cst_symbols *s, uint64_t addr, uint64_t *start, uint64_t *size);

struct cst_callsites;
/* The DWARF call-site records (callsite.h) of the module containing target address ADDR,
 * read as they are asked about; NULL when no module covers ADDR.  Valid until S is closed. */
struct cst_callsites *cst_symbols_callsites(struct cst_symbols *s, uint64_t addr);

/* True when a module of the target covers ADDR. */
bool cst_symbols_in_module(struct cst_symbols *s, uint64_t addr);

/* The CFI row for ADDR (a lookup address) from .eh_frame, else .debug_frame.  Returns a
 * Dwarf_Frame the caller frees with free(), or NULL when no CFI covers ADDR; *BIAS (when
 * not NULL) receives the module's load bias (target address - CFI address). */
Dwarf_Frame *cst_symbols_cfi(struct cst_symbols *s, uint64_t addr, uint64_t *bias);

/* Like cst_symbols_cfi, but the row belongs to S, which remembers it per address: the
 * caller does not free it, and may use it until its next call of this function or until S
 * is closed.  The unwinder asks for the same return addresses on every thread. */
Dwarf_Frame *cst_symbols_cfi_cached(struct cst_symbols *s, uint64_t addr, uint64_t *bias);

/* True when ROW, returned by cst_symbols_cfi_cached, stays valid until S is closed (false
 * for a row the full memo could not keep): only then may a caller remember things about it
 * by its address. */
bool cst_symbols_cfi_kept(const struct cst_symbols *s, const Dwarf_Frame *row);

/* Fills LOC for lookup address ADDR (for a caller frame: return address - 1); OFFSET is
 * computed from PC, the address to print.  Always succeeds; unknown fields are NULL/0.
 * The strings stay valid until S is closed. */
void cst_symbols_locate(struct cst_symbols *s, uint64_t addr, uint64_t pc, struct cst_location *loc);

/* Name of a function that is the same function under another name for tail-call checks:
 * NAME without gcc's clone and split suffixes (".cold", ".part.N", ".isra.N",
 * ".constprop.N", ".lto_priv.N"; " [clone .cold]" in a demangled name).  Writes into BUF (LEN bytes) and returns BUF. */
const char *cst_symbols_base_name(const char *name, char *buf, size_t len);

/* One function of an inline chain. */
struct cst_inline {
	const char *function;      /* the name to show: the demangled DW_AT_linkage_name, else
				    * DW_AT_name qualified by its namespaces and classes
				    * ("app::Derived::run(int)::{lambda(int)#1}::operator()(int) const") */
	const char *symbol;        /* DW_AT_linkage_name, else DW_AT_name */
	const char *file;          /* source position in this function, NULL when unknown */
	int line;
};

/* The inline chain at lookup address ADDR from DWARF, innermost first: OUT[0] is the
 * innermost inlined function at ADDR's source line; each next entry is the function it was
 * inlined into, at the line of the inlined call; the last is the containing subprogram.
 * Stores at most MAX entries and returns their count, or 0 when ADDR is not in inlined code
 * or there is no DWARF. */
int cst_symbols_inlines(struct cst_symbols *s, uint64_t addr, struct cst_inline *out, int max);

/* cst_symbols_locate(S, ADDR, PC, LOC) and cst_symbols_inlines(S, ADDR, OUT, MAX) at once,
 * as a frame needs them: returns the inline chain's count (OUT may be NULL when MAX < 2).
 * S may be NULL (LOC cleared, 0). */
int cst_symbols_frame(struct cst_symbols *s, uint64_t addr, uint64_t pc, struct cst_location *loc,
		      struct cst_inline *out, int max);

/* Number of modules with a build-id mismatch. */
int cst_symbols_mismatches(struct cst_symbols *s);

#endif

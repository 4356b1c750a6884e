/* Opening the files libdwfl opens by itself.  dwfl_core_file_report (the report of a core
 * without an NT_FILE note) reads the dynamic linker's link_map from the core's memory and
 * opens each l_name with a plain open(2) (elfutils libdwfl/link_map.c, report_r_debug), not
 * through the find_elf callback: a core naming a FIFO there would block it forever, a device
 * could act, and --sysroot would not confine it.  While a core is guarded (between
 * cst_guarded_open_begin and cst_guarded_open_end, in the calling thread), every read-only
 * open(2) made through the program's `open` goes through cst_core_open_file instead: regular
 * files only, opened without blocking, resolved inside the sysroot.  Outside a guard `open`
 * is the system call itself. */
#ifndef CST_GUARDED_OPEN_H
#define CST_GUARDED_OPEN_H

struct cst_core;

/* Guards C's recorded paths in the calling thread (C NULL: no guard); returns the core
 * guarded before, to give back to a later call. */
struct cst_core *cst_guarded_open_begin(struct cst_core *c);

#endif

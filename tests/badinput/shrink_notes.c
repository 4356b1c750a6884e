/* shrink_notes.so: an LD_PRELOAD shim for tests/t_badinput.sh.  When SHRINK_PATH is set, the
 * first time the program asks libelf for a raw chunk of a file (corestack reads a core's
 * PT_NOTE that way) the file SHRINK_PATH is truncated to the chunk's offset first: the core
 * loses its notes at the very moment they are read, deterministically. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libelf.h>
#include <stdlib.h>
#include <unistd.h>

Elf_Data *elf_getdata_rawchunk(Elf *elf, int64_t off, size_t size, Elf_Type type)
{
	static Elf_Data *(*real)(Elf *, int64_t, size_t, Elf_Type);
	if (!real)
		real = (Elf_Data *(*)(Elf *, int64_t, size_t, Elf_Type))dlsym(RTLD_NEXT, "elf_getdata_rawchunk");
	const char *path = getenv("SHRINK_PATH");
	if (path) {
		if (truncate(path, off) != 0)
			abort();
		unsetenv("SHRINK_PATH");
	}
	return real(elf, off, size, type);
}

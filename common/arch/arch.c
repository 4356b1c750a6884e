/* The architecture tables, found by ELF machine and class. */
#include "arch.h"

#include <stddef.h>

const struct cst_arch *cst_arch_find(int machine, int elf_class)
{
	static const struct cst_arch *const all[] = { &cst_arch_x86_64, &cst_arch_sparc64,
						      &cst_arch_sparc32plus, &cst_arch_sparc32 };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (all[i]->elf_machine == machine && all[i]->elf_class == elf_class)
			return all[i];
	return NULL;
}

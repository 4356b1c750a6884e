/* bigmem: fills N MiB of heap (argv[1], default 256) and crashes, for a core much bigger
 * than the memory corestack may use to read it compressed. */
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
	char *p = malloc(mib << 20);
	if (!p)
		return 1;
	for (size_t i = 0; i < mib << 20; i += 4096)
		memset(p + i, (int)(i >> 12), 4096);
	abort();
}

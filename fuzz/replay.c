/* Replays fuzz inputs through a harness without libFuzzer: `replay FILE...` calls the
 * harness's LLVMFuzzerTestOneInput once per file.  Linked with each harness by fuzz/fuzz.mk
 * using the normal compiler (and the sanitizers with SANITIZE=1), for the regression tests.
 * Exit status 0 when every input ran, 2 when a file cannot be read. */
#include "fuzz_input.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 2;
		}
		size_t cap = 1 << 16, n = 0, got;
		uint8_t *buf = malloc(cap);
		while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
			n += got;
			if (n == cap) {
				uint8_t *p = realloc(buf, cap *= 2);
				if (!p)
					free(buf);
				buf = p;
			}
		}
		fclose(f);
		if (!buf) {
			fprintf(stderr, "%s: out of memory\n", argv[i]);
			return 2;
		}
		LLVMFuzzerTestOneInput(buf, n);
		free(buf);
	}
	return 0;
}

/* A crash that a frame-pointer walk gets wrong.
 *
 *   main -> handle_request -> parse_header -(tail call)-> checksum   (SIGSEGV in checksum)
 *
 * Built with frame pointers and without CFI (as many distributions build): checksum is a
 * leaf with no frame of its own, and parse_header leaves by a tail jump.  gdb and perf
 * print main -> checksum here; corestack prints all four frames and marks how it found
 * handle_request ([recovered caller]) and parse_header ([lost tail call]). */
#include <stddef.h>
#include <stdio.h>

volatile int seen;

__attribute__((noinline)) int checksum(const unsigned char *p, size_t n)
{
	int sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += p[i];             /* p is NULL: SIGSEGV */
	return sum;
}

__attribute__((noinline)) int parse_header(const unsigned char *p, size_t n)
{
	seen = 1;
	return checksum(p, n + 4);       /* a tail call: parse_header leaves no frame */
}

__attribute__((noinline)) int handle_request(const unsigned char *p, size_t n)
{
	int r = parse_header(p, n);
	seen = r;
	return r + 1;
}

int main(int argc, char **argv)
{
	(void)argv;
	const unsigned char *request = argc > 5 ? (const unsigned char *)"hello" : NULL;
	printf("%d\n", handle_request(request, 16));
	return 0;
}

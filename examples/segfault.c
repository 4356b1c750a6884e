/* segfault: a null pointer dereference in a lookup.
 *
 *   main -> load_config -> parse_line -> entry_value   (SIGSEGV: the key is not in the table)
 *
 * Run with any argument count: the crash is the same, so every core of this program has the
 * same signature. */
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noipa))

struct entry {
	const char *key;
	int value;
};

static struct entry table[] = { { "port", 8080 }, { "workers", 4 } };

NOINLINE struct entry *lookup(const char *key)
{
	for (size_t i = 0; i < sizeof table / sizeof *table; i++)
		if (strcmp(table[i].key, key) == 0)
			return &table[i];
	return NULL;
}

NOINLINE int entry_value(const struct entry *e)
{
	return e->value;                 /* e is NULL for an unknown key: SIGSEGV */
}

NOINLINE int parse_line(const char *line)
{
	return entry_value(lookup(line)) + 1;
}

NOINLINE int load_config(void)
{
	static const char *const lines[] = { "port", "workers", "timeout" };
	int sum = 0;
	for (size_t i = 0; i < 3; i++)
		sum += parse_line(lines[i]);
	return sum;
}

int main(void)
{
	printf("%d\n", load_config());
	return 0;
}

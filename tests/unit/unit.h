/* Result lines of the C unit tests, in the form tests/run.sh counts:
 *	PASS name
 *	FAIL name: why
 * A case collects expectations between unit_begin and unit_end; the first one that does not
 * hold is the reason printed.  unit_exit returns the program's status (1 when a case failed). */
#ifndef CST_UNIT_H
#define CST_UNIT_H

#include <stdbool.h>

void unit_begin(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Records that COND held; when it did not and nothing failed yet in the case, keeps the
 * reason (printf FMT).  Returns COND. */
bool unit_expect(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints the case's PASS or FAIL line. */
void unit_end(void);
int unit_exit(void);

#define EXPECT_EQ(got, want, what) \
	unit_expect((uint64_t)(got) == (uint64_t)(want), "%s: got 0x%llx, want 0x%llx", (what), \
		    (unsigned long long)(uint64_t)(got), (unsigned long long)(uint64_t)(want))

#endif

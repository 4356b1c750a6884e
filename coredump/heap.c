/* The CLI's heap in transparent huge pages.  See heap.h. */
#include "heap.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* A transparent huge page on x86-64: a page-directory entry mapping 2 MiB (Intel SDM vol. 3A,
 * 4.5).  Where huge pages are larger the advice still covers the same bytes. */
#define HUGE_PAGE ((uintptr_t)2 << 20)
/* Bytes the heap grows ahead of what is asked (M_TOP_PAD): enough for the small allocations
 * of a walk of a few hundred modules and for the tables of a core of 10,000 threads (its
 * segments, threads and kept registers, about 10 MiB), which would otherwise spill into a
 * second growth of the heap, not advised, in 4 KiB pages.  A larger pad makes glibc's calloc
 * clear more of the top chunk on a deep stack (its peak RSS grows with the pad). */
#define HEAP_RESERVE (16 << 20)

/* The block below the heap's first whole huge page (volatile: an allocation whose pointer is
 * never read is one the compiler may drop, and GCC did). */
static void *volatile below_huge_pages;

void heap_in_huge_pages(void)
{
	if (mallopt(M_TOP_PAD, HEAP_RESERVE) == 0)
		return;
	/* the first allocation grows the heap by the pad; the heap ends at the break */
	void *first = malloc(1);
	uintptr_t lo = (uintptr_t)first, hi = (uintptr_t)sbrk(0);
	if (first && hi > lo && hi - lo <= 4 * (uintptr_t)HEAP_RESERVE) {
		uintptr_t a = (lo + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1), b = hi & ~(HUGE_PAGE - 1);
		if (b > a && madvise((void *)a, b - a, MADV_HUGEPAGE) == 0 && a - lo > 64) {
			/* the bytes below the first whole huge page, kept allocated: the
			 * allocations that follow start in huge pages */
			below_huge_pages = malloc(a - lo - 64);
		}
	}
	free(first);
}

/* The CLI's heap in transparent huge pages. */
#ifndef CST_HEAP_H
#define CST_HEAP_H

/* Asks, before the first real allocation, that the heap be grown HEAP_RESERVE bytes (16 MiB)
 * ahead and that those bytes be backed by 2 MiB transparent huge pages where the kernel
 * gives them for the asking (/sys/kernel/mm/transparent_hugepage/enabled "madvise" or
 * "always"): a walk fills a few MiB of small allocations (libdw's trees, the symbol indexes,
 * the memos), and each 4 KiB page of them cost a page fault of its own.  Does nothing when
 * malloc is not glibc's brk heap (under a sanitizer's allocator) or the kernel refuses;
 * never fails. */
void heap_in_huge_pages(void);

#endif

/* Small helpers shared by common/ and its front ends: a search of sorted address tables, a
 * hash of a word, readers of fields in raw bytes, a hex writer and a whole-buffer write. */
#ifndef CST_UTIL_H
#define CST_UTIL_H

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* KEY times 2^64/phi (Fibonacci hashing, Knuth, TAOCP vol. 3, 6.4): its high bits depend on
 * every bit of KEY, so a hash table takes its index from them. */
static inline uint64_t cst_fib_hash(uint64_t key)
{
	return key * 0x9e3779b97f4a7c15ull;
}

/* Number of elements of V (N sorted addresses) that are <= X: the element before that
 * index is the last one at or below X. */
static inline size_t cst_upper_bound(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The signed 32-bit little-endian value at P (x86 displacements, .eh_frame_hdr fields). */
static inline int32_t cst_le32s(const uint8_t *p)
{
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	return (int32_t)v;
}

/* The signed 32-bit big-endian value at P (fields of big-endian ELF files: SPARC). */
static inline int32_t cst_be32s(const uint8_t *p)
{
	uint32_t v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
	return (int32_t)v;
}

/* The unsigned SIZE-byte value (1 to 8) at P in byte order BIG_ENDIAN: a target's word, a
 * note's field. */
static inline uint64_t cst_word(const uint8_t *p, unsigned size, bool big_endian)
{
	/* words of 4 and 8 bytes (note headers, saved registers) in one load */
	if (size == 4) {
		uint32_t w;
		memcpy(&w, p, 4);
		return big_endian ? be32toh(w) : le32toh(w);
	}
	if (size == 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		return big_endian ? be64toh(w) : le64toh(w);
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[i] << 8 * (big_endian ? size - 1 - i : i);
	return v;
}

/* Lowercase hex digits of the N bytes at P in OUT (2N characters, then a NUL); returns OUT.
 * Build-ids are written for every frame and module, where sprintf's cost shows. */
static inline char *cst_hex(const uint8_t *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = 0;
	return out;
}

/* Writes the N bytes at BUF to descriptor FD, again after a short write or EINTR.  Returns N;
 * -1 when a write fails (errno says why); or the bytes written before a write that wrote
 * nothing (fewer than N). */
static inline ssize_t cst_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(fd, p + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0)
			break;
		done += (size_t)w;
	}
	return (ssize_t)done;
}

#endif

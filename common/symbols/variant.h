/* CPU-variant implementations: glibc builds several versions of its string, memory and math
 * functions, one per instruction-set extension, and an IFUNC resolver picks one per machine at
 * start-up (sysdeps/x86_64/multiarch: __strlen_evex, __memmove_avx_unaligned_erms,
 * __ieee754_exp_fma).  The same call crashes in a different
 * variant on another CPU or under GLIBC_TUNABLES=glibc.cpu.hwcaps=..., so a crash signature
 * names the function the program called instead. */
#ifndef CST_VARIANT_H
#define CST_VARIANT_H

#include <stdbool.h>
#include <stddef.h>

/* When NAME is a CPU-variant implementation, writes the name of the function a program calls
 * (the exported symbol) into BUF (LEN bytes) and returns true; else returns false and leaves
 * BUF alone.  The rule: NAME is PREFIX BASE "_" SUFFIX, where SUFFIX is a run of
 * "_"-separated variant words whose first is an instruction-set word (sse2, ssse3, sse4_1,
 * sse4_2, sse41, sse42, avx, avx2, avx512, evex, evex512, erms, fma, fma3, fma4, generic;
 * then also unaligned, rtm, movbe, no_vzeroupper, no_bsf), and PREFIX is "__", "__GI___", or
 * "__ieee754_" (glibc's internal name of a math function).  The result is BASE, or "__" BASE
 * for the functions glibc exports only under that name (the _chk fortify functions and
 * __memcmpeq).  Checked against every such name of the installed libc.so.6 and libm.so.6
 * symbol tables (libc6-dbg) by tests/unit/test_variant.c. */
bool cst_symbols_cpu_variant(const char *name, char *buf, size_t len);

#endif

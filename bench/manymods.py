#!/usr/bin/env python3
"""manymods.py: builds the benchmark's program of many shared libraries.

  manymods.py DIR N CC CFLAGS...

Writes to DIR the libraries libmod0.so .. libmod{N-1}.so and the program manymods, which
links them all.  mod_i(depth) calls mod_{i+1}; the last calls abort(), so a run of
`manymods` crashes with one frame in each library (N + a few frames) and the kernel writes a
core that maps N + 3 modules.  The sources go to DIR too.
"""
import os, subprocess, sys

LIB = """/* mod_%(i)d: one frame of the chain; the work after the call keeps it a call. */
extern int %(next)s(int depth);
extern volatile int mod_sink;
__attribute__((noinline)) int mod_%(i)d(int depth)
{
	volatile int local = depth;
	int r = %(next)s(depth + 1);
	return r + local + mod_sink;
}
"""

MAIN = """#include <stdlib.h>
volatile int mod_sink;
int mod_0(int depth);
/* the end of the chain, called by the last library */
__attribute__((noinline)) int mod_end(int depth)
{
	abort();
	return depth;
}
int main(void)
{
	int r = mod_0(0);
	return r + mod_sink;
}
"""


def main():
    out, n, cc, cflags = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    prog = os.path.join(out, "manymods")
    os.makedirs(out, exist_ok=True)
    for i in range(n):
        src = os.path.join(out, "mod%d.c" % i)
        with open(src, "w") as f:
            f.write(LIB % {"i": i, "next": "mod_%d" % (i + 1) if i + 1 < n else "mod_end"})
        subprocess.run([cc] + cflags + ["-fPIC", "-shared", "-o", os.path.join(out, "libmod%d.so" % i), src],
                       check=True)
    main_src = os.path.join(out, "main.c")
    with open(main_src, "w") as f:
        f.write(MAIN)
    # main exports mod_end and mod_sink to the libraries (-rdynamic)
    subprocess.run([cc] + cflags + ["-rdynamic", "-o", prog, main_src, "-L" + out,
                    "-Wl,-rpath," + os.path.abspath(out), "-Wl,--no-as-needed"] +
                   ["-lmod%d" % i for i in range(n)], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

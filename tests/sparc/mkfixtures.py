#!/usr/bin/env python3
"""mkfixtures.py: makes the SPARC fixture cores listed in tests/sparc/fixtures.list.

  mkfixtures.py [--dir DIR] [--list FILE] [NAME-GLOB...]

For each listed fixture NAME: runs DIR/BINARY ARGS under qemu-user with the gdbstub, stops
it as the STOP column says (stops.py), flushes its register windows and writes
DIR/NAME.core (inferior.py).  The binaries are built by `make fixtures` first.  The core
records the executable as /opt/corestack-fixtures/BINARY; the test passes -e DIR/BINARY.
Exit status 0 when every core was written, 1 otherwise (one line per failure)."""
import argparse
import fnmatch
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import elfsyms                                   # noqa: E402
import stops                                     # noqa: E402
from inferior import Inferior, InferiorError, SYSROOT   # noqa: E402
from rsp import RspError                         # noqa: E402

EXE_DIR = "/opt/corestack-fixtures"


def read_list(path):
    """[(name, binary, expected, check options, stop, args)] of the fixture list: lines
    NAME BINARY EXPECTED [CHECK-OPTION...] -- STOP [ARG...]; a line starting with '#' is a
    comment.  A NAME listed again (another EXPECTED for the same core) makes no new core."""
    out = []
    for n, line in enumerate(open(path), 1):
        line = line.split()
        if not line or line[0].startswith("#"):
            continue
        if "--" not in line or line.index("--") < 3 or len(line) < line.index("--") + 2:
            raise SystemExit("%s:%d: bad line" % (path, n))
        k = line.index("--")
        out.append((line[0], line[1], line[2], line[3:k], line[k + 1], line[k + 2:]))
    return out


def sysroot32():
    """A directory whose lib/ is the cross 32-bit library directory (qemu-sparc32plus -L
    looks for /lib/ld-linux.so.2 there)."""
    d = tempfile.mkdtemp(prefix="sparc32root.")
    os.symlink(os.path.join(SYSROOT, "lib32"), os.path.join(d, "lib"))
    return d


def make_core(directory, name, binary, stop_text, args, root32):
    prog = os.path.join(directory, binary)
    elf = elfsyms.Elf(prog)
    stop = stops.Stop(stop_text)
    inf = Inferior(prog, args, elf.bits, sysroot32=root32)
    try:
        addr = None
        if not stop.signal:
            addr = stop.address(elf, inf.auxv_get(9) - elf.entry)    # AT_ENTRY - e_entry
            inf.set_break(addr)
        hits = 0
        signal = 0
        while True:
            inf.resume(signal)
            signal = 0
            if inf.exited():
                raise InferiorError("the program ended (%s) before the stop" % inf.stop)
            sig = inf.stop_signal()
            if stop.signal and sig in stops.FATAL:
                break
            if sig == stops.SIGTRAP and addr is not None and \
                    inf.regs(inf.stop_thread()).pc == addr:
                hits += 1
                if hits == stop.hit:
                    break
                continue
            if sig != stops.SIGTRAP:
                signal = sig                     # deliver it (a handler runs)
        regs = inf.regs(inf.stop_thread())
        signo, code, faddr = stops.siginfo_for(inf, regs, sig)
        inf.dump(os.path.join(directory, name + ".core"), signo, code, faddr,
                 exe_name=os.path.join(EXE_DIR, binary))
    finally:
        inf.close()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="make the SPARC fixture cores")
    ap.add_argument("--dir", default=os.path.join(here, "fixtures"))
    ap.add_argument("--list", default=os.path.join(here, "fixtures.list"))
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    root32 = sysroot32()
    bad = 0
    made = set()
    try:
        for name, binary, _, _, stop, args in read_list(a.list):
            if name in made or a.names and not any(fnmatch.fnmatch(name, g) for g in a.names):
                continue
            made.add(name)
            try:
                make_core(a.dir, name, binary, stop, args, root32)
                print("made %s.core (%s %s, stop %s)" % (name, binary, " ".join(args), stop))
            except (InferiorError, RspError, ValueError, OSError) as e:
                print("FAILED %s: %s" % (name, e))
                bad += 1
    finally:
        shutil.rmtree(root32)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

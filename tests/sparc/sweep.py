#!/usr/bin/env python3
"""sweep.py: the SPARC accuracy sweep.  Runs a test program under qemu-user's gdbstub,
single-steps it from main's entry until main returns, and at every instruction (delay
slots included) writes a core of the moment (inferior.py: windows flushed as the kernel
does) and compares corestack's frames with the truth kept on a shadow stack.

  sweep.py [--corestack PATH] [--max-reports N] [-v] [--stripped FILE] BUILD PROGRAM [ARG...]

With --stripped, corestack is given FILE (PROGRAM stripped: no symbols, no CFI) as the
executable, and its frames in the program are named from PROGRAM's symbol table by their
pc (a caller's lookup address is its return address - 8), so the stripped walk is held to
the same truth as the unstripped one.

Prints "sweep BUILD: N/M instructions exact (P%)" and exits 0 when N == M, 1 when not,
2 when the sweep could not run.  Mismatches go to stderr (the first --max-reports).

The truth.  Calls into the C library (through the PLT) are stepped over; inside the
program, before each step the instruction is decoded (SPARC V9 manual, appendix A):
  save / restore / return   the top frame gets / loses its own window;
  call, jmpl with rd = %o7   a call: after its delay slot, if %o7 still holds the call's
                            address the target is pushed as a real frame; if the delay slot
                            took %o7 back (`restore`, `mov %g1,%o7`) it was a tail call;
  b / jmpl to another function's entry: a tail call; retl, ret, return: pops the top.
A tail call appends the top frame's function to its lost chain and replaces it.
Expected frames, innermost first: the top real frame; its lost chain (innermost first,
[lost tail call]); the next real frame, [recovered caller] when the top frame has no window
of its own at that instruction; and so on down to main.  corestack's frames must match
these names and markers exactly up to main, and past main the walk must go on through the
C library's start code to the thread's outermost frame (exit 0, "complete": true).  The
programs' tail chains are all unique (one path of direct jumps), so corestack can know every
lost function.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import elfsyms                                  # noqa: E402
import mkfixtures                               # noqa: E402
from inferior import Inferior, InferiorError, SYSROOT   # noqa: E402
from rsp import RspError                        # noqa: E402

MAX_STEPS = 20000


class Frame:
    def __init__(self, func):
        self.func = func
        self.lost = []
        self.window = False


def decode(word, pc):
    """(kind, target): kind one of save, restore, return, call, jump, ret, None."""
    op = word >> 30
    if op == 1:
        disp = word & 0x3fffffff
        disp -= 1 << 30 if disp & (1 << 29) else 0
        return "call", pc + 4 * disp
    if op == 0:
        op2 = (word >> 22) & 7
        if op2 in (1, 2) and (word >> 25) & 0xf == 8:      # BPA / BA (branch always)
            if op2 == 2:
                disp = word & 0x3fffff
                disp -= 1 << 22 if disp & (1 << 21) else 0
            else:
                disp = word & 0x7ffff
                disp -= 1 << 19 if disp & (1 << 18) else 0
            return "jump", pc + 4 * disp
        return None, None
    if op != 2:
        return None, None
    op3 = (word >> 19) & 0x3f
    rd, rs1, imm = (word >> 25) & 31, (word >> 14) & 31, (word >> 13) & 1
    simm = word & 0x1fff
    if op3 == 0x3c:
        return "save", None
    if op3 == 0x3d:
        return "restore", None
    if op3 == 0x39:
        return "return", None
    if op3 == 0x38:                                        # jmpl
        if rd == 15:
            return "call", None
        if rd == 0 and rs1 in (15, 31) and imm and simm == 8:
            return "ret", None
        return "jump", None
    return None, None


class Sweep:
    def __init__(self, args):
        self.a = args
        self.elf = elfsyms.Elf(args.program)
        self.root32 = mkfixtures.sysroot32() if self.elf.bits == 32 else None
        self.inf = Inferior(args.program, args.args, self.elf.bits, sysroot32=self.root32)
        self.bias = self.inf.auxv_get(9) - self.elf.entry
        self.funcs = sorted((s + self.bias, s + self.bias + n, name)
                            for name, (s, n) in self.elf.funcs.items() if n)
        self.entries = {s: name for s, _, name in self.funcs}
        self.tmp = tempfile.mkdtemp(prefix="sparcsweep.")
        self.total = self.exact = self.reports = 0

    def func_at(self, pc):
        for s, e, name in self.funcs:
            if s <= pc < e:
                return name
        return None

    def word(self, pc):
        return int.from_bytes(self.inf.rsp.read_mem(pc, 4), "big")

    def truth(self, stack):
        out = []
        top_window = stack[-1].window
        for depth, fr in enumerate(reversed(stack)):
            if depth == 0:
                out.append((fr.func, None))
            elif depth == 1 and not top_window:
                out.append((fr.func, "recovered caller"))
            else:
                out.append((fr.func, None))
            out += [(f, "lost tail call") for f in reversed(fr.lost)]
        return out

    def check(self, stack, pc):
        core = os.path.join(self.tmp, "snap.core")
        regs = self.inf.regs(self.inf.stop_thread())
        self.inf.dump(core, 5, 1, regs.pc)
        p = subprocess.run([self.a.corestack, "--json", "--sysroot", SYSROOT, "-e",
                            self.a.stripped or self.a.program, core], capture_output=True,
                           text=True, timeout=60)
        want = self.truth(stack)
        try:
            thread = json.loads(p.stdout)["threads"][0]
            frames = thread["frames"]
        except (ValueError, KeyError, IndexError):
            thread, frames = {}, []
        if self.a.stripped:
            for f in frames:
                if f.get("function") is None and isinstance(f.get("pc"), str):
                    at = int(f["pc"], 16)
                    caller = f.get("index") != 0 and f.get("found_by") not in ("tail-call", "context")
                    f["function"] = self.func_at(at - 8 if caller else at)
        got = [(f.get("function"), f.get("marker")) for f in frames[:len(want)]]
        # past main: at least one frame (the C library's start code), to the outermost one
        complete = p.returncode == 0 and thread.get("complete") is True and len(frames) > len(want)
        self.total += 1
        if self.a.verbose:
            print("0x%x %s" % (pc, " ".join(n + ("[%s]" % m if m else "") for n, m in want)),
                  file=sys.stderr)
        if got == want and complete:
            self.exact += 1
            return
        self.reports += 1
        if self.reports <= self.a.max_reports:
            show = lambda fs: ", ".join(n if not m else "%s [%s]" % (n, m) for n, m in fs)
            print("pc 0x%x (%s+%d): expected %s\n    got %s%s" % (
                pc, self.func_at(pc), pc - self.elf.funcs[self.func_at(pc)][0] - self.bias,
                show(want), show([(f.get("function") or "??", f.get("marker"))
                                  for f in frames[:len(want) + 1]]),
                "" if complete else "\n    exit %d, %d frames, walk ended: %s" % (
                    p.returncode, len(frames), thread.get("stop_reason"))), file=sys.stderr)

    def step_over_call(self, ret):
        """Continues until the return address ret (the program's call into the library)."""
        self.inf.set_break(ret)
        while True:
            self.inf.resume()
            if self.inf.exited():
                raise InferiorError("the program ended in a library call")
            if self.inf.regs(self.inf.stop_thread()).pc == ret:
                break
        self.inf.clear_break(ret)

    def run(self):
        main = self.elf.funcs["main"][0] + self.bias
        self.inf.set_break(main)
        self.inf.resume()
        if self.inf.regs(self.inf.stop_thread()).pc != main:
            raise InferiorError("did not stop at main")
        self.inf.clear_break(main)
        stack = [Frame("main")]
        pending = None                         # (kind, cti pc) waiting for its delay slot
        for _ in range(MAX_STEPS):
            regs = self.inf.regs()
            pc = regs.pc
            self.check(stack, pc)
            kind, target = decode(self.word(pc), pc)
            if kind == "save":
                stack[-1].window = True
            elif kind in ("restore", "return"):
                stack[-1].window = False
            self.inf.step()
            new = self.inf.regs()
            if pending:
                if self.transfer(stack, pending, new):
                    return
                pending = None
            if kind in ("call", "jump", "ret", "return"):
                k = "ret" if kind == "return" else kind
                if new.pc != pc + 4:               # annulled: no delay slot
                    if self.transfer(stack, (k, pc), new):
                        return
                else:
                    pending = (k, pc)
                    if k == "call" and target is not None and target not in self.entries:
                        self.inf.step()            # the delay slot, then the library
                        self.step_over_call(pc + 8)
                        pending = None
        raise InferiorError("more than %d steps" % MAX_STEPS)

    def transfer(self, stack, pending, new):
        """Applies a control transfer; True when main has returned."""
        kind, cti = pending
        dest = new.pc
        if kind == "call":
            name = self.entries.get(dest)
            if name is None:
                raise InferiorError("call at 0x%x to 0x%x: no function there" % (cti, dest))
            if new.get(15) == cti:
                stack.append(Frame(name))
            else:                                  # the delay slot took %o7 back
                stack[-1].lost.append(stack[-1].func)
                stack[-1].func = name
                stack[-1].window = False
        elif kind == "jump":
            name = self.entries.get(dest)
            if name is not None and name != stack[-1].func:
                stack[-1].lost.append(stack[-1].func)
                stack[-1].func = name
        elif kind == "ret":
            stack.pop()
            if not stack:
                return True
        return False

    def close(self):
        self.inf.close()
        for f in os.listdir(self.tmp):
            os.unlink(os.path.join(self.tmp, f))
        os.rmdir(self.tmp)
        if self.root32:
            shutil.rmtree(self.root32)


def main():
    ap = argparse.ArgumentParser(description="the SPARC accuracy sweep")
    ap.add_argument("--corestack", default=os.path.join(os.environ.get("BUILD", "build"),
                                                        "corestack"))
    ap.add_argument("--max-reports", type=int, default=20)
    ap.add_argument("-v", "--verbose", action="store_true", help="print every truth")
    ap.add_argument("--stripped", help="the program stripped, for corestack")
    ap.add_argument("build")
    ap.add_argument("program")
    ap.add_argument("args", nargs="*")
    a = ap.parse_args()
    try:
        sw = Sweep(a)
    except (InferiorError, RspError, OSError, ValueError) as e:
        print("sweep %s: cannot run: %s" % (a.build, e), file=sys.stderr)
        return 2
    try:
        sw.run()
    except (InferiorError, RspError, OSError) as e:
        print("sweep %s: stopped: %s" % (a.build, e), file=sys.stderr)
        return 2
    finally:
        sw.close()
    pct = 100.0 * sw.exact / sw.total if sw.total else 0.0
    print("sweep %s: %d/%d instructions exact (%s%%)" % (
        a.build, sw.exact, sw.total, ("%.2f" % pct).rstrip("0").rstrip(".")))
    return 0 if sw.exact == sw.total and sw.total else 1


if __name__ == "__main__":
    sys.exit(main())

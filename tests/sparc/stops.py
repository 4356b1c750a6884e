"""stops.py: where a SPARC test program is stopped, named in the fixture list, and the
siginfo a core records for the stop.

A stop is "signal" (the first fatal signal: SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE) or
FUNC[@KIND][+OFFSET][#N]: the entry of FUNC, or the first instruction of KIND in it, plus
OFFSET bytes, the N-th time (default 1) execution arrives there.  KIND: save, restore, call,
b (branch always: a relaxed tail jump), retl, ret, return, nop.
Encodings: SPARC V9 manual, appendix A and E (op = bits 31-30, op3 = bits 24-19 of
format 3, op2 = bits 24-22 and cond = bits 28-25 of format 2)."""
import re
import struct

SIGTRAP, SIGABRT, SIGSEGV, SIGBUS = 5, 6, 11, 10
TRAP_BRKPT, SEGV_MAPERR, SI_TKILL = 1, 1, -6     # include/uapi/asm-generic/siginfo.h
FATAL = (4, 6, 8, 10, 11)


def _op3(w):
    return (w >> 19) & 0x3f


KINDS = {
    "save": lambda w: w >> 30 == 2 and _op3(w) == 0x3c,
    "restore": lambda w: w >> 30 == 2 and _op3(w) == 0x3d,
    "return": lambda w: w >> 30 == 2 and _op3(w) == 0x39,
    "call": lambda w: w >> 30 == 1,
    "b": lambda w: w >> 30 == 0 and (w >> 22) & 7 in (1, 2) and (w >> 25) & 0xf == 8,
    "retl": lambda w: w == 0x81c3e008,        # jmpl %o7 + 8, %g0
    "ret": lambda w: w == 0x81c7e008,         # jmpl %i7 + 8, %g0
    "nop": lambda w: w == 0x01000000,
}


class Stop:
    def __init__(self, text):
        self.text = text
        self.signal = text == "signal"
        if self.signal:
            return
        m = re.match(r"^([A-Za-z_][\w.]*)(?:@(\w+))?(?:\+(\d+))?(?:#(\d+))?$", text)
        if not m or (m.group(2) and m.group(2) not in KINDS):
            raise ValueError("bad stop %r" % text)
        self.func, self.kind = m.group(1), m.group(2)
        self.offset = int(m.group(3) or 0)
        self.hit = int(m.group(4) or 1)

    def address(self, elf, bias):
        """The stop address in the running program (bias: its load bias)."""
        if self.func not in elf.funcs:
            raise ValueError("no function %s in the program" % self.func)
        start, size = elf.funcs[self.func]
        addr = start
        if self.kind:
            words = elf.words(start, size)
            hits = [i for i, w in enumerate(words) if KINDS[self.kind](w)]
            if not hits:
                raise ValueError("no %s instruction in %s" % (self.kind, self.func))
            addr = start + 4 * hits[0]
        return addr + self.offset + bias


def fault_address(regs, word):
    """The address a faulting load or store (format 3, op 3) accesses: rs1 + simm13 or
    rs1 + rs2."""
    if word >> 30 != 3:
        return 0
    rs1 = (word >> 14) & 31
    if (word >> 13) & 1:
        off = word & 0x1fff
        off -= 0x2000 if off & 0x1000 else 0
    else:
        off = regs.get(word & 31)
    return (regs.get(rs1) + off) & ((1 << regs.bits) - 1)


def siginfo_for(inf, regs, signal):
    """(signo, code, address) of the stopped thread for NT_SIGINFO / pr_cursig."""
    if signal == SIGTRAP:
        return SIGTRAP, TRAP_BRKPT, regs.pc
    if signal in (SIGSEGV, SIGBUS):
        word = struct.unpack(">I", inf.rsp.read_mem(regs.pc, 4))[0]
        return signal, SEGV_MAPERR, fault_address(regs, word)
    return signal, SI_TKILL, 0

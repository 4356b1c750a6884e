#!/usr/bin/env python3
"""setsig.py - copy an ELF core file with another signal number.

Usage: setsig.py IN OUT SIGNO

Writes OUT, a copy of IN whose NT_SIGINFO si_signo and every NT_PRSTATUS pr_cursig that
is not 0 are SIGNO: a core of the same program stopped by another signal, in the core's
own numbering (SPARC numbers signals differently from x86).  ELF32 and ELF64, either byte
order.  Layouts: the note header is Elf{32,64}_Nhdr, three 4-byte words in both classes
(gABI, "Note Section"); siginfo_t starts with int si_signo (include/uapi/asm-generic/
siginfo.h); struct elf_prstatus starts with struct elf_siginfo (three ints) and then
short pr_cursig at byte 12 (include/linux/elfcore.h).
"""

import struct
import sys

NT_PRSTATUS, NT_SIGINFO = 1, 0x53494749
PT_NOTE = 4


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    data = bytearray(open(sys.argv[1], "rb").read())
    signo = int(sys.argv[3])
    if data[:4] != b"\x7fELF":
        sys.exit("setsig: %s: not an ELF file" % sys.argv[1])
    is64 = data[4] == 2
    e = ">" if data[5] == 2 else "<"
    if is64:
        phoff, = struct.unpack_from(e + "Q", data, 32)
        phentsize, phnum = struct.unpack_from(e + "HH", data, 54)
    else:
        phoff, = struct.unpack_from(e + "I", data, 28)
        phentsize, phnum = struct.unpack_from(e + "HH", data, 42)
    changed = 0
    for i in range(phnum):
        at = phoff + i * phentsize
        if is64:
            ptype, _, off, _, _, filesz = struct.unpack_from(e + "IIQQQQ", data, at)
        else:
            ptype, off, _, _, filesz = struct.unpack_from(e + "IIIII", data, at)
        if ptype != PT_NOTE:
            continue
        pos, end = off, off + filesz
        while pos + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from(e + "III", data, pos)
            desc = pos + 12 + ((namesz + 3) & ~3)
            if ntype == NT_SIGINFO and descsz >= 4:
                struct.pack_into(e + "i", data, desc, signo)
                changed += 1
            elif ntype == NT_PRSTATUS and descsz >= 14:
                if struct.unpack_from(e + "h", data, desc + 12)[0]:
                    struct.pack_into(e + "h", data, desc + 12, signo)
                    changed += 1
            pos = desc + ((descsz + 3) & ~3)
    if not changed:
        sys.exit("setsig: %s: no NT_SIGINFO or pr_cursig to change" % sys.argv[1])
    open(sys.argv[2], "wb").write(data)


main()

"""elfcore.py: writes a Linux core file for sparc64 (ELF64) or 32-bit SPARC V8+ (ELF32),
in the layout the Linux kernel's ELF core dumper (fs/binfmt_elf.c, fs/compat_binfmt_elf.c)
produces on sparc64.  Big-endian throughout.  Addresses are target virtual addresses,
sizes are in bytes.

Layouts, checked three ways:
  * the kernel: arch/sparc/include/asm/elf_64.h (ELF_NGREG 36, elf_greg_t unsigned long;
    the compat ELF_NGREG 38 of u32), arch/sparc/kernel/ptrace_64.c genregs64_get (g0-g7,
    o0-o7 from pt_regs; l0-l7, i0-i7 read from the stack at %sp + 2047; then tstate, tpc,
    tnpc, y; user_sparc64_view EM_SPARCV9, user_sparc32_view EM_SPARC) and genregs32_get (the same 32 registers as u32, l/i read at %sp; then psr,
    pc, npc, y, wim, tbr), include/uapi/linux/elfcore.h (elf_prstatus, elf_prpsinfo),
    include/linux/elfcore-compat.h (the 32-bit ones), fs/binfmt_elf.c fill_files_note
    (NT_FILE: count, page size, {start, end, offset in pages} triples, then the names);
  * the cross C library's /usr/sparc64-linux-gnu/include/sys/procfs.h;
  * tests/sparc/layout.c built with sparc64-linux-gnu-gcc (64-bit and -m32) and run under
    qemu-user (`make sparc-layout`): prstatus 408 bytes, pr_reg at 112, pr_fpvalid at 400,
    prpsinfo 136 (uid 4 bytes); 32-bit prstatus 228, pr_reg at 72, pr_fpvalid at 224,
    prpsinfo 124 (uid 2 bytes); siginfo 128 for both.
"""
import struct

EM_SPARC = 2                 # include/uapi/linux/elf-em.h
EM_SPARCV9 = 43
NT_PRSTATUS, NT_PRFPREG, NT_PRPSINFO, NT_AUXV = 1, 2, 3, 6
NT_SIGINFO, NT_FILE = 0x53494749, 0x46494c45   # include/uapi/linux/elf.h
PAGE_SIZE = 8192             # sparc64 PAGE_SHIFT 13 (arch/sparc/include/asm/page_64.h)
PF_X, PF_W, PF_R = 1, 2, 4


class Layout:
    """The word size dependent parts of the core format."""

    def __init__(self, bits):
        self.bits = bits
        if bits == 64:
            self.w = "Q"
            self.prstatus_size, self.pr_reg_off, self.fpvalid_off = 408, 112, 400
            self.prpsinfo_size = 136
            self.fpregs_size = 280
            self.machine = EM_SPARCV9
        else:
            self.w = "I"
            self.prstatus_size, self.pr_reg_off, self.fpvalid_off = 228, 72, 224
            self.prpsinfo_size = 124
            self.fpregs_size = 396
            # The header's machine and flags are the regset view's (binfmt_elf.c
            # fill_note_info): user_sparc32_view is EM_SPARC, even for a V8+ program.
            self.machine = EM_SPARC
        self.wsize = bits // 8


def note(ntype, name, desc):
    """One ELF note: namesz, descsz, type, name (NUL, padded to 4), desc (padded to 4)."""
    n = name.encode() + b"\0"
    pad = lambda b: b + b"\0" * (-len(b) % 4)
    return struct.pack(">III", len(n), len(desc), ntype) + pad(n) + pad(desc)


def prstatus(lay, tid, sig, code, ppid, pgrp, sid, gregs):
    """NT_PRSTATUS desc.  gregs: 36 (64-bit) or 38 (32-bit) register values in the kernel's
    order (see the module comment)."""
    b = bytearray(lay.prstatus_size)
    struct.pack_into(">iiih", b, 0, sig, code, 0, sig)   # elf_siginfo: signo, code, errno; cursig
    if lay.bits == 64:
        struct.pack_into(">iiii", b, 32, tid, ppid, pgrp, sid)
    else:
        struct.pack_into(">iiii", b, 24, tid, ppid, pgrp, sid)
    struct.pack_into(">%d%s" % (len(gregs), lay.w), b, lay.pr_reg_off, *gregs)
    struct.pack_into(">i", b, lay.fpvalid_off, 1)
    return bytes(b)


def fpregs(lay, fregs, fsr, fprs):
    """NT_PRFPREG desc.  fregs: the 256 (64-bit) or 128 (32-bit) bytes of the floating-point
    registers f0 up, in target order.  sparc64 (ptrace_64.c fpregs64_get): 32 u64, fsr,
    gsr, fprs.  32-bit (fpregs32_get): 32 u32, an empty word, fsr, then qcnt 0, entry size
    8, enabled 1 in one word, and a queue of 64 u32 zeros (99 words)."""
    if lay.bits == 64:
        return fregs + struct.pack(">QQQ", fsr, 0, fprs)
    return fregs + struct.pack(">III", 0, fsr, (8 << 16) | (1 << 8)) + bytes(64 * 4)


def prpsinfo(lay, pid, ppid, pgrp, sid, uid, gid, fname, psargs):
    b = bytearray(lay.prpsinfo_size)
    b[0], b[1] = 0, ord("R")
    if lay.bits == 64:
        struct.pack_into(">IIiiii", b, 16, uid, gid, pid, ppid, pgrp, sid)
        fn_off = 40
    else:
        struct.pack_into(">HHiiii", b, 8, uid & 0xffff, gid & 0xffff, pid, ppid, pgrp, sid)
        fn_off = 28
    b[fn_off:fn_off + 16] = fname.encode()[:15].ljust(16, b"\0")
    b[fn_off + 16:fn_off + 96] = psargs.encode()[:79].ljust(80, b"\0")
    return bytes(b)


def siginfo(lay, sig, code, addr=0, pid=0, uid=0):
    """NT_SIGINFO desc (128 bytes): signo, errno, code, then the union (si_addr for faults,
    si_pid/si_uid for kill)."""
    b = bytearray(128)
    struct.pack_into(">iii", b, 0, sig, 0, code)
    union = 16 if lay.bits == 64 else 12
    if sig in (4, 5, 7, 8, 10, 11):          # SIGILL, SIGTRAP, SIGEMT, SIGFPE, SIGBUS, SIGSEGV
        struct.pack_into(">" + lay.w, b, union, addr)
    else:
        struct.pack_into(">ii", b, union, pid, uid)
    return bytes(b)


def file_note(lay, files):
    """NT_FILE desc.  files: list of (start, end, file offset in bytes, name)."""
    out = struct.pack(">2" + lay.w, len(files), PAGE_SIZE)
    for start, end, off, _ in files:
        out += struct.pack(">3" + lay.w, start, end, off // PAGE_SIZE)
    for f in files:
        out += f[3].encode() + b"\0"
    return out


def write_core(path, lay, notes, segments):
    """Writes the core.  notes: bytes of all notes, in order.  segments: list of
    (vaddr, memsz, flags, data) with len(data) <= memsz (data may be b"")."""
    if lay.bits == 64:
        ehsize, phentsize = 64, 56
    else:
        ehsize, phentsize = 52, 32
    nph = 1 + len(segments)
    off = ehsize + nph * phentsize
    note_off = off
    off += len(notes)
    phdrs = []
    placed = []
    for vaddr, memsz, flags, data in segments:
        if data:
            off += (vaddr - off) % PAGE_SIZE       # p_offset == p_vaddr mod the alignment
        phdrs.append((1, flags, off, vaddr, memsz, len(data)))
        placed.append((off, data))
        off += len(data)
    ident = b"\x7fELF" + bytes([2 if lay.bits == 64 else 1, 2, 1, 0]) + b"\0" * 8
    if lay.bits == 64:
        eh = ident + struct.pack(">HHIQQQIHHHHHH", 4, lay.machine, 1, 0, ehsize, 0,
                                 0, ehsize, phentsize, nph, 64, 0, 0)
    else:
        eh = ident + struct.pack(">HHIIIIIHHHHHH", 4, lay.machine, 1, 0, ehsize, 0,
                                 0, ehsize, phentsize, nph, 40, 0, 0)
    out = bytearray(eh)

    def ph(ptype, flags, offset, vaddr, memsz, filesz, align):
        if lay.bits == 64:
            return struct.pack(">IIQQQQQQ", ptype, flags, offset, vaddr, 0, filesz, memsz, align)
        return struct.pack(">IIIIIIII", ptype, offset, vaddr, 0, filesz, memsz, flags, align)

    out += ph(4, 0, note_off, 0, 0, len(notes), 4)
    for ptype, flags, poff, vaddr, memsz, filesz in phdrs:
        out += ph(ptype, flags, poff if filesz else 0, vaddr, memsz, filesz, PAGE_SIZE)
    out += notes
    for poff, data in placed:
        if data:
            out += b"\0" * (poff - len(out))
            out += data
    with open(path, "wb") as f:
        f.write(out)

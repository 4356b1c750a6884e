#!/usr/bin/env python3
"""mkbad.py - derive hostile variants of a Linux x86-64 ELF core file.

Used by tests/t_badinput.sh.  Only the standard library is used: the ELF64
little-endian header, the program headers and the PT_NOTE notes are parsed
here with struct.

Usage:
    mkbad.py info CORE                 print key=value facts about CORE
    mkbad.py MUTATION IN OUT [ARG...]  write a mutated copy of IN to OUT

Run `mkbad.py list` for the mutations.  Every mutation prints a one-line
description of what it changed on stderr, so a failing test can show the
exact damage.
"""

import os
import random
import struct
import sys

# ELF constants
ET_CORE = 4
PT_NULL, PT_LOAD, PT_NOTE = 0, 1, 4
NT_PRSTATUS, NT_FILE = 1, 0x46494C45
EHDR = struct.Struct("<16sHHIQQQIHHHHHH")   # Elf64_Ehdr, 64 bytes
PHDR = struct.Struct("<IIQQQQQQ")           # Elf64_Phdr, 56 bytes
NHDR = struct.Struct("<III")                # Elf64_Nhdr, 12 bytes

# struct elf_prstatus (x86-64): pr_reg starts at 112, 27 u64 registers in
# struct user_regs_struct order.
PR_REG = 112
REGS = ["r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8",
        "rax", "rcx", "rdx", "rsi", "rdi", "orig_rax", "rip", "cs", "eflags",
        "rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs", "gs"]
REG_OFF = {name: PR_REG + 8 * i for i, name in enumerate(REGS)}

E_PHOFF_AT = 32      # offset of e_phoff in the ELF header
E_MACHINE_AT = 18
E_PHENTSIZE_AT = 54
E_PHNUM_AT = 56
P_OFFSET_AT, P_VADDR_AT, P_FILESZ_AT, P_MEMSZ_AT = 8, 16, 32, 40


def die(msg):
    sys.stderr.write("mkbad: %s\n" % msg)
    sys.exit(2)


def say(msg):
    sys.stderr.write("mkbad: %s\n" % msg)


def align4(n):
    return (n + 3) & ~3


class Note:
    def __init__(self, at, name, ntype, desc, desc_at):
        self.at = at            # file offset of the note header
        self.name = name        # bytes, without the trailing NUL
        self.type = ntype
        self.desc = desc        # bytes
        self.desc_at = desc_at  # file offset of desc


class Core:
    """A parsed, mutable core file held in a bytearray."""

    def __init__(self, data):
        self.d = bytearray(data)
        if len(self.d) < EHDR.size or self.d[:4] != b"\x7fELF":
            die("input is not an ELF file")
        if self.d[4] != 2 or self.d[5] != 1:
            die("input is not ELF64 little-endian")
        h = EHDR.unpack_from(self.d, 0)
        self.e_type, self.e_machine = h[1], h[2]
        self.e_phoff, self.e_phentsize, self.e_phnum = h[5], h[9], h[10]
        if self.e_type != ET_CORE:
            die("input is not a core file (e_type=%d)" % self.e_type)
        self.phdrs = []          # list of dicts, with 'at' = file offset
        for i in range(self.e_phnum):
            at = self.e_phoff + i * self.e_phentsize
            t, fl, off, va, pa, fsz, msz, al = PHDR.unpack_from(self.d, at)
            self.phdrs.append(dict(i=i, at=at, type=t, flags=fl, offset=off,
                                   vaddr=va, filesz=fsz, memsz=msz))
        notes = [p for p in self.phdrs if p["type"] == PT_NOTE]
        if not notes:
            die("input has no PT_NOTE")
        self.note_ph = notes[0]
        self.notes = self.parse_notes(self.note_ph)

    # -- parsing helpers -------------------------------------------------
    def parse_notes(self, ph):
        notes = []
        pos, end = ph["offset"], ph["offset"] + ph["filesz"]
        while pos + NHDR.size <= end:
            namesz, descsz, ntype = NHDR.unpack_from(self.d, pos)
            name_at = pos + NHDR.size
            desc_at = name_at + align4(namesz)
            nxt = desc_at + align4(descsz)
            if nxt > end:
                die("input core has a malformed note at %#x" % pos)
            name = bytes(self.d[name_at:name_at + namesz]).rstrip(b"\0")
            desc = bytes(self.d[desc_at:desc_at + descsz])
            notes.append(Note(pos, name, ntype, desc, desc_at))
            pos = nxt
        return notes

    def find_note(self, ntype, name=b"CORE"):
        for n in self.notes:
            if n.type == ntype and n.name == name:
                return n
        die("input core has no note of type %#x" % ntype)

    def reg(self, name):
        n = self.find_note(NT_PRSTATUS)
        return struct.unpack_from("<Q", self.d, n.desc_at + REG_OFF[name])[0]

    def set_reg(self, name, value, tid=None):
        """Register NAME of the first thread, or of the thread TID."""
        n = self.find_note(NT_PRSTATUS) if tid is None else self.thread_note(tid)
        struct.pack_into("<Q", self.d, n.desc_at + REG_OFF[name], value)

    def thread_note(self, tid):
        """The NT_PRSTATUS note whose pr_pid (byte 32) is TID."""
        for n in self.notes:
            if n.type == NT_PRSTATUS and len(n.desc) >= 36 and \
                    struct.unpack_from("<i", n.desc, 32)[0] == tid:
                return n
        die("input core has no thread %d" % tid)

    def loads(self):
        return [p for p in self.phdrs if p["type"] == PT_LOAD]

    def load_for(self, addr):
        """The PT_LOAD with file contents covering virtual address addr."""
        for p in self.loads():
            if p["vaddr"] <= addr < p["vaddr"] + p["filesz"]:
                return p
        return None

    def addr_to_off(self, addr):
        p = self.load_for(addr)
        if p is None:
            return None
        return p["offset"] + addr - p["vaddr"]

    def read64(self, addr):
        off = self.addr_to_off(addr)
        if off is None or off + 8 > len(self.d):
            return None
        return struct.unpack_from("<Q", self.d, off)[0]

    def write64(self, addr, value):
        off = self.addr_to_off(addr)
        if off is None:
            die("address %#x not in the core" % addr)
        struct.pack_into("<Q", self.d, off, value)

    def stack_load(self):
        rsp = self.reg("rsp")
        p = self.load_for(rsp)
        if p is None:
            die("no PT_LOAD contains rsp %#x" % rsp)
        return p

    def set_ph(self, ph, field_at, value, fmt="<Q"):
        struct.pack_into(fmt, self.d, ph["at"] + field_at, value)

    # NT_FILE: u64 count, u64 page_size, count x (start, end, pgoff), names
    def ntfile(self):
        n = self.find_note(NT_FILE)
        count, page = struct.unpack_from("<QQ", n.desc, 0)
        ents = [struct.unpack_from("<QQQ", n.desc, 16 + 24 * i)
                for i in range(count)]
        names = n.desc[16 + 24 * count:].split(b"\0")[:count]
        return n, page, ents, names

    @staticmethod
    def ntfile_desc(page, ents, names):
        parts = [struct.pack("<QQ", len(ents), page)]
        parts += [struct.pack("<QQQ", *e) for e in ents]
        parts += [nm + b"\0" for nm in names]
        return b"".join(parts)

    def rebuild_notes(self, notes):
        """Serialise notes [(name, type, desc)] into the PT_NOTE segment:
        in place when they fit, else appended at the end of the file."""
        parts = []
        for name, ntype, desc in notes:
            nm = name + b"\0"
            parts.append(NHDR.pack(len(nm), len(desc), ntype))
            parts.append(nm + b"\0" * (align4(len(nm)) - len(nm)))
            parts.append(desc + b"\0" * (align4(len(desc)) - len(desc)))
        blob = b"".join(parts)
        ph = self.note_ph
        if len(blob) <= ph["filesz"]:
            at = ph["offset"]
        else:
            at = align4(len(self.d))
            self.d += b"\0" * (at - len(self.d))
            self.d += b"\0" * len(blob)
            self.set_ph(ph, P_OFFSET_AT, at)
        self.d[at:at + len(blob)] = blob
        self.set_ph(ph, P_FILESZ_AT, len(blob))
        say("rebuilt PT_NOTE: %d bytes at %#x" % (len(blob), at))

    def note_list(self):
        return [(n.name, n.type, n.desc) for n in self.notes]


# ---------------------------------------------------------------------------
# Mutations.  Each takes (core, args) and modifies core.d; "raw" mutations
# take (bytearray, args) for inputs that need not parse.

def m_truncate(d, args):
    """truncate N: keep only the first N bytes."""
    n = int(args[0], 0)
    say("truncated to %d bytes" % n)
    return d[:n]


def m_machine(d, args):
    """machine N: set e_machine (40 = EM_ARM, 183 = EM_AARCH64)."""
    struct.pack_into("<H", d, E_MACHINE_AT, int(args[0], 0))
    say("e_machine = %s" % args[0])
    return d


def m_class32(d, args):
    """class32: set e_ident[EI_CLASS] to ELFCLASS32 (rest unchanged)."""
    d[4] = 1
    say("EI_CLASS = ELFCLASS32")
    return d


def m_note_descsz_huge(c, args):
    """note-descsz-huge: first note's n_descsz = 0xffffff00."""
    struct.pack_into("<I", c.d, c.notes[0].at + 4, 0xFFFFFF00)
    say("note at %#x: n_descsz = 0xffffff00" % c.notes[0].at)


def m_note_namesz_huge(c, args):
    """note-namesz-huge: first note's n_namesz = 0xffffff00."""
    struct.pack_into("<I", c.d, c.notes[0].at, 0xFFFFFF00)
    say("note at %#x: n_namesz = 0xffffff00" % c.notes[0].at)


def m_note_overrun(c, args):
    """note-overrun [last]: the NT_PRSTATUS (or the last) note's n_descsz
    runs 4 KiB past the end of the PT_NOTE segment."""
    last = c.notes[-1] if args and args[0] == "last" else c.find_note(NT_PRSTATUS)
    end = c.note_ph["offset"] + c.note_ph["filesz"]
    newsz = end - last.desc_at + 4096
    struct.pack_into("<I", c.d, last.at + 4, newsz)
    say("note at %#x: n_descsz = %#x (segment ends at %#x)"
        % (last.at, newsz, end))


def m_note_cut(c, args):
    """note-cut [last]: PT_NOTE p_filesz ends in the middle of the NT_PRSTATUS
    desc (or, with 'last', in the middle of the last note's header)."""
    if args and args[0] == "last":
        cut = c.notes[-1].at + 6
    else:
        cut = c.find_note(NT_PRSTATUS).desc_at + 100
    newsz = cut - c.note_ph["offset"]
    c.set_ph(c.note_ph, P_FILESZ_AT, newsz)
    say("PT_NOTE p_filesz = %#x (segment now ends at file offset %#x)"
        % (newsz, cut))


def m_note_filesz_big(c, args):
    """note-filesz-big: PT_NOTE p_filesz 1 MiB beyond the end of the file."""
    newsz = len(c.d) - c.note_ph["offset"] + (1 << 20)
    c.set_ph(c.note_ph, P_FILESZ_AT, newsz)
    say("PT_NOTE p_filesz = %#x (file is %#x bytes)" % (newsz, len(c.d)))


def m_note_filesz_wrap(c, args):
    """note-filesz-wrap: PT_NOTE p_filesz = 2^64-256 (offset+size wraps)."""
    c.set_ph(c.note_ph, P_FILESZ_AT, (1 << 64) - 256)
    say("PT_NOTE p_filesz = 0xffffffffffffff00")


def m_note_zero_name(c, args):
    """note-noname: every note gets n_namesz = 0 (name bytes kept)."""
    for n in c.notes:
        struct.pack_into("<I", c.d, n.at, 0)
    say("all notes: n_namesz = 0")


def m_prstatus_short(c, args):
    """prstatus-short [N]: NT_PRSTATUS desc cut to N (16) bytes; notes rebuilt."""
    n = int(args[0], 0) if args else 16
    notes = [(nm, t, d[:n] if t == NT_PRSTATUS and nm == b"CORE" else d)
             for nm, t, d in c.note_list()]
    c.rebuild_notes(notes)
    say("NT_PRSTATUS n_descsz = %d" % n)


def m_prstatus_missing(c, args):
    """prstatus-missing: NT_PRSTATUS notes get n_type 0x7777."""
    for n in c.notes:
        if n.type == NT_PRSTATUS and n.name == b"CORE":
            struct.pack_into("<I", c.d, n.at + 8, 0x7777)
    say("NT_PRSTATUS n_type -> 0x7777")


def m_no_note(c, args):
    """no-note: the PT_NOTE becomes PT_NULL."""
    c.set_ph(c.note_ph, 0, PT_NULL, "<I")
    say("PT_NOTE -> PT_NULL")


def m_regs_garbage(c, args):
    """regs-garbage [TID]: rip/rsp/rbp of the first thread (or of thread TID) point
    nowhere (non-canonical/unmapped)."""
    tid = int(args[0], 0) if args else None
    c.set_reg("rip", 0xDEADBEEFDEADBEEF, tid)
    c.set_reg("rsp", 0x10, tid)
    c.set_reg("rbp", 0xFFFFFFFFFFFFFFF8, tid)
    say("rip=0xdeadbeefdeadbeef rsp=0x10 rbp=0xfffffffffffffff8%s"
        % ("" if tid is None else " in thread %d" % tid))


def m_regs_misaligned(c, args):
    """regs-rsp-edge: rsp = last byte of the stack PT_LOAD, rbp = rsp."""
    p = c.stack_load()
    edge = p["vaddr"] + p["filesz"] - 1
    c.set_reg("rsp", edge)
    c.set_reg("rbp", edge)
    say("rsp = rbp = %#x (last byte of stack load)" % edge)


def m_phoff_beyond(c, args):
    """phoff-beyond: e_phoff = file size + 64 KiB."""
    v = len(c.d) + 0x10000
    struct.pack_into("<Q", c.d, E_PHOFF_AT, v)
    say("e_phoff = %#x (file is %#x bytes)" % (v, len(c.d)))


def m_phoff_wrap(c, args):
    """phoff-wrap: e_phoff = 2^64-16 (offset arithmetic wraps)."""
    struct.pack_into("<Q", c.d, E_PHOFF_AT, (1 << 64) - 16)
    say("e_phoff = 0xfffffffffffffff0")


def m_phnum_max(c, args):
    """phnum-max: e_phnum = 65535."""
    struct.pack_into("<H", c.d, E_PHNUM_AT, 65535)
    say("e_phnum = 65535")


def m_phentsize(c, args):
    """phentsize [N]: e_phentsize = N (default 8)."""
    v = int(args[0], 0) if args else 8
    struct.pack_into("<H", c.d, E_PHENTSIZE_AT, v)
    say("e_phentsize = %d" % v)


def m_load_huge(c, args):
    """load-huge: the stack PT_LOAD gets p_offset = p_filesz = 2^63."""
    p = c.stack_load()
    c.set_ph(p, P_OFFSET_AT, 1 << 63)
    c.set_ph(p, P_FILESZ_AT, 1 << 63)
    say("PT_LOAD #%d (stack, vaddr %#x): p_offset = p_filesz = 2^63"
        % (p["i"], p["vaddr"]))


def m_load_wrap(c, args):
    """load-wrap: stack PT_LOAD p_offset = 2^64-4096, p_filesz = 8192."""
    p = c.stack_load()
    c.set_ph(p, P_OFFSET_AT, (1 << 64) - 4096)
    c.set_ph(p, P_FILESZ_AT, 8192)
    say("PT_LOAD #%d (stack): p_offset = 2^64-4096, p_filesz = 8192" % p["i"])


def m_load_filesz_gt_memsz(c, args):
    """load-filesz-gt-memsz: stack PT_LOAD p_filesz = p_memsz + 1 MiB."""
    p = c.stack_load()
    c.set_ph(p, P_FILESZ_AT, p["memsz"] + (1 << 20))
    say("PT_LOAD #%d (stack): p_filesz = p_memsz + 1 MiB" % p["i"])


def m_load_vaddr_wrap(c, args):
    """load-vaddr-wrap: a non-stack PT_LOAD at vaddr 2^64-4096, memsz 64 KiB."""
    s = c.stack_load()
    p = [q for q in c.loads() if q is not s][0]
    c.set_ph(p, P_VADDR_AT, (1 << 64) - 4096)
    c.set_ph(p, P_MEMSZ_AT, 0x10000)
    say("PT_LOAD #%d: p_vaddr = 2^64-4096, p_memsz = 64 KiB" % p["i"])


def m_overlap_loads(c, args):
    """overlap-loads: another PT_LOAD with contents is moved onto the page of
    rsp, so two PT_LOADs claim the stack addresses with different bytes."""
    s = c.stack_load()
    rsp = c.reg("rsp")
    cands = [q for q in c.loads() if q is not s and q["filesz"] > 0]
    p = cands[0]
    va = rsp & ~0xFFF
    c.set_ph(p, P_VADDR_AT, va)
    say("PT_LOAD #%d moved to vaddr %#x, overlapping stack PT_LOAD #%d "
        "[%#x,%#x)" % (p["i"], va, s["i"], s["vaddr"], s["vaddr"] + s["memsz"]))


def m_ntfile_count(c, args):
    """ntfile-count [N]: NT_FILE count = N (default 1000000), descsz kept."""
    v = int(args[0], 0) if args else 1000000
    n = c.find_note(NT_FILE)
    struct.pack_into("<Q", c.d, n.desc_at, v)
    say("NT_FILE count = %d (n_descsz %d)" % (v, len(n.desc)))


def m_ntfile_pagesize(c, args):
    """ntfile-pagesize N: NT_FILE page_size = N (0 or 2^63 are nasty)."""
    v = int(args[0], 0)
    n = c.find_note(NT_FILE)
    struct.pack_into("<Q", c.d, n.desc_at + 8, v)
    say("NT_FILE page_size = %#x" % v)


def m_ntfile_ranges(c, args):
    """ntfile-ranges: NT_FILE entries get start > end and huge file offsets."""
    n, page, ents, names = c.ntfile()
    bad = [(e[1], e[0], (1 << 64) - 1 - i) for i, e in enumerate(ents)]
    notes = [(nm, t, Core.ntfile_desc(page, bad, names) if t == NT_FILE else d)
             for nm, t, d in c.note_list()]
    c.rebuild_notes(notes)
    say("NT_FILE: every entry start/end swapped, file_ofs ~ 2^64")


def m_ntfile_noterm(c, args):
    """ntfile-noterm: NT_FILE filename NULs replaced by 'A' (no terminator)."""
    n, page, ents, names = c.ntfile()
    start = n.desc_at + 16 + 24 * len(ents)
    end = n.desc_at + len(n.desc)
    for i in range(start, end):
        if c.d[i] == 0:
            c.d[i] = ord("A")
    say("NT_FILE names [%#x,%#x): NULs -> 'A'" % (start, end))


def m_ntfile_rename(c, args):
    """ntfile-rename OLD NEW: every NT_FILE entry named OLD (or every entry,
    if OLD is '*') is renamed NEW; the notes are rebuilt."""
    old, new = args[0].encode(), args[1].encode()
    n, page, ents, names = c.ntfile()
    hits = 0
    for i, nm in enumerate(names):
        if old == b"*" or nm == old:
            names[i] = new
            hits += 1
    if not hits:
        die("no NT_FILE entry named %s" % args[0])
    notes = [(nm, t, Core.ntfile_desc(page, ents, names) if t == NT_FILE else d)
             for nm, t, d in c.note_list()]
    c.rebuild_notes(notes)
    say("NT_FILE: %d entries renamed %s -> %s" % (hits, args[0], args[1]))


def m_mem_strrep(c, args):
    """mem-strrep OLD NEW: in the PT_LOAD contents only (process memory, not
    the notes), every NUL-terminated string OLD becomes NEW (NUL-padded; NEW
    must not be longer).  Used to rename link_map l_name strings."""
    old, new = args[0].encode(), args[1].encode()
    if len(new) > len(old):
        die("NEW (%d bytes) is longer than OLD (%d bytes)" % (len(new), len(old)))
    pat = b"\0" + old + b"\0"
    rep = b"\0" + new + b"\0" * (len(old) - len(new) + 1)
    hits = []
    for p in c.loads():
        a, b = p["offset"], min(p["offset"] + p["filesz"], len(c.d))
        i = c.d.find(pat, a, b)
        while i >= 0:
            c.d[i:i + len(rep)] = rep
            hits.append(p["vaddr"] + i + 1 - a)
            i = c.d.find(pat, i + 1, b)
    if not hits:
        die("string %s not found in PT_LOAD contents" % args[0])
    say("memory string %s -> %s at %s" % (args[0], args[1],
        ", ".join("%#x" % h for h in hits)))


def link_maps(c):
    """Addresses of the dynamic linker's link_map entries, found through
    NT_AUXV AT_PHDR -> the executable's PT_DYNAMIC -> DT_DEBUG -> r_debug."""
    auxv = c.find_note(6).desc                      # NT_AUXV
    av = dict(struct.unpack_from("<QQ", auxv, i) for i in range(0, len(auxv) - 15, 16))
    phdr, phnum = av[3], av[5]                      # AT_PHDR, AT_PHNUM
    bias, dyn = None, None
    for i in range(phnum):
        at = phdr + i * PHDR.size
        t = c.read64(at) & 0xFFFFFFFF
        va = c.read64(at + P_VADDR_AT)
        if t == 6:                                  # PT_PHDR
            bias = phdr - va
        elif t == 2:                                # PT_DYNAMIC
            dyn = va
    if bias is None or dyn is None:
        die("executable has no PT_PHDR/PT_DYNAMIC")
    at, rdebug = bias + dyn, None
    while True:
        tag, val = c.read64(at), c.read64(at + 8)
        if tag is None or tag == 0:
            break
        if tag == 21:                               # DT_DEBUG
            rdebug = val
        at += 16
    if not rdebug:
        die("no DT_DEBUG / r_debug in the core")
    lm, maps = c.read64(rdebug + 8), []             # r_debug.r_map
    while lm and lm not in maps and len(maps) < 100:
        maps.append(lm)
        lm = c.read64(lm + 24)                      # link_map.l_next
    return maps


def m_linkmap_cycle(c, args):
    """linkmap-cycle: the last link_map's l_next points back at the first."""
    maps = link_maps(c)
    c.write64(maps[-1] + 24, maps[0])
    say("link_map list %s: last l_next -> first (cycle of %d)"
        % (" -> ".join("%#x" % m for m in maps), len(maps)))


def m_fp_cycle(c, args):
    """fp-cycle [LEVEL]: follow the rbp chain LEVEL (default 0) links from
    NT_PRSTATUS rbp, then make that frame's saved rbp point at its own slot."""
    level = int(args[0], 0) if args else 0
    fp = c.reg("rbp")
    chain = [fp]
    for _ in range(level):
        nxt = c.read64(fp)
        if nxt is None or nxt <= fp:
            die("rbp chain ends at %#x before level %d" % (fp, level))
        fp = nxt
        chain.append(fp)
    old = c.read64(fp)
    c.write64(fp, fp)
    say("rbp chain %s: [%#x] = %#x (was %#x)"
        % (" -> ".join("%#x" % x for x in chain), fp, fp, old))


def m_garbage_stack(c, args):
    """garbage-stack [SEED]: the stack PT_LOAD's bytes become random."""
    rnd = random.Random(int(args[0], 0) if args else 1)
    p = c.stack_load()
    a, n = p["offset"], p["filesz"]
    c.d[a:a + n] = bytes(rnd.getrandbits(8) for _ in range(n))
    say("PT_LOAD #%d (stack, %d bytes at file %#x) randomised" % (p["i"], n, a))


def m_loads_zero(c, args):
    """loads-zero: every PT_LOAD's bytes in the file become zero (a core whose memory
    was never written, as a failed dump leaves it)."""
    n = 0
    for p in c.loads():
        a = p["offset"]
        k = max(0, min(p["filesz"], len(c.d) - a))
        c.d[a:a + k] = bytes(k)
        n += k
    say("%d bytes of %d PT_LOAD segments zeroed" % (n, len(c.loads())))


PH_FIELDS = {"offset": P_OFFSET_AT, "vaddr": P_VADDR_AT, "filesz": P_FILESZ_AT,
             "memsz": P_MEMSZ_AT}


def m_phset(c, args):
    """phset WHICH FIELD VALUE: program header WHICH (note, stack or an index)
    gets FIELD (offset, vaddr, filesz, memsz) = VALUE."""
    which, field, v = args[0], args[1], int(args[2], 0)
    ph = (c.note_ph if which == "note" else c.stack_load() if which == "stack"
          else c.phdrs[int(which, 0)])
    old = ph[field]
    c.set_ph(ph, PH_FIELDS[field], v)
    say("program header #%d (%s) p_%s = %#x (was %#x)" % (ph["i"], which, field, v, old))


def frame_records(c, n):
    """The first N frame records of the rbp chain from NT_PRSTATUS rbp."""
    chain = [c.reg("rbp")]
    while len(chain) < n:
        nxt = c.read64(chain[-1])
        if nxt is None or nxt <= chain[-1]:
            die("rbp chain ends at %#x after %d records" % (chain[-1], len(chain)))
        chain.append(nxt)
    return chain


def m_fp_backlink(c, args):
    """fp-backlink [LEVEL]: the saved rbp of the frame record LEVEL (default 1)
    links up the rbp chain points back at the first record: a cycle of
    LEVEL + 1 records."""
    level = int(args[0], 0) if args else 1
    chain = frame_records(c, level + 1)
    c.write64(chain[-1], chain[0])
    say("rbp chain %s: [%#x] = %#x (back to the first record)"
        % (" -> ".join("%#x" % x for x in chain), chain[-1], chain[0]))


def m_sp_down(c, args):
    """sp-down: the first frame record's saved rbp points 256 bytes below rsp,
    so the caller's stack pointer would be lower than the callee's."""
    rsp, fp = c.reg("rsp"), c.reg("rbp")
    low = (rsp - 256) & ~15
    c.write64(fp, low)
    say("[rbp %#x] = %#x (rsp %#x): the stack would grow downwards" % (fp, low, rsp))


def m_ntfile_many(c, args):
    """ntfile-many [N]: NT_FILE rebuilt with N entries (default 1000000): the
    real ones, then distinct made-up files mapped above 2^44."""
    total = int(args[0], 0) if args else 1000000
    n, page, ents, names = c.ntfile()
    extra = max(0, total - len(ents))
    base = 1 << 44
    ents = ents + [(base + 0x2000 * i, base + 0x2000 * i + 0x1000, 0) for i in range(extra)]
    names = names + [b"/nonexistent/corestack-test/lib%07d.so" % i for i in range(extra)]
    notes = [(nm, t, Core.ntfile_desc(page, ents, names) if t == NT_FILE else d)
             for nm, t, d in c.note_list()]
    c.rebuild_notes(notes)
    say("NT_FILE: %d entries (%d made up)" % (len(ents), extra))


def m_threads(c, args):
    """threads [N [copy|zero]]: N NT_PRSTATUS notes (default 100000): the first
    thread's, then copies of it with tids 1, 2, ... added to its own, and with
    its registers (copy) or with rip = rsp = rbp = 0 (zero, the default)."""
    total = int(args[0], 0) if args else 100000
    zero = (args[1] if len(args) > 1 else "zero") == "zero"
    notes = c.note_list()
    pr = c.find_note(NT_PRSTATUS)
    tid = struct.unpack_from("<i", pr.desc, 32)[0]          # pr_pid
    copies = []
    for i in range(1, total):
        d = bytearray(pr.desc)
        struct.pack_into("<i", d, 32, (tid + i) & 0x7fffffff)
        struct.pack_into("<H", d, 12, 0)                    # pr_cursig: not crashed
        if zero:
            for r in ("rip", "rsp", "rbp"):
                struct.pack_into("<Q", d, REG_OFF[r], 0)
        copies.append((b"CORE", NT_PRSTATUS, bytes(d)))
    k = notes.index((pr.name, pr.type, pr.desc)) + 1
    c.rebuild_notes(notes[:k] + copies + notes[k:])
    say("%d NT_PRSTATUS notes (tids %d..%d), the copies with %s registers"
        % (total, tid, tid + total - 1, "zero rip/rsp/rbp" if zero else "the first's"))


def m_notes_padded(c, args):
    """notes-padded N [pad|plain]: the notes of N threads (the core's, then copies of its
    last thread's group of notes with new tids); with pad (the default), a "LINUX" note of
    type 0x7701 and 4,000 to 70,000 bytes before each thread's NT_PRSTATUS after the first,
    and a "CORE" note of type 0x7702 and 3,000 bytes after every second thread's, so that
    large notes lie between the threads' groups of notes and the groups differ in length.
    The pad and plain cores of one N hold the same threads."""
    total = int(args[0], 0)
    pad = (args[1] if len(args) > 1 else "pad") == "pad"
    groups = []
    for note in c.note_list():
        if (note[0], note[1]) == (b"CORE", NT_PRSTATUS) or not groups:
            groups.append([])
        groups[-1].append(note)
    tids = [struct.unpack_from("<i", d, 32)[0] for nm, t, d in c.note_list()
            if (nm, t) == (b"CORE", NT_PRSTATUS)]
    last = groups[-1]
    for i in range(len(groups), total):
        copy = []
        for nm, t, d in last:
            if (nm, t) == (b"CORE", NT_PRSTATUS):
                d = bytearray(d)
                struct.pack_into("<i", d, 32, max(tids) + i)    # pr_pid
                struct.pack_into("<H", d, 12, 0)                # pr_cursig
                d = bytes(d)
            copy.append((nm, t, d))
        groups.append(copy)
    sizes = (70000, 4096, 12291, 4000, 5003)
    out = []
    for g, notes in enumerate(groups):
        for nm, t, d in notes:
            if pad and g and (nm, t) == (b"CORE", NT_PRSTATUS):
                out.append((b"LINUX", 0x7701, bytes([g & 0xff]) * sizes[(g - 1) % len(sizes)]))
            out.append((nm, t, d))
            if pad and g % 2 and (nm, t) == (b"CORE", NT_PRSTATUS):
                out.append((b"CORE", 0x7702, b"\x5a" * 3000))
    c.rebuild_notes(out)
    say("the notes of %d threads%s" % (len(groups), ", padded" if pad else ""))


def m_setbyte(d, args):
    """setbyte OFF VAL: set the byte at file offset OFF (5 = EI_DATA)."""
    off, val = int(args[0], 0), int(args[1], 0)
    d[off] = val
    say("byte at %#x = %#x" % (off, val))
    return d


def m_note_set(d, args):
    """note-set TYPE FIELD VALUE: every note of n_type TYPE gets its FIELD (namesz,
    descsz or type) = VALUE, in the core's own byte order (so SPARC cores too); the
    notes after it are then misparsed, as a reader walks them."""
    ntype, field, val = int(args[0], 0), args[1], int(args[2], 0)
    at = {"namesz": 0, "descsz": 4, "type": 8}[field]
    en = ">" if d[5] == 2 else "<"
    phoff, = struct.unpack_from(en + "Q", d, 32)
    phentsize, phnum = struct.unpack_from(en + "HH", d, 54)
    hits = []
    for i in range(phnum):
        typ, _, off, _, _, filesz = struct.unpack_from(en + "IIQQQQ", d, phoff + i * phentsize)
        p = off
        while typ == PT_NOTE and p + 12 <= off + filesz:
            nsz, dsz, nt = struct.unpack_from(en + "III", d, p)
            if nt == ntype:
                hits.append(p)
            p += 12 + align4(nsz) + align4(dsz)
    if not hits:
        die("no note of type %#x" % ntype)
    for p in hits:
        struct.pack_into(en + "I", d, p + at, val)
    say("n_%s = %d in the notes of type %#x at %s" % (field, val, ntype, ",".join(map(str, hits))))
    return d


RAW = {"truncate": m_truncate, "machine": m_machine, "class32": m_class32,
       "setbyte": m_setbyte, "note-set": m_note_set}
PARSED = {
    "note-descsz-huge": m_note_descsz_huge,
    "note-namesz-huge": m_note_namesz_huge,
    "note-overrun": m_note_overrun,
    "note-cut": m_note_cut,
    "note-filesz-big": m_note_filesz_big,
    "note-filesz-wrap": m_note_filesz_wrap,
    "note-noname": m_note_zero_name,
    "prstatus-short": m_prstatus_short,
    "prstatus-missing": m_prstatus_missing,
    "no-note": m_no_note,
    "regs-garbage": m_regs_garbage,
    "regs-rsp-edge": m_regs_misaligned,
    "phoff-beyond": m_phoff_beyond,
    "phoff-wrap": m_phoff_wrap,
    "phnum-max": m_phnum_max,
    "phentsize": m_phentsize,
    "load-huge": m_load_huge,
    "load-wrap": m_load_wrap,
    "load-filesz-gt-memsz": m_load_filesz_gt_memsz,
    "load-vaddr-wrap": m_load_vaddr_wrap,
    "overlap-loads": m_overlap_loads,
    "ntfile-count": m_ntfile_count,
    "ntfile-pagesize": m_ntfile_pagesize,
    "ntfile-ranges": m_ntfile_ranges,
    "ntfile-noterm": m_ntfile_noterm,
    "ntfile-rename": m_ntfile_rename,
    "loads-zero": m_loads_zero,
    "mem-strrep": m_mem_strrep,
    "linkmap-cycle": m_linkmap_cycle,
    "fp-cycle": m_fp_cycle,
    "garbage-stack": m_garbage_stack,
    "phset": m_phset,
    "fp-backlink": m_fp_backlink,
    "sp-down": m_sp_down,
    "ntfile-many": m_ntfile_many,
    "threads": m_threads,
    "notes-padded": m_notes_padded,
}


def info(path):
    """Facts the test script needs, as key=value lines."""
    with open(path, "rb") as f:
        c = Core(f.read())
    nph = c.note_ph
    print("file_size=%d" % len(c.d))
    print("note_offset=%d" % nph["offset"])
    print("note_size=%d" % nph["filesz"])
    print("note_headers=%s" % ",".join(str(n.at) for n in c.notes))
    for r in ("rip", "rsp", "rbp"):
        print("%s=%#x" % (r, c.reg(r)))
    s = c.stack_load()
    print("stack_load=%d" % s["i"])
    n, page, ents, names = c.ntfile()
    seen = []
    for nm in names:
        if nm not in seen:
            seen.append(nm)
    # first NT_FILE entry: the main executable
    print("exe=%s" % names[0].decode(errors="replace"))
    print("files=%s" % ":".join(x.decode(errors="replace") for x in seen))


def main(argv):
    if len(argv) >= 2 and argv[1] == "list":
        for k, fn in sorted(list(RAW.items()) + list(PARSED.items())):
            print("%-22s %s" % (k, fn.__doc__.strip().splitlines()[0]))
        return 0
    if len(argv) == 3 and argv[1] == "info":
        info(argv[2])
        return 0
    if len(argv) < 4 or argv[1] not in RAW and argv[1] not in PARSED:
        sys.stderr.write(__doc__)
        return 64
    mut, src, dst, args = argv[1], argv[2], argv[3], argv[4:]
    with open(src, "rb") as f:
        data = bytearray(f.read())
    if mut in RAW:
        out = RAW[mut](data, args)
    else:
        c = Core(data)
        PARSED[mut](c, args)
        out = c.d
    with open(dst, "wb") as f:
        f.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

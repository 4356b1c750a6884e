#!/usr/bin/env python3
"""mkseeds.py: small fuzz seeds from real core files.

  mkseeds.py core OUT CORE
      OUT = CORE trimmed: ELF header, program headers and PT_NOTE kept; of the
      PT_LOADs only 8 KiB around each thread's stack pointer and the first
      4 KiB of each mapped file (its ELF header and notes, for build-ids) keep
      their bytes, the others keep their headers with p_filesz 0.
  mkseeds.py unwind[-overlay] OUT CORE MODULE...
      OUT = an input of fuzz/fuzz_unwind.c (its layout is described there):
      the crashed thread's registers and 8 KiB of stack from its stack
      pointer, moved from where the core's NT_FILE maps each MODULE (matched
      by file name) to the harness's fixed load address of that module: every
      register and stack word that points into a module is relocated.
      unwind-overlay adds a region with 1 KiB of the first module's code
      around the pc and sets the mask bit that lets regions override the
      modules' bytes: a start for mutated code.
Exit status 0, or 1 with a one-line reason on stderr.
"""
import os, struct, sys

EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
PHDR = struct.Struct("<IIQQQQQQ")
PT_LOAD, PT_NOTE = 1, 4
NT_PRSTATUS, NT_FILE = 1, 0x46494c45
PRSTATUS_REGS = 112          # offset of pr_reg in struct elf_prstatus (x86-64)
# user_regs_struct word index (arch/x86/include/asm/user_64.h) for DWARF 0..16
USER_OF_DWARF = [10, 12, 11, 5, 13, 14, 4, 19, 9, 8, 7, 6, 3, 2, 1, 0, 16]
STACK_BEFORE, STACK_AFTER = 512, 8192 - 512


def fail(msg):
    sys.stderr.write("mkseeds: %s\n" % msg)
    sys.exit(1)


def parse(data):
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        fail("not an ELF64 little-endian file")
    h = EHDR.unpack_from(data, 0)
    phoff, phentsize, phnum = h[5], h[9], h[10]
    phdrs = [list(PHDR.unpack_from(data, phoff + i * phentsize)) for i in range(phnum)]
    threads, files = [], []
    for ph in phdrs:
        if ph[0] != PT_NOTE:
            continue
        pos, end = ph[2], ph[2] + ph[5]
        while pos + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from("<III", data, pos)
            desc = pos + 12 + ((namesz + 3) & ~3)
            d = data[desc:desc + descsz]
            if ntype == NT_PRSTATUS and len(d) >= PRSTATUS_REGS + 27 * 8:
                threads.append(struct.unpack_from("<27Q", d, PRSTATUS_REGS))
            elif ntype == NT_FILE and len(d) >= 16:
                count, page = struct.unpack_from("<QQ", d, 0)
                names = d[16 + 24 * count:].split(b"\0")
                for i in range(count):
                    s, e, off = struct.unpack_from("<QQQ", d, 16 + 24 * i)
                    files.append((s, e, off * page, names[i].decode(errors="replace")))
            pos = desc + ((descsz + 3) & ~3)
    if not threads:
        fail("no NT_PRSTATUS")
    return h, phdrs, threads, files


def mem(data, phdrs, addr, size):
    for ph in phdrs:
        if ph[0] == PT_LOAD and ph[3] <= addr < ph[3] + ph[5]:
            rel = addr - ph[3]
            n = min(size, ph[5] - rel)
            return data[ph[2] + rel:ph[2] + rel + n], addr
    return b"", addr


def seed_core(out, core):
    data = open(core, "rb").read()
    h, phdrs, threads, files = parse(data)
    keep = []                              # (vaddr, size) windows that keep bytes
    for t in threads:
        sp = t[19] & ~0xfff
        keep.append((sp - 4096, 8192))
    for s, e, off, _ in files:
        if off == 0:
            keep.append((s, 4096))
    phoff = EHDR.size
    body = bytearray()
    new = []
    base = phoff + len(phdrs) * PHDR.size
    for ph in phdrs:
        ph = list(ph)
        if ph[0] == PT_NOTE:
            ph[2], chunk = base + len(body), data[ph[2]:ph[2] + ph[5]]
            body += chunk
            body += b"\0" * (-len(body) % 8)
        elif ph[0] == PT_LOAD:
            pieces = []
            for v, n in keep:
                lo, hi = max(v, ph[3]), min(v + n, ph[3] + ph[5])   # within p_filesz
                if lo < hi:
                    pieces.append((lo, hi))
            if pieces:
                lo, hi = min(p[0] for p in pieces), max(p[1] for p in pieces)
                hi = min(hi, ph[3] + ph[5])
                chunk = data[ph[2] + lo - ph[3]:ph[2] + hi - ph[3]]
                # p_vaddr, p_offset, p_filesz, p_memsz
                ph[3], ph[2], ph[5], ph[6] = lo, base + len(body), len(chunk), hi - lo
                body += chunk
            else:
                ph[2], ph[5] = base + len(body), 0
        new.append(ph)
    hdr = list(h)
    hdr[5], hdr[6], hdr[13], hdr[12] = phoff, 0, 0, 0     # no section headers
    outb = bytearray(EHDR.pack(*hdr))
    for ph in new:
        outb += PHDR.pack(*ph)
    outb += body
    open(out, "wb").write(outb)


def bias(i):
    """fuzz_unwind.c's BIAS(i): the fixed load bias of module i."""
    return 0x555555554000 if i == 0 else 0x7ff000000000 + (i << 32)


def seed_unwind(out, core, modules, overlay=False):
    data = open(core, "rb").read()
    h, phdrs, threads, files = parse(data)
    t = threads[0]
    mask, moves = 0, []                  # (lo, hi, delta) of each module's mappings
    for i, m in enumerate(modules[:4]):
        name = os.path.basename(m)
        base = [s for s, e, off, path in files if off == 0 and os.path.basename(path) == name]
        if not base:
            continue
        mask |= 1 << i
        for s, e, off, path in files:
            if os.path.basename(path) == name:
                moves.append((s, e, bias(i) - base[0]))

    def reloc(v):
        for lo, hi, delta in moves:
            if lo <= v < hi:
                return (v + delta) & (2**64 - 1)
        return v

    regs = [reloc(t[k]) for k in USER_OF_DWARF]
    b = bytearray(struct.pack("<BHQ", mask, 0, (1 << 17) - 1))
    b += struct.pack("<17Q", *regs)
    stack, at = mem(data, phdrs, t[19] - STACK_BEFORE, STACK_BEFORE + STACK_AFTER)
    stack = bytearray(stack)
    for k in range(0, len(stack) - 7, 8):
        struct.pack_into("<Q", stack, k, reloc(struct.unpack_from("<Q", stack, k)[0]))
    if stack:
        b += struct.pack("<QH", at, len(stack)) + stack
    pc = regs[16]
    if overlay and mask & 1 and bias(0) <= pc < bias(0) + (1 << 32):
        # the test programs are linked with file offset == address in every PT_LOAD
        image = open(modules[0], "rb").read()
        lo = max(0, pc - bias(0) - 512)
        code = image[lo:lo + 1024]
        b[0] |= 0x80
        b += struct.pack("<QH", bias(0) + lo, len(code)) + code
    open(out, "wb").write(b)


def main(argv):
    if len(argv) >= 4 and argv[1] == "core":
        seed_core(argv[2], argv[3])
    elif len(argv) >= 4 and argv[1] in ("unwind", "unwind-overlay"):
        seed_unwind(argv[2], argv[3], argv[4:], argv[1] == "unwind-overlay")
    else:
        fail("usage: mkseeds.py core OUT CORE | unwind[-overlay] OUT CORE MODULE...")


if __name__ == "__main__":
    main(sys.argv)

"""elfsyms.py: the function symbols and the code of a big-endian SPARC ELF executable
(ELF64 or ELF32), read with the standard library only.  Addresses are link-time virtual
addresses (add the load bias of a PIE), sizes in bytes.  Layouts: the System V gABI
(ELF header, section headers, Elf32_Sym / Elf64_Sym)."""
import struct


class Elf:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = f.read()
        d = self.data
        if d[:4] != b"\x7fELF" or d[5] != 2:
            raise ValueError("%s: not a big-endian ELF file" % path)
        self.bits = 64 if d[4] == 2 else 32
        if self.bits == 64:
            (self.type, self.machine, _, self.entry, self.phoff, shoff, _, _, phentsize,
             self.phnum, shentsize, shnum, shstrndx) = struct.unpack_from(">HHIQQQIHHHHHH", d, 16)
        else:
            (self.type, self.machine, _, self.entry, self.phoff, shoff, _, _, phentsize,
             self.phnum, shentsize, shnum, shstrndx) = struct.unpack_from(">HHIIIIIHHHHHH", d, 16)
        self.sections = []
        for i in range(shnum):
            o = shoff + i * shentsize
            if self.bits == 64:
                name, stype, flags, addr, off, size, link, _, _, entsize = \
                    struct.unpack_from(">IIQQQQIIQQ", d, o)
            else:
                name, stype, flags, addr, off, size, link, _, _, entsize = \
                    struct.unpack_from(">IIIIIIIIII", d, o)
            self.sections.append([name, stype, flags, addr, off, size, link, entsize])
        names = self.sections[shstrndx]
        for s in self.sections:
            end = d.index(b"\0", names[4] + s[0])
            s[0] = d[names[4] + s[0]:end].decode()
        self.funcs = self._functions()

    def _functions(self):
        """{name: (address, size)} of the STT_FUNC symbols of .symtab (else .dynsym)."""
        d = self.data
        funcs = {}
        for want in (2, 11):                      # SHT_SYMTAB, SHT_DYNSYM
            for s in self.sections:
                if s[1] != want:
                    continue
                strtab = self.sections[s[6]]
                ent = 24 if self.bits == 64 else 16
                for o in range(s[4], s[4] + s[5], ent):
                    if self.bits == 64:
                        name, info, _, shndx, value, size = struct.unpack_from(">IBBHQQ", d, o)
                    else:
                        name, value, size, info, _, shndx = struct.unpack_from(">IIIBBH", d, o)
                    if info & 0xf != 2 or shndx == 0 or value == 0:
                        continue
                    end = d.index(b"\0", strtab[4] + name)
                    funcs.setdefault(d[strtab[4] + name:end].decode(), (value, size))
            if funcs:
                break
        return funcs

    def words(self, addr, size):
        """The 32-bit instruction words at [addr, addr + size) from the section holding them."""
        for s in self.sections:
            if s[1] == 1 and s[3] <= addr and addr + size <= s[3] + s[5]:
                o = s[4] + addr - s[3]
                return list(struct.unpack_from(">%dI" % (size // 4), self.data, o))
        raise ValueError("no code at 0x%x" % addr)

    def function_at(self, addr):
        """(name, start, size) of the function containing addr, or None."""
        for name, (start, size) in self.funcs.items():
            if start <= addr < start + size:
                return name, start, size
        return None

"""inferior.py: a SPARC Linux program run under qemu-user's gdbstub (qemu-sparc64 for
sparc64, qemu-sparc32plus for 32-bit V8+), stopped where the caller asks, and written out
as a kernel-format core file with every register window flushed to the stack.

How a stop becomes a core (what the kernel does before it dumps, and how it is done here):
  * The kernel spills every user register window to its save area (flushw_user,
    synchronize_user_stack in arch/sparc).  qemu's gdbstub shows only the current window,
    and qemu keeps the others in its register file, so the stopped thread is made to run
    one `flushw` (V9 instruction; found in the C library's text) with its registers saved
    and restored around it.  The current window's l0-l7/i0-i7 are then written to the
    16-word save area at %sp (+2047, the V9 stack bias, when %sp is odd), where the kernel's
    genregs64_get reads them from (arch/sparc/kernel/ptrace_64.c).
  * qemu's signal delivery copies the interrupted window into the signal frame but not to
    the interrupted %sp, which the kernel has flushed before it builds the frame; each
    signal frame found on the stopped thread's stack is fixed up the same way.
  * The guest's /proc/self/maps (through qemu's emulation) is read with injected system
    calls (open/read/close through a `ta` instruction found in ld.so), using a scratch area
    below %sp whose bytes are put back afterwards.
  * Threads that are not stopped by the debugger (they are blocked in a system call) cannot
    run `flushw`; the test programs flush their windows themselves before they block (see
    progs/threads.c).  Their current window is written to their %sp like the others.
Addresses are target virtual addresses, sizes in bytes.
"""
import os
import socket
import struct
import subprocess

import elfcore
from rsp import Rsp, RspError

SYSROOT = "/usr/sparc64-linux-gnu"
FLUSHW = 0x81580000          # flushw (SPARC V9 manual, A.21)
TA_SYSCALL = {64: 0x91d0206d, 32: 0x91d02010}   # ta 0x6d (64-bit Linux), ta 0x10 (32-bit)
MOV_101_G1 = 0x82102065      # mov 101, %g1: first word of glibc's __rt_sigreturn_stub
NR_OPEN, NR_READ, NR_CLOSE = 5, 3, 6   # arch/sparc/include/uapi/asm/unistd.h
BIAS = 2047                  # V9 stack bias (SPARC V9 ABI, 3.2.2)
AT_BASE, AT_ENTRY = 7, 9     # include/uapi/linux/auxvec.h
SIGTRAP, SIGABRT, SIGSEGV, SIGBUS = 5, 6, 11, 10


class InferiorError(Exception):
    pass


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Regs:
    """The registers of one thread as qemu's gdbstub sends them ('g' packet).
    sparc64: r0-r31 (8 bytes), f0-f31 (4), f32-f62 (8), pc, npc, state (ccr, asi, pstate,
    cwp: the TSTATE layout), fsr, fprs, y.  32-bit: r0-r31, f0-f31 (4 bytes each), y, psr,
    wim, tbr, pc, npc, fsr, csr (qemu target/sparc/gdbstub.c; the lengths are checked)."""

    def __init__(self, bits, raw):
        self.bits, self.raw = bits, bytearray(raw)
        want = 560 if bits == 64 else 288
        if len(raw) != want:
            raise InferiorError("register packet of %d bytes, expected %d" % (len(raw), want))
        self.w = 8 if bits == 64 else 4
        self.fmt = ">Q" if bits == 64 else ">I"
        self.pc_num = 80 if bits == 64 else 68

    def _off(self, num):
        if self.bits == 64:
            if num < 32:
                return num * 8
            return 512 + (num - 80) * 8
        return num * 4

    def get(self, num):
        return struct.unpack_from(self.fmt, self.raw, self._off(num))[0]

    def set(self, num, val):
        struct.pack_into(self.fmt, self.raw, self._off(num), val & ((1 << self.bits) - 1))

    def reg_bytes(self, num):
        return bytes(self.raw[self._off(num):self._off(num) + self.w])

    @property
    def pc(self):
        return self.get(self.pc_num)

    @property
    def npc(self):
        return self.get(self.pc_num + 1)

    def sp(self):
        return self.get(14)

    def window(self):
        """l0-l7, i0-i7 (registers 16-31) as stored in a save area."""
        return b"".join(self.reg_bytes(n) for n in range(16, 32))

    def carry(self):
        if self.bits == 64:
            return bool((self.get(82) >> 32) & 0x11)
        return bool(self.get(65) & (1 << 20))

    def gregs(self):
        """The kernel's pr_reg (see elfcore.py)."""
        r = [self.get(n) for n in range(32)]
        if self.bits == 64:
            return r + [self.get(82), self.pc, self.npc, self.get(85)]
        # tstate_to_psr (arch/sparc/include/asm/psrcompat.h) sets PSR_V8PLUS and PSR_S.
        return r + [self.get(65) | 0xff000080, self.pc, self.npc, self.get(64), 0, 0]

    def fpregs(self, lay):
        """The NT_PRFPREG desc (elfcore.fpregs) from f0-f31 (4 bytes each) and, on sparc64,
        f32-f62 (8 bytes each), the fsr and the fprs."""
        if self.bits == 64:
            return elfcore.fpregs(lay, bytes(self.raw[256:512]), self.get(83), self.get(84))
        return elfcore.fpregs(lay, bytes(self.raw[128:256]), self.get(70), 0)


class Inferior:
    """One run of PROG under qemu-user with the gdbstub."""

    def __init__(self, prog, args, bits, sysroot32=None, log=None):
        self.bits = bits
        self.prog = os.path.abspath(prog)
        self.port = free_port()
        if bits == 64:
            cmd = ["qemu-sparc64", "-L", SYSROOT]
        else:
            cmd = ["qemu-sparc32plus", "-L", sysroot32]
        cmd += ["-g", str(self.port), self.prog] + list(args)
        self.argv = [prog] + list(args)
        self.qemu = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                     stdout=log or subprocess.DEVNULL,
                                     stderr=log or subprocess.DEVNULL)
        self.rsp = None
        try:
            self.rsp = Rsp(self.port)
        except RspError:
            self.close()
            raise
        self.stop = self.rsp.send("?")
        self.pid = self.qemu.pid
        self.auxv = self.rsp.xfer("auxv")
        self.breaks = set()
        self._maps = None
        self.ta = None
        self.flushw = None

    def close(self):
        if self.rsp:
            self.rsp.kill()
            self.rsp = None
        if self.qemu.poll() is None:
            self.qemu.kill()
        self.qemu.wait()

    # --- execution ------------------------------------------------------------------
    def auxv_get(self, key):
        w = 8 if self.bits == 64 else 4
        fmt = ">QQ" if w == 8 else ">II"
        for o in range(0, len(self.auxv) - 2 * w + 1, 2 * w):
            k, v = struct.unpack_from(fmt, self.auxv, o)
            if k == key:
                return v
        return None

    def regs(self, tid=None):
        if tid is not None:
            self.rsp.select_thread(tid)
        return Regs(self.bits, self.rsp.read_regs())

    def stop_thread(self):
        """The thread id named by the last stop reply."""
        for part in self.stop.split(";"):
            if "thread:" in part:
                return int(part.split("thread:")[1], 16)
        return self.rsp.threads()[0]

    def stop_signal(self):
        if self.stop[:1] in ("T", "S"):
            return int(self.stop[1:3], 16)
        return None

    def exited(self):
        return self.stop[:1] in ("W", "X")

    def set_break(self, addr):
        self.rsp.set_break(addr)
        self.breaks.add(addr)

    def clear_break(self, addr):
        self.rsp.clear_break(addr)
        self.breaks.discard(addr)

    def resume(self, signal=0):
        """Continues until the next stop.  A breakpoint at the current pc is stepped over
        first (qemu would report it again at once)."""
        pc = self.regs(self.stop_thread()).pc if not self.exited() else None
        if pc in self.breaks:
            self.rsp.clear_break(pc)
            self.stop = self.rsp.step()
            self.rsp.set_break(pc)
            if self.stop_signal() != SIGTRAP:
                return self.stop
            signal = 0
        self.stop = self.rsp.cont(signal)
        return self.stop

    def step(self):
        """One instruction of the stopped thread."""
        self.stop = self.rsp.step()
        return self.stop

    # --- injected instructions ----------------------------------------------------------
    def _run_at(self, tid, saved, addr, regs=None, max_steps=16):
        """Runs the instruction at addr in thread tid with the registers of saved, changed
        by regs {number: value}; returns the registers after it.  The caller restores them.
        A single-step over an instruction that traps to qemu (a system call, flushw's spill
        traps) also runs the next instruction: it must not touch memory, which the callers
        check (see _harmless_next)."""
        r = Regs(self.bits, saved.raw)
        for num, val in (regs or {}).items():
            r.set(num, val)
        r.set(r.pc_num, addr)
        r.set(r.pc_num + 1, addr + 4)
        self.rsp.write_regs(r.raw)       # qemu answers 'P' only with a target description
        for _ in range(max_steps):
            self.rsp.step()
            after = self.regs()
            if after.pc != addr:
                return after
        raise InferiorError("injected instruction at 0x%x did not complete" % addr)

    def _harmless_next(self, addr):
        """True when the instruction after addr only computes or branches (format 2, or
        format 3 with op 2: no load or store; SPARC V9 manual, 6.2)."""
        word = struct.unpack(">I", self.rsp.read_mem(addr + 4, 4))[0]
        return word >> 30 in (0, 2)

    def _restore(self, saved):
        """Writes every register of saved back and checks that they read back the same."""
        self.rsp.write_regs(saved.raw)
        if self.regs().raw != saved.raw:
            raise InferiorError("the registers could not be restored")

    def _find_word(self, start, size, word):
        """The first address in [start, start + size) holding word, reading until the
        first unreadable page; None if there is none."""
        for chunk in range(start, start + size, 2048):
            try:
                data = self.rsp.read_mem(chunk, 2048)
            except RspError:
                return None
            for o in range(0, len(data) - 3, 4):
                if struct.unpack_from(">I", data, o)[0] == word:
                    return chunk + o
        return None

    def syscall(self, tid, saved, nr, *args):
        if self.ta is None:
            base = self.auxv_get(AT_BASE)
            if not base:
                raise InferiorError("no AT_BASE (not a dynamic program?)")
            self.ta = base
            while True:
                self.ta = self._find_word(self.ta + 4, 0x40000, TA_SYSCALL[self.bits])
                if self.ta is None or self._harmless_next(self.ta):
                    break
            if self.ta is None:
                raise InferiorError("no system call instruction in ld.so")
        regs = {1: nr}
        for i, a in enumerate(args):
            regs[8 + i] = a
        after = self._run_at(tid, saved, self.ta, regs)
        res = after.get(8)
        if after.carry():
            raise InferiorError("injected system call %d failed: errno %d" % (nr, res))
        return res

    def read_proc_file(self, tid, saved, name):
        """The contents of a guest file (/proc/self/maps) read with injected system calls."""
        sp = saved.sp() + (BIAS if self.bits == 64 and saved.sp() & 1 else 0)
        scratch = (sp - 0x10000) & ~0xf
        size = 0x8000
        old = self.rsp.read_mem(scratch, size + 256)
        try:
            path = scratch + size
            self.rsp.write_mem(path, name.encode() + b"\0")
            fd = self.syscall(tid, saved, NR_OPEN, path, 0, 0)
            out = b""
            while True:
                n = self.syscall(tid, saved, NR_READ, fd, scratch, size)
                if n == 0:
                    break
                out += self.rsp.read_mem(scratch, n)
            self.syscall(tid, saved, NR_CLOSE, fd)
        finally:
            self.rsp.write_mem(scratch, old)
            self._restore(saved)
        return out.decode("latin-1")

    # --- the address space ------------------------------------------------------------
    def maps(self, tid, saved):
        """[(start, end, perms, offset, path)] of the guest (cached: the test programs map
        nothing after their start-up, and the fixtures stop after it)."""
        if self._maps is None:
            text = self.read_proc_file(tid, saved, "/proc/self/maps")
            maps = []
            for line in text.splitlines():
                f = line.split(None, 5)
                start, end = (int(x, 16) for x in f[0].split("-"))
                maps.append((start, end, f[1], int(f[2], 16), f[5] if len(f) > 5 else ""))
            self._maps = maps
            for start, end, perms, off, path in maps:
                if "x" in perms and os.path.basename(path).startswith("libc.so"):
                    with open(path, "rb") as lib:
                        lib.seek(off)
                        data = lib.read(end - start)
                    o = data.find(struct.pack(">I", FLUSHW))
                    while o >= 0 and o % 4:
                        o = data.find(struct.pack(">I", FLUSHW), o + 1)
                    if o >= 0:
                        self.flushw = start + o
            if self.flushw is None or not self._harmless_next(self.flushw):
                raise InferiorError("no flushw instruction in the C library's text")
        return self._maps

    def unbias(self, sp):
        return sp + BIAS if self.bits == 64 and sp & 1 else sp

    def read_word(self, addr):
        w = 8 if self.bits == 64 else 4
        return struct.unpack(">Q" if w == 8 else ">I", self.rsp.read_mem(addr, w))[0]

    def flush_windows(self, tid):
        """Spills every window of the stopped thread tid to its save area, then fixes up
        the signal frames on its stack (see the module comment)."""
        saved = self.regs(tid)
        self.maps(tid, saved)
        self._run_at(tid, saved, self.flushw)
        self._restore(saved)
        self.rsp.write_mem(self.unbias(saved.sp()), saved.window())
        self._fix_signal_frames(saved)
        return saved

    def _fix_signal_frames(self, regs):
        w = 8 if self.bits == 64 else 4
        sp = regs.sp()
        for _ in range(256):
            area = self.unbias(sp)
            try:
                fp = self.read_word(area + 14 * w)
                i7 = self.read_word(area + 15 * w)
                stub = struct.unpack(">I", self.rsp.read_mem(i7 + 8, 4))[0] if i7 else 0
            except RspError:
                return
            if stub == MOV_101_G1 and fp:
                # struct rt_signal_frame (arch/sparc/kernel/signal_64.c, signal32.c): the
                # window (struct sparc_stackf: 192 / 96 bytes), siginfo (128), pt_regs
                # (u_regs[16] first on sparc64; psr, pc, npc, y then u_regs on 32-bit).
                sf = self.unbias(fp)
                uregs = sf + 192 + 128 if self.bits == 64 else sf + 96 + 128 + 16
                isp = self.read_word(uregs + 14 * w)
                self.rsp.write_mem(self.unbias(isp), self.rsp.read_mem(sf, 16 * w))
            if not fp or fp == sp:
                return
            sp = fp

    def write_thread_window(self, tid):
        regs = self.regs(tid)
        self.rsp.write_mem(self.unbias(regs.sp()), regs.window())
        return regs

    # --- the core ---------------------------------------------------------------------
    def dump(self, path, signal, code, addr=0, exe_name=None, max_anon=1 << 20,
             host_paths=False):
        """Writes the core of the current stop to path.  signal/code/addr: the siginfo of
        the stopped thread (SIGTRAP/TRAP_BRKPT/pc at a breakpoint).  exe_name: the name the
        core records for the executable in NT_FILE (default: its path).  The C library's
        files are recorded as the target sees them (/lib64/..., found with --sysroot), or
        with host_paths as they are on this machine."""
        lay = elfcore.Layout(self.bits)
        stopped = self.stop_thread()
        tids = [stopped] + sorted(t for t in self.rsp.threads() if t != stopped)
        regs = {stopped: self.flush_windows(stopped)}
        for t in tids[1:]:
            regs[t] = self.write_thread_window(t)
        self.rsp.select_thread(stopped)
        maps = self._maps
        with open("/proc/%d/stat" % self.pid) as f:
            stat = f.read().rsplit(")", 1)[1].split()
        ppid, pgrp, sid = int(stat[1]), int(stat[2]), int(stat[3])
        notes = b""
        for i, t in enumerate(tids):
            sig = signal if t == stopped else 0
            notes += elfcore.note(elfcore.NT_PRSTATUS, "CORE", elfcore.prstatus(
                lay, t, sig, code if sig else 0, ppid, pgrp, sid, regs[t].gregs()))
            if i == 0:
                notes += elfcore.note(elfcore.NT_PRPSINFO, "CORE", elfcore.prpsinfo(
                    lay, self.pid, ppid, pgrp, sid, os.getuid(), os.getgid(),
                    os.path.basename(self.argv[0]), " ".join(
                        [exe_name or self.argv[0]] + self.argv[1:])))
                notes += elfcore.note(elfcore.NT_SIGINFO, "CORE", elfcore.siginfo(
                    lay, signal, code, addr, self.pid, os.getuid()))
                notes += elfcore.note(elfcore.NT_AUXV, "CORE", self.auxv)
                files = [(s, e, o, p if host_paths else self._target_path(p, exe_name))
                         for s, e, _, o, p in maps if p and not p.startswith("[")]
                notes += elfcore.note(elfcore.NT_FILE, "CORE", elfcore.file_note(lay, files))
            notes += elfcore.note(elfcore.NT_PRFPREG, "CORE", regs[t].fpregs(lay))
        sps = [self.unbias(r.sp()) for r in regs.values()]
        segs = []
        for start, end, perms, off, p in maps:
            flags = (elfcore.PF_R if "r" in perms else 0) | \
                    (elfcore.PF_W if "w" in perms else 0) | (elfcore.PF_X if "x" in perms else 0)
            anon = not p or p.startswith("[")
            data_from = None
            if "r" not in perms:
                pass
            elif "w" in perms or anon or (off and "x" not in perms):
                data_from = start
                low = [sp for sp in sps if start <= sp < end]
                if low:
                    data_from = max(start, (min(low) & ~(elfcore.PAGE_SIZE - 1)))
                elif end - start > max_anon:
                    data_from = None
            elif off == 0:
                head = self.rsp.read_mem(start, 4)
                if head == b"\x7fELF":          # the ELF header page, for the build-id
                    n = min(end - start, elfcore.PAGE_SIZE)
                    segs.append((start, n, flags, self.rsp.read_mem(start, n)))
                    if end > start + n:
                        segs.append((start + n, end - start - n, flags, b""))
                    continue
            if data_from is None:
                segs.append((start, end - start, flags, b""))
                continue
            if data_from > start:
                segs.append((start, data_from - start, flags, b""))
            segs.append((data_from, end - data_from, flags,
                         self.rsp.read_mem(data_from, end - data_from)))
        elfcore.write_core(path, lay, notes, segs)

    def _target_path(self, path, exe_name):
        if path == self.prog or os.path.realpath(path) == os.path.realpath(self.prog):
            return exe_name or path
        real = os.path.realpath(path)
        if real.startswith(SYSROOT + "/"):
            return real[len(SYSROOT):]
        return path


#!/usr/bin/env python3
"""mutate_cores.py: a mutation campaign over real core files, outside libFuzzer.

  mutate_cores.py [-n RUNS] [-j JOBS] [-s SEED] [-t SECONDS] [-o DIR] CORESTACK CORE...

Each run takes one CORE (ELF64, either byte order), applies one to three structured
mutations (note headers: n_namesz, n_descsz, n_type; PT_LOAD and PT_NOTE p_offset, p_filesz,
p_memsz, p_vaddr; NT_FILE count, page size, entries and names; NT_PRSTATUS registers;
NT_AUXV entries; random bytes; truncation) and runs CORESTACK on it in one mode (text,
--json, --signature, or -i with bt, info sharedlibrary, frame 1, info frame, disassemble,
thread apply all bt) under a timeout.  A run is a finding when it dies by a signal, prints
an AddressSanitizer/UndefinedBehaviorSanitizer report, exits other than 0, 1 or 2, times out,
or peaks above 1 GiB resident (ru_maxrss of the run).  Findings are kept in DIR (default
./mutate-findings) as NNNN.core with NNNN.txt (mutations, command, stderr tail).  Prints a
count of each kind at the end; exit status 1 when anything was found.
"""
import argparse, os, random, resource, signal, struct, subprocess, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor

PT_LOAD, PT_NOTE = 1, 4
NT_PRSTATUS, NT_AUXV, NT_FILE = 1, 6, 0x46494C45
INTERESTING32 = [0, 1, 3, 4, 5, 8, 12, 16, 21, 24, 0x7f, 0x80, 0xff, 0x100, 0xfff, 0x1000,
                 0x7fffffff, 0x80000000, 0xfffffffc, 0xffffffff]
INTERESTING64 = INTERESTING32 + [1 << 32, (1 << 63) - 1, 1 << 63, (1 << 64) - 1, (1 << 64) - 4096,
                                 1 << 60, 1 << 47]
SHELL = b"bt\ninfo sharedlibrary\nframe 1\ninfo frame\ndisassemble\nthread apply all bt\n"
RSS_LIMIT_KB = 1 << 20


class Core:
    def __init__(self, d):
        self.d = d
        self.en = ">" if d[5] == 2 else "<"
        self.phoff, = struct.unpack_from(self.en + "Q", d, 32)
        self.phentsize, self.phnum = struct.unpack_from(self.en + "HH", d, 54)
        self.phdrs = []     # (file offset of the header, type, offset, vaddr, filesz, memsz)
        for i in range(self.phnum):
            at = self.phoff + i * self.phentsize
            if at + 56 > len(d):
                break
            t, _, off, va, _, fsz, msz, _ = struct.unpack_from(self.en + "IIQQQQQQ", d, at)
            self.phdrs.append((at, t, off, va, fsz, msz))
        self.notes = []     # (header offset, namesz, descsz, type, desc offset)
        for at, t, off, va, fsz, msz in self.phdrs:
            p = off
            while t == PT_NOTE and p + 12 <= min(off + fsz, len(d)):
                nsz, dsz, nt = struct.unpack_from(self.en + "III", d, p)
                desc = p + 12 + ((nsz + 3) & ~3)
                self.notes.append((p, nsz, dsz, nt, desc))
                p = desc + ((dsz + 3) & ~3)

    def u32(self, at, v):
        if 0 <= at <= len(self.d) - 4:
            struct.pack_into(self.en + "I", self.d, at, v & 0xffffffff)

    def u64(self, at, v):
        if 0 <= at <= len(self.d) - 8:
            struct.pack_into(self.en + "Q", self.d, at, v & ((1 << 64) - 1))

    def get64(self, at):
        return struct.unpack_from(self.en + "Q", self.d, at)[0] if at <= len(self.d) - 8 else 0


def m_note_header(c, r):
    if not c.notes:
        return "no notes"
    at, nsz, dsz, nt, desc = r.choice(c.notes)
    field = r.choice([0, 4, 8])
    v = r.choice(INTERESTING32 + [nsz + r.randint(-8, 32), dsz + r.randint(-64, 64)])
    c.u32(at + field, v)
    return "note@%d %s=%#x" % (at, ["namesz", "descsz", "type"][field // 4], v & 0xffffffff)


def m_phdr(c, r):
    if not c.phdrs:
        return "no phdrs"
    at, t, off, va, fsz, msz = r.choice(c.phdrs)
    field = r.choice([8, 16, 32, 40])
    base = {8: off, 16: va, 32: fsz, 40: msz}[field]
    v = r.choice(INTERESTING64 + [base + r.choice([-4096, -1, 1, 4096, 1 << 20]), base * 2])
    c.u64(at + field, v)
    return "phdr type %d @%d %s=%#x" % (t, at, {8: "offset", 16: "vaddr", 32: "filesz", 40: "memsz"}[field],
                                         v & ((1 << 64) - 1))


def m_ntfile(c, r):
    ns = [n for n in c.notes if n[3] == NT_FILE]
    if not ns:
        return "no NT_FILE"
    at, nsz, dsz, nt, desc = ns[0]
    count = c.get64(desc)
    k = r.randint(0, 5)
    if k == 0:
        v = r.choice(INTERESTING64 + [count + 1, count - 1, count * 2])
        c.u64(desc, v)
        return "NT_FILE count=%#x" % (v & ((1 << 64) - 1))
    if k == 1:
        v = r.choice(INTERESTING64)
        c.u64(desc + 8, v)
        return "NT_FILE page_size=%#x" % (v & ((1 << 64) - 1))
    if k in (2, 3) and count and count < 100000:
        i = r.randrange(count)
        f = r.choice([0, 8, 16])
        v = r.choice(INTERESTING64 + [c.get64(desc + 16 + 24 * i + f) + r.choice([-4096, 4096, 1 << 30])])
        c.u64(desc + 16 + 24 * i + f, v)
        return "NT_FILE entry %d field %d=%#x" % (i, f, v & ((1 << 64) - 1))
    # a byte of the names: NULs removed or added, control characters
    names = desc + 16 + 24 * min(count, 100000)
    end = min(desc + dsz, len(c.d))
    if names >= end:
        return "NT_FILE names empty"
    p = r.randrange(names, end)
    v = r.choice([0, 0x2f, 0x0a, 0x1b, 0x2e, 0x41, 0xff])
    c.d[p] = v
    return "NT_FILE name byte @%d=%#x" % (p, v)


def m_regs(c, r):
    ns = [n for n in c.notes if n[3] == NT_PRSTATUS]
    if not ns:
        return "no NT_PRSTATUS"
    at, nsz, dsz, nt, desc = r.choice(ns)
    if c.d[18:20] in (b"\x3e\x00",):                  # EM_X86_64: rbp, rip, rsp in pr_reg
        slot = r.choice([4, 16, 19])
        word = desc + 112 + 8 * slot
    else:                                             # elsewhere: any word of the registers
        word = desc + r.randrange(0, max(8, dsz - 8)) // 8 * 8
    loads = [p for p in c.phdrs if p[1] == PT_LOAD]
    cands = INTERESTING64 + [c.get64(word) + r.choice([-8, 8, -4096, 1])]
    if loads:
        l = r.choice(loads)
        cands += [l[3], l[3] + l[5] - 1, l[3] + l[5] - 8, l[3] + r.randrange(max(1, l[5]))]
    v = r.choice(cands)
    c.u64(word, v)
    return "NT_PRSTATUS@%d word %d=%#x" % (at, word - desc, v & ((1 << 64) - 1))


def m_auxv(c, r):
    ns = [n for n in c.notes if n[3] == NT_AUXV]
    if not ns:
        return "no NT_AUXV"
    at, nsz, dsz, nt, desc = ns[0]
    if dsz < 16:
        return "NT_AUXV short"
    i = r.randrange(dsz // 16)
    v = r.choice(INTERESTING64)
    c.u64(desc + 16 * i + r.choice([0, 8]), v)
    return "NT_AUXV entry %d=%#x" % (i, v & ((1 << 64) - 1))


def m_bytes(c, r):
    lim = min(len(c.d), 1 << 16) if r.random() < 0.7 else len(c.d)
    out = []
    for _ in range(r.randint(1, 8)):
        p = r.randrange(lim)
        c.d[p] = r.randrange(256)
        out.append(p)
    return "bytes at %s" % out


def m_truncate(c, r):
    n = r.randrange(len(c.d))
    del c.d[n:]
    return "truncated to %d" % n


MUTATIONS = [m_note_header] * 3 + [m_phdr] * 3 + [m_ntfile] * 3 + [m_regs] * 2 + [m_auxv, m_bytes, m_truncate]
MODES = [[], ["--json"], ["--signature"], ["-i"]]


class Popen(subprocess.Popen):
    """Popen that keeps the child's peak resident size (ru_maxrss, KiB) from wait4."""

    def _try_wait(self, wait_flags):
        try:
            pid, sts, ru = os.wait4(self.pid, wait_flags)
        except ChildProcessError:
            return self.pid, 0
        if pid:
            self.maxrss_kb = ru.ru_maxrss
        return pid, sts


def one(args, cores, i, tmp):
    r = random.Random(args.seed * 1000003 + i)
    src = r.choice(sorted(cores))
    d = bytearray(cores[src])
    what = []
    for _ in range(r.randint(1, 3)):
        try:
            c = Core(d)
            what.append(r.choice(MUTATIONS)(c, r))
        except (struct.error, ValueError, IndexError) as e:
            what.append("(no mutation: %s)" % e)
            break
        d = c.d
    path = os.path.join(tmp, "m%d.core" % i)
    with open(path, "wb") as f:
        f.write(d)
    mode = r.choice(MODES)
    cmd = [args.corestack] + mode + [path]
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:" + os.environ.get("ASAN_OPTIONS", ""),
               UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1", CORESTACK_HISTORY="")
    t0 = time.time()
    p = Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                         start_new_session=True)
    try:
        _, err = p.communicate(SHELL if mode == ["-i"] else b"", timeout=args.timeout)
        hung = False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        _, err = p.communicate()
        hung = True
    rc = p.returncode
    kind = None
    text = err.decode(errors="replace")
    if hung:
        kind = "hang"
    elif "ERROR: AddressSanitizer" in text or "runtime error:" in text or "ERROR: LeakSanitizer" in text:
        kind = "sanitizer"
    elif rc < 0:
        kind = "signal %d" % -rc
    elif rc not in (0, 1, 2):
        kind = "exit %d" % rc
    elif args.rss and getattr(p, "maxrss_kb", 0) > RSS_LIMIT_KB:
        kind = "memory"
    if kind:
        base = os.path.join(args.out, "%05d" % i)
        os.makedirs(args.out, exist_ok=True)
        os.replace(path, base + ".core")
        with open(base + ".txt", "w") as f:
            f.write("kind: %s\nsource: %s\nmutations: %s\ncommand: %s\nseconds: %.1f\n\n%s\n"
                    % (kind, src, "; ".join(what), " ".join(cmd[:-1] + [base + ".core"]), time.time() - t0,
                       text[-4000:]))
    else:
        os.unlink(path)
    return kind


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=2000, dest="runs")
    ap.add_argument("-j", type=int, default=2, dest="jobs")
    ap.add_argument("-s", type=int, default=1, dest="seed")
    ap.add_argument("-t", type=float, default=20, dest="timeout")
    ap.add_argument("-o", default="mutate-findings", dest="out")
    ap.add_argument("--no-rss", action="store_false", dest="rss")
    ap.add_argument("corestack")
    ap.add_argument("cores", nargs="+")
    args = ap.parse_args()
    cores = {}
    for c in args.cores:
        with open(c, "rb") as f:
            cores[c] = f.read()
    counts = {}
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as ex:
        for kind in ex.map(lambda i: one(args, cores, i, tmp), range(args.runs)):
            counts[kind or "ok"] = counts.get(kind or "ok", 0) + 1
    print("%d runs: %s" % (args.runs, ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    return 0 if set(counts) <= {"ok"} else 1


if __name__ == "__main__":
    sys.exit(main())

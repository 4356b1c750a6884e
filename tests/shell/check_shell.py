#!/usr/bin/env python3
"""check_shell.py: the interactive shell (corestack -i) driven by scripted input.

  check_shell.py CORESTACK [--segv CORE EXE] [--threads CORE] [--tail CORE]
                           [--leaf CORE]

Each command's output is compared with facts found independently of the shell:
`corestack --json` and the CLI's text for the same core, the core's own bytes
(PT_LOAD segments and NT_PRSTATUS, parsed here), objdump's disassembly of the
executable.  Prints PASS name / FAIL name: reason / SKIP name: reason lines;
always exits 0.
"""
import json, re, struct, subprocess, sys

CS = None
USER_REGS = ["r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8",
             "rax", "rcx", "rdx", "rsi", "rdi", "orig_rax", "rip", "cs", "eflags",
             "rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs", "gs"]


def report(ok, name, why=""):
    print("PASS %s" % name if ok else "FAIL %s: %s" % (name, why))


class Core:
    """The PT_LOAD segments and NT_PRSTATUS notes of an x86-64 ELF core."""

    def __init__(self, path):
        self.data = open(path, "rb").read()
        d = self.data
        phoff, = struct.unpack_from("<Q", d, 32)
        phentsize, phnum = struct.unpack_from("<HH", d, 54)
        self.loads, self.prstatus = [], {}
        for i in range(phnum):
            p_type, _, off, vaddr, _, filesz, _, _ = struct.unpack_from("<IIQQQQQQ", d, phoff + i * phentsize)
            if p_type == 1:
                self.loads.append((vaddr, off, filesz))
            elif p_type == 4:
                self._notes(off, filesz)

    def _notes(self, off, size):
        end = off + size
        while off + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from("<III", self.data, off)
            desc = off + 12 + (namesz + 3) // 4 * 4
            if ntype == 1:          # NT_PRSTATUS: pr_pid at 32, pr_reg at 112 (x86-64 elf_prstatus)
                pid, = struct.unpack_from("<i", self.data, desc + 32)
                regs = struct.unpack_from("<27Q", self.data, desc + 112)
                self.prstatus[pid] = dict(zip(USER_REGS, regs))
            off = desc + (descsz + 3) // 4 * 4

    def read(self, addr, n):
        for vaddr, off, filesz in self.loads:
            if vaddr <= addr and addr + n <= vaddr + filesz:
                return self.data[off + addr - vaddr: off + addr - vaddr + n]
        return None


def run(args, inp=None):
    return subprocess.run(args, input=inp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=120)


JSON_CHECKED = set()


def json_doc(core_path):
    """`corestack --json CORE`, the reference of the shell's output.  The shell shares
    the unwinder with the CLI, so agreeing with it proves little unless the reference is
    right: the first time for each core, corestack must exit 0 with every thread's walk
    complete (shell-json-complete-CORE)."""
    r = subprocess.run([CS, "--json", core_path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=120)
    doc = json.loads(r.stdout)
    if core_path not in JSON_CHECKED:
        JSON_CHECKED.add(core_path)
        stopped = ["%s: %s" % (t["tid"], t["stop_reason"]) for t in doc["threads"]
                   if t["complete"] is not True]
        report(r.returncode == 0 and not stopped,
               "shell-json-complete-" + core_path.rsplit("/", 1)[-1].replace(".core", ""),
               "corestack --json exited %d; threads stopped early: %s; %s" %
               (r.returncode, stopped, r.stderr[:200]))
    return doc


def shell(core, cmds):
    """(banner, [output of each command], exit status): stdout and stderr together,
    split by `echo` markers between the commands."""
    script = "echo @@@\\n\n" + "".join(c + "\necho @@@\\n\n" for c in cmds)
    r = run([CS, "-i", core], script)
    parts = r.stdout.split("@@@\n")
    outs = parts[1:len(cmds) + 1]
    outs += [""] * (len(cmds) - len(outs))
    return parts[0], outs, r.returncode


FRAME_RE = re.compile(r"^#(\d+)\s+(?:0x([0-9a-f]+) in )?(\S+) \(\)", re.M)


def frames_of(text):
    """[(number, pc or None, function)] from bt-format lines."""
    return [(int(n), int(pc, 16) if pc else None, f) for n, pc, f in FRAME_RE.findall(text)]


def json_frames(thread):
    out = []
    for f in thread["frames"]:
        name = f["function"]
        if name is None and f["module"]:
            name = "%s+%s" % (f["module"].rsplit("/", 1)[-1], f["module_offset"])
        out.append((f["index"], None if f["inlined"] else int(f["pc"], 16), name or "??"))
    return out


def objdump_func(exe, func):
    """[(address, raw bytes, mnemonic)] of FUNC in EXE (link-time addresses)."""
    out = subprocess.run(["objdump", "-d", "--disassemble=" + func, exe],
                         capture_output=True, text=True).stdout
    insns, inside = [], False
    for line in out.splitlines():
        if re.match(r"^[0-9a-f]+ <%s>:$" % re.escape(func), line):
            inside = True
            continue
        m = re.match(r"^\s*([0-9a-f]+):\t([0-9a-f ]+)\t(\S+)", line) if inside else None
        if m:
            insns.append((int(m.group(1), 16), bytes.fromhex(m.group(2).replace(" ", "")), m.group(3)))
        elif inside and insns and not line.strip():
            break
    return insns


def check_segv(core_path, exe):
    core = Core(core_path)
    doc = json_doc(core_path)
    t0 = doc["threads"][0]
    jf = json_frames(t0)
    cli = run([CS, core_path]).stdout
    cliv = run([CS, "-v", core_path]).stdout

    def block(text):
        i = text.find("\nThread ")
        j = text.find("\nThread ", i + 1)
        return text[i:] if j < 0 else text[i:j]

    banner, o, rc = shell(core_path, ["bt", "bt -v", "bt 2", "fpbt 2", "where 2", "bt -2"])
    report(rc == 0, "shell-exit-status", "exit %d" % rc)
    report(FRAME_RE.search(banner) and frames_of(banner)[0] == jf[0], "shell-banner-frame0",
           repr(banner[-200:]))
    report(o[0] == block(cli), "shell-bt-equals-cli", "shell:\n%s\ncli:\n%s" % (o[0], block(cli)))
    report(frames_of(o[0]) == jf, "shell-bt-frames-json", "%s != %s" % (frames_of(o[0]), jf))
    report(o[1] == block(cliv), "shell-bt-verbose-equals-cli", "shell:\n%s" % o[1])
    report(frames_of(o[2]) == jf[:2] and "(More stack frames follow...)" in o[2],
           "shell-bt-limit", o[2])
    report(o[3] == o[2] and o[4] == o[2], "shell-fpbt-where-alias", o[3] + o[4])
    report(frames_of(o[5]) == jf[-2:], "shell-bt-outermost", o[5])

    # frame selection
    _, o, _ = shell(core_path, ["frame 1", "up", "down", "f 0", "down", "up 99", "frame", "frame 2"])
    report(frames_of(o[0]) == [jf[1]], "shell-frame-N", o[0])
    report(frames_of(o[1]) == [jf[2]], "shell-up", o[1])
    report(frames_of(o[2]) == [jf[1]], "shell-down", o[2])
    report(frames_of(o[3]) == [jf[0]], "shell-f-abbrev", o[3])
    report("Bottom (innermost) frame selected" in o[4], "shell-down-at-bottom", o[4])
    report("Initial frame selected" in o[5], "shell-up-past-top", o[5])
    report(frames_of(o[6]) == [jf[0]], "shell-frame-shows-selected", o[6])
    report(frames_of(o[7]) == [jf[2]], "shell-frame-2", o[7])

    # registers: frame 0 against NT_PRSTATUS read here
    regs = core.prstatus.get(t0["tid"])
    _, o, _ = shell(core_path, ["info registers", "i r", "i r rip rsp", "up", "info registers"])
    got = {m.group(1): int(m.group(2), 16) for m in re.finditer(r"^(\w+)\s+0x([0-9a-f]+)", o[0], re.M)}
    names = ["rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11",
             "r12", "r13", "r14", "r15", "rip"]
    bad = [n for n in names if regs is None or got.get(n) != regs[n]]
    report(not bad, "shell-info-registers-prstatus", "differ: %s" % bad)
    report(o[1] == o[0], "shell-i-r-abbrev", o[1])
    report(sorted(re.findall(r"^(\w+)\s", o[2], re.M)) == ["rip", "rsp"], "shell-info-registers-named", o[2])
    got1 = {m.group(1): m.group(2) for m in re.finditer(r"^(\w+)\s+(0x[0-9a-f]+|<not saved>)", o[4], re.M)}
    report(got1.get("rip") and int(got1["rip"], 16) == jf[1][1] and got1.get("rdx") == "<not saved>",
           "shell-info-registers-caller", o[4])

    # x: bytes read here from the core file
    rsp = regs["rsp"] if regs else 0
    raw = core.read(rsp, 16)
    _, o, _ = shell(core_path, ["x/4x $sp", "x/2g $sp", "x/4dw $rsp", "x/8xb main", "x/2xg $sp+8"])
    want = "0x%x:\t%s\n" % (rsp, "\t".join("0x%08x" % v for v in struct.unpack("<4I", raw))) if raw else None
    report(raw is not None and o[0] == want, "shell-x-4x-core-bytes", "%r != %r" % (o[0], want))
    want = "0x%x:\t%s\n" % (rsp, "\t".join("0x%016x" % v for v in struct.unpack("<2Q", raw))) if raw else None
    report(raw is not None and o[1] == want, "shell-x-2g", "%r != %r" % (o[1], want))
    want = "0x%x:\t%s\n" % (rsp, "\t".join("%d" % v for v in struct.unpack("<4i", raw))) if raw else None
    report(raw is not None and o[2] == want, "shell-x-4dw", "%r != %r" % (o[2], want))
    main_bytes = b"".join(b for _, b, _ in objdump_func(exe, "main"))[:8]
    m = re.match(r"^0x[0-9a-f]+ <main>:\t(.*)$", o[3])
    got = bytes(int(v, 16) for v in m.group(1).split("\t")) if m else b""
    report(len(main_bytes) == 8 and got == main_bytes, "shell-x-8xb-text-from-file",
           "%r vs objdump %r" % (o[3], main_bytes.hex()))
    raw2 = core.read(rsp + 8, 16)
    want = "0x%x:\t%s\n" % (rsp + 8, "\t".join("0x%016x" % v for v in struct.unpack("<2Q", raw2))) if raw2 else None
    report(raw2 is not None and o[4] == want, "shell-x-expression", "%r != %r" % (o[4], want))

    # x below the stack pointer, after the walk read its stack from there upwards: the
    # bytes of the page below it that the walk did not read come from the core too (the
    # first word of each 512 bytes that is not zero in the core, left by earlier calls)
    page, addrs = rsp & ~0xfff, []
    for a in range(page, rsp & ~0x1ff, 8):
        w = core.read(a, 16)
        if w and any(w[:8]) and (not addrs or addrs[-1] >> 9 != a >> 9):
            addrs.append(a)
    _, o, _ = shell(core_path, ["x/2xg 0x%x" % a for a in addrs] or ["x/2xg 0x%x" % page])
    bad = [a for a, got in zip(addrs, o) if got != "0x%x:\t%s\n" % (
        a, "\t".join("0x%016x" % v for v in struct.unpack("<2Q", core.read(a, 16))))]
    report(len(o) == max(len(addrs), 1) and not bad, "shell-x-below-sp",
           "rsp 0x%x, differ at %s" % (rsp, [hex(a) for a in bad]))

    # disassemble: instruction boundaries as objdump's, => at the frame's pc
    def dis_rows(text):
        return [(m.group(1) == "=>", int(m.group(2), 16), int(m.group(3)), m.group(4))
                for m in re.finditer(r"^(=>|  ) 0x([0-9a-f]+) <\+(\d+)>:\t(\S+)", text, re.M)]

    _, o, _ = shell(core_path, ["disassemble", "up", "disas", "disassemble main"])
    for name, out, func, pc in (("frame0", o[0], t0["frames"][0]["function"], jf[0][1]),
                                ("frame1", o[2], t0["frames"][1]["function"], jf[1][1])):
        ref = objdump_func(exe, func)
        rows = dis_rows(out)
        offs = [a - ref[0][0] for a, _, _ in ref] if ref else None
        marked = [addr for mark, addr, _, _ in rows if mark]
        ok = ("Dump of assembler code for function %s:" % func in out and offs and
              [off for _, _, off, _ in rows] == offs and marked == [pc] and
              rows[-1][3].startswith(ref[-1][2]))
        report(ok, "shell-disassemble-" + name, out[:400])
    report("function main:" in o[3] and dis_rows(o[3])[0][2] == 0, "shell-disassemble-symbol", o[3][:200])

    # info frame on frame 1: CFA, provenance, the caller's rip saved where the core says
    _, o, _ = shell(core_path, ["up", "info frame", "i f"])
    out = o[1]
    cfa = re.search(r"frame at 0x([0-9a-f]+):", out)
    found = re.search(r"^ found by: (\S+)", out, re.M)
    caller = out[out.find("caller's registers"):]
    rip = re.search(r"rip\s+0x([0-9a-f]+)\s+saved at 0x([0-9a-f]+) \(CFA-8\)", caller)
    ok = cfa and found and rip
    why = out
    if ok:
        cfa, val, at = int(cfa.group(1), 16), int(rip.group(1), 16), int(rip.group(2), 16)
        mem = core.read(at, 8)
        ok = (found.group(1) == t0["frames"][1]["found_by"] and val == jf[2][1] and at == cfa - 8
              and mem is not None and struct.unpack("<Q", mem)[0] == val
              and re.search(r"rsp\s+0x%016x\s+= the callee's CFA" % cfa, caller))
    report(ok, "shell-info-frame-cfa-provenance", why)
    report(o[2] == o[1], "shell-i-f-abbrev", o[2])

    # info sharedlibrary: every frame's module, its range holding the frame's pc
    _, o, _ = shell(core_path, ["info sharedlibrary"])
    rows = [(int(a, 16), int(b, 16), bid, path) for a, b, _, bid, path in
            re.findall(r"^0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+)\s+(\S+)\s+(\S+)$", o[0], re.M)]
    bad = [f["function"] for f in t0["frames"] if f["module"] and not any(
        p == f["module"] and lo <= int(f["pc"], 16) < hi and bid == f["build_id"] for lo, hi, bid, p in rows)]
    report(rows and not bad, "shell-info-sharedlibrary", "frames outside the listed modules: %s\n%s" % (bad, o[0]))

    # errors never end the shell; EOF and quit end it cleanly
    cmds = ["frobnicate", "d", "x/4x 0", "x/4q $sp", "x/4x nosuchsymbol", "frame 99", "thread 99",
            "disassemble 0x10", "down", "bt foo", "info bogus", "x/4x $rdx+", "echo alive"]
    _, o, rc = shell(core_path, cmds)
    expect = ['Undefined command: "frobnicate"', 'Ambiguous command "d"', "Cannot access memory at address 0x0",
              "Invalid format letter 'q'", 'No symbol "nosuchsymbol"', "No frame at level 99",
              "Invalid thread ID: 99", "No function contains specified address 0x10",
              "Bottom (innermost) frame selected", 'backtrace: "foo"', 'Undefined info command: "bogus"',
              "syntax error", "alive"]
    bad = [c for c, e, out in zip(cmds, expect, o) if e not in out]
    report(not bad and rc == 0, "shell-errors-keep-it-alive", "exit %d; wrong output for %s: %s" % (rc, bad, o))
    r = run([CS, "-i", core_path], "echo before\\n\nquit\necho after\\n\n")
    report(r.returncode == 0 and "before" in r.stdout and "after" not in r.stdout, "shell-quit", r.stdout)
    r = run([CS, "-i", core_path], "frame 1")            # no newline at the end, then EOF
    report(r.returncode == 0 and frames_of(r.stdout)[-1] == jf[1], "shell-eof-without-newline", r.stdout)
    _, o, _ = shell(core_path, ["help"])
    missing = [w for w in ("backtrace", "frame", "up", "down", "threads", "thread", "info frame",
                           "info registers", "info sharedlibrary", "x/", "disassemble", "quit") if w not in o[0]]
    report(not missing, "shell-help", "missing %s" % missing)
    r = run([CS, "-i", "/nonexistent/core"])
    report(r.returncode == 2 and "/nonexistent/core" in r.stdout and r.stdout.count("\n") == 1,
           "shell-bad-core", "exit %d: %s" % (r.returncode, r.stdout))
    r = run([CS, "-i", "-p", "1"])
    report(r.returncode == 64, "shell-usage", "exit %d" % r.returncode)


def check_threads(core_path):
    doc = json_doc(core_path)
    tids = [t["tid"] for t in doc["threads"]]
    _, o, rc = shell(core_path, ["threads", "thread 2", "bt", "info threads", "thread", "t 1", "bt"])
    rows = re.findall(r"^([* ]) (\d+)\s+(\d+)", o[0], re.M)
    ok = ([int(r[2]) for r in rows] == tids and [r[1] for r in rows] == [str(i + 1) for i in range(len(tids))]
          and rows[0][0] == "*" and len(tids) > 1)
    report(ok, "shell-threads", "%s vs %s" % (o[0], tids))
    first = [(frames_of(line[line.find("#"):]) or [None])[0] for line in o[0].splitlines()[1:]]
    report(first == [json_frames(t)[0] for t in doc["threads"]], "shell-threads-frame0", o[0])
    report(len(tids) > 1 and "[Switching to thread 2 (tid %d)]" % tids[1] in o[1], "shell-thread-N", o[1])
    report(len(tids) > 1 and frames_of(o[2]) == json_frames(doc["threads"][1]), "shell-thread-bt",
           "%s\n%s" % (o[2], json_frames(doc["threads"][1])))
    stars = re.findall(r"^\* (\d+)", o[3], re.M)
    report(stars == ["2"], "shell-info-threads-current", o[3])
    report("[Current thread is 2" in o[4], "shell-thread-current", o[4])
    report(frames_of(o[6]) == json_frames(doc["threads"][0]), "shell-thread-back", o[6])


def first_marked(core_path, marker, test):
    """The crashing thread's JSON frames and the index of the first frame with MARKER, or
    None after a failure of TEST."""
    fr = json_doc(core_path)["threads"][0]["frames"]
    marked = [f["index"] for f in fr if f["marker"] == marker]
    if not marked:
        report(False, test, "no %s in the JSON" % marker)
        return None
    return fr, marked[0]


def check_tail(core_path):
    found = first_marked(core_path, "lost tail call", "shell-info-frame-tail-call")
    if not found:
        return
    _, o, _ = shell(core_path, ["frame %d" % found[1], "info frame", "bt"])
    report("found by: tail-call" in o[1] and "marker: [lost tail call]" in o[1] and "no registers of its own" in o[1],
           "shell-info-frame-tail-call", o[1])
    report("[lost tail call]" in o[2], "shell-bt-marker", o[2])

    # signature: the same hash and frames as `corestack --signature`, with the same options
    for name, opts in (("shell-signature", []), ("shell-signature-skip", ["--skip", "leaf2"])):
        cli = run([CS] + opts + ["--signature", core_path]).stdout.strip()
        want = cli.split(": ", 1)[1] if ": " in cli else None
        r = run([CS] + opts + ["-i", core_path], "signature\n")
        got = r.stdout.splitlines()
        report(want is not None and want in got and "hop" in want and ("leaf2" in want) == (not opts),
               name, "cli %r, shell %r" % (cli, got))


def check_leaf(core_path):
    core = Core(core_path)
    found = first_marked(core_path, "recovered caller", "shell-info-frame-recovered")
    if not found:
        return
    fr, i = found
    rec = [i]
    _, o, _ = shell(core_path, ["frame %d" % i, "info frame"])
    out = o[1]
    mine = out[out.find("this frame's registers"):out.find("caller's registers")]
    rip = re.search(r"rip\s+0x([0-9a-f]+)\s+saved at 0x([0-9a-f]+) \(CFA-8\)", mine)
    mem = core.read(int(rip.group(2), 16), 8) if rip else None
    ok = ("found by: %s" % fr[rec[0]]["found_by"] in out and "marker: [recovered caller]" in out and rip
          and int(rip.group(1), 16) == int(fr[rec[0]]["pc"], 16)
          and mem is not None and struct.unpack("<Q", mem)[0] == int(rip.group(1), 16))
    report(ok, "shell-info-frame-recovered", out)


def main():
    global CS
    a = sys.argv[1:]
    CS = a.pop(0)
    while a:
        opt = a.pop(0)
        try:
            if opt == "--segv":
                check_segv(a.pop(0), a.pop(0))
            elif opt == "--threads":
                check_threads(a.pop(0))
            elif opt == "--tail":
                check_tail(a.pop(0))
            elif opt == "--leaf":
                check_leaf(a.pop(0))
        except Exception as e:          # a crash of the checker is a failure, not a pass
            report(False, "shell-checker" + opt, "%s: %s" % (type(e).__name__, e))


if __name__ == "__main__":
    main()

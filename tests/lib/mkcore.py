#!/usr/bin/env python3
"""mkcore.py: make a core file from a test program.

  mkcore.py crash OUT PROG [ARGS...]
      Run PROG (expected to die of a signal) with an unlimited core size in a
      fresh temporary directory; the kernel writes ./core there (core_pattern
      "core").  If core_pattern is a pipe, or no core appears, run PROG under
      gdb instead and save the core with gcore at the fatal signal.
  mkcore.py stop OUT PROG FUNC WHERE [ARGS...]
      Run PROG under gdb, stop at a precise instruction of FUNC and save a
      core with gcore.  WHERE is one of
        entry      FUNC's first instruction
        afterpush  the instruction after "push %rbp" (before "mov %rsp,%rbp")
        body       the instruction after "mov %rsp,%rbp", or for a frameless
                   function its second instruction
        ret        FUNC's first ret
        +N         FUNC+N
      The address comes from objdump -d of PROG; it is relocated with PROG's
      entry point as gdb reports it, so PIE works and gdb never has to look
      FUNC up by name (libc's debug info has symbols such as "leaf" too).
Every core is checked with readelf -n for NT_PRSTATUS and NT_FILE.
Exit status 0 on success; on failure a one-line reason on stderr, status 1.
"""
import os, re, resource, shutil, struct, subprocess, sys, tempfile

TIMEOUT = 60


def fail(msg):
    sys.stderr.write("mkcore: %s\n" % msg)
    sys.exit(1)


def disassemble(prog, func):
    """[(address, instruction text)] of FUNC in PROG, from objdump."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn",
                          "--disassemble=" + func, prog],
                         capture_output=True, text=True).stdout
    insns, inside = [], False
    for line in out.splitlines():
        if re.match(r"^[0-9a-f]+ <%s>:$" % re.escape(func), line):
            inside = True
        elif inside:
            m = re.match(r"^\s*([0-9a-f]+):\s+(.*)$", line)
            if not m:
                if insns:
                    break
                continue
            insns.append((int(m.group(1), 16), " ".join(m.group(2).split())))
    if not insns:
        fail("no function %s in %s" % (func, prog))
    return insns


def stop_address(prog, func, where):
    insns = disassemble(prog, func)
    text = [t for _, t in insns]
    if where == "entry":
        return insns[0][0]
    if where.startswith("+"):
        return insns[0][0] + int(where[1:], 0)
    if where == "ret":
        for addr, t in insns:
            if t == "ret":
                return addr
        fail("%s has no ret" % func)
    setup = [i for i, t in enumerate(text) if t == "mov %rsp,%rbp"]
    if where == "afterpush":
        if text[0] != "push %rbp" or not setup or setup[0] < 2:
            fail("%s does not push %%rbp before setting up its frame" % func)
        return insns[1][0]
    if where == "body":
        i = setup[0] + 1 if setup else 1
        if i >= len(insns) or text[i] in ("ret", "pop %rbp", "leave"):
            fail("%s has no body instruction" % func)
        return insns[i][0]
    fail("bad WHERE %r" % where)


def elf_entry(prog):
    with open(prog, "rb") as f:
        hdr = f.read(32)
    return struct.unpack_from("<Q", hdr, 24)[0]


def check_core(out):
    notes = subprocess.run(["readelf", "-n", out], capture_output=True,
                           text=True).stdout
    for note in ("NT_PRSTATUS", "NT_FILE"):
        if note not in notes:
            fail("%s has no %s note" % (out, note))


def gdb(args, script, cwd):
    with open(os.path.join(cwd, "cmds.gdb"), "w") as f:
        f.write(script)
    return subprocess.run(["gdb", "-nx", "-batch", "-x",
                           os.path.join(cwd, "cmds.gdb"), "--args"] + args,
                          cwd=cwd, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=TIMEOUT)


def crash(out, args, tmp):
    pattern = open("/proc/sys/kernel/core_pattern").read().strip()
    if not pattern.startswith("|"):
        unlimited = lambda: resource.setrlimit(resource.RLIMIT_CORE, (
            resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        p = subprocess.run(args, cwd=tmp, preexec_fn=unlimited,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           stdin=subprocess.DEVNULL, timeout=TIMEOUT)
        if p.returncode >= 0:
            fail("%s did not die of a signal (status %d)" % (args[0], p.returncode))
        cores = [n for n in os.listdir(tmp) if n == "core" or n.startswith("core.")]
        if cores:
            shutil.move(os.path.join(tmp, cores[0]), out)
            return
    r = gdb(args, "run\ngcore %s\nkill\n" % out, tmp)
    if not os.path.exists(out):
        fail("gdb wrote no core: %s" % r.stdout[-300:])


def stop(out, args, func, where, tmp):
    prog = args[0]
    addr = stop_address(prog, func, where)
    script = """starti
python
import re
e = int(re.search(r"Entry point: (0x[0-9a-f]+)",
                  gdb.execute("info files", to_string=True)).group(1), 16)
gdb.execute("break *%%d" %% (e - %d + %d))
end
continue
python print("MKCORE_PC %%#x %%#x" %% (int(gdb.parse_and_eval("$pc")), e - %d + %d))
gcore %s
kill
""" % (elf_entry(prog), addr, elf_entry(prog), addr, out)
    r = gdb(args, script, tmp)
    m = re.search(r"MKCORE_PC (0x[0-9a-f]+) (0x[0-9a-f]+)", r.stdout)
    if not m or m.group(1) != m.group(2):
        fail("gdb did not stop at %s %s: %s" % (func, where,
             (r.stdout + r.stderr)[-300:]))
    if not os.path.exists(out):
        fail("gdb wrote no core")


def main():
    a = sys.argv[1:]
    if len(a) < 3 or a[0] not in ("crash", "stop") or (a[0] == "stop" and len(a) < 5):
        fail("usage: mkcore.py crash OUT PROG [ARGS...] | "
             "stop OUT PROG FUNC WHERE [ARGS...]")
    out = os.path.abspath(a[1])
    prog = os.path.abspath(a[2])
    if os.path.exists(out):
        os.unlink(out)
    tmp = tempfile.mkdtemp(prefix="mkcore.")
    try:
        if a[0] == "crash":
            crash(out, [prog] + a[3:], tmp)
        else:
            stop(out, [prog] + a[5:], a[3], a[4], tmp)
    except subprocess.TimeoutExpired:
        fail("timed out after %ds" % TIMEOUT)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    check_core(out)


if __name__ == "__main__":
    main()

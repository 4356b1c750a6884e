#!/usr/bin/env python3
"""check_gdb.py: compare what gdb printed with the corestack plugin against corestack --json.

  check_gdb.py fpbt GDBOUT JSON
      Every `fpbt` block in GDBOUT (between "@@fpbt" and "@@end" lines; a block under a
      `thread apply` header is matched to the JSON thread of its LWP, else the first thread)
      must list the JSON thread's frames: same count, pcs, functions and markers.  The
      plugin shares the unwinder with the CLI, so the JSON thread's walk must be complete
      ("complete": true): agreeing with a walk that stopped early proves nothing.
  check_gdb.py bt GDBOUT JSON
      The `bt` block (between "@@bt" and "@@end"), with frame 0's pc from a "@@pc 0x..."
      line, against the JSON's first thread without its lost tail calls (gdb's own frames):
      prints the number of leading frames whose pcs agree, then "complete" when gdb's
      frames are all right.
Exit 0 when the check holds; otherwise one line saying where it differs, exit 1.
"""
import json, re, sys

FRAME = re.compile(r"^#(\d+)\s+(?:(0x[0-9a-f]+) in )?(\S+) \(")


def blocks(text, tag):
    """[(lwp or None, [lines])] of the blocks opened by @@TAG."""
    out, cur, lwp = [], None, None
    for line in text.splitlines():
        m = re.search(r"\(LWP (\d+)\)", line)
        if m and line.startswith("Thread "):
            lwp = int(m.group(1))
        # gdb's warnings on stderr may follow the marker on the same line
        if line.startswith("@@" + tag):
            cur = []
        elif line.strip() == "@@end" and cur is not None:
            out.append((lwp, cur))
            cur = None
        elif cur is not None:
            cur.append(line)
    return out


def thread(doc, lwp):
    for t in doc["threads"]:
        if lwp is None or t["tid"] == lwp:
            return t
    sys.exit("no thread %s in the corestack output" % lwp)


def check_fpbt(text, doc):
    bs = blocks(text, "fpbt")
    if not bs:
        sys.exit("no fpbt output")
    for lwp, lines in bs:
        t = thread(doc, lwp)
        if t.get("complete") is not True:
            sys.exit("thread %s: corestack's walk stopped early (%s)" % (t["tid"], t.get("stop_reason")))
        want = t["frames"]
        got = [l for l in lines if l.startswith("#")]
        if len(got) != len(want):
            sys.exit("thread %s: fpbt printed %d frames, corestack %d:\n%s" %
                     (lwp, len(got), len(want), "\n".join(lines)))
        for g, w in zip(got, want):
            m = FRAME.match(g)
            if not m:
                sys.exit("not a frame line: %r" % g)
            if not w["inlined"] and int(m.group(2) or "0", 16) != int(w["pc"], 16):
                sys.exit("frame %s: pc %s, corestack %s" % (m.group(1), m.group(2), w["pc"]))
            if w["function"] and m.group(3) != w["function"]:
                sys.exit("frame %s: %s, corestack %s" % (m.group(1), m.group(3), w["function"]))
            mark = re.search(r"\[(recovered caller|lost tail call)\]$", g)
            if (mark.group(1) if mark else None) != w["marker"]:
                sys.exit("frame %s: marker %s, corestack %s" % (m.group(1),
                         mark and mark.group(1), w["marker"]))
    print("%d fpbt block(s) agree" % len(bs))


def check_bt(text, doc):
    bs = blocks(text, "bt")
    pc = re.search(r"@@pc (0x[0-9a-f]+)", text)
    if not bs or not pc:
        sys.exit("no bt output")
    pcs = []
    for line in bs[0][1]:
        m = FRAME.match(line)
        if m:
            p = m.group(2) or (pc.group(1) if m.group(1) == "0" else None)
            if p and (not pcs or pcs[-1] != p):
                pcs.append(p)
    want = []
    for f in thread(doc, None)["frames"]:
        if f["marker"] != "lost tail call" and (not want or want[-1] != f["pc"]):
            want.append(f["pc"])
    n = 0
    while n < len(pcs) and n < len(want) and int(pcs[n], 16) == int(want[n], 16):
        n += 1
    print(n, "complete" if n == len(pcs) else "wrong at frame %d: %s" % (n, pcs[n]))


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("fpbt", "bt"):
        sys.exit(__doc__)
    text = open(sys.argv[2], errors="replace").read()
    doc = json.load(open(sys.argv[3]))
    (check_fpbt if sys.argv[1] == "fpbt" else check_bt)(text, doc)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""check_cfa.py CORESTACK CORE: every frame's "cfa" in `CORESTACK --json CORE` is checked
against the core's own memory: on x86-64 the return address of a frame is stored at its
CFA - 8 (psABI 3.2.2, the call pushes it just below the caller's stack pointer), so the word
there must be the pc of the next real frame outward (lost tail calls, which have no frame of
their own, are skipped; signal frames are not checked).  Inlined frames must carry their
function's CFA.  corestack must exit 0 and every thread's walk must be complete (the test
programs' threads all unwind to their outermost frame).  Prints PASS/FAIL lines; the name is
the core's base name."""
import json, os, struct, subprocess, sys


def loads(path):
    d = open(path, "rb").read()
    phoff, = struct.unpack_from("<Q", d, 32)
    phentsize, phnum = struct.unpack_from("<HH", d, 54)
    segs = []
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz, _, _ = struct.unpack_from("<IIQQQQQQ", d, phoff + i * phentsize)
        if p_type == 1:
            segs.append((p_vaddr, p_filesz, p_offset))
    return d, segs


def word(d, segs, addr):
    for va, sz, off in segs:
        if va <= addr and addr + 8 <= va + sz:
            return struct.unpack_from("<Q", d, off + addr - va)[0]
    return None


def main():
    cs, core = sys.argv[1], sys.argv[2]
    name = "cfa-" + os.path.basename(core)
    p = subprocess.run([cs, "--json", core], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        print("FAIL %s: corestack exited %d, no JSON (%s): %s" % (name, p.returncode, e,
                                                                 p.stderr[:200]))
        return
    d, segs = loads(core)
    checked, bad = 0, []
    if p.returncode != 0:
        bad.append("corestack exited %d: %s" % (p.returncode, p.stderr[:200]))
    for t in doc["threads"]:
        if t["complete"] is not True:
            bad.append("thread %d: the walk stopped: %s" % (t["tid"], t["stop_reason"]))
        fr = t["frames"]
        real = [f for f in fr if f["found_by"] not in ("tail-call", "tail-call-inferred")]
        for i, f in enumerate(real):
            if f["inlined"]:
                # an inlined function shares the CFA of the function it is inlined into
                host = next((g for g in real[i + 1:] if not g["inlined"]), None)
                if host and f["cfa"] != host["cfa"]:
                    bad.append("thread %d: inlined %s cfa %s, its host %s" % (t["tid"], f["function"], f["cfa"], host["cfa"]))
                continue
            outer = real[i + 1:]
            caller = outer[0] if outer else None
            if caller is None:
                continue
            if f["cfa"] is None:
                bad.append("thread %d: frame %d (%s) has a caller but no cfa" % (t["tid"], f["index"], f["function"]))
                continue
            if f["function"] and "signal" in (f["function"] or "") or f["function"] == "__restore_rt":
                continue
            ra = word(d, segs, int(f["cfa"], 16) - 8)
            checked += 1
            if ra != int(caller["pc"], 16):
                bad.append("thread %d: frame %d (%s) cfa %s: word at cfa-8 is %s, caller pc %s" % (
                    t["tid"], f["index"], f["function"], f["cfa"], ra and hex(ra), caller["pc"]))
    if bad or checked == 0:
        print("FAIL %s: %s" % (name, "; ".join(bad[:4]) if bad else "no frame checked"))
    else:
        print("PASS %s (%d frames)" % (name, checked))


if __name__ == "__main__":
    main()

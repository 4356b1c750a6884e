#!/usr/bin/env python3
"""json_vs_text.py: corestack's JSON document against its text output of the same core.

  json_vs_text.py DOC.json TEXT [MIN_THREADS]

DOC.json is `corestack --json CORE`, TEXT is `corestack -v CORE` (text.c, written apart from
the JSON).  Every line of TEXT after the header is rebuilt from the document, thread by
thread and frame by frame, as text.c words it: thread ids and crash signals, frame numbers,
pc, function (or module+offset, or ??), file:line (or module, or JIT map), build-id
mismatch, marker, found_by, cfa, note and stop reason.  Exits 0 when every line agrees and
the document has at least MIN_THREADS threads; else prints the first difference, exit 1.
"""
import json, os, sys


def frame_lines(f):
    if f["inlined"]:
        head = "#%-2u %18s    " % (f["index"], "")
    else:
        head = "#%-2u 0x%016x in " % (f["index"], int(f["pc"], 16))
    if f["function"] is not None:
        name = f["function"]
    elif f["module"] is not None:
        name = "%s+0x%x" % (os.path.basename(f["module"]), int(f["module_offset"], 16))
    else:
        name = "??"
    line = head + name + " ()"
    if f["file"] is not None:
        line += " at %s:%d" % (f["file"], f["line"])
    elif f["module"] is not None:
        line += " from %s" % f["module"]
    elif f["jit_map"] is not None:
        line += " [JIT] from %s" % f["jit_map"]
    if f["build_id_mismatch"]:
        line += " (build-id mismatch)"
    if f["marker"] is not None:
        line += "  [%s]" % f["marker"]
    out = [(line, None)]
    if not f["inlined"]:
        # "    found by: TOKEN (description)[, cfa 0x...][; note]": the description is text's own
        tail = ")" + (", cfa %s" % f["cfa"] if f["cfa"] else "") + ("; %s" % f["note"] if f["note"] else "")
        out.append(("    found by: %s (" % f["found_by"], tail))
    return out


def expected(doc):
    for t in doc["threads"]:
        yield ("", None)
        sig = " (crashed: %s)" % doc["signal"]["name"] if t["crashed"] and doc["signal"] else ""
        yield ("Thread %d%s" % (t["tid"], sig), None)
        for f in t["frames"]:
            yield from frame_lines(f)
        if not t["complete"] or not t["frames"]:
            yield ("(walk stopped: %s)" % t["stop_reason"], None)


def main():
    doc = json.load(open(sys.argv[1]))
    text = open(sys.argv[2]).read().split("\n")
    min_threads = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    start = text.index("")                     # the header ends at the first blank line
    got = text[start:]
    if got and got[-1] == "":
        got.pop()
    n = 0
    for want in expected(doc):
        if n >= len(got):
            sys.exit("text ends early; JSON has %r" % (want,))
        line = got[n]
        head, tail = want
        ok = line == head if tail is None else line.startswith(head) and line.endswith(tail)
        if not ok:
            sys.exit("line %d differs:\n  text: %s\n  json: %s ... %s" % (start + n + 1, line, head, tail or ""))
        n += 1
    if n != len(got):
        sys.exit("text has more lines than the JSON: %r" % got[n])
    nframes = sum(len(t["frames"]) for t in doc["threads"])
    if len(doc["threads"]) < min_threads:
        sys.exit("%d threads, want at least %d" % (len(doc["threads"]), min_threads))
    print("%d threads, %d frames agree" % (len(doc["threads"]), nframes))


main()

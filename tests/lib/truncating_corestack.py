#!/usr/bin/env python3
"""truncating_corestack.py: a broken corestack, for tests/t_checker.sh, which shows that the
checkers fail a walk that stops early.

  CST_REAL_CORESTACK=PATH truncating_corestack.py [corestack arguments...]

Runs the real corestack (PATH) with the same arguments and --json (unless --json or
--json-lines is given), then in every thread drops the frames after the first one named
"main", marks the walk incomplete ("complete": false, stop_reason "truncated after main")
and prints the document(s) as corestack would (--json: one document, or an array of them;
--json-lines: one a line).  Without --json or --json-lines it prints the frames as text,
"#N  PC in FUNCTION ()", one thread after another.  The shell (-i) runs untouched.  Exits 1, as corestack does when a walk
stopped early (or corestack's own status, when that is neither 0 nor 1).
"""
import json, os, subprocess, sys

REASON = "truncated after main"


def truncate(doc):
    for t in doc.get("threads") or []:
        frames = t.get("frames") or []
        cut = next((i for i, f in enumerate(frames) if f.get("function") == "main"), None)
        if cut is not None:
            del frames[cut + 1:]
        t["complete"] = False
        t["stop_reason"] = REASON
    return doc


def main():
    real = os.environ.get("CST_REAL_CORESTACK")
    if not real:
        sys.exit("truncating_corestack.py: CST_REAL_CORESTACK is not set")
    args = sys.argv[1:]
    if "-i" in args:                    # the shell: not truncated
        os.execv(real, [real] + args)
    lines = "--json-lines" in args
    text = not lines and "--json" not in args
    p = subprocess.run([real] + (["--json"] if text else []) + args,
                       stdout=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1) or not p.stdout.strip():
        sys.stdout.write(p.stdout)
        return p.returncode
    if lines:
        docs = [truncate(json.loads(l)) for l in p.stdout.splitlines() if l.strip()]
        sys.stdout.write("".join(json.dumps(d) + "\n" for d in docs))
        return 1
    doc = json.loads(p.stdout)
    docs = doc if isinstance(doc, list) else [doc]
    for d in docs:
        truncate(d)
    if not text:
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 1
    for d in docs:
        for t in d.get("threads") or []:
            print("\nThread %s" % t.get("tid"))
            for f in t.get("frames") or []:
                print("#%-2d %s in %s ()" % (f["index"], f["pc"], f.get("function") or "??"))
            print("(walk stopped: %s)" % REASON)
    return 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""triage.py: sort a directory of core files into buckets, one per crash signature.

  triage.py [--corestack PATH] [--json] DIR

Runs `corestack --json` once over every regular file in DIR, as a postmortem script would,
and prints the buckets, largest first: the count, the signature hash and frames, the crashing
signal, and the cores.  Files corestack cannot read are listed at the end.  With --json the
buckets are printed as one JSON document instead.

corestack --json prints one document for a single core and an array for several; both are
handled.  Exit status: 0, or 1 when corestack could not be run or printed no JSON.
"""
import argparse
import json
import os
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description="Bucket core files by crash signature.")
    ap.add_argument("--corestack", default=os.environ.get("CORESTACK", "corestack"))
    ap.add_argument("--json", action="store_true", help="print the buckets as JSON")
    ap.add_argument("dir")
    a = ap.parse_args()

    cores = sorted(os.path.join(a.dir, n) for n in os.listdir(a.dir)
                   if os.path.isfile(os.path.join(a.dir, n)))
    if not cores:
        print("triage: no files in %s" % a.dir, file=sys.stderr)
        return 0
    try:
        # exit status 1 (a partial walk) or 2 (an unreadable core) still prints JSON
        run = subprocess.run([a.corestack, "--json"] + cores, capture_output=True, text=True)
    except OSError as e:
        print("triage: cannot run %s: %s" % (a.corestack, e), file=sys.stderr)
        return 1
    try:
        docs = json.loads(run.stdout)
    except ValueError:
        print("triage: corestack printed no JSON: %s" % run.stderr.strip()[:300], file=sys.stderr)
        return 1
    if isinstance(docs, dict):
        docs = [docs]

    buckets, unreadable = {}, []
    for d in docs:
        if "error" in d:
            unreadable.append((d["core"], d["error"]))
            continue
        sig = d["signature"]
        b = buckets.setdefault(sig["hash"], {"hash": sig["hash"], "signature": sig["text"],
                                             "signals": set(), "cores": []})
        b["cores"].append(d["core"])
        if d.get("signal"):
            b["signals"].add(d["signal"]["name"])
    order = sorted(buckets.values(), key=lambda b: (-len(b["cores"]), b["cores"][0]))

    if a.json:
        out = {"buckets": [dict(b, signals=sorted(b["signals"]), count=len(b["cores"]))
                           for b in order],
               "unreadable": [{"core": c, "error": e} for c, e in unreadable]}
        print(json.dumps(out, indent=2))
        return 0
    print("%d files: %d buckets, %d unreadable" % (len(docs), len(order), len(unreadable)))
    for i, b in enumerate(order, 1):
        print("\nbucket %d: %d core%s  %s  %s" % (i, len(b["cores"]), "" if len(b["cores"]) == 1 else "s",
                                                 b["hash"], ",".join(sorted(b["signals"])) or "-"))
        print("  %s" % b["signature"])
        for c in b["cores"]:
            print("    %s" % c)
    if unreadable:
        print("\nunreadable:")
        for c, e in unreadable:
            print("    %s: %s" % (c, e))
    return 0


if __name__ == "__main__":
    sys.exit(main())

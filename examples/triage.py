#!/usr/bin/env python3
"""triage.py: sort a directory of core files into buckets, one per crash signature.

  triage.py [--corestack PATH] [--json | --summary] DIR

Runs `corestack --json` once over every regular file in DIR, as a postmortem script would,
and prints the buckets, largest first: the count, the signature hash, the crash's class
(the signal, `assert`, or `exception TYPE` for an uncaught C++ exception), the frames, and
the cores.  Files corestack cannot read are listed at the end.  --summary prints one entry
per bucket instead: its class, count and an example core.  --json prints the buckets as one
JSON document.

corestack is looked for, in this order: --corestack, $CORESTACK, the PATH, this script's
folder, and ../build/ next to it (the repository's build).  corestack --json prints one
document for a single core and an array for several; both are handled.  Exit status: 0, or
1 when corestack was not found, could not be run or printed no JSON.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys


def find_corestack(given):
    """The corestack to run and how it was found, or (None, the places looked at)."""
    if given:
        return given, "--corestack"
    if os.environ.get("CORESTACK"):
        return os.environ["CORESTACK"], "$CORESTACK"
    on_path = shutil.which("corestack")
    if on_path:
        return on_path, "PATH"
    here = os.path.dirname(os.path.abspath(__file__))
    for p in (os.path.join(here, "corestack"), os.path.join(here, "..", "build", "corestack")):
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return os.path.normpath(p), "next to " + os.path.basename(__file__)
    return None, "not on PATH, not in %s or %s, and CORESTACK is not set" % (
        here, os.path.normpath(os.path.join(here, "..", "build")))


def sig_class(d):
    """The crash's class as the signature names it: SIGSEGV, assert, exception TYPE, ..."""
    sig = d["signature"]
    cls = sig.get("class") or (d.get("signal") or {}).get("name") or "-"
    return "%s %s" % (cls, sig["exception"]) if sig.get("exception") else cls


def main():
    ap = argparse.ArgumentParser(description="Bucket core files by crash signature.")
    ap.add_argument("--corestack", help="the corestack binary (default: found as said above)")
    out = ap.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the buckets as JSON")
    out.add_argument("--summary", action="store_true",
                     help="one entry per bucket: class, count, an example core")
    ap.add_argument("dir")
    a = ap.parse_args()

    corestack, how = find_corestack(a.corestack)
    if not corestack:
        print("triage: corestack not found: %s; build it with `make` or give --corestack PATH" % how,
              file=sys.stderr)
        return 1
    if not os.path.isdir(a.dir):
        print("triage: %s is not a folder" % a.dir, file=sys.stderr)
        return 1
    cores = sorted(os.path.join(a.dir, n) for n in os.listdir(a.dir)
                   if os.path.isfile(os.path.join(a.dir, n)))
    if not cores:
        print("triage: no files in %s" % a.dir, file=sys.stderr)
        return 0
    try:
        # exit status 1 (a partial walk) or 2 (an unreadable core) still prints JSON
        run = subprocess.run([corestack, "--json"] + cores, capture_output=True, text=True)
    except OSError as e:
        print("triage: cannot run %s (found by %s): %s" % (corestack, how, e.strerror), file=sys.stderr)
        return 1
    try:
        docs = json.loads(run.stdout)
    except ValueError:
        print("triage: %s printed no JSON: %s" % (corestack, run.stderr.strip()[:300]), file=sys.stderr)
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
                                             "class": sig_class(d),
                                             "frames": " | ".join(sig["frames"]),
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
    if a.summary:
        width = max([len(b["class"]) for b in order] + [5])
        print("\n%5s  %-*s  %-16s  %s" % ("count", width, "class", "hash", "example"))
        for b in order:
            print("%5d  %-*s  %s  %s" % (len(b["cores"]), width, b["class"], b["hash"], b["cores"][0]))
            print("%5s  %-*s  %16s  %s" % ("", width, "", "", b["frames"]))
    else:
        for i, b in enumerate(order, 1):
            print("\nbucket %d: %d core%s  %s  %s" % (i, len(b["cores"]), "" if len(b["cores"]) == 1 else "s",
                                                     b["hash"], b["class"]))
            print("  %s" % b["frames"])
            for c in b["cores"]:
                print("    %s" % c)
    if unreadable:
        print("\nunreadable:")
        for c, e in unreadable:
            print("    %s: %s" % (c, e))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""json_repeats.py: the threads of a corestack --json document that repeat an earlier thread.

  json_repeats.py DOC.json MIN_REPEATS MIN_CHAIN MIN_LENGTHS

A thread repeats an earlier one when its frames have the same pcs.  corestack locates a
frame once per process (with its inline chain, backtrace.c) and writes the JSON of a thread
of the same frames as an earlier one by copying it with its own CFAs put in
(json_thread.c); the first thread of a pc sequence gets everything from the debug
information.  Checked here:
  - every member of every frame of a repeating thread but "cfa" is the first one's;
  - an inlined frame has the CFA of the frame it is inlined into;
  - at least MIN_REPEATS threads repeat an earlier one at other CFAs, and among them is
    an inline chain of at least MIN_CHAIN entries (the inlined frames and their own) that
    does not start at frame 0;
  - the repeating threads' CFAs have at least MIN_LENGTHS lengths (stacks at addresses of
    other lengths, whose copies cannot just overwrite the kept digits).
Exit 0 when all hold, else a one-line reason and exit 1.
"""
import json
import sys


def main():
    doc = json.load(open(sys.argv[1]))
    min_repeats, min_chain, min_lengths = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    first = {}
    repeats, longest, lengths = 0, 0, set()
    for t in doc["threads"]:
        frames = t["frames"]
        for i, f in enumerate(frames):
            own = next((g for g in frames[i:] if not g["inlined"]), None)
            if f["inlined"] and own is not None and f["cfa"] != own["cfa"]:
                sys.exit("thread %d frame %d: inlined at cfa %s, its frame #%d at %s"
                         % (t["tid"], i, f["cfa"], own["index"], own["cfa"]))
        key = tuple(f["pc"] for f in frames)
        rest = [{k: v for k, v in f.items() if k != "cfa"} for f in frames]
        if key not in first:
            first[key] = (t["tid"], rest, [f["cfa"] for f in frames])
            continue
        tid, want, cfas = first[key]
        for i, (got, exp) in enumerate(zip(rest, want)):
            if got != exp:
                diff = sorted(k for k in got if got[k] != exp.get(k))
                sys.exit("thread %d frame %d differs from thread %d's in %s: %s against %s"
                         % (t["tid"], i, tid, diff, [got[k] for k in diff], [exp[k] for k in diff]))
        if [f["cfa"] for f in frames] == cfas:
            continue
        repeats += 1
        lengths.update(len(f["cfa"]) for f in frames if f["cfa"])
        run = 0                  # inlined frames just before frame i
        for i, f in enumerate(frames):
            if f["inlined"]:
                run += 1
                continue
            if run and i - run > 0:
                longest = max(longest, run + 1)
            run = 0
    if repeats < min_repeats:
        sys.exit("%d threads repeat an earlier one at other CFAs, want %d" % (repeats, min_repeats))
    if longest < min_chain:
        sys.exit("the longest inline chain past frame 0 in a repeating thread has %d entries, want %d"
                 % (longest, min_chain))
    if len(lengths) < min_lengths:
        sys.exit("the repeating threads' CFAs have %s hex digits, want %d lengths"
                 % (sorted(lengths), min_lengths))


main()

#!/usr/bin/env python3
"""check_frames.py: compare one thread's backtrace from corestack with an
expected-frames file.

  check_frames.py [--corestack PATH] [--exe EXE] [--sysroot DIR] [--perf-map FILE] [--ignore-found-by]
                  [--thread N | --thread-with FUNC] [--pid] EXPECTED CORE

With --pid, CORE is the id of a live process, walked with corestack -p.

Runs `corestack --json [--sysroot DIR] [--perf-map FILE] [-e EXE] CORE` (PATH defaults to $CORESTACK, else
$BUILD/corestack, BUILD defaulting to build) and picks a thread: by default the one with
"crashed": true, else the first; --thread N picks threads[N]; --thread-with
FUNC picks the first thread that has a frame whose function matches the glob
FUNC (e.g. the innermost function of our own in a thread blocked in libc).

EXPECTED has one line per frame, innermost first:
    FUNCTION                      marker must be null
    FUNCTION [recovered caller]   marker must be "recovered caller"
    FUNCTION [lost tail call]     marker must be "lost tail call"
    ...                           any number (zero or more) of frames
    ? FUNCTION [marker]           an optional frame (zero or one), e.g. an
                                  inlined frame that may or may not be shown
    "FUNCTION"                    a quoted FUNCTION is compared as it is, not as a glob
                                  (C++ names have spaces and brackets)
    FUNCTION @LINE [marker]       the frame's line must be LINE; @- : no line
    FUNCTION [marker] {TOKEN}     found_by must be TOKEN (context, cfi,
                                  register-window, return-register, tail-call, ...);
                                  --ignore-found-by drops these checks (builds with
                                  CFI, where the same chain is found from CFI)
    # comment, blank lines        ignored
    !partial: WHY                 the walk must stop early (see below)
FUNCTION is an fnmatch glob on the JSON "function" field, except that "??"
stands for a null (unknown) function.  "..." may stand between frames (a
recursion of varying depth), but the last line is the thread's real outermost
frame (_start, __clone3): without a "!partial" line, corestack must exit 0 and
the thread's walk must be complete ("complete": true, stop_reason "outermost
frame").  A file whose walk cannot reach the outermost frame says why on a line
"!partial: WHY" (WHY must not be empty); then corestack must exit 1 and the
thread's walk must be incomplete, and the frames listed are those before the
stop (a final "..." is then allowed).
Exit status: 0 match; 1 mismatch or error (first output line is a one-line
reason, then details).
"""
import argparse, fnmatch, json, os, re, subprocess, sys

MARKERS = ("recovered caller", "lost tail call")


def parse_expected(path, ignore_found_by=False):
    """(patterns, partial): patterns are (FUNCTION, MARKER, OPTIONAL, FOUND_BY or None),
    None for "..."; partial is the reason of a "!partial: WHY" line, or None."""
    pats = []
    partial = None
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("!"):
            m = re.match(r"^!partial:\s*(\S.*)$", line)
            if not m or partial is not None:
                print("bad directive in %s: %r (one \"!partial: WHY\" line)" % (path, line))
                sys.exit(1)
            partial = m.group(1)
            continue
        if line == "...":
            pats.append(None)
            continue
        m = re.match(r'^(\?\s+)?("[^"]*"|\S+)(?:\s+@(\d+|-))?(?:\s+\[([^]]*)\])?(?:\s*\{([\w-]+)\})?$',
                     line)
        if not m or (m.group(4) is not None and m.group(4) not in MARKERS):
            print("bad line in %s: %r" % (path, line))
            sys.exit(1)
        ln = m.group(3)
        pats.append((m.group(2), m.group(4), bool(m.group(1)),
                     None if ignore_found_by else m.group(5),
                     None if ln is None else 0 if ln == "-" else int(ln)))
    if pats and pats[-1] is None and partial is None:
        print("bad %s: it ends in \"...\"; list the frames down to the outermost one, "
              "or say \"!partial: WHY\"" % path)
        sys.exit(1)
    return pats, partial


def frame_matches(pat, frame):
    func, marker = pat[0], pat[1]
    name = frame.get("function")
    if func == "??":
        ok = name is None
    elif func.startswith('"'):
        ok = name == func[1:-1]
    else:
        ok = name is not None and fnmatch.fnmatchcase(name, func)
    if pat[4] is not None and (frame.get("line") or 0) != pat[4]:
        ok = False
    return ok and frame.get("marker") == marker and \
        (pat[3] is None or frame.get("found_by") == pat[3])


def match(pats, frames):
    """True if the frames match the patterns ("..." = zero or more frames)."""
    memo = {}

    def m(i, j):
        if (i, j) not in memo:
            if i == len(pats):
                r = j == len(frames)
            elif pats[i] is None:
                r = m(i + 1, j) or (j < len(frames) and m(i, j + 1))
            elif pats[i][2] and m(i + 1, j):      # optional frame left out
                r = True
            else:
                r = j < len(frames) and frame_matches(pats[i], frames[j]) \
                    and m(i + 1, j + 1)
            memo[(i, j)] = r
        return memo[(i, j)]
    return m(0, 0)


def render_pat(p):
    if p is None:
        return "..."
    return ("? " if p[2] else "") + p[0] + \
        ("" if p[4] is None else " @%s" % (p[4] or "-")) + (" [%s]" % p[1] if p[1] else "") + \
        (" {%s}" % p[3] if p[3] else "")


def render_frame(f):
    name = f.get("function") or "??"
    s = name + " @%s" % (f.get("line") or "-") + \
        (" [%s]" % f["marker"] if f.get("marker") else "") + " {%s}" % f.get("found_by")
    extra = "pc=%s %s%s" % (f.get("pc"), os.path.basename(f.get("module") or "?"),
                            " inlined" if f.get("inlined") else "")
    return "%-45s %s" % (s, extra)


def pick_thread(doc, args):
    threads = doc.get("threads") or []
    if not threads:
        return None, "no threads in output"
    if args.thread is not None:
        if args.thread >= len(threads):
            return None, "no thread index %d (%d threads)" % (args.thread, len(threads))
        return threads[args.thread], None
    if args.thread_with:
        for t in threads:
            if any(f.get("function") and fnmatch.fnmatchcase(f["function"], args.thread_with)
                   for f in t.get("frames", [])):
                return t, None
        return None, "no thread has a frame in %s" % args.thread_with
    for t in threads:
        if t.get("crashed"):
            return t, None
    return threads[0], None


def main():
    ap = argparse.ArgumentParser(description="check corestack frames")
    ap.add_argument("--corestack", default=os.environ.get("CORESTACK") or
                    os.path.join(os.environ.get("BUILD", "build"), "corestack"))
    ap.add_argument("--exe")
    ap.add_argument("--sysroot")
    ap.add_argument("--perf-map")
    ap.add_argument("--ignore-found-by", action="store_true")
    ap.add_argument("--raw", action="store_true", help="corestack -r: names as mangled")
    ap.add_argument("--thread", type=int)
    ap.add_argument("--thread-with")
    ap.add_argument("--pid", action="store_true", help="CORE is a process id: corestack -p")
    ap.add_argument("expected")
    ap.add_argument("core")
    args = ap.parse_args()

    pats, partial = parse_expected(args.expected, args.ignore_found_by)
    cmd = [args.corestack, "--json"] + (["-r"] if args.raw else []) + (["--sysroot", args.sysroot] if args.sysroot else []) + \
        (["--perf-map", args.perf_map] if args.perf_map else []) + \
        (["-e", args.exe] if args.exe else []) + (["-p"] if args.pid else []) + [args.core]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        print("corestack timed out: %s" % " ".join(cmd))
        return 1
    want_rc = 1 if partial else 0
    if p.returncode not in (0, 1):
        if p.returncode < 0:
            print("corestack was killed by signal %d" % -p.returncode)
        else:
            print("corestack exited with status %d" % p.returncode)
        print("  command: %s" % " ".join(cmd))
        for line in p.stderr.splitlines()[-10:]:
            print("  stderr: " + line)
        return 1
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        print("corestack printed invalid JSON: %s" % e)
        return 1
    thread, err = pick_thread(doc, args)
    if err:
        print(err)
        return 1
    frames = thread.get("frames") or []
    why = None
    if partial is not None and thread.get("complete") is not False:
        why = "the walk is complete, but the expected file says partial (%s)" % partial
    elif not match(pats, frames):
        why = "frames differ"
    elif partial is None and (thread.get("complete") is not True or
                              thread.get("stop_reason") != "outermost frame"):
        why = "the walk is not complete"
    elif p.returncode != want_rc:
        why = "corestack exited with status %d, want %d%s" % (
            p.returncode, want_rc, " (partial: %s)" % partial if partial else
            " (some thread's walk stopped early)")
    if why is None:
        return 0
    print("%s (tid %s, complete %s, stop_reason %s, exit %d)" %
          (why, thread.get("tid"), thread.get("complete"), thread.get("stop_reason"),
           p.returncode))
    print("  command: %s" % " ".join(cmd))
    print("  expected:")
    for x in pats:
        print("    " + render_pat(x))
    print("  actual:")
    for i, f in enumerate(frames):
        print("    #%-2d %s" % (i, render_frame(f)))
    for t in doc.get("threads") or []:
        if t.get("complete") is not True:
            print("  thread %s stopped: %s" % (t.get("tid"), t.get("stop_reason")))
    for line in p.stderr.splitlines()[-5:]:
        print("  stderr: " + line)
    return 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""check_sparc.py: compares one thread of corestack's JSON output for a SPARC fixture core
with an expected-frames file.  The expected-file syntax is tests/lib/check_frames.py's, and
a frame line may end in {TOKEN}: the frame's found_by must then be TOKEN (context, cfi,
register-window, return-register, tail-call, ...).

  check_sparc.py [--corestack PATH] [--sysroot DIR] [--exe EXE] [--thread-with FUNC]
                 [--ignore-found-by] EXPECTED CORE

--ignore-found-by drops the {TOKEN} checks (builds with CFI, where the same chain is
found from CFI).  Exit status 0 on a match, 1 otherwise (a one-line reason, then details).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import check_frames                      # noqa: E402  (parse_expected, match, render_*)


def parse(path, ignore_found_by):
    """check_frames' patterns for path, each with its required found_by (or None)."""
    lines, tokens = [], []
    for line in open(path):
        s = line.strip()
        m = re.match(r"^(.*?)\s*\{([\w-]+)\}$", s)
        if m and not s.startswith("#"):
            s = m.group(1)
        if s and not s.startswith("#"):
            tokens.append(m.group(2) if m and not ignore_found_by else None)
        lines.append(s + "\n")
    with tempfile.NamedTemporaryFile("w", suffix=".expected", delete=False) as f:
        f.writelines(lines)
    try:
        pats = check_frames.parse_expected(f.name)
    finally:
        os.unlink(f.name)
    return [None if p is None else p + (tok,) for p, tok in zip(pats, tokens)]


def frame_matches(pat, frame, _plain=check_frames.frame_matches):
    return _plain(pat, frame) and (pat[3] is None or frame.get("found_by") == pat[3])


def main():
    ap = argparse.ArgumentParser(description="check corestack frames of a SPARC core")
    ap.add_argument("--corestack", default=os.environ.get("CORESTACK") or
                    os.path.join(os.environ.get("BUILD", "build"), "corestack"))
    ap.add_argument("--sysroot", default="/usr/sparc64-linux-gnu")
    ap.add_argument("--exe")
    ap.add_argument("--thread-with")
    ap.add_argument("--ignore-found-by", action="store_true")
    ap.add_argument("expected")
    ap.add_argument("core")
    a = ap.parse_args()

    pats = parse(a.expected, a.ignore_found_by)
    cmd = [a.corestack, "--json", "--sysroot", a.sysroot] + \
        (["-e", a.exe] if a.exe else []) + [a.core]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        print("corestack timed out: %s" % " ".join(cmd))
        return 1
    if p.returncode not in (0, 1):
        print("corestack exited with status %d: %s" % (p.returncode,
                                                      (p.stderr.strip().splitlines() or [""])[-1]))
        return 1
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        print("corestack printed invalid JSON: %s" % e)
        return 1
    a.thread = None
    thread, err = check_frames.pick_thread(doc, a)
    if err:
        print(err)
        return 1
    frames = thread.get("frames") or []
    check_frames.frame_matches = frame_matches
    if check_frames.match(pats, frames):
        return 0
    print("frames differ (tid %s, stop_reason %s, exit %d)" %
          (thread.get("tid"), thread.get("stop_reason"), p.returncode))
    print("  command: %s" % " ".join(cmd))
    print("  expected:")
    for x in pats:
        print("    " + check_frames.render_pat(x) +
              (" {%s}" % x[3] if x is not None and x[3] else ""))
    print("  actual:")
    for i, f in enumerate(frames):
        print("    #%-2d %s {%s}" % (i, check_frames.render_frame(f), f.get("found_by")))
    return 1


if __name__ == "__main__":
    sys.exit(main())

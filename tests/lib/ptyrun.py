#!/usr/bin/env python3
"""ptyrun.py: run a command with one of its outputs on a pseudo-terminal.

  ptyrun.py stdout|stderr CAPTURE [NAME=VALUE...] -- COMMAND [ARGS...]

The chosen stream is a pty (isatty() is true for it); what the command writes there is saved
in CAPTURE.  The other stream is inherited.  NAME=VALUE pairs are set in the environment
(NO_COLOR is removed first and TERM set to xterm, so that only the pairs decide).  Exit status:
the command's.
"""
import os, pty, subprocess, sys


def main():
    which, capture = sys.argv[1], sys.argv[2]
    i = sys.argv.index("--")
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    env["TERM"] = "xterm"
    for a in sys.argv[3:i]:
        k, v = a.split("=", 1)
        env[k] = v
    m, s = pty.openpty()
    streams = {"stdout": s} if which == "stdout" else {"stderr": s}
    p = subprocess.Popen(sys.argv[i + 1:], env=env, stdin=subprocess.DEVNULL, **streams)
    os.close(s)
    data = b""
    while True:
        try:
            chunk = os.read(m, 65536)
        except OSError:            # EIO: the command closed the pty
            break
        if not chunk:
            break
        data += chunk
    with open(capture, "wb") as f:
        f.write(data)
    return p.wait()


if __name__ == "__main__":
    sys.exit(main())

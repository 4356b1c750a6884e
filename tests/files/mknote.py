#!/usr/bin/env python3
"""mknote.py OUT KIND: write the contents of an ELF note section holding a package
metadata note (owner "FDO", type 0xcafe1a7e; systemd's ELF_PACKAGE_METADATA spec), for
objcopy --add-section.  Layout: Elf64_Nhdr (n_namesz, n_descsz, n_type: 32-bit words),
the name "FDO\\0", the descriptor, each padded to 4 bytes (gABI, "Note Section").
KIND picks the descriptor:
  good      a well-formed JSON object
  badjson   text that is not JSON
  nonul     a JSON object without its NUL terminator
  array     JSON, but an array
  control   a value with a terminal escape sequence
  deep      JSON nested 10000 levels deep
  lying     n_descsz larger than the section
  far       good, after a note of owner "PAD" with a 6000-byte descriptor: the package
            note lies past the first page of an image that links it first
  farother  far with version 9.9.9-9 (another build's note)
"""
import json, struct, sys

out, kind = sys.argv[1], sys.argv[2]
good = {"type": "deb", "name": "corestack-note", "version": "4.5.6-7", "os": "debian"}
far = kind in ("far", "farother")
if kind == "farother":
    good["version"] = "9.9.9-9"
if far:
    kind = "good"
desc = {
    "good": json.dumps(good).encode() + b"\0",
    "badjson": b'{"name": "x", "version":\0',
    "nonul": json.dumps(good).encode(),
    "array": b"[1, 2, 3]\0",
    "control": b'{"name": "evil\\u001b[31mred", "version": "1\\u0007"}\0',
    "deep": b"[" * 10000 + b"]" * 10000 + b"\0",
    "lying": json.dumps(good).encode() + b"\0",
}[kind]
pad = lambda b: b + b"\0" * (-len(b) % 4)
descsz = len(desc) if kind != "lying" else 0x7ffffff0
note = struct.pack("<III", 4, descsz, 0xcafe1a7e) + b"FDO\0" + pad(desc)
if far:
    note = struct.pack("<III", 4, 6000, 1) + b"PAD\0" + b"\0" * 6000 + note
open(out, "wb").write(note)

# tests/t_lang.sh: Debian's python3.11 dies of SIGSEGV inside its eval loop (ctypes reads
# address 0 from a Python function two calls deep).
import ctypes


def inner():
    ctypes.string_at(0)


def outer():
    inner()


outer()

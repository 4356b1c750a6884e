# Sourced by gdb (gdb -batch -x bench/gdb_pcs.py EXE CORE): prints, for every thread, the
# line "T LWP" and then the pc of each frame gdb unwinds, innermost first.  Frames of
# inlined functions are left out (they share the pc of the frame they are inlined into), and
# so are gdb's tail-call frames (made from DWARF call-site information; corestack marks the
# frames it finds that way "lost tail call", and the comparison leaves those out too).
# The walk goes past main so that it covers the same frames as corestack.
import gdb

gdb.execute("set backtrace past-main on")
gdb.execute("set backtrace past-entry on")
out = []
for th in gdb.selected_inferior().threads():
    th.switch()
    out.append("T %d" % th.ptid[1])
    f = gdb.newest_frame()
    while f is not None:
        if f.type() not in (gdb.INLINE_FRAME, gdb.TAILCALL_FRAME):
            out.append("%#x" % f.pc())
        try:
            f = f.older()
        except gdb.error:
            break
print("\n".join(out))

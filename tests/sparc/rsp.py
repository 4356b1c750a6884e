"""rsp.py: a small client of the gdb remote serial protocol, enough to drive
qemu-user's gdbstub (qemu-sparc64 -g PORT / qemu-sparc32plus -g PORT).

Protocol reference: the gdb manual, appendix "Remote Serial Protocol"
(packets $DATA#CS, '+' acknowledgements, binary-free hex encodings).
Addresses are target virtual addresses, sizes are in bytes.
"""
import socket
import time


def _unescape(data):
    """Undoes the binary escaping of qXfer replies ('}' then the byte xor 0x20)."""
    out = bytearray()
    i = 0
    while i < len(data):
        if data[i] == 0x7d and i + 1 < len(data):
            out.append(data[i + 1] ^ 0x20)
            i += 2
        else:
            out.append(data[i])
            i += 1
    return bytes(out)


class RspError(Exception):
    pass


class Rsp:
    """One connection to a gdbstub.  Every method raises RspError on a protocol
    error or an 'Exx' reply."""

    def __init__(self, port, host="127.0.0.1", timeout=30.0):
        deadline = time.time() + timeout
        while True:
            try:
                self.sock = socket.create_connection((host, port), timeout=timeout)
                # Many small packets, each answered: without this, Nagle's algorithm and
                # delayed acknowledgements add tens of milliseconds to every one.
                self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                break
            except OSError:
                if time.time() > deadline:
                    raise RspError("cannot connect to gdbstub on port %d" % port)
                time.sleep(0.05)
        self.buf = b""
        self.noack = False
        if self.send("QStartNoAckMode") == "OK":
            self.noack = True

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def _fill(self):
        data = self.sock.recv(65536)
        if not data:
            raise RspError("gdbstub closed the connection")
        self.buf += data

    def _read_byte(self):
        if not self.buf:
            self._fill()
        b, self.buf = self.buf[:1], self.buf[1:]
        return b

    def _recv_packet(self):
        while True:
            start = self.buf.find(b"$")
            if start >= 0:
                end = self.buf.find(b"#", start)
                if end >= 0 and len(self.buf) >= end + 3:
                    break
            self._fill()
        data = self.buf[start + 1:end]
        self.buf = self.buf[end + 3:]
        if not self.noack:
            self.sock.sendall(b"+")
        return data.decode("latin-1")

    def send(self, payload):
        """Sends one packet and returns the reply packet's payload."""
        self.send_noreply(payload)
        return self._recv_packet()

    def send_noreply(self, payload):
        raw = payload.encode("latin-1")
        pkt = b"$" + raw + b"#" + ("%02x" % (sum(raw) & 0xff)).encode()
        self.sock.sendall(pkt)
        while not self.noack:
            c = self._read_byte()
            if c == b"+":
                return
            if c == b"-":
                self.sock.sendall(pkt)

    def check(self, reply, what):
        if reply.startswith("E") and len(reply) == 3:
            raise RspError("%s: gdbstub error %s" % (what, reply))
        return reply

    # registers --------------------------------------------------------
    def read_regs(self):
        """All registers of the selected thread as the raw 'g' bytes."""
        r = self.check(self.send("g"), "read registers")
        return bytes.fromhex(r)

    def write_regs(self, raw):
        r = self.send("G" + raw.hex())
        if r != "OK":
            raise RspError("write registers: %s" % r)

    # memory -----------------------------------------------------------
    def read_mem(self, addr, size, chunk=2048):
        out = bytearray()
        while size > 0:
            n = min(size, chunk)
            r = self.send("m%x,%x" % (addr, n))
            if r.startswith("E") or not r:
                raise RspError("cannot read memory at 0x%x" % addr)
            part = bytes.fromhex(r)
            out += part
            addr += len(part)
            size -= len(part)
        return bytes(out)

    def write_mem(self, addr, data, chunk=1024):
        for i in range(0, len(data), chunk):
            part = data[i:i + chunk]
            r = self.send("M%x,%x:%s" % (addr + i, len(part), part.hex()))
            if r != "OK":
                raise RspError("cannot write memory at 0x%x: %s" % (addr + i, r))

    # execution --------------------------------------------------------
    def step(self):
        """Single-steps the selected thread; returns the stop reply."""
        return self.send("s")

    def cont(self, signal=0):
        return self.send("C%02x" % signal if signal else "c")

    def set_break(self, addr):
        r = self.send("Z0,%x,4" % addr)
        if r != "OK":
            raise RspError("cannot set a breakpoint at 0x%x: %s" % (addr, r))

    def clear_break(self, addr):
        self.send("z0,%x,4" % addr)

    def threads(self):
        """Thread ids (decimal ints) the stub reports."""
        tids = []
        r = self.send("qfThreadInfo")
        while r.startswith("m"):
            tids += [int(t, 16) for t in r[1:].split(",") if t]
            r = self.send("qsThreadInfo")
        return tids

    def select_thread(self, tid):
        for op in ("Hg", "Hc"):
            r = self.send("%s%x" % (op, tid))
            if r != "OK":
                raise RspError("cannot select thread %d: %s" % (tid, r))

    def xfer(self, obj, annex=""):
        out = bytearray()
        off = 0
        while True:
            r = self.send("qXfer:%s:read:%s:%x,%x" % (obj, annex, off, 0x800))
            if not r or r[0] not in "ml":
                raise RspError("qXfer %s: %s" % (obj, r))
            data = _unescape(r[1:].encode("latin-1"))
            out += data
            off += len(data)
            if r[0] == "l":
                return bytes(out)

    def kill(self):
        try:
            self.send_noreply("k")
        except (RspError, OSError):
            pass
        self.close()

"""The GDB remote stub: one chip, served on 127.0.0.1 to one gdb at a time.

The server keeps the chip between sessions: after gdb detaches (``D``) or
goes away, it waits for the next connection, and the chip is where the last
session left it (halted; it runs only while gdb lets it). Each session
starts with no breakpoints or watches.

Packets served (see :mod:`fairdie.debug._target` for the address spaces):
``?``, ``g``/``G``, ``p``/``P``, ``m``/``M``/``X``, ``c``/``C``/``s``/``S``,
``vCont`` (``c``, ``s`` and ``r``: range stepping, so ``step`` and ``next``
take one round trip per line), ``Z0``/``Z1`` breakpoints and ``Z2`` write
watches (checked by the engine in C), ``qRcmd`` (``monitor``), ``D``, ``k``,
``QStartNoAckMode``, and 0x03 (Ctrl-C) while the chip runs. Anything else
gets the empty reply, which tells gdb it is not supported (read and access
watches, ``Z3``/``Z4``, among them).
"""

from __future__ import annotations

import contextlib
import logging
import select
import socket
from collections import deque
from collections.abc import Callable
from types import TracebackType

from fairdie.debug._monitor import Monitor
from fairdie.debug._rsp import Incoming, Kind, PacketReader, frame
from fairdie.debug._target import PC, Stop, Target, TargetError
from fairdie.device import Device
from fairdie.sim._chip import Chip

__all__ = ["HOST", "DebugServer"]

#: the only interface the stub listens on
HOST = "127.0.0.1"
PACKET_SIZE = 0x1000
_LOG = logging.getLogger("fairdie.debug")


class DebugServer:
    """A GDB remote stub for ``chip`` (and its ``device``, for ``monitor``).

    The socket is bound at once (an ``OSError`` says the port is taken);
    ``port=0`` picks a free port, :attr:`port` names it. :meth:`serve_forever`
    serves sessions until :meth:`close`, which any thread may call.
    """

    def __init__(
        self,
        chip: Chip,
        device: Device | None = None,
        *,
        port: int = 0,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.target = Target(chip)
        self.monitor = Monitor(chip, device)
        self._log = log or (lambda line: _LOG.info("%s", line))
        self._listener = socket.create_server((HOST, port))
        self.port: int = self._listener.getsockname()[1]
        self._wake_r, self._wake_w = socket.socketpair()
        self._conn: socket.socket | None = None
        self._closed = False
        self.sessions = 0

    def __enter__(self) -> DebugServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop serving: ends the session in progress and :meth:`serve_forever`."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")
        conn = self._conn
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)

    def serve_forever(self) -> None:
        try:
            while self.serve_one():
                pass
        finally:
            for s in (self._listener, self._wake_r, self._wake_w):
                s.close()

    def serve_one(self) -> bool:
        """Wait for one gdb and serve it until it leaves; False once closed."""
        while not self._closed:
            ready, _, _ = select.select([self._listener, self._wake_r], [], [])
            if self._wake_r in ready:
                return False
            try:
                conn, peer = self._listener.accept()
            except OSError:
                continue
            break
        else:
            return False
        self.sessions += 1
        self._conn = conn
        self._log(f"gdb connected from {peer[0]}:{peer[1]}")
        try:
            with conn:
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                _Session(conn, self.target, self.monitor, lambda: self._closed).run()
        except OSError as e:
            self._log(f"gdb connection lost: {e}")
        except Exception as e:  # a bug of ours: this session ends, the server goes on
            _LOG.exception("debug session failed")
            self._log(f"gdb session ended by an internal error: {e!r}")
        finally:
            self._conn = None
            self.target.clear()
        if not self._closed:
            self._log(f"gdb left; waiting for the next one on {HOST}:{self.port}")
        return not self._closed


class _Session:
    """One gdb connection: packets in, replies out."""

    def __init__(
        self, conn: socket.socket, target: Target, monitor: Monitor, closed: Callable[[], bool]
    ) -> None:
        self.conn = conn
        self.target = target
        self.monitor = monitor
        self.closed = closed
        self.reader = PacketReader()
        self.pending: deque[Incoming] = deque()
        self.last_sent = b""
        self.open = True

    # ---- I/O ---------------------------------------------------------------

    def run(self) -> None:
        while self.open and not self.closed():
            item = self._next()
            if item is None:
                return
            if item.kind is Kind.PACKET:
                reply = self.dispatch(item.payload)
                if reply is not None:
                    self.send(reply)
            elif item.kind is Kind.NACK and self.last_sent:
                self.conn.sendall(self.last_sent)
            # an interrupt while the chip is stopped, or an ack: nothing to do

    def _next(self) -> Incoming | None:
        while not self.pending:
            data = self.conn.recv(4096)
            if not data:
                return None
            self.pending.extend(self._take(data))
        return self.pending.popleft()

    def _take(self, data: bytes) -> list[Incoming]:
        items = self.reader.feed(data)
        acks = self.reader.take_acks()
        if acks:
            self.conn.sendall(acks)
        return items

    def send(self, payload: bytes) -> None:
        self.last_sent = frame(payload)
        self.conn.sendall(self.last_sent)

    def interrupted(self) -> bool:
        """Has gdb sent Ctrl-C (or gone away)? Asked between two run chunks."""
        ready, _, _ = select.select([self.conn], [], [], 0)
        if not ready:
            return self.closed()
        data = self.conn.recv(4096)
        if not data:
            self.open = False
            return True
        items = self._take(data)
        self.pending.extend(i for i in items if i.kind is Kind.PACKET)
        return any(i.kind is Kind.INTERRUPT for i in items) or self.closed()

    # ---- packets -------------------------------------------------------------

    def dispatch(self, p: bytes) -> bytes | None:
        """The reply to one packet (None: no reply)."""
        try:
            return self._dispatch(p)
        except TargetError as e:
            _LOG.debug("%r: %s", p[:40], e)
            return b"E01"
        except ValueError as e:  # a malformed packet (bad hex, missing fields)
            _LOG.debug("%r: %s", p[:40], e)
            return b"E02"

    def _dispatch(self, p: bytes) -> bytes | None:
        t = self.target
        head = p[:1]
        if head == b"?":
            return self.stop_reply(t.last_stop)
        if head == b"g":
            return t.registers().hex().encode()
        if head == b"G":
            t.set_registers(bytes.fromhex(p[1:].decode()))
            return b"OK"
        if head == b"p":
            return t.register(int(p[1:], 16)).hex().encode()
        if head == b"P":
            n, _, value = p[1:].partition(b"=")
            t.set_register(int(n, 16), bytes.fromhex(value.decode()))
            return b"OK"
        if head == b"m":
            address, size = _pair(p[1:])
            return t.read(address, min(size, PACKET_SIZE // 2 - 8)).hex().encode()
        if head in (b"M", b"X"):
            where, _, data = p[1:].partition(b":")
            address, size = _pair(where)
            payload = bytes.fromhex(data.decode()) if head == b"M" else data
            if len(payload) != size:
                raise ValueError("length mismatch")
            if size:
                t.write(address, payload)
            return b"OK"
        if head in (b"c", b"s", b"C", b"S"):
            arg = p[1:].partition(b";")[2] if head in (b"C", b"S") else p[1:]
            if arg:  # resume at this address (a signal to deliver is ignored)
                t.set_register(PC, int(arg, 16).to_bytes(4, "little"))
            return self.resume(step=head in (b"s", b"S"))
        if head in (b"Z", b"z"):
            return self.breakpoint(p)
        if head == b"D":
            self.open = False
            return b"OK"
        if head == b"k":
            self.open = False
            return None
        if head == b"H" or head == b"T":
            return b"OK"
        if head == b"q":
            return self.query(p)
        if p == b"QStartNoAckMode":
            self.send(b"OK")  # still acknowledged: the switch comes after it
            self.reader.ack_mode = False
            return None
        if p == b"vCont?":
            return b"vCont;c;C;s;S;r"
        if p.startswith(b"vCont;"):
            return self.vcont(p[6:])
        return b""

    def query(self, p: bytes) -> bytes:
        if p.startswith(b"qSupported"):
            return b"PacketSize=%x;QStartNoAckMode+" % PACKET_SIZE
        if p == b"qAttached":
            return b"1"  # gdb detaches on quit, never kills the chip
        if p.startswith(b"qRcmd,"):
            text = self.monitor.run(bytes.fromhex(p[6:].decode()).decode(errors="replace"))
            self.console(text)
            return b"OK"
        if p.startswith(b"qSymbol"):
            return b"OK"
        return b""

    def vcont(self, actions: bytes) -> bytes | None:
        # one thread: the first action is the one for it (gdb puts it first)
        action = actions.split(b";")[0].split(b":")[0]
        kind = action[:1]
        if kind in (b"c", b"C"):
            return self.resume(step=False)
        if kind in (b"s", b"S"):
            return self.resume(step=True)
        if kind == b"r":
            start, end = (int(x, 16) for x in action[1:].split(b","))
            return self.resume(step=False, step_range=(start, end))
        return b""

    def breakpoint(self, p: bytes) -> bytes:
        kind, rest = p[1:2], p[3:].split(b";")[0]
        address, length = _pair(rest)
        insert = p[:1] == b"Z"
        t = self.target
        if kind in (b"0", b"1"):
            (t.add_break if insert else t.remove_break)(address)
        elif kind == b"2":
            if insert:
                t.add_watch(address, length)
            else:
                t.remove_watch(address, length)
        else:
            return b""  # read and access watches: not supported
        return b"OK"

    def resume(self, *, step: bool, step_range: tuple[int, int] | None = None) -> bytes | None:
        t = self.target
        say = self.say
        stop = (
            t.step(self.interrupted, say)
            if step
            else t.resume(self.interrupted, say, step_range=step_range)
        )
        if not self.open:
            return None  # gdb went away while the chip ran
        if stop.note:
            self.say(stop.note)
        return self.stop_reply(stop)

    def say(self, note: str) -> None:
        self.console(f"fairdie: {note}\n")

    def stop_reply(self, stop: Stop) -> bytes:
        """``T`` with the signal, the watch that fired, and SREG, SP and PC
        (so gdb need not ask for them)."""
        regs = self.target.registers()
        out = b"T%02x" % stop.signal
        if stop.watch is not None:
            out += b"watch:%x;" % stop.watch
        return out + b"20:%s;21:%s;22:%s;" % (
            regs[32:33].hex().encode(),
            regs[33:35].hex().encode(),
            regs[35:39].hex().encode(),
        )

    def console(self, text: str) -> None:
        """Text for gdb's console, in ``O`` packets."""
        data = text.encode()
        step = PACKET_SIZE // 2 - 8
        for i in range(0, len(data), step):
            self.send(b"O" + data[i : i + step].hex().encode())


def _pair(text: bytes) -> tuple[int, int]:
    a, _, b = text.partition(b",")
    return int(a, 16), int(b, 16)

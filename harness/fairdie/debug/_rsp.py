"""GDB remote serial protocol framing: packets, checksums, escapes, acks.

A packet is ``$payload#cc``: ``cc`` is the sum of the payload's bytes modulo
256 in two hex digits. In the payload ``}`` escapes the next byte (XOR 0x20);
``$``, ``#``, ``}`` and ``*`` are always escaped when sent. Outside a packet,
``+`` and ``-`` acknowledge the last packet sent (``-``: send it again) and
the byte 0x03 interrupts a running target (gdb's Ctrl-C). Until the session
switches acks off (``QStartNoAckMode``), the receiver answers each packet
with ``+``, or ``-`` when its checksum is wrong.

Nothing here touches a socket: :class:`PacketReader` turns bytes into
:class:`Incoming` items and says which acks to send.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = [
    "INTERRUPT",
    "Incoming",
    "Kind",
    "PacketReader",
    "checksum",
    "escape",
    "frame",
    "unescape",
]

INTERRUPT = 0x03
_ESCAPE = 0x7D
_MUST_ESCAPE = frozenset(b"$#}*")
#: a packet longer than this is garbage, not a packet (gdb sends at most
#: the PacketSize the stub announces)
MAX_PACKET = 1 << 16


def checksum(data: bytes) -> int:
    """The sum of the bytes modulo 256."""
    return sum(data) & 0xFF


def escape(data: bytes) -> bytes:
    """Escape ``$ # } *`` as ``}`` and the byte XOR 0x20."""
    if not _MUST_ESCAPE.intersection(data):
        return data
    out = bytearray()
    for b in data:
        if b in _MUST_ESCAPE:
            out += bytes((_ESCAPE, b ^ 0x20))
        else:
            out.append(b)
    return bytes(out)


def unescape(data: bytes) -> bytes:
    """Undo :func:`escape` (a trailing lone ``}`` is kept as it is)."""
    if _ESCAPE not in data:
        return data
    out = bytearray()
    it = iter(range(len(data)))
    for i in it:
        b = data[i]
        if b == _ESCAPE and i + 1 < len(data):
            out.append(data[next(it)] ^ 0x20)
        else:
            out.append(b)
    return bytes(out)


def frame(payload: bytes) -> bytes:
    """A whole packet, ready to send: ``$`` escaped payload ``#`` checksum."""
    body = escape(payload)
    return b"$" + body + b"#" + b"%02x" % checksum(body)


class Kind(enum.Enum):
    PACKET = "packet"  #: a packet with a good checksum (payload unescaped)
    INTERRUPT = "interrupt"  #: 0x03 outside a packet
    ACK = "ack"  #: ``+``
    NACK = "nack"  #: ``-``: send the last packet again


@dataclass(frozen=True, slots=True)
class Incoming:
    kind: Kind
    payload: bytes = b""


class PacketReader:
    """Bytes in, packets and interrupts out.

    ``feed`` returns what the bytes completed; ``acks`` accumulates the
    acknowledgements to send back (``+`` for a good packet, ``-`` for a bad
    checksum) while ``ack_mode`` is on.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self.ack_mode = True
        self.acks = bytearray()
        self.bad_packets = 0

    def feed(self, data: bytes) -> list[Incoming]:
        self._buf += data
        out: list[Incoming] = []
        buf = self._buf
        while buf:
            b = buf[0]
            if b == ord("$"):
                end = buf.find(b"#")
                if end < 0 or len(buf) < end + 3:
                    if len(buf) > MAX_PACKET:  # no end in sight: drop it
                        del buf[:1]
                        continue
                    break  # wait for the rest
                body, digits = bytes(buf[1:end]), bytes(buf[end + 1 : end + 3])
                del buf[: end + 3]
                if b"$" in body:  # a packet cut short: start again at the next '$'
                    buf[:0] = body[body.rindex(b"$") :] + b"#" + digits
                    continue
                try:
                    good = int(digits, 16) == checksum(body)
                except ValueError:
                    good = False
                if not good:
                    self.bad_packets += 1
                    if self.ack_mode:
                        self.acks += b"-"
                    continue
                if self.ack_mode:
                    self.acks += b"+"
                out.append(Incoming(Kind.PACKET, unescape(body)))
                continue
            del buf[:1]
            if b == INTERRUPT:
                out.append(Incoming(Kind.INTERRUPT))
            elif b == ord("+"):
                out.append(Incoming(Kind.ACK))
            elif b == ord("-"):
                out.append(Incoming(Kind.NACK))
            # anything else between packets is line noise: skipped
        return out

    def take_acks(self) -> bytes:
        """The acks to send now (and forget them)."""
        acks = bytes(self.acks)
        self.acks.clear()
        return acks

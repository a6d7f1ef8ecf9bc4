"""Plain Python value types the simulator layer hands upwards.

Nothing here touches the compiled module, so the board model, the CLI and the
unit tests can import these without libsimavr.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

__all__ = [
    "AdcConversion",
    "EepromWrite",
    "Event",
    "EventKind",
    "Level",
    "PinChange",
    "PowerCycle",
    "StopReason",
    "Until",
    "parse_pin",
]


class Level(enum.Enum):
    """A pin's state in the one pin model: the chip side and the outside world."""

    LOW = "0"  #: driven low (by the chip's output, or from outside)
    HIGH = "1"  #: driven high
    PULLUP = "u"  #: nothing drives it; a pull-up (internal or external) holds it high
    PULLDOWN = "d"  #: nothing drives it; an external pull-down holds it low
    Z = "z"  #: floating: nothing drives or pulls it (reads low)

    @classmethod
    def of(cls, state: int, bit: int) -> Level:
        """The level of pin ``bit`` in a port's state word (see :class:`PinChange`)."""
        if (state >> (8 + bit)) & 1 or (state >> (16 + bit)) & 1:
            return cls.HIGH if (state >> bit) & 1 else cls.LOW
        if (state >> (24 + bit)) & 1:
            return cls.PULLUP if (state >> bit) & 1 else cls.PULLDOWN
        return cls.Z


class EventKind(enum.IntFlag):
    """Engine events: what the trace records and what a run can stop on."""

    PIN = 1  #: a pin's level or drive changed
    SLEEP = 2  #: the CPU executed SLEEP
    WAKE = 4  #: the CPU woke
    EEPROM_START = 8  #: an EEPROM write started (EEPE set)
    EEPROM_DONE = 16  #: an EEPROM write completed, or was cut by the power
    ADC = 32  #: an ADC conversion started
    IRQ = 64  #: the CPU entered an interrupt vector
    RESET = 128  #: a reset that is no power-on (the watchdog's)
    POWER = 256  #: power switched on or off
    PC = 512  #: the program counter reached an address (a stop, never traced)


_REFERENCES = ("vcc", "internal", "aref", "aref")

#: an event's fields as the trace packs them (``Trace.tuples``): cycle, kind, a, b, c
EventFields = tuple[int, int, int, int, int]

#: Every kind the trace can record.
TRACEABLE = EventKind(511)
_NO_EVENT = EventKind(0)


@dataclass(frozen=True, slots=True)
class Event:
    """One engine event. ``a``, ``b``, ``c`` by kind (as the C shim gives them):

    - PIN: port letter code, state word after, state word before;
    - SLEEP: 1 when interrupts were off (nothing can wake it), 1 + the SM bits
      (0: unknown; :func:`~fairdie.sim.sleep_mode_name` names them), 1 when
      the watchdog runs (its reset or interrupt enabled);
    - EEPROM_START: address, old byte, new byte | EEPM mode << 8;
    - EEPROM_DONE: address, byte stored, 1 when cut by the power;
    - ADC: channel | reference << 8, millivolts, code | vref_mv << 16;
    - IRQ: vector number; RESET: 1 (watchdog); POWER: 1 on, 0 off; PC: address.
    """

    cycle: int
    kind: EventKind
    a: int = 0
    b: int = 0
    c: int = 0

    def describe(self) -> str:
        k = self.kind
        if k is EventKind.PIN:
            ch = PinChange(self.cycle, chr(self.a), self.b, self.c)
            pins = ", ".join(f"P{ch.port}{b}={ch.level(b).value}" for b in ch.changed_bits())
            return f"pin {pins or 'P' + ch.port} at cycle {self.cycle}"
        if k is EventKind.ADC:
            return f"ADC {AdcConversion.from_event(self)}"
        name = (k.name or str(int(k))).lower()
        if k in (EventKind.EEPROM_START, EventKind.EEPROM_DONE):
            return f"{name} address {self.a} at cycle {self.cycle}"
        if k in (EventKind.IRQ, EventKind.PC):
            return f"{name} {self.a:#x} at cycle {self.cycle}"
        return f"{name} at cycle {self.cycle}"


@dataclass(frozen=True, slots=True)
class PinChange:
    """A port's pins changed at ``cycle``.

    ``state`` and ``before`` are state words, one byte each, bit i = pin i:
    byte 0 the level on the wire (what PINx reads), byte 1 the chip drives
    the pin, byte 2 the outside world drives it, byte 3 a pull holds it.
    """

    cycle: int
    port: str  # "B" for port B
    state: int
    before: int

    def level(self, bit: int) -> Level:
        return Level.of(self.state, bit)

    def high(self, bit: int) -> bool:
        """The wire's logic level (what the firmware reads)."""
        return bool((self.state >> bit) & 1)

    def changed_bits(self) -> list[int]:
        diff = self.state ^ self.before
        return [b for b in range(8) if (diff >> b) & 0x01010101]


@dataclass(frozen=True, slots=True)
class AdcConversion:
    """One ADC conversion, as logged in C when it starts."""

    cycle: int
    channel: int
    reference: str  #: "vcc", "internal" or "aref"
    millivolts: int
    code: int  #: what the firmware reads (right-adjusted)
    vref_mv: int

    @classmethod
    def from_event(cls, e: Event) -> AdcConversion:
        return cls.from_fields(e.cycle, e.a, e.b, e.c)

    @classmethod
    def from_fields(cls, cycle: int, a: int, b: int, c: int) -> AdcConversion:
        """From an ADC event's fields (see :class:`Event`)."""
        return cls(cycle, a & 0xFF, _REFERENCES[(a >> 8) & 3], b, c & 0xFFFF, c >> 16)


@dataclass(frozen=True, slots=True)
class EepromWrite:
    """An EEPROM programming operation in flight (EEPE busy)."""

    address: int
    old: int  #: the byte before the operation
    new: int  #: the byte once the operation completes
    cycles_left: int
    mode: str  #: "erase+write", "erase" or "write"


class PowerCycle(NamedTuple):
    """What one press of a power switch (:meth:`fairdie.sim.Chip.power_cycle`) saw."""

    on: int  #: the power-on's cycle
    first_lit: int | None  #: the cycle some LED first lit (None: none did)
    at: tuple[int, ...]  #: the cycle each step's run reached
    seen: tuple[int, ...]  #: the LEDs seen over the window ending there (bit i: LED i)


class StopReason(enum.IntFlag):
    """Why :meth:`fairdie.sim.Chip.run` returned (several may be set).

    A run stopped by an event has that event's kind set (``PIN``, ``ADC``,
    ``EEPROM_DONE``, ...); ``Chip.stop_event`` holds the event itself.
    """

    PIN = EventKind.PIN
    SLEEP = EventKind.SLEEP
    WAKE = EventKind.WAKE
    EEPROM_START = EventKind.EEPROM_START
    EEPROM_DONE = EventKind.EEPROM_DONE
    ADC = EventKind.ADC
    IRQ = EventKind.IRQ
    RESET = EventKind.RESET
    PC = EventKind.PC
    DEADLINE = 1 << 16  #: the cycle deadline was reached
    QUIET = 1 << 17  #: asleep with no pin change for the quiet time
    HALTED = 1 << 18  #: asleep with interrupts off: nothing can wake it
    OFF = 1 << 19  #: the chip is not powered


@dataclass(frozen=True)
class Until:
    """What stops a run besides its deadline; combine with ``|``.

    >>> Until.pin("PB0") | Until.event(EventKind.EEPROM_DONE)  # doctest: +SKIP
    >>> chip.run(seconds=1, until=Until.irq(3))        # doctest: +SKIP
    """

    kinds: EventKind = _NO_EVENT
    pins: tuple[str, ...] = ()
    vectors: tuple[int, ...] = ()
    pc: int | str | None = None
    quiet_seconds: float | None = None

    def __or__(self, other: Until) -> Until:
        if self.pc is not None and other.pc is not None and self.pc != other.pc:
            raise ValueError("a run watches one PC address")
        quiet = [q for q in (self.quiet_seconds, other.quiet_seconds) if q is not None]
        return Until(
            kinds=self.kinds | other.kinds,
            pins=self.pins + other.pins,
            vectors=self.vectors + other.vectors,
            pc=self.pc if self.pc is not None else other.pc,
            quiet_seconds=min(quiet) if quiet else None,
        )

    @classmethod
    def event(cls, kind: EventKind) -> Until:
        """Any event of these kinds: ``Until.event(EventKind.EEPROM_DONE)``."""
        return cls(kinds=kind)

    @classmethod
    def pin(cls, *names: str) -> Until:
        """A level change on any of these pins (any pin when none is named)."""
        return cls(kinds=EventKind.PIN, pins=names)

    @classmethod
    def irq(cls, *vectors: int) -> Until:
        """Entry into any of these vectors (any vector when none is named)."""
        return cls(kinds=EventKind.IRQ, vectors=vectors)

    @classmethod
    def pc_at(cls, where: int | str) -> Until:
        """The PC at a byte address or a symbol."""
        return cls(kinds=EventKind.PC, pc=where)

    @classmethod
    def quiet(cls, seconds: float) -> Until:
        """Asleep with no pin change for ``seconds``."""
        return cls(quiet_seconds=seconds)


def parse_pin(name: str) -> tuple[str, int]:
    """``"PB3"`` -> ``("B", 3)``; raises ValueError with a readable message."""
    n = name.strip().upper()
    if len(n) != 3 or n[0] != "P" or not n[1].isalpha() or not n[2].isdigit() or int(n[2]) > 7:
        raise ValueError(f"bad pin name {name!r}: expected a port pin such as PB3")
    return n[1], int(n[2])

"""Plain Python value types the simulator layer hands upwards.

Nothing here touches the compiled module, so the board model, the CLI and the
unit tests can import these without libsimavr.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = [
    "EepromWrite",
    "Level",
    "PortChange",
    "StopReason",
    "parse_pin",
]


class Level(enum.Enum):
    """What a pin does to the outside world."""

    LOW = "0"  #: driven low (output, PORT bit 0)
    HIGH = "1"  #: driven high (output, PORT bit 1)
    PULLUP = "u"  #: input with the internal pull-up on (weak high)
    Z = "z"  #: input, high impedance


@dataclass(frozen=True, slots=True)
class PortChange:
    """The output registers of one I/O port changed at ``cycle``.

    ``ddr`` and ``port`` are the DDRx and PORTx values after the change. A pin
    is an output when its DDR bit is 1 and then drives its PORT bit; an input
    with its PORT bit set has the pull-up on.
    """

    cycle: int
    port: str  # "B" for PORTB
    ddr: int
    port_value: int

    def level(self, bit: int) -> Level:
        mask = 1 << bit
        if self.ddr & mask:
            return Level.HIGH if self.port_value & mask else Level.LOW
        return Level.PULLUP if self.port_value & mask else Level.Z


@dataclass(frozen=True, slots=True)
class EepromWrite:
    """An EEPROM programming operation in flight (EEPE busy)."""

    address: int
    old: int  #: the byte before the operation
    new: int  #: the byte once the operation completes
    cycles_left: int
    mode: str  #: "erase+write", "erase" or "write"


class StopReason(enum.Flag):
    """Why :meth:`fairdie.sim.Chip.run` returned (several may be set)."""

    DEADLINE = enum.auto()  #: the cycle deadline was reached
    PIN = enum.auto()  #: a watched pin changed level
    PC = enum.auto()  #: the program counter reached the watched address
    QUIET = enum.auto()  #: asleep with no pin change for the quiet time
    HALTED = enum.auto()  #: asleep with interrupts off: nothing can wake it
    CRASHED = enum.auto()  #: simavr stopped the core (bad opcode, bad address)
    OFF = enum.auto()  #: the chip is not powered


def parse_pin(name: str) -> tuple[str, int]:
    """``"PB3"`` -> ``("B", 3)``; raises ValueError with a readable message."""
    n = name.strip().upper()
    if len(n) != 3 or n[0] != "P" or not n[1].isalpha() or not n[2].isdigit() or int(n[2]) > 7:
        raise ValueError(f"bad pin name {name!r}: expected a port pin such as PB3")
    return n[1], int(n[2])

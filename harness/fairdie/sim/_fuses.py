"""The fuse bytes a firmware declares (avr-libc's ``FUSES``: the ELF's ``.fuse``
section), and what they say: the brown-out detector's level above all.

One table per MCU (:data:`MCU_FUSES`) holds what the datasheets' fuse
tables say: how many fuse bytes the chip has (avr-libc's
``FUSE_MEMORY_SIZE``), the factory values (``LFUSE_DEFAULT``, ...) and where
the BODLEVEL bits are, with the level each value selects. A firmware that
declares no fuses (a HEX, or an ELF without ``FUSES``) is taken at the
factory values, and :attr:`Fuses.declared` says so.

    >>> f = fuses("attiny13a", bytes([0x6A, 0xFD]))
    >>> f.bod_mv, f.burn
    (1800, 'lfuse 0x6A hfuse 0xFD')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from fairdie.errors import FirmwareError

__all__ = ["FUSE_NAMES", "MCU_FUSES", "FuseLayout", "Fuses", "fuses"]

#: the fuse bytes in the order avr-libc's ``__fuse`` holds them (the ``.fuse`` section)
FUSE_NAMES = ("lfuse", "hfuse", "efuse")


@dataclass(frozen=True)
class FuseLayout:
    """One MCU's fuses, as its datasheet's fuse tables give them."""

    factory: bytes  #: the factory values, low byte first (its length: the fuse count)
    bod_byte: int  #: which byte holds BODLEVEL (0 low, 1 high, 2 extended)
    bod_shift: int  #: the lowest BODLEVEL bit
    bod_width: int  #: how many BODLEVEL bits
    #: BODLEVEL value -> the trigger level in mV (typical); a value not listed is
    #: "reserved", all ones is "off"
    bod_levels: Mapping[int, int]
    #: the safe operating area: (Hz, mV) corners of "maximum frequency vs. VCC";
    #: between two corners the minimum voltage is linear in the clock
    speed: tuple[tuple[int, int], ...] = ((4_000_000, 1800), (10_000_000, 2700), (20_000_000, 4500))

    @property
    def count(self) -> int:
        return len(self.factory)

    def min_mv(self, f_cpu: int) -> int | None:
        """The lowest supply (mV) the datasheet allows at ``f_cpu`` (None: beyond any)."""
        (f0, v0), rest = self.speed[0], self.speed[1:]
        if f_cpu <= f0:
            return v0
        for f1, v1 in rest:
            if f_cpu <= f1:
                return round(v0 + (v1 - v0) * (f_cpu - f0) / (f1 - f0))
            f0, v0 = f1, v1
        return None


# The speed grades (the default above) are the same on all of these: 0..4 MHz
# at 1.8 V, 0..10 MHz at 2.7 V, 0..20 MHz at 4.5 V.
# ATtiny13(A): hfuse bits 2:1 BODLEVEL1:0; 11 off, 10 1.8 V, 01 2.7 V, 00 4.3 V.
# Factory: lfuse 0x6A (9.6 MHz RC, SUT 64 ms, CKDIV8), hfuse 0xFF.
_TINY13 = FuseLayout(bytes([0x6A, 0xFF]), 1, 1, 2, {0b10: 1800, 0b01: 2700, 0b00: 4300})
# ATtiny25/45/85, ATtiny24A/44A/84A: hfuse bits 2:0 BODLEVEL2:0; 111 off,
# 110 1.8 V, 101 2.7 V, 100 4.3 V (0xx reserved). Factory: lfuse 0x62 (8 MHz RC,
# CKDIV8), hfuse 0xDF (SPIEN), efuse 0xFF.
_TINY_3BIT = FuseLayout(bytes([0x62, 0xDF, 0xFF]), 1, 0, 3, {0b110: 1800, 0b101: 2700, 0b100: 4300})
# ATmega328P: BODLEVEL2:0 in the *extended* fuse, bits 2:0, coded as above.
# Factory: lfuse 0x62, hfuse 0xD9 (SPIEN, BOOTSZ 2048 words), efuse 0xFF.
_MEGA328P = FuseLayout(bytes([0x62, 0xD9, 0xFF]), 2, 0, 3, {0b110: 1800, 0b101: 2700, 0b100: 4300})

#: Fuses of the MCUs the core knows.
MCU_FUSES: Mapping[str, FuseLayout] = {
    "attiny13": _TINY13,
    "attiny13a": _TINY13,
    "attiny25": _TINY_3BIT,
    "attiny45": _TINY_3BIT,
    "attiny85": _TINY_3BIT,
    "attiny84": _TINY_3BIT,
    "attiny84a": _TINY_3BIT,
    "atmega328p": _MEGA328P,
}


@dataclass(frozen=True)
class Fuses:
    """A firmware's fuse bytes on its MCU, and what they select."""

    mcu: str
    values: bytes  #: low, high[, extended]
    declared: bool  #: the ELF declares them (False: the MCU's factory values)
    layout: FuseLayout

    @property
    def low(self) -> int:
        return self.values[0]

    @property
    def high(self) -> int | None:
        return self.values[1] if len(self.values) > 1 else None

    @property
    def extended(self) -> int | None:
        return self.values[2] if len(self.values) > 2 else None

    @property
    def bodlevel(self) -> int:
        """The BODLEVEL bits as a number (all ones: the detector is off)."""
        lay = self.layout
        return self.values[lay.bod_byte] >> lay.bod_shift & ((1 << lay.bod_width) - 1)

    @property
    def bod_on(self) -> bool:
        return self.bodlevel != (1 << self.layout.bod_width) - 1

    @property
    def bod_mv(self) -> int | None:
        """The brown-out detector's trigger level in mV (None: off, or a reserved value)."""
        return self.layout.bod_levels.get(self.bodlevel)

    @property
    def bod(self) -> str:
        """The detector in words: ``"off"``, ``"1.8 V"``, or ``"reserved (BODLEVEL=011)"``."""
        if not self.bod_on:
            return "off"
        mv = self.bod_mv
        if mv is None:
            return f"reserved (BODLEVEL={self.bodlevel:0{self.layout.bod_width}b})"
        return f"{mv / 1000:.1f} V"

    @property
    def source(self) -> str:
        return (
            "declared in the ELF's .fuse section"
            if self.declared
            else f"{self.mcu} factory defaults"
        )

    @property
    def burn(self) -> str:
        """The bytes to burn: ``"lfuse 0x6A hfuse 0xFD"`` (avrdude's names)."""
        return " ".join(f"{n} 0x{v:02X}" for n, v in zip(FUSE_NAMES, self.values, strict=False))

    def with_bod(self, mv: int) -> Fuses:
        """These fuses with the detector at ``mv`` (one of the MCU's levels)."""
        lay = self.layout
        code = next(c for c, v in lay.bod_levels.items() if v == mv)
        mask = ((1 << lay.bod_width) - 1) << lay.bod_shift
        values = bytearray(self.values)
        values[lay.bod_byte] = values[lay.bod_byte] & ~mask & 0xFF | code << lay.bod_shift
        return Fuses(self.mcu, bytes(values), self.declared, lay)

    def safe_bod_mv(self, f_cpu: int) -> int | None:
        """The lowest detector level at or above the minimum supply at ``f_cpu``
        (None: no level is)."""
        need = self.layout.min_mv(f_cpu)
        ok = sorted(v for v in self.layout.bod_levels.values() if need is not None and v >= need)
        return ok[0] if ok else None

    def as_json(self) -> dict[str, object]:
        return {
            **{n: f"0x{v:02X}" for n, v in zip(FUSE_NAMES, self.values, strict=False)},
            "declared": self.declared,
            "bodlevel": self.bodlevel,
            "bod_mv": self.bod_mv,
            "bod_on": self.bod_on,
        }


def fuses(mcu: str, declared: bytes | None) -> Fuses | None:
    """The fuses of a firmware for ``mcu``: ``declared`` (its ``.fuse`` section),
    else the factory values (None: an MCU :data:`MCU_FUSES` does not know).

    A ``.fuse`` section of another length than the MCU's fuse count is a
    one-line :class:`~fairdie.errors.FirmwareError`.
    """
    layout = MCU_FUSES.get(mcu.lower())
    if layout is None:
        return None
    if declared is None:
        return Fuses(mcu.lower(), layout.factory, False, layout)
    if len(declared) != layout.count:
        raise FirmwareError(
            f"a .fuse section of {len(declared)} bytes: the {mcu} has {layout.count} fuse bytes"
        )
    return Fuses(mcu.lower(), bytes(declared), True, layout)

"""What simavr 1.6 does not model on an MCU, and the firmware's first use of it.

A register with no peripheral behind it in simavr stores what the firmware
writes and reads it back, and nothing else happens: a firmware that sets the
clock prescaler runs on at F_CPU, one that switches a timer off through PRR
keeps its timer. That is never silent: the shim hooks those registers (only
those addresses, so a run pays nothing for it elsewhere) and a chip reports
the firmware's first write that sets one of the bits that matter, or its
first read where the read is what goes wrong (a PLL that never locks). Each
is logged once per chip as a warning on the "fairdie" logger and listed in
:attr:`Chip.unmodelled <fairdie.sim.Chip.unmodelled>` (``_chip_unmodelled``).
This module is the table, and loads no compiled code.

The registers come from avr-libc's header for the MCU (:mod:`._regs`), so
each MCU gets the entries it has: BODCR on the ATtiny13A, the BODS bits of
MCUCR on the ATtiny25/45/85, ATtiny24/44/84A and ATmega328P, the PLL and the
USI on the ATtiny parts that have them, SPMCSR where simavr has no
self-programming (every ATtiny core).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["UNMODELLED", "Unmodelled"]


@dataclass(frozen=True, slots=True)
class Unmodelled:
    """A part of the MCU the engine does not model, by its stable short name."""

    name: str  #: "CLKPR", "PRR", "BODCR", ...
    what: str  #: what it is: "clock prescaler"
    effect: str  #: what the engine does instead: "the clock stays F_CPU"
    #: (register, bits that count when a write sets them (empty: any), reads count)
    watches: tuple[tuple[str, tuple[str, ...], bool], ...]

    def as_json(self) -> dict[str, str]:
        return {"name": self.name, "what": self.what, "effect": self.effect}

    def warning(self, mcu: str, verb: str = "writes") -> str:
        return (
            f"{mcu}: firmware {verb} {self.name} ({self.what}), which the engine"
            f" does not model: {self.effect}"
        )


#: every unmodelled part a chip may report, by name
UNMODELLED: dict[str, Unmodelled] = {
    u.name: u
    for u in (
        Unmodelled(
            "PRR",
            "power reduction",
            "the parts it switches off keep running",
            (("PRR", (), False),),
        ),
        Unmodelled("CLKPR", "clock prescaler", "the clock stays F_CPU", (("CLKPR", (), False),)),
        Unmodelled(
            "OSCCAL", "oscillator calibration", "the clock stays F_CPU", (("OSCCAL", (), False),)
        ),
        Unmodelled(
            "BODCR",
            "brown-out detector control",
            "there is no brown-out detector",
            (("BODCR", ("BODS", "BODSE"), False),),
        ),
        Unmodelled(
            "BODS",
            "brown-out detector sleep, MCUCR BODS/BODSE",
            "there is no brown-out detector",
            (("MCUCR", ("BODS", "BODSE"), False),),
        ),
        Unmodelled(
            "PLLCSR",
            "PLL control",
            "the PLL never locks (PLOCK stays 0) and clocks nothing",
            (("PLLCSR", ("PLLE", "PCKE", "LSM"), True),),
        ),
        Unmodelled(
            "USI",
            "universal serial interface",
            "nothing is shifted in or out",
            (("USICR", (), False), ("USIDR", (), True)),
        ),
        Unmodelled(
            "SPMCSR",
            "self-programming",
            "SPM leaves the flash as loaded",
            (("SPMCSR", (), False),),
        ),
    )
}

"""What simavr 1.6 does not know about an MCU's pins: compare outputs and PUD.

Compare outputs (OCnx) take over their pin when the COMnx bits are set.
simavr 1.6 routes them through PORTx, to the wrong pins on the ATtiny84
(OC0A on PB0, OC1A on PB1, OC1B on PB2) and not at all on the ATtiny13.
The pins below are each datasheet's "Alternate Functions of Port" tables;
COMnA1:0 are bits 7:6 and COMnB1:0 bits 5:4 of TCCRnA on all of these parts.
An MCU not listed keeps simavr's own routing (and the README says so).

PUD (pull-up disable) is found in avr-libc's device header, like every other
register and bit name (see ``fairdie.sim._regs``).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ComparePin", "compare_pins"]


@dataclass(frozen=True, slots=True)
class ComparePin:
    timer: str  #: simavr's timer name: "0", "1", "2"
    comp: int  #: 0 for A, 1 for B
    register: str  #: where the COM bits live
    shift: int  #: the COM bits' position
    pin: str  #: the pin OCnx drives, e.g. "PB0"


def _std(timer: str, a: str, b: str) -> tuple[ComparePin, ComparePin]:
    reg = f"TCCR{timer}A"
    return ComparePin(timer, 0, reg, 6, a), ComparePin(timer, 1, reg, 4, b)


_TINYX4 = (*_std("0", "PB2", "PA7"), *_std("1", "PA6", "PA5"))
_MEGAX8 = (*_std("0", "PD6", "PD5"), *_std("1", "PB1", "PB2"), *_std("2", "PB3", "PD3"))
_TABLE: dict[str, tuple[ComparePin, ...]] = {
    "attiny13": _std("0", "PB0", "PB1"),
    "attiny24": _TINYX4,
    "attiny44": _TINYX4,
    "attiny84": _TINYX4,
    # Timer1 of the tinyx5 is an asynchronous timer of another design: only Timer0 here
    "attiny25": _std("0", "PB0", "PB1"),
    "attiny45": _std("0", "PB0", "PB1"),
    "attiny85": _std("0", "PB0", "PB1"),
    "atmega48": _MEGAX8,
    "atmega88": _MEGAX8,
    "atmega168": _MEGAX8,
    "atmega328": _MEGAX8,
}


def compare_pins(mcu: str) -> tuple[ComparePin, ...]:
    """The compare outputs of ``mcu`` (``attiny13a`` as ``attiny13``), or ()."""
    m = mcu.lower()
    for name in (m, m.removesuffix("a"), m.removesuffix("p"), m.removesuffix("pa")):
        if name in _TABLE:
            return _TABLE[name]
    return ()

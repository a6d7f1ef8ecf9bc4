"""Sleep modes by name: what :attr:`Chip.sleep_mode <fairdie.sim.Chip.sleep_mode>`
says and what the SLEEP event's ``b`` field (1 + the SM bits, 0 unknown) means.

The SM bits are found in avr-libc's header for the MCU (in MCUCR or SMCR):
two on the ATtiny parts, three on the ATmega ones, each with the
datasheet's numbering. Pure Python: no simulator needed.
"""

from __future__ import annotations

from fairdie.sim._regs import bit_location

__all__ = ["SLEEP_MODES", "canonical_sleep_mode", "sleep_bits", "sleep_mode_name", "sleep_modes"]

_SLEEP_REGS = ("MCUCR", "SMCR")
#: modes by SM bits: two bits on the ATtiny parts, three on the ATmega ones
_TINY = {0: "idle", 1: "adc", 2: "power-down", 3: "standby"}
_MEGA = {0: "idle", 1: "adc", 2: "power-down", 3: "power-save", 6: "standby", 7: "extended-standby"}
#: every mode name a chip may report
SLEEP_MODES = frozenset(_TINY.values()) | frozenset(_MEGA.values())
#: the datasheets' own spellings, for people who write them
_ALIASES = {
    "adc noise reduction": "adc",
    "adc-noise-reduction": "adc",
    "power down": "power-down",
    "power save": "power-save",
    "extended standby": "extended-standby",
}


def sleep_bits(mcu: str) -> tuple[tuple[int, int] | None, list[tuple[int, int]]]:
    """SE as (register address, bit), and the SM bits from SM0 up (as many
    as the MCU has), from avr-libc's header."""
    se = bit_location(mcu, "SE", _SLEEP_REGS)
    sm: list[tuple[int, int]] = []
    for i in range(3):
        loc = bit_location(mcu, f"SM{i}", _SLEEP_REGS)
        if loc is None:
            break
        sm.append(loc)
    return se, sm


def sleep_modes(mcu: str) -> dict[int, str]:
    """The MCU's modes by SM bits (empty when it has no SM bits)."""
    _, sm = sleep_bits(mcu)
    return {} if not sm else _MEGA if len(sm) == 3 else _TINY


def sleep_mode_name(mcu: str, sm_bits: int) -> str:
    """The name of a mode by its SM bits: ``sleep_mode_name("attiny13a", 2)``
    is ``"power-down"``; a reserved combination is ``"reserved-N"``."""
    return sleep_modes(mcu).get(sm_bits, f"reserved-{sm_bits}")


def canonical_sleep_mode(text: str) -> str | None:
    """A mode's name as the chip reports it, from its name or the datasheet's
    spelling ("ADC noise reduction" is "adc"); None when it names no mode."""
    t = " ".join(text.lower().split())
    t = _ALIASES.get(t, t)
    return t if t in SLEEP_MODES else None

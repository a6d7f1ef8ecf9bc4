"""What the board model knows of each MCU: its port pins, its ADC pins, its
analog comparator's pins and its EEPROM size (the datasheets' pinout and
memory tables).

A board for an MCU not listed may name any port pin (PA0..PZ7); the
simulator then reports what it lacks. Add an MCU by adding it to the four
tables below.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["MCU_ADC_PINS", "MCU_COMPARATOR_PINS", "MCU_EEPROM", "MCU_PINS"]


def _pins(port: str, bits: range) -> frozenset[str]:
    return frozenset(f"P{port}{b}" for b in bits)


_TINYX5 = _pins("B", range(6))  # PB5 is RESET unless RSTDISBL
_TINYX4 = _pins("A", range(8)) | _pins("B", range(4))
_MEGAX8 = _pins("B", range(8)) | _pins("C", range(7)) | _pins("D", range(8))

#: Port pins of the MCUs the board model knows.
MCU_PINS: Mapping[str, frozenset[str]] = {
    "attiny13": _TINYX5,
    "attiny13a": _TINYX5,
    "attiny25": _TINYX5,
    "attiny45": _TINYX5,
    "attiny85": _TINYX5,
    "attiny84": _TINYX4,
    "attiny84a": _TINYX4,
    "atmega328p": _MEGAX8,
}

#: EEPROM bytes of the MCUs the board model knows (a [die] counters table must fit).
MCU_EEPROM: Mapping[str, int] = {
    "attiny13": 64,
    "attiny13a": 64,
    "attiny25": 128,
    "attiny45": 256,
    "attiny85": 512,
    "attiny84": 512,
    "attiny84a": 512,
    "atmega328p": 1024,
}

# the ATtiny13(A) and ATtiny25/45/85 share their pinout: ADC0..3 on PB5, PB2, PB4, PB3
_TINYX5_ADC = {"PB5": 0, "PB2": 1, "PB4": 2, "PB3": 3}
_TINYX4_ADC = {f"PA{i}": i for i in range(8)}
# ADC6 and ADC7 have pins only on the TQFP/QFN packages and no port bit
_MEGAX8_ADC = {f"PC{i}": i for i in range(6)}

#: Single-ended ADC channel of each analog-capable pin of the known MCUs.
MCU_ADC_PINS: Mapping[str, Mapping[str, int]] = {
    "attiny13": _TINYX5_ADC,
    "attiny13a": _TINYX5_ADC,
    "attiny25": _TINYX5_ADC,
    "attiny45": _TINYX5_ADC,
    "attiny85": _TINYX5_ADC,
    "attiny84": _TINYX4_ADC,
    "attiny84a": _TINYX4_ADC,
    "atmega328p": _MEGAX8_ADC,
}

# the analog comparator's inputs ("Alternate Functions of Port" tables): the
# ATtiny13(A) and ATtiny25/45/85 on PB0/PB1, the ATtiny24/44/84(A) on PA1/PA2
# (also ADC1/ADC2), the ATmega48/88/168/328(P) on PD6/PD7
_TINYX5_AIN = {"PB0": "AIN0", "PB1": "AIN1"}
_TINYX4_AIN = {"PA1": "AIN0", "PA2": "AIN1"}
_MEGAX8_AIN = {"PD6": "AIN0", "PD7": "AIN1"}

#: The analog comparator's input (``"AIN0"``, ``"AIN1"``) on each of its pins,
#: for the known MCUs (every one has the comparator).
MCU_COMPARATOR_PINS: Mapping[str, Mapping[str, str]] = {
    "attiny13": _TINYX5_AIN,
    "attiny13a": _TINYX5_AIN,
    "attiny25": _TINYX5_AIN,
    "attiny45": _TINYX5_AIN,
    "attiny85": _TINYX5_AIN,
    "attiny84": _TINYX4_AIN,
    "attiny84a": _TINYX4_AIN,
    "atmega328p": _MEGAX8_AIN,
}

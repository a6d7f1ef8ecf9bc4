"""Sleep modes by name, as the engine reports them (fairdie.sim._sleep): the
SM bits from avr-libc's headers, the datasheets' numbering, and the names a
scenario may use."""

from __future__ import annotations

import pytest

from fairdie.sim import SLEEP_MODES, canonical_sleep_mode, sleep_mode_name, sleep_modes


@pytest.mark.parametrize(
    ("mcu", "bits", "name"),
    [
        ("attiny13a", 0, "idle"),
        ("attiny13a", 1, "adc"),
        ("attiny13a", 2, "power-down"),
        ("attiny85", 3, "standby"),
        ("attiny84a", 2, "power-down"),
        ("atmega328p", 3, "power-save"),
        ("atmega328p", 6, "standby"),
        ("atmega328p", 7, "extended-standby"),
        ("atmega328p", 4, "reserved-4"),
    ],
)
def test_modes_by_sm_bits(mcu: str, bits: int, name: str) -> None:
    assert sleep_mode_name(mcu, bits) == name


def test_tiny_parts_have_four_modes_mega_six() -> None:
    assert len(sleep_modes("attiny13a")) == 4 and len(sleep_modes("atmega328p")) == 6
    assert set(sleep_modes("atmega328p").values()) == SLEEP_MODES


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("power-down", "power-down"),
        ("ADC noise reduction", "adc"),
        ("Extended  Standby", "extended-standby"),
        ("idle", "idle"),
        ("deep", None),
    ],
)
def test_names_and_the_datasheets_spellings(text: str, name: str | None) -> None:
    assert canonical_sleep_mode(text) == name

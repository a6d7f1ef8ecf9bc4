"""The fuse tables (fairdie.sim._fuses): BODLEVEL decoded per MCU, the factory
values when a firmware declares none, and the bytes to burn."""

from __future__ import annotations

import pytest

from fairdie.errors import FirmwareError
from fairdie.sim import MCU_FUSES, fuses


@pytest.mark.parametrize(
    ("mcu", "values", "bod"),
    [
        # ATtiny13A: hfuse bits 2:1
        ("attiny13a", [0x6A, 0xFF], None),
        ("attiny13a", [0x6A, 0xFD], 1800),
        ("attiny13a", [0x6A, 0xFB], 2700),
        ("attiny13a", [0x6A, 0xF9], 4300),
        # ATtiny85 and ATtiny84A: hfuse bits 2:0
        ("attiny85", [0x62, 0xDF, 0xFF], None),
        ("attiny85", [0x62, 0xDE, 0xFF], 1800),
        ("attiny84a", [0xE2, 0xDD, 0xFF], 2700),
        ("attiny84a", [0xE2, 0xDC, 0xFF], 4300),
        # ATmega328P: the extended fuse's bits 2:0; the high fuse says nothing of it
        ("atmega328p", [0xFF, 0xDE, 0xFD], 2700),
        ("atmega328p", [0xFF, 0xD8, 0xFF], None),
        ("atmega328p", [0xFF, 0xDE, 0x06], 1800),
    ],
)
def test_bodlevel_per_mcu(mcu: str, values: list[int], bod: int | None) -> None:
    f = fuses(mcu, bytes(values))
    assert f is not None and f.declared
    assert f.bod_mv == bod
    assert f.bod_on == (bod is not None)
    assert f.bod == ("off" if bod is None else f"{bod / 1000:.1f} V")


def test_reserved_level_is_on_but_named_so() -> None:
    f = fuses("attiny85", bytes([0x62, 0xD8, 0xFF]))  # BODLEVEL 000: reserved
    assert f is not None and f.bod_on and f.bod_mv is None
    assert f.bod == "reserved (BODLEVEL=000)"


def test_factory_values_when_none_declared() -> None:
    for mcu, burn in [
        ("attiny13a", "lfuse 0x6A hfuse 0xFF"),
        ("attiny85", "lfuse 0x62 hfuse 0xDF efuse 0xFF"),
        ("atmega328p", "lfuse 0x62 hfuse 0xD9 efuse 0xFF"),
    ]:
        f = fuses(mcu, None)
        assert f is not None and not f.declared
        assert f.burn == burn
        assert not f.bod_on  # every factory-fresh chip here has the detector off
        assert "factory" in f.source


def test_fuse_count_is_the_mcus() -> None:
    assert {m: lay.count for m, lay in MCU_FUSES.items() if m.startswith("attiny13")} == {
        "attiny13": 2,
        "attiny13a": 2,
    }
    with pytest.raises(FirmwareError, match="2 fuse bytes"):
        fuses("attiny13a", bytes([0x6A, 0xFD, 0xFF]))


def test_unknown_mcu_has_no_fuses() -> None:
    assert fuses("atxmega128a1", None) is None


def test_json_names_the_bytes() -> None:
    f = fuses("attiny13a", bytes([0x6A, 0xFD]))
    assert f is not None
    assert f.as_json() == {
        "lfuse": "0x6A",
        "hfuse": "0xFD",
        "declared": True,
        "bodlevel": 2,
        "bod_mv": 1800,
        "bod_on": True,
    }


def test_the_minimum_supply_follows_the_clock() -> None:
    lay = MCU_FUSES["attiny13a"]
    assert lay.min_mv(1_200_000) == lay.min_mv(4_000_000) == 1800
    assert lay.min_mv(9_600_000) == 2640  # 1.8 V + 0.9 V x 5.6/6
    assert lay.min_mv(10_000_000) == 2700 and lay.min_mv(20_000_000) == 4500
    assert lay.min_mv(25_000_000) is None


def test_the_safe_level_and_the_bytes_that_set_it() -> None:
    off = fuses("attiny13a", None)
    assert off is not None
    assert off.safe_bod_mv(1_200_000) == 1800 and off.with_bod(1800).burn == "lfuse 0x6A hfuse 0xFD"
    assert off.safe_bod_mv(9_600_000) == 2700 and off.with_bod(2700).burn == "lfuse 0x6A hfuse 0xFB"
    assert off.safe_bod_mv(20_000_000) is None  # 4.5 V needed: above the 4.3 V level
    m = fuses("atmega328p", bytes([0xFF, 0xDE, 0xFF]))
    assert m is not None and m.with_bod(2700).burn == "lfuse 0xFF hfuse 0xDE efuse 0xFD"

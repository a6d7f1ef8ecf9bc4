"""Parts of the MCU simavr 1.6 does not model are never silent: the chip
names each the firmware uses (`Chip.unmodelled`) and warns once, on the
`unmodelled` test firmware (CLKPR, PRR, and with UNMODELLED_BOD=1 the
brown-out detector's sleep bits) built for each MCU the boards know."""

from __future__ import annotations

import logging

import pytest

from fairdie.sim import UNMODELLED

pytestmark = pytest.mark.sim

_BOD = {"attiny13a": "BODCR", "attiny85": "BODS", "attiny84a": "BODS", "atmega328p": "BODS"}


@pytest.mark.parametrize("mcu", sorted(_BOD))
def test_each_mcu_names_what_its_firmware_writes(make_chip, mcu):
    chip = make_chip("unmodelled", mcu=mcu, UNMODELLED_BOD=1)
    assert chip.unmodelled == ()  # nothing ran yet
    chip.run(seconds=0.001)
    assert chip.high("PB0")  # it ran on, past the writes
    assert set(chip.unmodelled) == {"CLKPR", "PRR", _BOD[mcu]}


def test_a_warning_once_per_chip_with_what_the_engine_does_instead(make_chip, caplog):
    caplog.set_level(logging.WARNING, logger="fairdie")
    chip = make_chip("unmodelled")
    chip.run(seconds=0.001)
    chip.power_off()
    chip.power_on()  # the firmware writes them again: no second warning
    chip.run(seconds=0.001)
    lines = [r.getMessage() for r in caplog.records if r.name == "fairdie"]
    assert sorted(lines) == [
        "attiny13a: firmware writes CLKPR (clock prescaler), which the engine does not"
        " model: the clock stays F_CPU",
        "attiny13a: firmware writes PRR (power reduction), which the engine does not"
        " model: the parts it switches off keep running",
    ]
    assert {u.name for u in UNMODELLED.values()} >= {"CLKPR", "PRR", "BODCR"}


def test_a_firmware_that_uses_none_of_them_reports_none(make_chip, caplog):
    caplog.set_level(logging.WARNING, logger="fairdie")
    chip = make_chip("irq")
    chip.run(seconds=0.01)
    assert chip.unmodelled == () and not caplog.records


def test_a_read_counts_where_it_matters_a_pll_that_never_locks(make_chip, caplog):
    caplog.set_level(logging.WARNING, logger="fairdie")
    chip = make_chip("unmodelled", mcu="attiny85")
    assert chip.read_io("PLLCSR") & 1 == 0  # PLOCK: never set
    chip.run(10)
    assert chip.unmodelled == ("PLLCSR",)
    assert "firmware reads PLLCSR (PLL control)" in caplog.records[0].getMessage()


def test_a_write_that_sets_no_watched_bit_does_not_count(make_chip):
    chip = make_chip("unmodelled", mcu="attiny85", power=False)
    chip.write_io("MCUCR", 0x20)  # SE alone: the sleep enable, modelled
    chip.write_io("PRR", 0)  # everything on, as after reset
    assert chip.unmodelled == ()

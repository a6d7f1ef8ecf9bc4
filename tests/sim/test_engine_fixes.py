"""Each of our fixes to simavr 1.6, shown to matter: every fix is listed, and
with one switched off (``Chip(simavr_fixes=...)``, all but it) the chip does
what simavr alone does, where with it the chip does what the datasheet says:
interrupt response times, the watchdog's interrupt mode, ``sbi`` on PINx, sleep,
INT0 polling, reset, PORF, EEPROM timing, SRAM at power-on (the engine's other
exact expectations are in test_engine.py)."""

from __future__ import annotations

import itertools
import time

import pytest
from simsupport import busy_spans

from fairdie.sim import Chip

# ---- each simavr 1.6 fix, shown to matter --------------------------------------------

FIXES = {
    "sleep", "extint", "ioend", "porf", "eeprom", "sram", "irq", "pin_bit", "wdt",
    "pullup", "compare", "memory", "adc", "sleep_modes",
}  # fmt: skip
ALL_BUT = {f: FIXES - {f} for f in FIXES}


def test_every_fix_is_listed():
    from fairdie.sim._chip import SIMAVR_FIXES

    assert set(SIMAVR_FIXES) == FIXES


def irq_latencies(chip: Chip) -> list[int]:
    """Cycles from each PB1 edge to the ISR's toggle of PB0 (irq firmware)."""
    out, edge = [], None
    for ch in chip.pin_changes("B"):
        if (ch.state ^ ch.before) & 0b10:
            edge = ch.cycle
        if (ch.state ^ ch.before) & 0b01 and edge is not None:
            out.append(ch.cycle - edge)
            edge = None
    return out


@pytest.mark.parametrize(("fixes", "cycles"), [(None, 8), (ALL_BUT["irq"], 4)])
def test_interrupt_response_time(make_chip, fixes, cycles):
    # sbi (2) + response (4) + the vector's rjmp (2); simavr alone enters at no cost
    chip = make_chip("irq", IRQ_SELF=1, chip_args={"simavr_fixes": fixes})
    chip.run(2000)
    lat = irq_latencies(chip)
    assert len(lat) > 20
    assert set(lat[1:]) == {cycles}


@pytest.mark.parametrize(("fixes", "cycles"), [(None, 10), (ALL_BUT["irq"], 2)])
def test_interrupt_response_from_sleep(make_chip, fixes, cycles):
    # response (4) + 4 more to wake + the vector's rjmp (2), from the edge
    chip = make_chip("irq", chip_args={"simavr_fixes": fixes})
    chip.run(500)
    for level in (True, False, True, False):
        assert chip.sleeping
        edge = chip.cycle
        chip.drive("PB1", level)
        chip.run(200)
        assert [c.cycle - edge for c in chip.pin_changes() if c.cycle > edge][:1] == [cycles]


@pytest.mark.parametrize("rearm", [0, 1])
def test_watchdog_interrupt_mode_keeps_interrupting(make_chip, rearm):
    chip = make_chip("wdt", WDT_REARM=rearm)
    chip.run(seconds=10)
    assert chip.read_var("wakeups") == 9
    assert chip.read_io("WDTCR") & (1 << 6)  # WDTIE still set


def test_without_wdt_fix_the_watchdog_interrupt_is_one_shot(make_chip):
    broken = make_chip("wdt", chip_args={"simavr_fixes": ALL_BUT["wdt"]})
    rearmed = make_chip("wdt", WDT_REARM=1, chip_args={"simavr_fixes": ALL_BUT["wdt"]})
    for chip in (broken, rearmed):
        chip.run(seconds=10)
    assert broken.read_var("wakeups") == 1
    assert rearmed.read_var("wakeups") == 9


def test_without_pin_bit_fix_sbi_on_pin_toggles_other_pins(make_chip):
    fixed = make_chip("irq", IRQ_SELF=1)
    broken = make_chip("irq", IRQ_SELF=1, chip_args={"simavr_fixes": ALL_BUT["pin_bit"]})
    for chip in (fixed, broken):
        chip.run(40)
    # the ISR's `sbi PINB,0` ran while PB1 was high: only PB0 may toggle
    assert fixed.port_regs("B")[1] == 0b11
    assert broken.port_regs("B")[1] == 0b01


def test_without_sleep_fix_the_host_sleeps(make_chip):
    chip = make_chip("wdt", chip_args={"simavr_fixes": ALL_BUT["sleep"]})
    t = time.perf_counter()
    chip.run(seconds=0.3)
    assert time.perf_counter() - t >= 0.2  # simavr's default sleeps in wall-clock time


def test_without_extint_fix_sleep_steps_every_cycle(make_chip):
    fixed = make_chip("wdt")
    broken = make_chip("wdt", chip_args={"simavr_fixes": ALL_BUT["extint"]})
    for chip in (fixed, broken):
        chip.drive("PB1", True)  # INT0 pressed low, as a button to ground would
        chip.drive("PB1", False)
        chip.run(seconds=0.5)
    assert fixed.sleep_steps < 10
    assert broken.sleep_steps > 100_000  # PB1 low re-arms a one-cycle poll


def test_without_ioend_fix_reset_keeps_io_and_kills_the_watchdog(make_chip):
    chip = make_chip("wdt", chip_args={"simavr_fixes": ALL_BUT["ioend"]})
    chip.run(seconds=1.5)
    chip.power_off()
    chip.power_on()
    assert chip.read_io("WDTCR") != 0
    chip.run(seconds=2.5)
    assert chip.read_var("wakeups") == 0


def test_without_porf_fix_no_reset_flag(make_chip):
    assert make_chip("wdt", chip_args={"simavr_fixes": ALL_BUT["porf"]}).read_io("MCUSR") == 0
    assert make_chip("wdt").read_io("MCUSR") == 1


def test_without_eeprom_fix_writes_are_instant_and_ignore_eepm(make_chip):
    chip = make_chip("eeprom", power=False, chip_args={"simavr_fixes": ALL_BUT["eeprom"]})
    chip.write_eeprom(0, bytes([0x00, 0x00, 0xF3]))
    chip.power_on()
    chip.run(seconds=0.02)
    assert chip.eeprom[:3] != bytes([0x5A, 0xFF, 0x03])
    assert busy_spans(chip) == []


def test_without_sram_fix_sram_survives_power_cut(make_chip):
    chip = make_chip("busy", chip_args={"simavr_fixes": ALL_BUT["sram"]})
    chip.run(1000)
    sram = (chip.sram_start, chip.ramend + 1 - chip.sram_start)
    before = chip.read_data(*sram)
    chip.power_off()
    chip.power_on()
    assert chip.read_data(*sram) == before


@pytest.mark.parametrize(("fixes", "loop"), [(None, 46), (ALL_BUT["irq"], 38)])
def test_interrupt_round_trip_costs_the_response_once(make_chip, fixes, loop):
    # main loop: sbi, 8 nop, cbi, 8 nop, rjmp = 22 cycles, and two INT0 round
    # trips of response (4) + rjmp (2) + sbi (2) + reti (4) = 12 each: 46. RETI
    # costs no response time (simavr alone charges neither: 22 + 2 * 8 = 38)
    chip = make_chip("irq", IRQ_SELF=1, chip_args={"simavr_fixes": fixes})
    chip.run(3000)
    t = [c.cycle for c in chip.pin_changes("B") if 0 in c.changed_bits()]
    assert {b - a for a, b in itertools.pairwise(t[2::2])} == {loop}

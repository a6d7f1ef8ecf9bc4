"""The one pin model: chip side (DDR, PORT, pull-up, PUD, compare outputs)
and the outside world (driven, open, pulled), on small firmwares.
"""

from __future__ import annotations

import itertools

import pytest

from fairdie.sim import Level, StopReason, Until
from fairdie.sim._chip import SIMAVR_FIXES

ALL = set(SIMAVR_FIXES)


def _counts(chip):
    return chip.read_var("samples"), chip.read_var("lows")


def _lows_while(chip, cycles: int = 20_000) -> float:
    """The fraction of the echo firmware's passes that read PB3 low: 0.0 or
    1.0 when every pass agrees (the two counters are read between passes, so
    one pass in progress may be counted in one and not yet the other)."""
    chip.run(100)  # let a pass that read the pin before the change finish
    s0, l0 = _counts(chip)
    chip.run(cycles)
    s1, l1 = _counts(chip)
    lows, samples = (l1 - l0) % 65536, (s1 - s0) % 65536
    assert samples > 500
    if lows <= 1:
        return 0.0
    if abs(lows - samples) <= 1:
        return 1.0
    return lows / samples


def test_input_with_pull_up_copied_to_an_output(make_chip):
    chip = make_chip("echo")
    for power_cycle in range(3):
        chip.run(2000)
        # open: the internal pull-up holds it high
        assert chip.level("PB3") is Level.PULLUP and chip.high("PB3")
        assert _lows_while(chip) == 0.0 and chip.level("PB0") is Level.HIGH
        # driven low from outside while the firmware writes PORTB every pass
        chip.drive("PB3", False)
        assert chip.level("PB3") is Level.LOW
        assert _lows_while(chip) == 1.0 and chip.level("PB0") is Level.LOW
        chip.drive("PB3", True)
        assert _lows_while(chip) == 0.0 and chip.level("PB0") is Level.HIGH
        # released: the pull-up again
        chip.drive("PB3", None)
        assert _lows_while(chip) == 0.0 and chip.level("PB3") is Level.PULLUP
        # an external pull-down is the stronger resistor
        chip.pull("PB3", "down")
        assert _lows_while(chip) == 1.0 and chip.level("PB3") is Level.PULLDOWN
        chip.pull("PB3", None)
        assert _lows_while(chip) == 0.0
        if power_cycle == 1:  # a drive outlasts a power cycle, as a wire does
            chip.drive("PB3", False)
        chip.power_off()
        assert chip.level("PB0") is Level.Z
        chip.power_on()
        if power_cycle == 1:
            chip.run(2000)
            assert _lows_while(chip) == 1.0
            chip.drive("PB3", None)


def test_without_pullup_fix_a_held_button_reads_high(make_chip):
    chip = make_chip("echo", chip_args={"simavr_fixes": ALL - {"pullup"}})
    chip.run(2000)
    chip.drive("PB3", False)
    # simavr re-applies the pull-up on every PORTB write: the press is lost
    assert _lows_while(chip) < 0.01
    chip.power_off()
    chip.power_on()
    chip.run(2000)
    chip.drive("PB3", None)  # released and pulled up, yet it reads low
    assert _lows_while(chip) > 0.99


def test_pud_disables_every_pull_up(make_chip):
    chip = make_chip("echo")
    chip.run(2000)
    assert chip.level("PB3") is Level.PULLUP
    chip.write_io("MCUCR", chip.read_io("MCUCR") | 1 << 6)  # PUD
    assert chip.level("PB3") is Level.Z
    assert _lows_while(chip) == 1.0


def test_timer1_toggles_oc1b_on_the_attiny84a(make_chip):
    top = 199
    chip = make_chip("tone", TONE_TOP=top)
    chip.run(100 * (top + 1))
    edges = [c.cycle for c in chip.pin_changes("A") if 5 in c.changed_bits()]
    assert len(edges) >= 90
    assert {b - a for a, b in itertools.pairwise(edges[1:])} == {top + 1}
    # the pin is the datasheet's PA5, driven by the timer: PORTA is untouched
    assert chip.port_regs("A")[1] == 0
    assert chip.level("PA5") in (Level.HIGH, Level.LOW)
    before = chip.high("PA5")
    assert chip.run(10 * top, until=Until.pin("PA5")) == StopReason.PIN
    assert chip.high("PA5") != before


def test_timer0_toggles_oc0a_on_the_attiny13a(make_chip):
    top = 49
    chip = make_chip("tone", mcu="attiny13a", TONE_TOP=top)
    chip.run(40 * (top + 1) * 8)
    edges = [c.cycle for c in chip.pin_changes("B") if 0 in c.changed_bits()]
    assert {b - a for a, b in itertools.pairwise(edges[1:])} == {(top + 1) * 8}


@pytest.mark.parametrize("mcu", ["attiny84a", "attiny13a"])
def test_without_compare_fix_the_compare_output_is_invisible(make_chip, mcu):
    chip = make_chip("tone", mcu=mcu, chip_args={"simavr_fixes": ALL - {"compare"}})
    pin = "PA5" if mcu == "attiny84a" else "PB0"
    chip.run(50_000)
    port, bit = pin[1], int(pin[2])
    assert [c for c in chip.pin_changes(port) if bit in c.changed_bits()][1:] == []
    r = chip.run(20_000, until=Until.pin(pin))
    assert StopReason.DEADLINE in r and StopReason.PIN not in r


def test_pin_model_feeds_vcd_and_leds(make_chip, tmp_path):
    chip = make_chip("tone", mcu="attiny13a", TONE_TOP=49)
    chip.set_leds([("PB0", "GND"), ("VCC", "PB0")])
    chip.leds_restart()
    start = chip.cycle
    chip.run(400 * 30)
    lit = chip.leds_lit_cycles(start + 800, start + 800 + 8000)
    assert lit == [4000, 4000]  # a square wave: half the time each
    path = chip.write_vcd(tmp_path / "t.vcd", pins=["PB0"], signals=["sleep"])
    text = path.read_text()
    toggles = [c for c in chip.pin_changes("B") if 0 in c.changed_bits()]
    assert text.count("\n1!") + text.count("\n0!") >= len(toggles) - 1


def test_where_chip_and_world_both_drive_the_chip_wins(make_chip):
    chip = make_chip("echo")
    chip.run(2000)  # PB0 is an output, high (PB3 pulled up)
    chip.drive("PB0", False)
    assert chip.level("PB0") is Level.HIGH and chip.high("PB0")
    state = chip.port_state("B")
    assert state >> 8 & 1 and state >> 16 & 1  # both drive it; the trace says so


def test_a_compare_output_keeps_toggling_while_halted(make_chip):
    chip = make_chip("tone", TONE_TOP=99)  # sleeps with interrupts off
    chip.run(5000)
    assert chip.sleeping
    before = len([c for c in chip.pin_changes("A") if 5 in c.changed_bits()])
    chip.run(2000)
    after = len([c for c in chip.pin_changes("A") if 5 in c.changed_bits()])
    assert after - before == 20

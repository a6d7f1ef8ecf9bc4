"""Sleep modes as the datasheet has them (the `sleep_modes` fix), on the
`sleep` test firmware: a 1 kHz Timer0 interrupt, then SLEEP in power-down
(or idle) with a pin change on PB1 as the wake-up."""

from __future__ import annotations

import pytest

from fairdie.sim import EventKind
from fairdie.sim._chip import SIMAVR_FIXES

WITHOUT_FIX = set(SIMAVR_FIXES) - {"sleep_modes"}

pytestmark = pytest.mark.sim


def test_power_down_stops_the_timer_until_a_pin_change_wakes_it(make_chip):
    chip = make_chip("sleep")
    chip.drive("PB1", True)
    chip.run(seconds=0.05)
    assert chip.sleep_mode == "power-down" and chip.sleeping
    assert (chip.read_var("ticks"), chip.read_var("wakes"), chip.read_var("loops")) == (0, 0, 0)
    assert chip.sleep_steps <= 3  # nothing is left to wake it: one fast-forward
    sleep = next(chip.trace.events(EventKind.SLEEP))
    assert sleep.b == 1 + 2  # power-down: SM bits 10

    chip.drive("PB1", False)
    chip.run(seconds=0.01)
    # awake only for the ISR and one pass of the loop, then power-down again
    assert (chip.read_var("wakes"), chip.read_var("loops")) == (1, 1)
    assert chip.read_var("ticks") == 0 and chip.sleep_mode == "power-down"


def test_idle_keeps_the_timer_waking_it(make_chip):
    chip = make_chip("sleep", SLEEP_IDLE=1)
    chip.run(seconds=0.05)
    assert chip.read_var("ticks") in (49, 50)
    assert chip.read_var("loops") == chip.read_var("ticks")
    assert chip.sleep_mode == "idle"


def test_sleep_without_se_is_a_no_op(make_chip):
    fixed = make_chip("sleep", SLEEP_NO_SE=1)
    broken = make_chip("sleep", SLEEP_NO_SE=1, chip_args={"simavr_fixes": WITHOUT_FIX})
    for chip in (fixed, broken):
        chip.drive("PB1", True)
        chip.run(seconds=0.005)
    assert not fixed.sleeping and fixed.sleep_mode is None
    assert not list(fixed.trace.events(EventKind.SLEEP))
    assert fixed.read_var("loops") > 100 * fixed.read_var("ticks") > 0
    # simavr alone sleeps at every SLEEP: the timer wakes it once a millisecond
    assert broken.read_var("loops") == broken.read_var("ticks") in (4, 5)


def test_without_sleep_modes_fix_power_down_wakes_on_every_timer_tick(make_chip):
    chip = make_chip("sleep", chip_args={"simavr_fixes": WITHOUT_FIX})
    chip.drive("PB1", True)
    chip.run(seconds=0.05)
    assert chip.read_var("ticks") in (49, 50)
    assert chip.read_var("loops") == chip.read_var("ticks")
    assert chip.sleep_mode == "power-down"  # the mode is still read, and ignored

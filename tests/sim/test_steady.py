"""One rule for a steady symbol (fairdie.device.steady_symbol): after power-on a
symbol counts once an LED has been lit a whole persistence window; on a running
device, once the last two windows read the same."""

from __future__ import annotations

import pytest

from fairdie.device import steady_symbol
from fairdie.subjects.die import Die

pytestmark = pytest.mark.sim


def test_a_face_counts_once_lit_a_whole_window() -> None:
    die = Die(board="die-charlieplex", seed=1)  # multiplexed: a window shows every LED
    die.power_on()
    chip = die.chip
    while die.first_lit() is None:
        chip.run(seconds=0.001)
    assert steady_symbol(die, die.faces, from_power_on=True) == "off"  # just lit
    chip.run(cycles=die.window)
    face = steady_symbol(die, die.faces, from_power_on=True)
    assert face in {"1", "2", "3", "4", "5", "6"} and face == die.display()


def test_a_running_display_must_read_the_same_twice() -> None:
    die = Die(board="die-direct", seed=1)
    die.power_on()
    chip = die.chip
    while die.first_lit() is None:
        chip.run(seconds=0.001)
    chip.run(cycles=die.window // 2)
    assert die.display().isdigit()  # an eye sees the face already...
    assert steady_symbol(die, die.faces) == "off"  # ...but the window before was dark
    chip.run(cycles=2 * die.window)
    face = die.display()
    assert face.isdigit() and steady_symbol(die, die.faces) == face

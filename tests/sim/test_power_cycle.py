"""A press of a power switch in one C call (``Chip.power_cycle``) is the press
made step by step from Python: the same cycles, LEDs, trace and EEPROM; the
LEDs seen in C follow the board's rule; a die's roll returns what the step
by step roll returned."""

from __future__ import annotations

import pickle
from dataclasses import FrozenInstanceError
from typing import Any

import numpy as np
import pytest

from fairdie.device import steady_symbol
from fairdie.errors import FairdieError, SimulationError
from fairdie.noise import Floating, Hum
from fairdie.subjects.die import Die, Press

pytestmark = pytest.mark.sim

BOARDS = ("die-direct", "die-charlieplex")


def twins(board: str, seed: int = 4) -> tuple[Die, Die]:
    return Die(board=board, seed=seed), Die(board=board, seed=seed)


def step_by_step(die: Die, steps: tuple[int, ...]) -> tuple[list[int], list[int], int | None]:
    """What power_cycle does, by the calls it stands for."""
    chip, leds = die.chip, die.leds
    die.power_on()
    on = chip.cycle
    at, seen = [], []
    for n in steps:
        chip.run(n)
        end = chip.cycle
        at.append(end)
        seen.append(
            chip.leds_seen(max(on, end - die.window), end, relative=leds.relative, floor=leds.floor)
        )
    first = die.first_lit()
    chip.power_off()
    return at, seen, first


@pytest.mark.parametrize("board", BOARDS)
def test_a_power_cycle_is_the_press_made_step_by_step(board: str) -> None:
    ours, theirs = twins(board)
    steps_tried = ((120_000, 120_000), (0, 5, 30_000), (50_000,), tuple(range(1, 12_000, 1_000)))
    for k, steps in enumerate(steps_tried):
        for die in (ours, theirs):
            die.noise.seek(k)  # type: ignore[union-attr]
        press = ours.power_cycle(steps)
        at, seen, first = step_by_step(theirs, steps)
        assert press.at == tuple(at) and press.seen == tuple(seen) and press.first_lit == first
        assert press.on == ours.chip.power_on_cycle == theirs.chip.power_on_cycle
        assert ours.chip.cycle == theirs.chip.cycle and not ours.chip.powered
        assert ours.chip.eeprom == theirs.chip.eeprom
        assert ours.chip.trace.raw() == theirs.chip.trace.raw()
        assert ours.chip.power_ons == theirs.chip.power_ons
    assert any(press.seen)  # LEDs were seen lit


@pytest.mark.parametrize("board", BOARDS)
def test_the_leds_seen_in_c_follow_the_boards_rule(board: str) -> None:
    die = Die(board=board, seed=2)
    die.power_on()
    chip, leds = die.chip, die.leds
    rng = np.random.default_rng(0)
    masks = set()
    for _ in range(40):
        chip.run(int(rng.integers(1, die.window)))
        end = chip.cycle
        start = max(die.chip.power_on_cycle, end - int(rng.integers(1, 2 * die.window)))
        seen = chip.leds_seen(start, end, relative=leds.relative, floor=leds.floor)
        assert leds.lit(seen) == leds.visible_cycles(chip.leds_lit_cycles(start, end), end - start)
        masks.add(seen)
    assert len(masks) > 1  # dark and lit both read
    assert chip.leds_seen(chip.cycle, chip.cycle, relative=0.25, floor=0.02) == 0
    with pytest.raises(SimulationError, match="after now"):
        chip.leds_seen(0, chip.cycle + 1, relative=0.25, floor=0.02)


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize("hold", [0.05, 0.1, 0.2, 0.33])
def test_a_roll_returns_what_the_step_by_step_roll_returned(board: str, hold: float) -> None:
    ours, theirs = twins(board, seed=3)
    for _ in range(6):
        press = ours.roll(hold)
        # the roll as it was made before it was one C call
        theirs.noise.seek(theirs.presses)  # type: ignore[union-attr]
        theirs.presses += 1
        theirs.power_on()
        chip = theirs.chip
        settle = min(hold, theirs.settle_s)
        chip.run(seconds=settle)
        shown = steady_symbol(theirs, theirs.faces, from_power_on=True)
        if hold > settle:
            chip.run(seconds=hold - settle)
        end = theirs.display()
        codes = chip.adc_codes()
        chip.power_off()
        assert press == Press(
            int(shown) if shown.isdigit() else None, end, theirs.counts, codes, hold
        )
        assert ours.chip.cycle == chip.cycle and ours.chip.eeprom == chip.eeprom


def test_a_press_reads_its_counts_from_the_image_it_left() -> None:
    die = Die(board="die-direct", seed=5)
    press = die.roll()
    image = die.chip.eeprom
    die.roll()  # the die moves on: the press keeps its own image
    assert die.model is not None
    assert press.counts == die.model.table(image) and sum(press.counts or ()) > 0
    same = Press(press.face, press.display, press.counts, press.adc_codes, press.hold_s)
    assert same == press and hash(same) == hash(press)
    assert pickle.loads(pickle.dumps(press)) == press
    assert repr(press).startswith(f"Press(face={press.face!r}, display={press.display!r},")
    assert press != Press(press.face, press.display, (9,) * 6, press.adc_codes, press.hold_s)
    with pytest.raises(FrozenInstanceError):
        press.face = 1  # type: ignore[misc]


def watched(kind: type[Any], log: list[tuple[int, bool]]) -> type[Any]:
    """``kind`` noting, at each block it gives, the press and whether the chip was powered."""

    class Watched(kind):  # type: ignore[misc,valid-type]
        die: Die | None = None

        def next_values(self, channel: int, n: int) -> Any:
            assert self.die is not None
            log.append((self.die.presses, self.die.chip.powered))
            return super().next_values(channel, n)

    return Watched


def test_a_press_asks_its_noise_ahead_of_the_power_on_unless_it_reads_a_clock() -> None:
    for kind, args, ahead in ((Floating, (1, 3000), True), (Hum, (50.0, 1, 3000), False)):
        log: list[tuple[int, bool]] = []
        noise = watched(kind, log)(*args)
        die = Die(board="die-direct", noise=noise, seed=1)
        noise.die = die
        for _ in range(5):
            die.roll()
        firsts = {press: powered for press, powered in reversed(log)}  # each press's first
        assert len(firsts) == 5
        assert all(powered != ahead for powered in firsts.values()), kind


def test_a_power_cycle_refuses_a_powered_chip_and_bad_steps() -> None:
    die = Die(board="die-direct", seed=1)
    for steps in ((), (-1,), (1.5,)):
        with pytest.raises(FairdieError, match="steps"):
            die.power_cycle(steps)  # type: ignore[arg-type]
    die.power_on()
    with pytest.raises(SimulationError, match="already powered"):
        die.power_cycle((10,))


def test_a_press_reads_its_codes_from_the_trace_it_left() -> None:
    die = Die(board="die-direct", seed=5)
    press = die.roll()
    codes = die.chip.adc_codes()
    die.roll()  # the die moves on (a power-on clears the chip's trace): the press keeps its own
    assert press.adc_codes == codes and len(codes) > 10
    assert press.adc_codes != die.chip.adc_codes()


def test_a_power_cycle_runs_the_steps_it_is_given_each_time() -> None:
    ours, theirs = twins("die-direct", seed=2)
    steps = [5000, 1000]
    again = (7000,)
    for k in range(3):
        for mine in (steps, steps, again, again, (7000 + k,)):
            fresh = list(mine)
            assert ours.power_cycle(mine) == theirs.power_cycle(fresh)
            steps[1] += 300  # the same list, changed in place
    assert ours.chip.eeprom == theirs.chip.eeprom

"""Presses a person makes, on a die whose only chance is when it is pressed
(button_die: its firmware stirs its millisecond counter and the timer's count
at each edge into its state)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fairdie.board import load_board
from fairdie.device import Device
from fairdie.errors import FairdieError
from fairdie.sim import Chip
from fairdie.stimulus import FIXED, PressTime, TimingError, depends_on_seed, parse_timing
from fairdie.toolchain import firmware_dir

BOARD = firmware_dir() / "tests" / "button_die" / "board.toml"
QUICK = "human:interval=0.3,hold=0.1"  # a quick person: shorter runs, the same shape


@pytest.fixture(scope="module")
def elf(build_test_firmware: Callable[..., Any]) -> Path:
    return Path(build_test_firmware("button_die").elf)


def die(elf: Path) -> Device:
    board = load_board(BOARD)  # its ELF names the MCU in its device note; the board, the clock
    dev = Device(Chip(elf, f_cpu=board.f_cpu), board)
    dev.power_on()
    dev.chip.run(seconds=0.05)
    return dev


def faces(elf: Path, seed: int, timing: str = QUICK, n: int = 60) -> list[str]:
    dev = die(elf)
    return [dev.read() for _ in dev.press_many("roll", n, timing=timing, seed=seed)]


def test_faces_follow_the_seed_of_a_persons_timing(elf: Path) -> None:
    one = faces(elf, 1)
    assert one == faces(elf, 1)  # reproducible from the seed
    assert one != faces(elf, 2)
    assert set(one) == {"1", "2", "3", "4", "5", "6"}
    assert depends_on_seed(lambda seed: faces(elf, seed, n=10))


def test_a_constant_timing_rolls_the_same_faces_under_any_seed(elf: Path) -> None:
    fixed = faces(elf, 1, "fixed")
    assert fixed == faces(elf, 2, "fixed")
    assert not depends_on_seed(lambda seed: faces(elf, seed, "fixed", n=10), seeds=(3, 4, 5))
    assert fixed != faces(elf, 1)  # the same seed, timed by a person


def test_presses_run_their_drawn_times(elf: Path) -> None:
    dev = die(elf)
    start = dev.chip.cycle
    drawn = list(dev.press_many("roll", 5, timing=parse_timing(QUICK), seed=9))
    assert drawn == list(itertools.islice(parse_timing(QUICK).presses(9), 5))
    seconds = sum(p.hold + p.interval for p in drawn)
    assert (dev.chip.cycle - start) / dev.chip.frequency == pytest.approx(seconds, abs=1e-4)
    assert not dev.is_pressed("roll")
    assert list(dev.press_many("roll", 2, timing=FIXED)) == [PressTime(0.1, 0.5)] * 2


def test_press_many_checks_its_arguments_when_called(elf: Path) -> None:
    dev = die(elf)
    with pytest.raises(FairdieError, match="no button 'go'"):
        dev.press_many("go", 3)
    with pytest.raises(TimingError, match="bad press timing 'robot'"):
        dev.press_many("roll", 3, timing="robot")
    with pytest.raises(FairdieError, match="whole number >= 0, not -1"):
        dev.press_many("roll", -1)
    assert list(dev.press_many("roll", 0)) == []

"""A board whose buttons share their pins with LEDs: Lights Out on a line of
five (ATtiny85, 8 MHz), the firmware reading the buttons with the pins as
inputs and lighting the LEDs with them as outputs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fairdie.board import load_board
from fairdie.device import Device
from fairdie.sim import Chip, Level
from fairdie.toolchain import firmware_dir

BOARD = firmware_dir() / "tests" / "lightsout" / "board.toml"
START = {"l1", "l3"}


@pytest.fixture(scope="module")
def elf(build_test_firmware: Callable[..., Any]) -> Any:
    b = build_test_firmware("lightsout")
    assert b.flash_bytes <= b.flash_budget
    return b.elf


def game(elf: Any) -> Device:
    dev = Device(Chip(elf), load_board(BOARD))
    dev.power_on()
    dev.chip.run(seconds=0.05)
    return dev


def press(dev: Device, n: int) -> set[str]:
    dev.press(f"b{n}", hold=0.05)
    dev.chip.run(seconds=0.03)
    return set(dev.lit())


def test_the_board_says_its_buttons_share_the_led_pins() -> None:
    board = load_board(BOARD)
    assert (board.mcu, board.f_cpu, board.led_drive) == ("attiny85", 8_000_000, "direct")
    assert [(b.pin, b.shares) for b in board.input_buttons] == [
        (f"PB{n}", (f"l{n}",)) for n in range(5)
    ]


@pytest.mark.parametrize("n", range(5))
def test_a_press_toggles_its_led_and_its_neighbours(elf: Any, n: int) -> None:
    dev = game(elf)
    assert set(dev.lit()) == START
    toggled = {f"l{i}" for i in (n - 1, n, n + 1) if 0 <= i < 5}
    assert press(dev, n) == START ^ toggled


def test_a_solution_lights_all_five(elf: Any) -> None:
    dev = game(elf)
    assert [sorted(press(dev, n)) for n in (0, 2, 4)] == [
        ["l0", "l3"],
        ["l0", "l1", "l2"],
        ["l0", "l1", "l2", "l3", "l4"],
    ]


def test_while_the_chip_drives_the_pin_its_output_wins_over_the_button(elf: Any) -> None:
    dev = game(elf)
    assert press(dev, 0) == {"l0", "l3"}  # PB0 driven low (lit), PB1 high (dark)
    lit = dev.leds.lit
    dev.press("b1")  # held against PB1 driven high
    dev.chip.run(seconds=0.002)  # not yet debounced: nothing toggled yet
    assert dev.chip.level("PB1") is Level.HIGH and dev.chip.level("PB0") is Level.LOW
    assert lit(dev.chip.leds_now()) == {"l0", "l3"}
    dev.chip.run(seconds=0.03)  # b1 toggled l0, l1, l2; still held against PB1 low
    assert dev.chip.level("PB1") is Level.LOW and dev.chip.level("PB0") is Level.HIGH
    assert lit(dev.chip.leds_now()) == {"l1", "l2", "l3"}
    dev.release("b1")


def test_it_sleeps_after_30_s_and_a_press_wakes_it_as_it_was(elf: Any) -> None:
    dev = game(elf)
    press(dev, 0)
    shown = set(dev.lit())
    dev.chip.run(seconds=29.5)
    assert set(dev.lit()) == shown
    dev.chip.run(seconds=1)
    assert dev.lit() == frozenset() and dev.chip.sleeping
    assert dev.chip.read_io("TCCR0B") == 0  # the firmware stopped its timer
    assert all(dev.chip.level(f"PB{n}") is Level.PULLUP for n in range(5))
    dev.press("b2")  # the pins are inputs: the pressed button alone lights its LED
    assert dev.leds.lit(dev.chip.leds_now()) == {"l2"}
    dev.chip.run(seconds=0.05)
    dev.release("b2")
    dev.chip.run(seconds=0.03)
    assert set(dev.lit()) == shown  # the waking press toggles nothing
    assert press(dev, 2) == shown ^ {"l1", "l2", "l3"}

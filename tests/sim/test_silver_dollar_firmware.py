"""The Silver Dollar Game's firmware on its board, through the generic
:class:`~fairdie.device.Device`: it builds within its budget, starts a game at
GO, steps a dollar per press with a click, beeps at an invalid press, replies
to GO with one move, refreshes its strip at 1 kHz and plays its tunes. Its
30 s idle power-down is the game suite's to check (test_power_display), on
the same build: one 30 s run of it is enough."""

from __future__ import annotations

import struct
from collections.abc import Iterator

import pytest

from fairdie.device import Device, Setup, Tone
from fairdie.sim import load_firmware
from fairdie.toolchain import build, load_target

TARGET = "sdg_t84a"
BOARD = "silver-dollar"
#: the firmware's notes: F_CPU / (2 * 64 * (OCR1A + 1)) at 8 MHz
C5, D5, F5, A5, B5 = (8e6 / 128 / (top + 1) for top in (118, 105, 88, 70, 62))
CLICK, BEEP = B5, C5
#: SDG_TEST_POSITION's EEPROM: magic, 12-bit mask of cells, 32 bits of chance
MAGIC = 0x5D

Position = tuple[int, ...]


def cells(symbol: str) -> Position:
    """A strip symbol ("12,9,6,3,1") as cells from the left."""
    return tuple(int(c) for c in symbol.split(","))


def room(p: Position, k: int) -> int:
    """Empty cells right of dollar k."""
    right = p[k + 1] if k < 4 else 0
    return p[k] - right - 1


def notes(tones: list[Tone]) -> list[float]:
    """The tones' frequencies, leaving out switch-over fragments (< 5 ms)."""
    return [t.frequency_hz for t in tones if t.duration_s >= 0.005]


def game(variant: str | None = None) -> Device:
    dev = Setup.make(board=BOARD, variant=variant).device()
    assert isinstance(dev, Device)  # the generic parts serve (a subject may claim the board)
    return dev


def placed(position: Position, chance: int = 1, variant: str = "test-position") -> Device:
    """A device whose test build finds ``position`` in EEPROM, itself to move."""
    dev = game(variant)
    mask = sum(1 << (c - 1) for c in position)
    dev.chip.write_eeprom(0, struct.pack("<BHI", MAGIC, mask, chance))
    dev.power_on()
    return dev


def step(dev: Device, button: str, settle: float = 0.05) -> tuple[str, list[float]]:
    """Press and release ``button`` (with the board's bounce); the strip and the notes."""
    mark = dev.chip.trace.mark()
    dev.press(button, hold=0.08)
    dev.chip.run(seconds=settle)
    return dev.read(), notes(dev.tones(mark))


@pytest.fixture
def started() -> Iterator[tuple[Device, Position]]:
    dev = game()
    dev.power_on()
    dev.chip.run(seconds=0.3)
    shown, _ = step(dev, "go")
    yield dev, cells(shown)


def test_every_build_fits_its_budget_and_names_its_chip() -> None:
    target = load_target(TARGET)
    assert target.variants[0] == "game"
    for variant in target.variants:
        b = build(TARGET, variant=variant)
        assert b.flash_budget == 8192 and b.sram_budget == 512 - 128
        assert 0 < b.flash_bytes <= b.flash_budget and b.sram_bytes <= b.sram_budget
    fw = load_firmware(build(TARGET).elf)
    assert (fw.mcu, fw.f_cpu) == ("attiny84a", 8_000_000)


def test_before_a_game_one_light_runs_then_go_shows_a_start() -> None:
    dev = game()
    dev.power_on()
    seen = set()
    for _ in range(6):
        dev.chip.run(seconds=0.06)
        lit = dev.lit()
        assert len(lit) == 1 and dev.read() == "invalid"
        seen |= lit
    assert len(seen) >= 4  # it moves
    shown, tones = step(dev, "go")
    start = cells(shown)
    assert len(start) == 5 and start[0] in (12, 11)
    assert tones == []


def test_a_step_clicks_and_moves_one_dollar_one_cell(started: tuple[Device, Position]) -> None:
    dev, start = started
    k = next(k for k in range(5) if room(start, k) > 0)
    shown, tones = step(dev, str(k + 1))
    after = list(start)
    after[k] -= 1
    assert cells(shown) == tuple(after)
    assert tones == [pytest.approx(CLICK, abs=1)]


def test_invalid_presses_beep_and_change_nothing(started: tuple[Device, Position]) -> None:
    dev, start = started
    shown, tones = step(dev, "go", settle=0.2)  # GO before any step
    assert (cells(shown), tones) == (start, [pytest.approx(BEEP, abs=1)])
    blocked = [k for k in range(5) if room(start, k) == 0]
    free = [k for k in range(5) if room(start, k) > 0]
    if blocked:
        shown, tones = step(dev, str(blocked[0] + 1), settle=0.2)
        assert (cells(shown), tones) == (start, [pytest.approx(BEEP, abs=1)])
    k, other = free[0], ([*free[1:], *blocked])[0]
    moved, _ = step(dev, str(k + 1))
    shown, tones = step(dev, str(other + 1), settle=0.2)  # a second dollar
    assert (shown, tones) == (moved, [pytest.approx(BEEP, abs=1)])


def test_go_after_a_step_brings_the_devices_move(started: tuple[Device, Position]) -> None:
    dev, start = started
    k = next(k for k in range(5) if room(start, k) > 0)
    mine, _ = step(dev, str(k + 1))
    shown, _ = step(dev, "go", settle=0.35)
    before, after = cells(mine), cells(shown)
    moved = [i for i in range(5) if before[i] != after[i]]
    assert len(moved) == 1
    (i,) = moved
    assert before[i] > after[i] and (i == 4 or after[i] > before[i + 1])


def test_each_lit_cell_is_refreshed_at_1_khz(started: tuple[Device, Position]) -> None:
    dev, start = started
    cell = start[0]
    led = dev.board.leds[12 - cell]
    assert led.name == f"c{cell}"
    anode, cathode = int(led.anode[2]), int(led.cathode[2])

    def on(state: int) -> bool:  # anode driven high, cathode driven low
        driven = state >> 8
        return bool(driven >> anode & 1 and state >> anode & 1) and bool(
            driven >> cathode & 1 and not state >> cathode & 1
        )

    mark = dev.chip.trace.mark()
    dev.chip.run(seconds=0.05)
    changes = dev.chip.trace.pin_changes("A", mark)
    flashes = sum(on(c.state) and not on(c.before) for c in changes)
    assert flashes == pytest.approx(0.05 * 8e6 / (8 * 83 * 12), abs=1)  # 1004 Hz


def test_the_tunes_play_their_notes() -> None:
    # the device's only move from here is its last: it wins
    dev = placed((6, 4, 3, 2, 1))
    dev.chip.run(seconds=0.8)
    assert dev.read() == "5,4,3,2,1"
    tune = notes(dev.tones())
    assert tune == [pytest.approx(f, abs=1) for f in (A5, F5, D5, C5)]
    assert abs(tune[0] - 880) < abs(8e6 / 128 / 71 - 8e6 / 128 / 72)  # within a timer step
    # the device's only move leaves the human the last one
    dev = placed((6, 5, 3, 2, 1))
    dev.chip.run(seconds=0.05)
    assert dev.read() == "6,4,3,2,1"
    step(dev, "1")
    shown, tune = step(dev, "go", settle=0.8)
    assert shown == "5,4,3,2,1"
    assert tune[0] == pytest.approx(C5, abs=1) and tune[-1] == pytest.approx(B5, abs=1)

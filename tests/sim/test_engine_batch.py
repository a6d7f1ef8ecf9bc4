"""Batches of instructions (``Chip.batch_instructions``): simavr runs the
instructions between two cycle timers in one call, and every run is cycle for
cycle the same as one instruction per call. Each test runs the same scenario
both ways and compares everything the engine records.
"""

from __future__ import annotations

from typing import Any

import pytest

from fairdie.sim import Chip, EventKind, StopReason, Until

ALL_EVENTS = EventKind(511)


def _state(chip: Chip) -> tuple[Any, ...]:
    return (
        chip.trace.raw(),
        chip.cycle,
        chip.pc,
        chip.eeprom,
        chip.read_data(0, chip.ramend + 1),
        chip.leds_lit_cycles(max(0, chip.cycle - 2000), chip.cycle),
    )


def _stops(chip: Chip, until: Until, n: int, seconds: float) -> list[tuple[Any, ...]]:
    """``n`` runs that stop on ``until``: where each stopped, and on what."""
    got = []
    for _ in range(n):
        r = chip.run(seconds=seconds, until=until)
        e = chip.stop_event
        got.append((int(r), chip.cycle, e))
    return got


# (firmware, defines, ADC channel fed or None, the stops to run into, extra setup)
SCENARIOS = [
    ("busy", {}, None, [Until.pin(), Until.pin("PB0")], None),
    ("ctc", {"CTC_TOP": 99}, None, [Until.irq(), Until.event(EventKind.SLEEP)], None),
    ("eeprom", {}, None, [Until.event(EventKind.EEPROM_START | EventKind.EEPROM_DONE)], None),
    ("adc", {}, 1, [Until.event(EventKind.ADC)], None),
    ("adc", {"ADC_FREE": 1}, 0, [Until.event(EventKind.ADC), Until.irq()], None),
    ("irq", {"IRQ_SELF": 1}, None, [Until.irq(), Until.pin("PB0")], None),
    ("tone", {}, None, [Until.pin()], None),
    ("wdt", {}, None, [Until.event(EventKind.WAKE), Until.irq()], "drive_low"),
    ("echo", {}, None, [Until.pin()], "toggle"),
    ("busy", {}, None, [Until.event(EventKind.RESET)], "watchdog_reset"),
]


def _scenario(build_test_firmware, batch: bool, spec: tuple[Any, ...]) -> list[Any]:
    name, defines, adc, untils, setup = spec
    b = build_test_firmware(name, **defines)
    chip = Chip(b.elf, mcu=b.mcu, f_cpu=b.f_cpu, batch_instructions=batch, seed=5)
    assert chip.batch_instructions is batch
    chip.trace_kinds = ALL_EVENTS
    chip.set_leds([("PB0", "GND"), ("VCC", "PB1")])
    if adc is not None:
        chip.set_adc(adc, lambda ch: 700.0 + 13 * (chip.cycle % 97))
    if setup == "drive_low":
        chip.drive("PB1", False)
    out: list[Any] = []
    for _ in range(2):  # two power cycles
        chip.power_on()
        if setup == "watchdog_reset":  # WDE, 16 ms: a system reset in the middle of runs
            chip.write_io("WDTCR", 1 << 3)
        chip.run(seconds=0.002)
        for until in untils:
            out.append(_stops(chip, until, 12, 0.03))
            if setup == "toggle":
                chip.drive("PB3", chip.cycle % 2 == 0)
        out.append(chip.run(to_cycle=chip.cycle + 12_345))
        out.append(chip.run(seconds=0.05, until=Until.quiet(0.001)))
        out.append(_state(chip))
        chip.power_off()
    return out


@pytest.mark.parametrize(
    "spec", SCENARIOS, ids=[f"{s[0]}-{s[4] or i}" for i, s in enumerate(SCENARIOS)]
)
def test_batched_runs_are_cycle_for_cycle_the_same(build_test_firmware, spec):
    assert _scenario(build_test_firmware, True, spec) == _scenario(build_test_firmware, False, spec)


def test_a_watchdog_reset_inside_a_batched_run_still_ends_it_on_time(make_chip):
    chip = make_chip("busy", chip_args={"batch_instructions": True})
    chip.trace_kinds = ALL_EVENTS
    chip.write_io("WDTCR", 1 << 3)  # WDE: a system reset 16 ms on
    for target in (20_000, 25_001, 90_007, 250_003):
        assert chip.run(to_cycle=target) == StopReason.DEADLINE
        assert chip.cycle in range(target, target + 4)
    assert any(e.kind is EventKind.RESET for e in chip.trace.events())


def _press_trace(board: str, batch: bool) -> tuple[bytes, int, bytes, list[Any]]:
    from fairdie.subjects.die import Die

    die = Die(board=board, seed=3)
    die.chip.batch_instructions = batch
    die.chip.trace_kinds = ALL_EVENTS
    trace = bytearray()
    presses = []
    for hold in (0.004, 0.03, 0.2, 0.2, 0.2):
        presses.append(die.roll(hold=hold))
        trace += die.chip.trace.raw()
    return bytes(trace), die.chip.cycle, die.chip.eeprom, presses


@pytest.mark.parametrize("board", ["die-direct", "die-charlieplex"])
def test_batching_changes_no_die_press(board):
    assert _press_trace(board, True) == _press_trace(board, False)


def test_snapshots_are_the_same_batched_or_not(make_chip):
    """A snapshot taken between runs holds no trace of batching: restoring it
    into a chip that does not batch repeats the batched run."""
    chip = make_chip("eeprom", chip_args={"batch_instructions": True})
    chip.trace_kinds = ALL_EVENTS
    chip.run(500)
    snap = chip.snapshot()
    mark = chip.trace.mark()
    chip.run(seconds=0.02)
    batched = chip.trace.raw()[mark * 24 :], chip.cycle, chip.eeprom
    chip.restore(snap)
    chip.batch_instructions = False
    mark = chip.trace.mark()
    chip.run(seconds=0.02)
    assert (chip.trace.raw()[mark * 24 :], chip.cycle, chip.eeprom) == batched

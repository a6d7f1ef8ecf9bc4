"""``fairdie bench`` reports every figure, and its ratios agree with the figures.

No timing is asserted here: the performance goals live in the bench's output
(``fairdie.subjects.die.bench.TARGETS``), not in timed unit tests.
"""

from __future__ import annotations

import json
import math
from types import SimpleNamespace
from typing import Any

import pytest

from fairdie.cli import main
from fairdie.errors import FairdieError, SimulationError
from fairdie.sim import Chip, Event, EventKind
from fairdie.subjects.die.bench import TARGETS, _awake_cycles, bench_firmware_dir, run_benchmarks
from fairdie.toolchain import build, load_target

BUILDS = ("direct", "charlieplex")
NUMBERS = (
    "raw_mcycles_per_s",
    "raw_mcycles_per_s_best",
    "harness_mcycles_per_s",
    "harness_mcycles_per_s_best",
    "harness_over_raw",
    "harness_over_raw_best",
    "python_step_mcycles_per_s",
    "harness_over_python_step",
    *(f"{k}_{b}" for b in BUILDS for k in ("presses_per_s", "press_awake_cycles")),
    *(f"{k}_{b}" for b in BUILDS for k in ("press_floor_per_s", "presses_over_floor")),
    "snapshot_restore_us",
    "hold_10s_wall_ms",
    "cycles_per_round",
    "rounds",
    "cpus",
    "verify_seconds",
)
KEYS = {*NUMBERS, "python", "machine"}
PRESS_CYCLES = 240_000  # a 0.2 s press at the die's 1.2 MHz


def check_figures(r: dict[str, Any], *, verify: bool = True) -> None:
    assert r.keys() == (KEYS if verify else KEYS - {"verify_seconds"})
    for k in NUMBERS if verify else set(NUMBERS) - {"verify_seconds"}:
        assert isinstance(r[k], int | float) and r[k] > 0, k
    assert isinstance(r["python"], str) and isinstance(r["machine"], str)

    def ratio(value: str, top: str, bottom: str, scale: float = 1.0) -> None:
        want = r[top] / r[bottom] * scale
        assert math.isclose(r[value], want, rel_tol=0.02), (value, r[value], want)

    # harness_over_raw is the median of per-round ratios: with the one round
    # these tests run, it is exactly the ratio of the two speeds
    ratio("harness_over_raw", "harness_mcycles_per_s", "raw_mcycles_per_s")
    ratio("harness_over_raw_best", "harness_mcycles_per_s_best", "raw_mcycles_per_s_best")
    ratio("harness_over_python_step", "harness_mcycles_per_s", "python_step_mcycles_per_s")
    assert r["raw_mcycles_per_s_best"] >= r["raw_mcycles_per_s"]
    assert r["harness_mcycles_per_s_best"] >= r["harness_mcycles_per_s"]
    for b in BUILDS:
        awake = r[f"press_awake_cycles_{b}"]
        assert isinstance(awake, int) and awake < PRESS_CYCLES
        ratio(f"press_floor_per_s_{b}", "raw_mcycles_per_s", f"press_awake_cycles_{b}", 1e6)
        ratio(f"presses_over_floor_{b}", f"presses_per_s_{b}", f"press_floor_per_s_{b}")
    assert set(TARGETS) <= KEYS


def test_run_benchmarks_reports_every_figure_consistently():
    r = run_benchmarks(cycles=1_000_000, rounds=1, press_seconds=0.05, verify=False)
    check_figures(r, verify=False)
    assert r["cycles_per_round"] == 1_000_000 and r["rounds"] == 1
    # the charlieplexed display wakes the CPU for every LED slot: more awake cycles
    # when both builds store alike (a press of the seed's rule writes one byte and
    # waits 3.4 ms for it, one of the fair rule's six)
    die = load_target("die_t13a")
    if die.model_for("charlieplex") == die.model_for("direct"):
        assert r["press_awake_cycles_charlieplex"] > r["press_awake_cycles_direct"]


def test_cli_bench_json(capsys):
    # the full verify it can time (some 30 s) is test_verify.py's to check
    assert main(["bench", "--json", "--cycles", "1000000", "--rounds", "1", "--no-verify"]) == 0
    check_figures(json.loads(capsys.readouterr().out), verify=False)


def test_bench_refuses_bad_parameters():
    with pytest.raises(FairdieError):
        run_benchmarks(cycles=999_999)
    with pytest.raises(FairdieError):
        run_benchmarks(rounds=0)


def fake_chip(*events: tuple[int, EventKind, int]) -> object:
    trace = [Event(cycle, kind, a) for cycle, kind, a in events]
    return SimpleNamespace(
        trace=SimpleNamespace(events=lambda kinds, since: (e for e in trace if e.kind & kinds))
    )


def test_awake_cycles_count_from_power_on_and_wakes_to_sleeps_and_power_off():
    k = EventKind
    chip = fake_chip(
        (100, k.POWER, 1),
        (150, k.SLEEP, 0),  # 50 awake
        (1000, k.WAKE, 0),
        (1010, k.SLEEP, 1),  # 10 awake, then asleep with interrupts off
        (5000, k.RESET, 1),  # the watchdog resets it: awake again
        (5020, k.POWER, 0),  # 20 awake
    )
    assert _awake_cycles(chip, 0) == 80
    with pytest.raises(SimulationError):
        _awake_cycles(fake_chip((100, k.POWER, 1), (150, k.SLEEP, 0)), 0)


def test_awake_cycles_of_a_chip_that_never_sleeps_are_its_powered_cycles():
    busy = build(bench_firmware_dir() / "busy", defines={"BUSY_QUIET": 1})
    chip = Chip(busy.elf, mcu=busy.mcu, f_cpu=busy.f_cpu)
    chip.power_on()
    chip.run(50_000)
    powered = chip.cycles_powered
    chip.power_off()
    assert _awake_cycles(chip, 0) == powered


def test_the_yardsticks_step_one_instruction_per_call_after_batched_runs():
    """``Chip.run`` batches instructions; the raw loop and the Python step stay
    simavr's default of one instruction per ``avr->run`` (the floor's speed)."""
    busy = build(bench_firmware_dir() / "busy", defines={"BUSY_QUIET": 1})
    chip = Chip(busy.elf, mcu=busy.mcu, f_cpu=busy.f_cpu)
    assert chip.batch_instructions
    chip.power_on()
    for _ in range(20):
        chip.run(1_000 + chip.cycle % 7)  # batched, ends anywhere in the loop
        before = chip.cycle
        chip.run_raw(1)
        assert chip.cycle - before <= 4  # one instruction, not a batch
        before = chip.cycle
        chip.step_from_python(1)
        assert chip.cycle - before <= 4

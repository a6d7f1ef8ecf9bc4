"""``fairdie bench`` reports every figure, its ratios agree with the figures of
the same run, and its press floor replays the die's own presses alike.

No timing is asserted here: the performance goals live in the bench's output
(``fairdie.subjects.die.bench.TARGETS``), not in timed unit tests.
"""

from __future__ import annotations

import itertools
import json
import math
from array import array
from dataclasses import replace
from functools import partial
from typing import Any

import pytest

from fairdie.cli import main
from fairdie.errors import FairdieError, SimulationError
from fairdie.sim import Chip
from fairdie.subjects.die import Die
from fairdie.subjects.die.bench import (
    ROWS,
    TARGETS,
    _coverage_round,
    _press,
    _replay,
    bench_firmware_dir,
    format_report,
    run_benchmarks,
)
from fairdie.toolchain import build

BUILDS = ("direct", "charlieplex")
NUMBERS = (
    "raw_mcycles_per_s",
    "raw_mcycles_per_s_best",
    "raw_unbatched_mcycles_per_s",
    "harness_mcycles_per_s",
    "harness_mcycles_per_s_best",
    "harness_over_raw",
    "harness_over_raw_best",
    "harness_over_raw_unbatched",
    "python_step_mcycles_per_s",
    "harness_over_python_step",
    *(
        f"{k}_{b}"
        for b in BUILDS
        for k in ("presses_per_s", "press_floor_per_s", "presses_over_floor", "presses_checked")
    ),
    "covered_press_ms",
    "uncovered_press_ms",
    "coverage_overhead",
    "snapshot_restore_us",
    "hold_10s_wall_ms",
    "cycles_per_round",
    "rounds",
    "press_seconds",
    "cpus",
    "verify_seconds",
)
KEYS = {*NUMBERS, "python", "machine"}


def check_figures(r: dict[str, Any], *, verify: bool = True) -> None:
    """Every figure, positive; each ratio of one round is its figure over its
    yardstick (a ratio is the median of per-round ratios: with the one round
    these tests run, exactly the ratio of the two figures)."""
    assert r["rounds"] == 1
    assert r.keys() == (KEYS if verify else KEYS - {"verify_seconds"})
    for k in NUMBERS if verify else set(NUMBERS) - {"verify_seconds"}:
        assert isinstance(r[k], int | float) and r[k] > 0, k
    assert isinstance(r["python"], str) and isinstance(r["machine"], str)
    for figure, yardstick, ratio in ROWS:
        if ratio is not None and figure in r:
            assert yardstick is not None
            want = r[figure] / r[yardstick]
            assert math.isclose(r[ratio], want, rel_tol=0.02), (ratio, r[ratio], want)
    assert r["raw_mcycles_per_s_best"] >= r["raw_mcycles_per_s"]
    assert r["harness_mcycles_per_s_best"] >= r["harness_mcycles_per_s"]
    for b in BUILDS:
        assert isinstance(r[f"presses_checked_{b}"], int)
    assert set(TARGETS) <= KEYS


@pytest.fixture(scope="module")
def figures() -> dict[str, Any]:
    return run_benchmarks(cycles=1_000_000, rounds=1, press_seconds=0.05, verify=False)


def test_run_benchmarks_reports_every_figure_consistently(figures):
    check_figures(figures, verify=False)
    assert figures["cycles_per_round"] == 1_000_000 and figures["press_seconds"] == 0.05


def test_the_report_is_a_table_of_figure_value_yardstick_ratio_goal(figures):
    lines = format_report(figures).splitlines()
    assert lines[0].split() == ["figure", "value", "yardstick", "value", "ratio", "goal"]
    firsts = {line.split()[0] for line in lines[1:] if line.split()}
    assert firsts >= {figure for figure, _, _ in ROWS if figure in figures}
    assert "verify_seconds" not in firsts  # not measured
    harness = next(line for line in lines if " raw_mcycles_per_s " in line).split()
    assert harness[:5] == [
        "harness_mcycles_per_s",
        f"{figures['harness_mcycles_per_s']:g}",
        "raw_mcycles_per_s",
        f"{figures['raw_mcycles_per_s']:g}",
        f"{figures['harness_over_raw']:.3f}",
    ]
    met = "met" if figures["harness_over_raw"] >= TARGETS["harness_over_raw"][1] else "NOT"
    assert harness[5:7] == [">=", f"{TARGETS['harness_over_raw'][1]:g}"] and harness[7] == met


def test_cli_bench_json(capsys, tmp_path, monkeypatch):
    # the full verify it can time (some 30 s) is test_verify.py's to check; the
    # presses timed for 0.05 s a round, not the command's 0.5 s, as in `figures`
    # (the same code measures them: 0.05 s is 8 presses or more, the least it times)
    from fairdie.subjects.die import bench

    monkeypatch.setattr(bench, "run_benchmarks", partial(run_benchmarks, press_seconds=0.05))
    kept = tmp_path / "bench.json"
    argv = ["bench", "--json", "--cycles", "1000000", "--rounds", "1", "--no-verify"]
    assert main([*argv, "--json-out", str(kept)]) == 0
    printed = json.loads(capsys.readouterr().out)
    check_figures(printed, verify=False)
    assert printed["press_seconds"] == 0.05
    # make bench prints the table and keeps the JSON of the same run, not of a second one
    assert json.loads(kept.read_text()) == printed


def test_coverage_overhead_compares_the_same_presses():
    """Dice that press differently are no yardstick of each other: the bench fails."""
    plain, other = Die(board="die-direct", seed=0), Die(board="die-direct", seed=1)
    other.chip.coverage_on()
    with pytest.raises(SimulationError, match="with coverage press"):
        _coverage_round(plain, other, 0.0)
    same = Die(board="die-direct", seed=0), Die(board="die-direct", seed=0)
    same[1].chip.coverage_on()
    without, with_, n = _coverage_round(*same, 0.0)
    assert n == 8 and without > 0 and with_ > 0


def test_bench_refuses_bad_parameters():
    with pytest.raises(FairdieError):
        run_benchmarks(cycles=999_999)
    with pytest.raises(FairdieError):
        run_benchmarks(rounds=0)
    with pytest.raises(FairdieError):
        run_benchmarks(press_seconds=0)


# ---- the press floor: the die's presses replayed in C -----------------------------


@pytest.fixture(scope="module", params=BUILDS)
def pressed(request) -> tuple[Die, Any]:
    die = Die(board=f"die-{request.param}", seed=3)
    die.roll()
    return die, _press(die, 0.0)  # the fewest presses a round makes


def replay(die: Die, p: Any, millivolts: Any = None, ends: Any = None) -> Any:
    leds = die.leds
    return die.chip.replay_presses(
        p.start,
        p.channel,
        p.millivolts if millivolts is None else millivolts,
        p.ends if ends is None else ends,
        p.steps,
        die.window,
        relative=leds.relative,
        floor=leds.floor,
    )


def test_the_floor_replays_the_dies_presses_alike(pressed):
    die, p = pressed
    assert len(p.ends) == 8 and p.ends == sorted(p.ends) and p.ends[-1] == len(p.millivolts)
    faces = {face for face, _ in p.shown}
    assert len(faces) > 1 and faces <= {1, 2, 3, 4, 5, 6}
    assert {display for _, display in p.shown} == {str(face) for face in faces}
    assert p.steps == die.press_steps(0.2) and len(p.steps) == 2  # settle, then the rest
    chip, presses = die.chip, die.presses
    ons = chip.power_ons  # as the presses left it
    trace = chip.trace.raw()
    seen = replay(die, p)
    assert len(seen) == 8 and all(len(x.at) == 2 and all(x.seen) for x in seen)
    for x, y in itertools.pairwise(seen):  # each run from where the last one ended
        assert x.at[0] - x.on >= p.steps[0] and x.at[1] - x.at[0] >= p.steps[1]
        assert y.on == x.at[1] and x.first_lit is not None and x.on < x.first_lit < x.at[0]
    assert chip.eeprom == p.eeprom and chip.power_ons == ons and not chip.powered
    assert chip.trace.raw() == trace  # the trace keeps nothing of the replay
    assert _replay(die, p) > 0
    # the die is left where its presses left it, and presses on from there
    assert die.chip.eeprom == p.eeprom and die.presses == presses
    _replay(die, _press(die, 0.0))


def test_the_floor_fails_when_its_presses_end_otherwise(pressed):
    die, p = pressed
    face, display = p.shown[1]
    other = 1 if face != 1 else 2
    for shown in ((other, display), (face, str(other)), (None, display)):
        with pytest.raises(SimulationError, match="press 1 shows"):
            _replay(die, replace(p, shown=[p.shown[0], shown, *p.shown[2:]]))
    with pytest.raises(SimulationError, match="another EEPROM"):
        _replay(die, replace(p, eeprom=bytes(b ^ 1 for b in p.eeprom)))


def test_a_replay_refuses_presses_fed_more_or_fewer_values_than_they_convert(pressed):
    die, p = pressed
    chip = die.chip
    first = p.ends[0]
    short = array("d", p.millivolts[: first - 1]) + p.millivolts[first:]
    long = array("d", p.millivolts[:first]) + array("d", [1000.0]) + p.millivolts[first:]
    for mv, ends, why in (
        (short, [e - 1 for e in p.ends], "press 0: it converted more values"),
        (long, [e + 1 for e in p.ends], "press 0: it converted fewer values"),
    ):
        with pytest.raises(SimulationError, match=why):
            replay(die, p, mv, ends)
    with pytest.raises(FairdieError, match="ends"):
        replay(die, p, ends=p.ends[:-1])
    stranger = Die(board="die-direct", seed=3)
    with pytest.raises(SimulationError, match="another chip"):
        replay(stranger, p)
    chip.restore(p.end)


def test_the_unbatched_yardsticks_step_one_instruction_per_call_after_batched_runs():
    """``Chip.run`` batches instructions; ``run_raw(batch=False)`` and the
    Python step stay simavr's default of one instruction per ``avr->run``."""
    busy = build(bench_firmware_dir() / "busy", defines={"BUSY_QUIET": 1})
    chip = Chip(busy.elf, mcu=busy.mcu, f_cpu=busy.f_cpu)
    assert chip.batch_instructions
    chip.power_on()
    for _ in range(20):
        chip.run(1_000 + chip.cycle % 7)  # batched, ends anywhere in the loop
        before = chip.cycle
        chip.run_raw(1, batch=False)
        assert chip.cycle - before <= 4  # one instruction, not a batch
        before = chip.cycle
        chip.step_from_python(1)
        assert chip.cycle - before <= 4


def test_the_batched_raw_loop_runs_cycle_for_cycle_as_the_harness():
    """The yardstick of ``harness_over_raw`` does the harness's work: it ends
    where ``Chip.run`` ends, with the same registers and memory."""
    busy = build(bench_firmware_dir() / "busy", defines={"BUSY_QUIET": 1})
    ours, raw = (Chip(busy.elf, mcu=busy.mcu, f_cpu=busy.f_cpu) for _ in range(2))
    for chip in (ours, raw):
        chip.power_on()
    for n in (1, 2, 3, 999, 1_000, 12_345, 100_000):
        ours.run(n)
        raw.run_raw(n)
        assert (raw.cycle, raw.pc) == (ours.cycle, ours.pc)
        assert raw.read_data(0, ours.ramend + 1) == ours.read_data(0, ours.ramend + 1)

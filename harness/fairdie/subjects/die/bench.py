"""``fairdie bench``: the engine's speed, measured side by side in one run.

Every figure comes from the same run on the same machine, and every ratio is
taken between figures of that run (never against a number measured elsewhere).
Throughput figures are medians over rounds unless named ``..._best``.

The engine, on a busy-loop firmware (``fairdie/firmware/tests/busy``, no I/O):

- ``raw_mcycles_per_s``: million simulated cycles per second of simavr's own
  C run loop (:meth:`fairdie.sim.Chip.run_raw`: ``avr->run`` until a cycle
  count, nothing of ours in the loop); median over ``rounds`` rounds of
  ``cycles_per_round`` cycles. ``raw_mcycles_per_s_best``: the fastest round.
- ``harness_mcycles_per_s`` (and ``..._best``): the same cycle count through
  :meth:`fairdie.sim.Chip.run`, the harness's C loop (which also watches stop
  conditions and records the trace).
- ``harness_over_raw``: the harness's speed over the raw loop's, the median over
  rounds of each round's ratio; ``harness_over_raw_best``: the ratio of the
  bests. In each round raw and harness run in ten alternating slices of
  ``cycles_per_round / 10`` cycles (the order flips every slice and round), so
  both see the same machine load, slice by slice.
  Target: ``harness_over_raw >= 0.95``. It may well exceed 1: ``Chip.run``
  lets simavr run the instructions between two cycle timers in one call
  (:attr:`fairdie.sim.Chip.batch_instructions`, simavr's ``run_cycle_limit``;
  cycle for cycle the same run), while the raw loop keeps simavr's default of
  one instruction per ``avr->run`` call, as before.
- ``python_step_mcycles_per_s``: one simavr step per Python call
  (:meth:`fairdie.sim.Chip.step_from_python`), the way the old pysimavr
  binding ran, over ``cycles_per_round // 20`` cycles (at least 100000) in
  each of the same rounds; median. ``harness_over_python_step``:
  ``harness_mcycles_per_s / python_step_mcycles_per_s``.

The die, as users press it (:class:`fairdie.subjects.die.Die`, seed 0, default noise):

- ``presses_per_s_direct``, ``presses_per_s_charlieplex``: presses per second
  of wall time of ``Die.roll()`` (default hold 0.2 s) on the ``die-direct`` and
  ``die-charlieplex`` builds. Each build presses until at least 0.5 s of wall
  time has passed in each of the ``rounds`` rounds (the same rounds as raw and
  harness, right after them); the figure is the median over the rounds. One
  press before timing is not counted (the first press of an erased die clears
  its table and is longer).
- ``press_awake_cycles_direct``, ``press_awake_cycles_charlieplex``: the cycles
  the CPU is awake (not sleeping) in one press, power-on to power-off, counted
  from the engine's SLEEP, WAKE, RESET and POWER events on a second die of the
  same build and seed: the median over the 9 presses after the first.
- ``press_floor_per_s_direct``, ``press_floor_per_s_charlieplex``: presses per
  second if a press cost only its awake cycles at the raw speed:
  ``raw_mcycles_per_s * 1e6 / press_awake_cycles_...``. The floor ignores every
  fixed cost of a press (power cycling, sleep fast-forwards, the ADC noise
  callback, reading the LEDs and the EEPROM) and that the die's awake code
  (interrupts, I/O) simulates slower per cycle than the busy loop.
- ``presses_over_floor_direct``, ``presses_over_floor_charlieplex``:
  ``presses_per_s_... / press_floor_per_s_...``. Targets: direct >= 0.6,
  charlieplex >= 0.5.
- ``snapshot_restore_us``: microseconds for one :meth:`~fairdie.sim.Chip.snapshot`
  plus one :meth:`~fairdie.sim.Chip.restore` on a die chip powered and running
  mid-press (the direct build, 10 ms into a press); median over 1000 pairs.

And:

- ``hold_10s_wall_ms``: wall time in milliseconds to simulate 10 s of watchdog
  sleep (the wdt test firmware: power-down, a wake-up every 1.024 s); median
  over ``rounds`` fresh chips.
- ``verify_seconds``: wall seconds of one full ``fairdie verify`` of the
  default build (die_t13a ``direct`` on die-direct, the default options: all
  12 checks, 2000 presses per noise in the fairness campaign, the quick
  power-cut campaigns, one process), its builds made beforehand. Goal: under
  60 s. ``run_benchmarks(verify=False)`` leaves it out.
- ``cycles_per_round``, ``rounds``: the parameters; ``cpus``, ``python``,
  ``machine``: the host.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["TARGETS", "bench_firmware_dir", "format_report", "run_benchmarks"]

#: Goals of the engine, checked by reading the bench, never by a timed test.
TARGETS = {
    "harness_over_raw": 0.95,
    "presses_over_floor_direct": 0.6,
    "presses_over_floor_charlieplex": 0.5,
}

_BUILDS = {"direct": "die-direct", "charlieplex": "die-charlieplex"}
_PRESS_SECONDS = 0.5
_AWAKE_PRESSES = 9
_SNAPSHOT_PAIRS = 1000


def bench_firmware_dir() -> Path:
    """The engine's test firmwares, shipped in the package (``fairdie/firmware/tests``)."""
    from fairdie.toolchain import firmware_dir

    return firmware_dir() / "tests"


_SLICES = 10  # raw and harness alternate this many times per round


def _timed(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def _measure(cycles: int, rounds: int, press_seconds: float) -> dict[str, Any]:
    """Raw, harness and Python-step speeds on the busy loop, and presses per
    second of each die build, all in the same rounds (so all see the same load)."""
    from fairdie.sim import Chip
    from fairdie.subjects.die import Die
    from fairdie.toolchain import build

    busy = build(bench_firmware_dir() / "busy", defines={"BUSY_QUIET": 1})
    chip = Chip(busy.elf, mcu=busy.mcu, f_cpu=busy.f_cpu)
    chip.power_on()
    chip.run(100_000)  # past start-up, into the loop
    dice = {name: Die(board=board, seed=0) for name, board in _BUILDS.items()}
    for die in dice.values():
        die.roll()  # not timed: the first press of an erased die clears the table
    step_cycles = max(cycles // 20, 100_000)
    raw: list[float] = []
    ours: list[float] = []
    step: list[float] = []
    rates: dict[str, list[float]] = {name: [] for name in dice}
    ratios: list[float] = []
    part = cycles // _SLICES
    for r in range(rounds):
        # raw and harness in alternating slices, so both see the same machine
        spent = {"raw": 0.0, "ours": 0.0}
        for s in range(_SLICES):
            pair = [("raw", lambda: chip.run_raw(part)), ("ours", lambda: chip.run(part))]
            for name, fn in pair if (r + s) % 2 == 0 else pair[::-1]:
                spent[name] += _timed(fn)
        raw.append(spent["raw"])
        ours.append(spent["ours"])
        ratios.append(spent["raw"] / spent["ours"])
        step.append(_timed(lambda: chip.step_from_python(step_cycles)))
        for name, die in dice.items():
            n, t0 = 0, time.perf_counter()
            while True:
                die.roll()
                n += 1
                elapsed = time.perf_counter() - t0
                if elapsed >= press_seconds:
                    break
            rates[name].append(n / elapsed)
    return {
        "raw": cycles / statistics.median(raw),
        "raw_best": cycles / min(raw),
        "harness": cycles / statistics.median(ours),
        "harness_best": cycles / min(ours),
        "harness_over_raw": statistics.median(ratios),
        "step": step_cycles / statistics.median(step),
        "presses": {name: statistics.median(v) for name, v in rates.items()},
    }


def _awake_cycles(chip: Any, since: int) -> int:
    """Cycles awake between a press's power-on and power-off, from the trace."""
    from fairdie.errors import SimulationError
    from fairdie.sim import EventKind

    awake, since_cycle, on, off = 0, None, False, False
    kinds = EventKind.SLEEP | EventKind.WAKE | EventKind.RESET | EventKind.POWER
    for e in chip.trace.events(kinds, since):
        if e.kind is EventKind.POWER and e.a == 1:
            on, since_cycle = True, e.cycle
        elif not on:
            continue
        elif e.kind is EventKind.SLEEP:
            if since_cycle is not None:
                awake += e.cycle - since_cycle
            since_cycle = None
        elif e.kind in (EventKind.WAKE, EventKind.RESET):
            since_cycle = e.cycle if since_cycle is None else since_cycle
        elif e.kind is EventKind.POWER:  # off
            if since_cycle is not None:
                awake += e.cycle - since_cycle
            off = True
            break
    if not (on and off):
        raise SimulationError("bench: the press's trace lacks its power-on or power-off")
    return awake


def _press_awake(board: str) -> int:
    """Median awake cycles of one press (see the module docstring)."""
    from fairdie.sim import EventKind
    from fairdie.subjects.die import Die

    die = Die(board=board, seed=0)
    die.roll()  # the first press of an erased die clears the table
    chip = die.chip
    chip.trace_kinds |= EventKind.SLEEP | EventKind.WAKE | EventKind.RESET | EventKind.POWER
    counts = []
    for _ in range(_AWAKE_PRESSES):
        die.roll()  # clears the trace at power-on: it holds this press only
        counts.append(_awake_cycles(chip, 0))
    return round(statistics.median(counts))


def _snapshot_restore() -> float:
    """Median seconds of one snapshot() plus one restore() on a running die chip."""
    from fairdie.subjects.die import Die

    die = Die(board=_BUILDS["direct"], seed=0)
    die.roll()
    die.power_on()
    chip = die.chip
    chip.run(seconds=0.01)
    times = []
    for _ in range(_SNAPSHOT_PAIRS):
        t = time.perf_counter()
        chip.restore(chip.snapshot())
        times.append(time.perf_counter() - t)
    chip.power_off()
    return statistics.median(times)


def _hold_10s(rounds: int) -> float:
    from fairdie.sim import Chip
    from fairdie.toolchain import build

    wdt = build(bench_firmware_dir() / "wdt")
    holds = []
    for _ in range(rounds):
        hold = Chip(wdt.elf, mcu=wdt.mcu, f_cpu=wdt.f_cpu)
        hold.power_on()
        holds.append(_timed(lambda h=hold: h.run(seconds=10.0)))  # type: ignore[misc]
    return statistics.median(holds)


def _verify_seconds() -> float:
    """Wall seconds of a full verify of the default build (see the module docstring)."""
    from fairdie.toolchain import build, load_target
    from fairdie.verify import verify

    for variant in load_target("die_t13a").variants:  # verify compares the file with each
        build("die_t13a", variant=variant)
    elf = build("die_t13a").elf
    return _timed(lambda: verify(elf, board="die-direct"))


def run_benchmarks(
    *,
    cycles: int = 20_000_000,
    rounds: int = 7,
    press_seconds: float = _PRESS_SECONDS,
    verify: bool = True,
) -> dict[str, Any]:
    """Measure every figure of the module docstring; returns them by name.

    ``press_seconds`` is the wall time of one press round (tests make it small);
    ``verify=False`` skips the full verify (``verify_seconds``, some 30 s).
    """
    from fairdie.errors import FairdieError

    if cycles < 1_000_000 or rounds < 1 or not press_seconds > 0:
        raise FairdieError("bench: cycles must be >= 1000000, rounds >= 1 and press_seconds > 0")
    eng = _measure(cycles, rounds, press_seconds)
    presses = eng["presses"]
    r: dict[str, Any] = {
        "raw_mcycles_per_s": round(eng["raw"] / 1e6, 2),
        "raw_mcycles_per_s_best": round(eng["raw_best"] / 1e6, 2),
        "harness_mcycles_per_s": round(eng["harness"] / 1e6, 2),
        "harness_mcycles_per_s_best": round(eng["harness_best"] / 1e6, 2),
        "harness_over_raw": round(eng["harness_over_raw"], 3),
        "harness_over_raw_best": round(eng["harness_best"] / eng["raw_best"], 3),
        "python_step_mcycles_per_s": round(eng["step"] / 1e6, 2),
        "harness_over_python_step": round(eng["harness"] / eng["step"], 2),
    }
    for name, board in _BUILDS.items():
        awake = _press_awake(board)
        floor = eng["raw"] / awake
        r[f"presses_per_s_{name}"] = round(presses[name], 1)
        r[f"press_awake_cycles_{name}"] = awake
        r[f"press_floor_per_s_{name}"] = round(floor, 1)
        r[f"presses_over_floor_{name}"] = round(presses[name] / floor, 3)
    r["snapshot_restore_us"] = round(_snapshot_restore() * 1e6, 2)
    r["hold_10s_wall_ms"] = round(_hold_10s(rounds) * 1000, 3)
    if verify:
        r["verify_seconds"] = round(_verify_seconds(), 2)
    r.update(
        cycles_per_round=cycles,
        rounds=rounds,
        cpus=os.cpu_count(),
        python=platform.python_version(),
        machine=platform.machine(),
    )
    return r


def _against(r: dict[str, Any], key: str) -> str:
    goal = TARGETS[key]
    verdict = "met" if r[key] >= goal else "NOT met"
    return f"{r[key]:.3f}  (target >= {goal}: {verdict})"


def format_report(r: dict[str, Any]) -> str:
    """The human form of :func:`run_benchmarks`' figures, ratios beside their targets."""
    lines = [
        f"busy loop, {r['rounds']} rounds of {r['cycles_per_round']} cycles"
        f" (median / best Mcycles/s)",
        f"  simavr C loop (raw)        {r['raw_mcycles_per_s']:8.1f} /"
        f" {r['raw_mcycles_per_s_best']:.1f}",
        f"  fairdie Chip.run           {r['harness_mcycles_per_s']:8.1f} /"
        f" {r['harness_mcycles_per_s_best']:.1f}",
        f"  harness / raw              {_against(r, 'harness_over_raw')};"
        f" best/best {r['harness_over_raw_best']:.3f}",
        f"  one step per Python call   {r['python_step_mcycles_per_s']:8.1f}"
        f"   (harness is {r['harness_over_python_step']:.1f} x faster)",
        "die presses of 0.2 s (presses/s of wall time, median)",
    ]
    for name in _BUILDS:
        lines += [
            f"  {name:<12} {r[f'presses_per_s_{name}']:9.1f} presses/s;"
            f" floor {r[f'press_floor_per_s_{name}']:.1f}/s"
            f" ({r[f'press_awake_cycles_{name}']} awake cycles per press at the raw speed)",
            f"  {'':<12} presses / floor  {_against(r, f'presses_over_floor_{name}')}",
        ]
    lines += [
        f"snapshot + restore (running die)  {r['snapshot_restore_us']:8.2f} us",
        f"10 s watchdog sleep               {r['hold_10s_wall_ms']:8.3f} ms wall",
    ]
    if "verify_seconds" in r:
        lines.append(
            f"full verify of the default build  {r['verify_seconds']:8.1f} s wall (goal < 60 s)"
        )
    lines += [
        f"host: {r['cpus']} CPUs, {r['machine']}, Python {r['python']}",
    ]
    return "\n".join(lines)

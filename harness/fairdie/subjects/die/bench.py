"""``fairdie bench``: the engine's speed, measured side by side in one run.

Every figure comes from the same run on the same machine, and every ratio is
taken between figures of that run (never against a number measured elsewhere).
Each ratio's yardstick does the same work as the figure it divides. Times are
wall times (``time.perf_counter``); throughputs are medians over ``rounds``
rounds unless named ``..._best``, and a ratio is the median over rounds of that
round's ratio. The goals are :data:`TARGETS`.

The engine, on a busy-loop firmware (``fairdie/firmware/tests/busy``, no I/O):

- ``harness_mcycles_per_s``: million simulated cycles per second of
  :meth:`fairdie.sim.Chip.run`, the harness's C loop (it watches stop
  conditions, records the trace and batches instructions: simavr's
  ``run_cycle_limit`` raised, a cycle timer at the deadline).
- ``raw_mcycles_per_s``: the same cycles through simavr's own C loop
  (``avr->run`` until a cycle count, nothing of ours in the loop) with the same
  ``run_cycle_limit`` policy (:meth:`fairdie.sim.Chip.run_raw`):
  the yardstick of ``harness_over_raw``.
- ``raw_unbatched_mcycles_per_s``: simavr's loop with its default limit, one
  instruction per ``avr->run`` call (``Chip.run_raw(batch=False)``);
  ``harness_over_raw_unbatched``.
- In each round the three run in ten slices of ``cycles_per_round / 10``
  cycles each, their order rotating slice by slice and round by round, so all
  see the same machine load. ``..._best``: the fastest round of each;
  ``harness_over_raw_best``: the ratio of the bests.
- ``python_step_mcycles_per_s``: one simavr step per Python call
  (:meth:`fairdie.sim.Chip.step_from_python`), the way the old pysimavr
  binding ran, over ``cycles_per_round // 20`` cycles (at least 100000) in
  each round; ``harness_over_python_step``: ``harness_mcycles_per_s`` over it.

The die, as users press it (:class:`fairdie.subjects.die.Die`, seed 0, default
noise, the ``die-direct`` and ``die-charlieplex`` builds):

- ``presses_per_s_direct``, ``presses_per_s_charlieplex``: presses per second
  of ``Die.roll()`` (default hold 0.2 s): in each round, presses until their
  own time (each ``roll()`` timed alone) reaches ``press_seconds`` (at least 8
  presses). One press
  before any round is not counted (the first press of an erased die clears
  its table and is longer).
- ``press_floor_per_s_direct``, ``press_floor_per_s_charlieplex``: the same
  presses replayed by the engine with no Python
  (:meth:`fairdie.sim.Chip.replay_presses`: each press the same C call as a
  die's press, :meth:`fairdie.sim.Chip.power_cycle` with the die's
  ``press_steps``: power on, run to the settle time, the LEDs seen there,
  the rest of the hold, the LEDs seen at its end, power off; the next press,
  in one C loop), from a snapshot of the die taken before the round's
  presses, each press fed the millivolts its ADC log recorded (so the same
  codes; the trace records them as in a press). Right after the round's
  presses, in the same round. The replay must end with the die's EEPROM as
  the presses left it and, press by press, the face and the display the
  press showed (read by the die's rules from what the replay saw), or the
  bench fails. What a die's press adds is Python: making its noise, draining
  the trace into ``adc_codes``, decoding the faces, keeping the EEPROM image
  its ``counts`` are read from when asked for.
- ``presses_checked_direct``, ``presses_checked_charlieplex``: the presses so
  replayed and checked, summed over the rounds.
- ``presses_over_floor_direct``, ``presses_over_floor_charlieplex``: the
  presses' speed over their floor's.
- ``covered_press_ms``: milliseconds of one press of a die whose chip records
  coverage (:meth:`fairdie.sim.Chip.coverage_on`, the direct build);
  ``uncovered_press_ms``: the same presses of a die without it (same seed,
  same presses, the two dice pressing in turn, each press timed alone in CPU
  time (``time.process_time``: the one figure not in wall time, since on a
  loaded machine the turns see different loads), until each die's time
  reaches ``press_seconds``; the bench fails unless they show the same
  faces); ``coverage_overhead``: the first over the second.
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
  power-cut campaigns, one process), its builds made beforehand.
  ``run_benchmarks(verify=False)`` leaves it out.
- ``cycles_per_round``, ``rounds``, ``press_seconds``: the parameters;
  ``cpus``, ``python``, ``machine``: the host.
"""

from __future__ import annotations

import operator
import os
import platform
import statistics
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["ROWS", "TARGETS", "bench_firmware_dir", "format_report", "run_benchmarks"]

#: Goals, by figure: (">=" or "<=", the goal). Read from the bench, never checked by a timed test.
TARGETS: dict[str, tuple[str, float]] = {
    "harness_over_raw": (">=", 0.95),
    "presses_over_floor_direct": (">=", 0.6),
    "presses_over_floor_charlieplex": (">=", 0.8),
    "coverage_overhead": ("<=", 1.5),
    "snapshot_restore_us": ("<=", 10.0),
    "verify_seconds": ("<=", 60.0),
}

_BUILDS = {"direct": "die-direct", "charlieplex": "die-charlieplex"}

#: The table's rows: a figure, its yardstick and their ratio (None: a figure alone).
ROWS: tuple[tuple[str, str | None, str | None], ...] = (
    ("harness_mcycles_per_s", "raw_mcycles_per_s", "harness_over_raw"),
    ("harness_mcycles_per_s_best", "raw_mcycles_per_s_best", "harness_over_raw_best"),
    ("harness_mcycles_per_s", "raw_unbatched_mcycles_per_s", "harness_over_raw_unbatched"),
    ("harness_mcycles_per_s", "python_step_mcycles_per_s", "harness_over_python_step"),
    *((f"presses_per_s_{b}", f"press_floor_per_s_{b}", f"presses_over_floor_{b}") for b in _BUILDS),
    ("covered_press_ms", "uncovered_press_ms", "coverage_overhead"),
    ("snapshot_restore_us", None, None),
    ("hold_10s_wall_ms", None, None),
    ("verify_seconds", None, None),
)

_PRESS_SECONDS = 0.5
_MIN_PRESSES = 8  # a round presses at least this often, however slow the machine
_SNAPSHOT_PAIRS = 1000
_SLICES = 10  # the engine's loops take turns this many times per round


def bench_firmware_dir() -> Path:
    """The engine's test firmwares, shipped in the package (``fairdie/firmware/tests``)."""
    from fairdie.toolchain import firmware_dir

    return firmware_dir() / "tests"


def _timed(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def _median_ratio(top: list[float], bottom: list[float]) -> float:
    """The median over rounds of each round's ratio."""
    return statistics.median(a / b for a, b in zip(top, bottom, strict=True))


def _engine_round(chip: Any, cycles: int, r: int) -> dict[str, float]:
    """Seconds of each loop over ``cycles`` cycles, in rotating slices (see the docstring)."""
    part = cycles // _SLICES
    loops: list[tuple[str, Callable[[], object]]] = [
        ("raw", lambda: chip.run_raw(part)),
        ("unbatched", lambda: chip.run_raw(part, batch=False)),
        ("harness", lambda: chip.run(part)),
    ]
    spent = dict.fromkeys((name for name, _ in loops), 0.0)
    for s in range(_SLICES):
        k = (r + s) % len(loops)
        for name, fn in loops[k:] + loops[:k]:
            spent[name] += _timed(fn)
    return spent


@dataclass
class _Presses:
    """A round of the die's presses, as the floor replays them."""

    start: Any  #: the die's snapshot before them
    end: Any  #: and after them
    eeprom: bytes  #: the EEPROM they left
    millivolts: array[float]  #: every conversion's, press after press (the ADC log's)
    ends: list[int]  #: where each press's millivolts end
    shown: list[tuple[int | None, str]]  #: each press's face and the display it ended with
    steps: tuple[int, ...]  #: the runs of each press, in cycles (Die.press_steps)
    channel: int  #: the ADC channel they were fed on
    seconds: float  #: the presses' own time


def _press(die: Any, seconds: float) -> _Presses:
    """The die's presses until their own time reaches ``seconds`` (and at
    least ``_MIN_PRESSES`` of them), recorded."""
    from fairdie.errors import SimulationError
    from fairdie.sim import EventKind

    chip = die.chip
    adc = int(EventKind.ADC)
    start = chip.snapshot()
    spent = 0.0
    millivolts: array[float] = array("d")
    ends: list[int] = []
    shown: list[tuple[int | None, str]] = []
    steps = set()
    channels = set()
    while spent < seconds or len(ends) < _MIN_PRESSES:
        t = time.perf_counter()
        press = die.roll()
        spent += time.perf_counter() - t
        steps.add(die.press_steps(press.hold_s))
        for _, kind, a, mv, _ in chip.trace.tuples():  # this press's (a power-on clears it)
            if kind == adc:
                millivolts.append(mv)
                channels.add(a & 0xFF)
        ends.append(len(millivolts))
        shown.append((press.face, press.display))
    if len(channels) != 1 or len(steps) != 1:
        raise SimulationError(
            f"bench: the floor feeds one ADC channel ({sorted(channels)}) and replays"
            f" presses of one hold ({len(steps)} holds)"
        )
    end = chip.snapshot()
    return _Presses(
        start, end, chip.eeprom, millivolts, ends, shown, steps.pop(), channels.pop(), spent
    )


def _replay(die: Any, p: _Presses) -> float:
    """Seconds of the floor's replay of ``p``; fails unless it ends as the
    presses did (EEPROM, and each press's face and display, read by the
    die's rules from what the replay saw). Leaves the die at ``p.end``."""
    from fairdie.device import lit_a_whole_window
    from fairdie.errors import SimulationError

    chip, leds, decode = die.chip, die.leds, die.faces.decode
    t = time.perf_counter()
    seen = chip.replay_presses(
        p.start,
        p.channel,
        p.millivolts,
        p.ends,
        p.steps,
        die.window,
        relative=leds.relative,
        floor=leds.floor,
    )
    seconds = time.perf_counter() - t
    shown = []
    for x in seen:
        face = decode(leds.lit(x.seen[0]))
        settled = lit_a_whole_window(x.first_lit, x.at[0], die.window) and face.isdigit()
        shown.append((int(face) if settled else None, decode(leds.lit(x.seen[-1]))))
    eeprom = chip.eeprom
    chip.restore(p.end)
    if shown != p.shown:
        k = next(i for i, (a, b) in enumerate(zip(shown, p.shown, strict=True)) if a != b)
        raise SimulationError(
            f"bench: the floor's press {k} shows {shown[k]!r}, not {p.shown[k]!r}"
        )
    if eeprom != p.eeprom:
        raise SimulationError(f"bench: the floor's {len(p.ends)} presses leave another EEPROM")
    return seconds


def _measure(cycles: int, rounds: int, press_seconds: float) -> dict[str, Any]:
    """The engine's loops and each build's presses and floor, in the same rounds."""
    from fairdie.sim import Chip
    from fairdie.subjects.die import Die
    from fairdie.toolchain import build

    busy = build(bench_firmware_dir() / "busy", defines={"BUSY_QUIET": 1})
    chip = Chip(busy.elf, mcu=busy.mcu, f_cpu=busy.f_cpu)
    chip.power_on()
    chip.run(100_000)  # past start-up, into the loop
    dice = {name: Die(board=board, seed=0) for name, board in _BUILDS.items()}
    plain, covered = Die(board=_BUILDS["direct"], seed=0), Die(board=_BUILDS["direct"], seed=0)
    covered.chip.coverage_on()
    for die in (*dice.values(), plain, covered):
        die.roll()  # not timed: the first press of an erased die clears the table
    step_cycles = max(cycles // 20, 100_000)
    loops: dict[str, list[float]] = {"raw": [], "unbatched": [], "harness": []}
    step: list[float] = []
    # per build and round: the presses' seconds, their floor's, how many
    pressed: dict[str, list[float]] = {name: [] for name in dice}
    floor: dict[str, list[float]] = {name: [] for name in dice}
    count: dict[str, list[int]] = {name: [] for name in dice}
    cover: dict[str, list[float]] = {"uncovered": [], "covered": []}
    for r in range(rounds):
        for name, s in _engine_round(chip, cycles, r).items():
            loops[name].append(s)
        step.append(_timed(lambda: chip.step_from_python(step_cycles)))
        for name, die in dice.items():
            p = _press(die, press_seconds)
            floor[name].append(_replay(die, p))
            pressed[name].append(p.seconds)
            count[name].append(len(p.ends))
        without, with_, k = _coverage_round(plain, covered, press_seconds)
        cover["uncovered"].append(without / k)
        cover["covered"].append(with_ / k)
    raw, unbatched, ours = loops["raw"], loops["unbatched"], loops["harness"]
    harness = cycles / statistics.median(ours) / 1e6
    python_step = step_cycles / statistics.median(step) / 1e6
    out: dict[str, Any] = {
        "raw_mcycles_per_s": cycles / statistics.median(raw) / 1e6,
        "raw_mcycles_per_s_best": cycles / min(raw) / 1e6,
        "raw_unbatched_mcycles_per_s": cycles / statistics.median(unbatched) / 1e6,
        "harness_mcycles_per_s": harness,
        "harness_mcycles_per_s_best": cycles / min(ours) / 1e6,
        "harness_over_raw": _median_ratio(raw, ours),
        "harness_over_raw_best": min(raw) / min(ours),
        "harness_over_raw_unbatched": _median_ratio(unbatched, ours),
        "python_step_mcycles_per_s": python_step,
        "harness_over_python_step": harness / python_step,
        "covered_press_ms": statistics.median(cover["covered"]) * 1000,
        "uncovered_press_ms": statistics.median(cover["uncovered"]) * 1000,
        "coverage_overhead": _median_ratio(cover["covered"], cover["uncovered"]),
    }
    for name, n in count.items():
        out[f"presses_per_s_{name}"] = statistics.median(map(operator.truediv, n, pressed[name]))
        out[f"press_floor_per_s_{name}"] = statistics.median(map(operator.truediv, n, floor[name]))
        # the same presses: the floor's seconds over theirs
        out[f"presses_over_floor_{name}"] = _median_ratio(floor[name], pressed[name])
        out[f"presses_checked_{name}"] = sum(n)
    return out


def _coverage_round(plain: Any, covered: Any, seconds: float) -> tuple[float, float, int]:
    """Seconds of the same presses without and with coverage, pressed in
    turn (see the docstring), and how many each die made."""
    from fairdie.errors import SimulationError

    spent = [0.0, 0.0]
    n = 0
    while min(spent) < seconds or n < _MIN_PRESSES:
        shown = []
        for i, die in enumerate((plain, covered)):
            t = time.process_time()
            press = die.roll()
            spent[i] += time.process_time() - t
            shown.append((press.face, press.display))
        if shown[0] != shown[1]:
            raise SimulationError(
                f"bench: with coverage press {n} shows {shown[1]}, not {shown[0]}"
            )
        n += 1
    return spent[0], spent[1], n


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

    ``press_seconds`` is the presses' own time in one round (tests make it
    small); ``verify=False`` skips the full verify (``verify_seconds``, some 30 s).
    """
    from fairdie.errors import FairdieError

    if cycles < 1_000_000 or rounds < 1 or not press_seconds > 0:
        raise FairdieError("bench: cycles must be >= 1000000, rounds >= 1 and press_seconds > 0")
    r: dict[str, Any] = {
        k: v if isinstance(v, int) else round(v, 3)
        for k, v in _measure(cycles, rounds, press_seconds).items()
    }
    r["snapshot_restore_us"] = round(_snapshot_restore() * 1e6, 2)
    r["hold_10s_wall_ms"] = round(_hold_10s(rounds) * 1000, 3)
    if verify:
        r["verify_seconds"] = round(_verify_seconds(), 2)
    r.update(
        cycles_per_round=cycles,
        rounds=rounds,
        press_seconds=press_seconds,
        cpus=os.cpu_count(),
        python=platform.python_version(),
        machine=platform.machine(),
    )
    return r


def _goal(r: dict[str, Any], key: str) -> str:
    if key not in TARGETS:
        return ""
    op, goal = TARGETS[key]
    met = r[key] >= goal if op == ">=" else r[key] <= goal
    return f"{op} {goal:g} {'met' if met else 'NOT met'}"


def format_report(r: dict[str, Any]) -> str:
    """The human form of :func:`run_benchmarks`' figures: a table of each
    figure, its value, its yardstick, their ratio and the goal (figures are
    named as in the JSON and the module docstring)."""
    head = ("figure", "value", "yardstick", "value", "ratio", "goal")
    table = [head]
    for figure, yardstick, ratio in ROWS:
        if figure not in r:
            continue
        table.append(
            (
                figure,
                f"{r[figure]:g}",
                yardstick or "",
                f"{r[yardstick]:g}" if yardstick else "",
                f"{r[ratio]:.3f}" if ratio else "",
                _goal(r, ratio or figure),
            )
        )
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    right = {1, 3, 4}
    lines = [
        "  ".join(
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in table
    ]
    lines += [
        f"{r['rounds']} rounds of {r['cycles_per_round']} busy-loop cycles and"
        f" {r['press_seconds']:g} s of presses per build;"
        f" {r['presses_checked_direct']} direct and {r['presses_checked_charlieplex']}"
        " charlieplexed presses replayed alike by their floor",
        f"host: {r['cpus']} CPUs, {r['machine']}, Python {r['python']}",
    ]
    return "\n".join(lines)

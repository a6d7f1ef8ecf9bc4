"""``fairdie bench``: the engine's speed, measured side by side in one run.

Figures (all from this run, on this machine):

- ``raw_mcycles_per_s``: simavr's own C run loop (``avr_run`` until a cycle
  count), nothing of ours inside it, on a busy-loop firmware;
- ``harness_mcycles_per_s``: the same firmware and cycle count through
  :meth:`fairdie.sim.Chip.run` (our C loop, which also watches for stop
  conditions and records pin changes);
- ``harness_over_raw``: their ratio, from rounds interleaved so both see the
  same machine load (medians of each);
- ``python_step_mcycles_per_s`` and ``harness_over_python_step``: one simavr
  step per Python call, the way the old pysimavr binding ran, as a yardstick;
- ``hold_10s_wall_ms``: wall time to simulate 10 s of watchdog sleep (the
  wdt test firmware: power-down, a wake-up every 1.024 s).
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["bench_firmware_dir", "run_benchmarks"]


def bench_firmware_dir() -> Path:
    """The engine's test firmwares (tests/firmware in the source tree)."""
    return Path(__file__).resolve().parents[2] / "tests" / "firmware"


def _timed(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def run_benchmarks(*, cycles: int = 20_000_000, rounds: int = 7) -> dict[str, Any]:
    from fairdie.errors import FairdieError
    from fairdie.sim import Chip
    from fairdie.toolchain import build

    if cycles < 1_000_000 or rounds < 1:
        raise FairdieError("bench: cycles must be >= 1000000 and rounds >= 1")
    src = bench_firmware_dir()
    busy = build(src / "busy", defines={"BUSY_QUIET": 1})
    chip = Chip(busy.elf, mcu=busy.mcu, f_cpu=busy.f_cpu)
    chip.power_on()
    chip.run(100_000)  # past start-up, into the loop
    raw: list[float] = []
    ours: list[float] = []
    for _ in range(rounds):
        raw.append(_timed(lambda: chip.run_raw(cycles)))
        ours.append(_timed(lambda: chip.run(cycles)))
    step_cycles = max(cycles // 20, 100_000)
    py_step = statistics.median(
        _timed(lambda: chip.step_from_python(step_cycles)) for _ in range(max(1, rounds // 2))
    )
    raw_mcps = cycles / statistics.median(raw) / 1e6
    ours_mcps = cycles / statistics.median(ours) / 1e6
    step_mcps = step_cycles / py_step / 1e6

    wdt = build(src / "wdt")
    holds = []
    for _ in range(rounds):
        hold = Chip(wdt.elf, mcu=wdt.mcu, f_cpu=wdt.f_cpu)
        hold.power_on()
        holds.append(_timed(lambda h=hold: h.run(seconds=10.0)))  # type: ignore[misc]
    return {
        "raw_mcycles_per_s": round(raw_mcps, 2),
        "harness_mcycles_per_s": round(ours_mcps, 2),
        "harness_over_raw": round(ours_mcps / raw_mcps, 3),
        "python_step_mcycles_per_s": round(step_mcps, 2),
        "harness_over_python_step": round(ours_mcps / step_mcps, 1),
        "hold_10s_wall_ms": round(statistics.median(holds) * 1000, 3),
        "cycles_per_round": cycles,
        "rounds": rounds,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }

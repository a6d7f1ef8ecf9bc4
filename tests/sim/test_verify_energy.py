"""verify's recorded runs and energy estimate: each sleep is counted in the
mode the engine reports (the SLEEP event's SM bits and watchdog), with no
stop at each SLEEP; a run without the engine's ``sleep_modes`` fix says its
sleeps are counted as the engine ran them."""

from __future__ import annotations

from typing import Any

import pytest

from fairdie.board import parse_board
from fairdie.device import Device
from fairdie.sim import Chip, EventKind
from fairdie.sim._chip import SIMAVR_FIXES
from fairdie.verify import Timeline, estimate_run, record_run

pytestmark = pytest.mark.sim

BARE = parse_board(
    {"board": {"name": "bare", "mcu": "attiny13a", "f_cpu": 1200000, "vcc_mv": 3000}}
)


def _run(build_test_firmware: Any, name: str, *, fixes: Any = None, **defines: Any) -> Timeline:
    b = build_test_firmware(name, **defines)
    chip = Chip(b.elf, mcu=b.mcu, f_cpu=b.f_cpu, simavr_fixes=fixes)
    return record_run(Device(chip, BARE), 0.05)


@pytest.mark.parametrize(
    ("name", "defines", "mode", "watchdog", "part"),
    [
        ("sleep", {}, "power-down", False, "sleep: power-down, watchdog off"),
        ("sleep", {"SLEEP_IDLE": 1}, "idle", False, "sleep: idle"),
        ("wdt", {}, "power-down", True, "sleep: power-down, watchdog on"),
    ],
)
def test_each_sleep_is_counted_in_the_mode_the_engine_reports(
    build_test_firmware, name: str, defines: dict[str, int], mode: str, watchdog: bool, part: str
) -> None:
    tl = _run(build_test_firmware, name, **defines)
    assert tl.sleeps and {(s.mode, s.watchdog) for s in tl.sleeps} == {(mode, watchdog)}
    energy = estimate_run([tl], BARE, ["50 ms"])
    names = {p.name for p in energy.parts}
    assert part in names and not energy.notes
    asleep = sum(p.seconds for p in energy.parts if p.name.startswith("sleep"))
    assert asleep + energy.parts[[p.name for p in energy.parts].index("CPU active")].seconds == (
        pytest.approx(0.05, rel=1e-6)
    )


def test_the_sleep_event_says_whether_the_watchdog_runs(make_chip) -> None:
    for name, on in (("wdt", 1), ("sleep", 0)):
        chip = make_chip(name)
        chip.run(seconds=0.01)
        sleeps = [e for e in chip.trace.events(EventKind.SLEEP)]
        assert sleeps and {(e.b - 1, e.c) for e in sleeps} == {(2, on)}, name  # 2: power-down


def test_a_sleep_with_se_clear_is_no_sleep_and_without_the_fix_a_noted_one(
    build_test_firmware,
) -> None:
    tl = _run(build_test_firmware, "sleep", SLEEP_NO_SE=1)
    energy = estimate_run([tl], BARE, ["50 ms"])
    assert not tl.sleeps and tl.sleep_modes and not energy.notes
    assert [p.name for p in energy.parts] == ["CPU active"]
    without = set(SIMAVR_FIXES) - {"sleep_modes"}
    tl = _run(build_test_firmware, "sleep", fixes=without, SLEEP_NO_SE=1)
    energy = estimate_run([tl], BARE, ["50 ms"])
    assert tl.sleeps and not tl.sleep_modes
    assert energy.notes == (
        "the engine ran without its sleep_modes fix: it slept at every SLEEP, SE set or not"
        " (a real chip stays awake with SE clear), with the timers running on; its sleeps are"
        " counted as it ran them",
    )

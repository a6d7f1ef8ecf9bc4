"""Our scenario files for the three kinds of firmware users bring
(tests/scenarios: Lights Out's shared pins and power-down, the buzzer's
tone, the button die's face) run as pytest collects them, and a wrong
expectation in one fails naming its step, what it expected and what it saw."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from fairdie.scenario import parse_scenario, run_scenario

pytestmark = pytest.mark.sim

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


def test_the_suite_collects_our_scenario_files() -> None:
    root = Path(__file__).resolve().parents[2]
    testpaths = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["pytest"][
        "ini_options"
    ]["testpaths"]
    assert "tests" in testpaths and SCENARIOS.is_relative_to(root / "tests")
    assert {p.name for p in SCENARIOS.glob("test_*.toml")} >= {
        "test_lightsout.toml",
        "test_buzzer.toml",
        "test_button_die.toml",
        "test_continuity.toml",
    }


def _wrong(name: str, right: str, wrong: str) -> tuple[int, str]:
    """Run a scenario file with one expectation made wrong: the failing step's
    number and the result's message."""
    path = SCENARIOS / name
    text = path.read_text()
    assert text.count(right) == 1
    data = tomllib.loads(text.replace(right, wrong))
    r = run_scenario(parse_scenario(data, source=str(path), base=path.parent))
    assert not r.passed and r.failed_step is not None
    return r.failed_step.number, r.message()


def test_a_wrong_tone_fails_at_its_step() -> None:
    step, message = _wrong("test_buzzer.toml", "hz = 1000,", "hz = 1100,")
    assert step == 2
    assert "step 2 (wait 50 ms)" in message
    assert "expect.tone: expected 1100 Hz" in message and "saw 1000.0 Hz" in message


def test_lights_out_that_stayed_awake_fails_at_its_step() -> None:
    right = (
        'name = "its timer stopped: it stays asleep"\nwait = "2s"\n'
        'expect = { leds = [], sleep = "power-down"'
    )
    step, message = _wrong("test_lightsout.toml", right, right.replace("power-down", "idle"))
    assert step == 9 and "step 9 (its timer stopped: it stays asleep)" in message
    assert "expect.sleep: expected sleep in idle, saw slept in power-down" in message

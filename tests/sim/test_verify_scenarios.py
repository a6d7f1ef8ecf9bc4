"""``fairdie verify`` on firmware that is no die: the core's checks and the
scenario files its board names; exit 0 when it behaves, 1 naming the step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairdie.cli import main

pytestmark = pytest.mark.sim

LIGHTSOUT = Path(__file__).resolve().parents[2] / "harness/fairdie/firmware/tests/lightsout"

SOLVE = """\
[scenario]
name = "presses 0, 2 and 4 light all five"

[[step]]
wait = "50ms"
expect = {{ leds = ["l1", "l3"] }}

[[step]]
press = "b0"
hold = "80ms"

[[step]]
press = "b2"
hold = "80ms"

[[step]]
press = "b4"
hold = "80ms"

[[step]]
wait = "50ms"
expect = {{ leds = {leds} }}
"""


@pytest.fixture(scope="module")
def elf(build_test_firmware) -> str:
    return str(build_test_firmware("lightsout").elf)


def _board(tmp_path: Path, leds: str) -> Path:
    (tmp_path / "solve.toml").write_text(SOLVE.format(leds=leds))
    text = (LIGHTSOUT / "board.toml").read_text()
    board = tmp_path / "board.toml"
    board.write_text(text.replace("[board]\n", '[board]\nscenarios = ["solve.toml"]\n', 1))
    return board


def _verify(capsys, elf: str, board: Path) -> tuple[int, dict]:
    rc = main(["verify", elf, "--board", str(board), "--json"])
    return rc, json.loads(capsys.readouterr().out)


def test_a_board_whose_scenario_holds_passes(capsys, elf, tmp_path) -> None:
    rc, out = _verify(capsys, elf, _board(tmp_path, '["l0", "l1", "l2", "l3", "l4"]'))
    checks = {c["name"]: c for c in out["checks"]}
    assert rc == 0 and out["passed"]
    assert checks["scenarios"]["status"] == "pass"
    assert checks["mcu-and-memory"]["status"] == "pass"
    assert checks["faces"]["status"] == "skipped" and checks["faces"]["reason"]


def test_a_scenario_that_fails_names_its_step(capsys, elf, tmp_path) -> None:
    rc, out = _verify(capsys, elf, _board(tmp_path, '["l0"]'))
    scen = next(c for c in out["checks"] if c["name"] == "scenarios")
    assert rc == 1 and scen["status"] == "fail"
    assert "step 5" in scen["reason"] and "solve.toml" in scen["reason"]


def test_what_the_engine_does_not_model_is_in_the_report(capsys, build_test_firmware, tmp_path):
    elf = build_test_firmware("unmodelled", mcu="attiny13a").elf
    board = tmp_path / "bare.toml"
    board.write_text('[board]\nname = "bare"\nmcu = "attiny13a"\nf_cpu = 1200000\nvcc_mv = 3000\n')
    rc, out = _verify(capsys, str(elf), board)
    assert rc == 0 and {"PRR", "CLKPR"} <= set(out["unmodelled"])
    assert any("PRR" in note for note in out["notes"])

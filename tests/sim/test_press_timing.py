"""A button die whose only chance is when a person presses: ``fairdie press``
times its presses with the human model, so its faces follow ``--seed``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairdie.cli import main

pytestmark = pytest.mark.sim

BOARD = Path(__file__).resolve().parents[2] / "harness/fairdie/firmware/tests/button_die/board.toml"


@pytest.fixture(scope="module")
def elf(build_test_firmware) -> str:
    return str(build_test_firmware("button_die").elf)


def _press(capsys, elf: str, *extra: str, board: Path = BOARD) -> dict:
    argv = ["press", "--board", str(board), "--firmware", elf, "--count", "20", "--json"]
    assert main([*argv, *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_faces_follow_the_seed_through_the_human_timing(capsys, elf) -> None:
    one, again, other = (_press(capsys, elf, "--seed", s) for s in ("3", "3", "4"))
    assert one["timing"].startswith("human") and one["seed_matters"] is True
    assert one["faces"] == again["faces"]
    assert one["faces"] != other["faces"]
    assert set(one["faces"]) <= set(range(1, 7))


def test_fixed_timing_on_a_clean_contact_ignores_the_seed_and_says_so(capsys, elf, tmp_path):
    clean = tmp_path / "clean.toml"
    clean.write_text(BOARD.read_text().replace("bounce = { count = 3, spacing_us = 400 }", ""))
    runs = [_press(capsys, elf, "--timing", "fixed", "--seed", s, board=clean) for s in "01"]
    assert runs[0]["faces"] == runs[1]["faces"] and runs[0]["seed_matters"] is False
    # the bouncing contact alone already makes the seed matter
    assert _press(capsys, elf, "--timing", "fixed")["seed_matters"] is True
    argv = ["press", "--board", str(clean), "--firmware", elf, "--count", "8", "--timing", "fixed"]
    assert main(argv) == 0
    assert "do not depend on --seed" in capsys.readouterr().out


def test_a_bad_timing_is_one_line(capsys, elf) -> None:
    argv = ["press", "--board", str(BOARD), "--firmware", elf, "--timing", "human:hold=-1"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--timing" in err


def test_press_many_presses_as_the_loop_asks_and_as_the_readme_shows(elf) -> None:
    from fairdie.device import Setup
    from fairdie.stimulus import parse_timing

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    calls = readme.split("dev.press_many(")[:-1]
    assert calls and all(c.endswith("for _ in ") for c in calls)  # a bare call presses nothing
    dev = Setup.make(elf, board=BOARD).device()
    dev.power_on()
    dev.chip.run(seconds=0.05)
    start = dev.chip.cycle
    lazy = dev.press_many("roll", 6, timing="human", seed=1)
    assert dev.chip.cycle == start  # nothing pressed yet
    faces = [dev.read() for _ in lazy]
    assert len(faces) == 6 and set(faces) <= {"1", "2", "3", "4", "5", "6"}
    assert len(set(faces)) > 1  # it rolled
    draws = parse_timing("human").presses(1)
    want = sum(dev.chip.cycles_for(d.hold + d.interval) for d in (next(draws) for _ in range(6)))
    assert abs((dev.chip.cycle - start) - want) <= 6  # each press's hold, then its interval
    again = Setup.make(elf, board=BOARD).device()
    again.power_on()
    again.chip.run(seconds=0.05)
    assert [again.read() for _ in again.press_many("roll", 6, timing="human", seed=1)] == faces

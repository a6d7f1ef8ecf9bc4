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

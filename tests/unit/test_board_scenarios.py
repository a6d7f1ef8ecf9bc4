"""A board names the scenario files verify runs, relative to its own folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from fairdie.board import load_board, parse_board
from fairdie.errors import BoardError

HEAD = {"name": "b", "mcu": "attiny85", "f_cpu": 8_000_000, "vcc_mv": 3000}


def test_scenarios_are_kept_and_start_from_the_boards_folder(tmp_path: Path) -> None:
    f = tmp_path / "b.toml"
    f.write_text(
        '[board]\nname = "b"\nmcu = "attiny85"\nf_cpu = 8000000\nvcc_mv = 3000\n'
        'scenarios = ["s/test_a.toml"]\n'
    )
    board = load_board(str(f))
    assert board.scenarios == ("s/test_a.toml",)
    assert board.folder == tmp_path.resolve()
    assert parse_board({"board": HEAD}).folder is None
    assert load_board("die-direct").folder is not None  # a shipped board's own folder


@pytest.mark.parametrize("value", ["one.toml", [1], [""], ["a.toml", "a.toml"]])
def test_a_bad_scenario_list_is_one_line(value: object) -> None:
    with pytest.raises(BoardError, match=r"scenarios") as info:
        parse_board({"board": {**HEAD, "scenarios": value}})
    assert "\n" not in str(info.value)

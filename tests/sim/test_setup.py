"""The recipe every chip is made from (fairdie.device.Setup): resolved once,
its firmware loaded once per process, whole in a worker's pickle."""

from __future__ import annotations

import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import fairdie.device._setup as recipes
from fairdie.board import load_board
from fairdie.device import Setup
from fairdie.sim import load_firmware


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    loads: list[Path] = []
    real = recipes.load_firmware

    def load(path: Any, **kw: Any) -> Any:
        loads.append(Path(path))
        return real(path, **kw)

    monkeypatch.setattr(recipes, "load_firmware", load)
    return loads


@pytest.mark.parametrize("kind", ["elf", "hex"])
def test_make_loads_the_firmware_once_and_load_gives_what_a_load_would(
    kind: str,
    build_test_firmware: Callable[..., Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built = build_test_firmware("button_die")
    src = built.elf if kind == "elf" else built.hex
    copy = tmp_path / src.name  # a file of its own: no other test's setup loaded it
    shutil.copy(src, copy)
    monkeypatch.chdir(tmp_path)
    loads = _counting(monkeypatch)
    board = load_board(
        Path(__file__).parents[2] / "harness/fairdie/firmware/tests/button_die/board.toml"
    )
    setup = Setup.make(copy.name, board=board)  # a relative path
    fw = setup.load()
    assert setup.load() is fw and len(loads) == 1
    fresh = load_firmware(copy.resolve(), mcu=board.mcu, default_f_cpu=setup.f_cpu)
    assert fw == fresh and fw.path == copy.resolve() and fw.f_cpu == board.f_cpu


def test_a_file_changed_at_its_path_is_loaded_anew(
    build_test_firmware: Callable[..., Any], tmp_path: Path
) -> None:
    board = load_board("die-direct")
    copy = tmp_path / "die.hex"
    shutil.copy(build_test_firmware("ctc").hex, copy)
    setup = Setup.make(copy, board=board)
    first = setup.load()
    shutil.copy(build_test_firmware("echo").hex, copy)
    os.utime(copy, ns=(1, 1))  # another modification time, whatever the clock's resolution
    assert setup.load().flash != first.flash


def test_a_setup_pickles_whole_with_its_board_and_its_subjects_sections() -> None:
    setup = Setup.make(board="die-direct", seed=3)
    assert setup.board is not None and setup.board.section("die") is not None
    again = pickle.loads(pickle.dumps(setup))
    assert again == setup and hash(again) == hash(setup)
    assert again.board == setup.board and again.board is not setup.board
    assert again.load() == setup.load()


def test_a_setup_of_a_board_with_displays_hashes() -> None:
    from fairdie.board import load_board

    board = load_board(
        str(
            Path(__file__).resolve().parents[2]
            / "harness/fairdie/firmware/tests/button_die/board.toml"
        )
    )
    assert board.displays and hash(board) == hash(load_board(board.source))

"""pyproject.toml's package data names every firmware, board and host file a build needs.

The wheel test (tests/sim/test_wheel.py, slow) builds and installs the wheel;
this is its cheap half: a file the patterns miss would be left out of it.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "harness" / "fairdie"
#: the folders of data files, beside the Python packages
_DATA = ("firmware", "subjects/*/firmware", "subjects/*/boards", "subjects/*/host")


def _shipped() -> set[Path]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["fairdie"]
    return {f for p in patterns for f in PACKAGE.glob(p) if f.is_file()}


def _data_files() -> set[Path]:
    return {
        f
        for folder in _DATA
        for f in PACKAGE.glob(f"{folder}/**/*")
        if f.is_file() and "__pycache__" not in f.parts and f.suffix != ".py"
    }


def test_the_package_data_names_every_firmware_board_and_host_file() -> None:
    missing = sorted(f.relative_to(PACKAGE).as_posix() for f in _data_files() - _shipped())
    assert not missing, missing


def test_the_data_files_include_the_dies_firmware_and_boards() -> None:
    """The walk above sees the files the wheel test names (it is not empty)."""
    names = {f.relative_to(PACKAGE).as_posix() for f in _data_files()}
    die = "subjects/die"
    for name in (
        f"{die}/firmware/die_t13a/main.c",
        f"{die}/firmware/die_t13a/fair.S",
        f"{die}/boards/die-direct.toml",
        "firmware/tests/cxx/main.cpp",
        "firmware/tests/button_die/board.toml",
    ):
        assert name in names, name

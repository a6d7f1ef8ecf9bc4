"""The fairdie pytest plugin (registered through the ``pytest11`` entry point).

Options, each declared once here with its ini and environment forms, and a
fixture of the same name for each:

==========================  =====================  ==================  ==================
option                      ini                    environment         fixture
==========================  =====================  ==================  ==================
``--fairdie-firmware PATH`` ``fairdie_firmware``   ``FAIRDIE_FIRMWARE`` ``fairdie_firmware``
``--fairdie-board B``       ``fairdie_board``      ``FAIRDIE_BOARD``    ``fairdie_board``
``--fairdie-seed S``        ``fairdie_seed``       ``FAIRDIE_SEED``     ``fairdie_seed``
==========================  =====================  ==================  ==================

The firmware is an ELF or HEX (default: the die built from firmware/); the
board a shipped board name or a TOML path (default: the board the firmware
was built for, die-direct). Fixtures chain firmware -> chip -> device:
``die`` is a fresh, erased die; ``die_factory`` makes variants (board, clock,
starting EEPROM, noise). With a firmware given, variants that need another
build (another wiring or clock) are skipped, saying why.

This module imports nothing compiled, so pytest starts without the binding.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from fairdie.board import Board
    from fairdie.die import Die
    from fairdie.sim import Firmware

__all__ = ["OPTIONS"]


@dataclass(frozen=True)
class _Option:
    name: str  # fixture and ini name
    help: str
    default: str | None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def env(self) -> str:
        return self.name.upper()


OPTIONS = (
    _Option("fairdie_firmware", "firmware to test, ELF or HEX (default: build ours)", None),
    _Option("fairdie_board", "board file or shipped board name (default: die-direct)", None),
    _Option("fairdie_seed", "seed for noise and power-on SRAM contents (default: 0)", "0"),
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fairdie", "fairdie AVR emulation")
    for o in OPTIONS:
        group.addoption(o.flag, dest=o.name, default=None, help=f"{o.help}; env {o.env}")
        parser.addini(o.name, o.help, default=o.default)


def _value(config: pytest.Config, o: _Option) -> str | None:
    cli = config.getoption(o.name)
    if cli is not None:
        return str(cli)
    if os.environ.get(o.env):
        return os.environ[o.env]
    ini = config.getini(o.name)
    return str(ini) if ini else o.default


def _load(path: Path, board: Board) -> Firmware:
    """A user's firmware for ``board``: an ELF names its MCU and clock (and must
    match the board's MCU); a HEX takes both from the board."""
    from fairdie.sim import load_firmware

    fw = load_firmware(path, mcu=board.mcu)
    return fw if fw.f_cpu else load_firmware(path, mcu=board.mcu, f_cpu=board.f_cpu)


def pytest_configure(config: pytest.Config) -> None:
    """Reject a bad option before any test runs (pytest exits with a usage error)."""
    given = {o.name: _value(config, o) for o in OPTIONS}
    if not given["fairdie_firmware"] and not given["fairdie_board"]:
        return
    from fairdie.board import load_board
    from fairdie.errors import FairdieError

    try:
        board = load_board(given["fairdie_board"] or "die-direct")
        if given["fairdie_firmware"]:
            _load(Path(given["fairdie_firmware"]), board)
    except FairdieError as e:
        raise pytest.UsageError(f"fairdie: {e}") from None


def pytest_report_header(config: pytest.Config) -> list[str]:
    parts = [f"{o.name}={_value(config, o)}" for o in OPTIONS]
    return ["fairdie: " + ", ".join(parts)]


@pytest.fixture(scope="session")
def fairdie_seed(pytestconfig: pytest.Config) -> int:
    raw = _value(pytestconfig, OPTIONS[2]) or "0"
    try:
        return int(raw, 0)
    except ValueError:
        raise pytest.UsageError(f"fairdie_seed: not a whole number: {raw!r}") from None


@pytest.fixture(scope="session")
def fairdie_board(pytestconfig: pytest.Config) -> Board:
    from fairdie.board import load_board
    from fairdie.errors import FairdieError

    try:
        return load_board(_value(pytestconfig, OPTIONS[1]) or "die-direct")
    except FairdieError as e:
        raise pytest.UsageError(str(e)) from None


@pytest.fixture(scope="session")
def fairdie_firmware(pytestconfig: pytest.Config, fairdie_board: Board) -> Firmware | None:
    """The user's firmware, loaded and checked; None when we build our own."""
    from fairdie.errors import FairdieError

    path = _value(pytestconfig, OPTIONS[0])
    if not path:
        return None
    try:
        return _load(Path(path), fairdie_board)
    except FairdieError as e:
        raise pytest.UsageError(str(e)) from None


@pytest.fixture
def die_factory(
    fairdie_firmware: Firmware | None, fairdie_board: Board, fairdie_seed: int
) -> Callable[..., Die]:
    """``die_factory(board=None, f_cpu=None, eeprom=None, noise=None, seed=None)``.

    ``board`` is a shipped name, path or Board (default: the session's board);
    ``eeprom`` the starting EEPROM (default erased); ``noise`` a model or name.
    """
    from fairdie.board import Board as BoardType
    from fairdie.board import load_board
    from fairdie.die import Die

    def make(
        *,
        board: BoardType | str | Path | None = None,
        f_cpu: int | None = None,
        eeprom: bytes | None = None,
        noise: Any = None,
        seed: int | None = None,
    ) -> Die:
        bd = fairdie_board if board is None else board
        bd = bd if isinstance(bd, BoardType) else load_board(bd)
        if fairdie_firmware is not None and (
            (bd.name != fairdie_board.name) or (f_cpu not in (None, fairdie_board.f_cpu))
        ):
            pytest.skip(
                f"needs a build for board {bd.name} at {f_cpu or bd.f_cpu} Hz;"
                f" the given firmware is for {fairdie_board.name}"
            )
        return Die(
            board=bd,
            firmware=fairdie_firmware,
            f_cpu=f_cpu,
            eeprom=eeprom,
            noise=noise,
            seed=fairdie_seed if seed is None else seed,
        )

    return make


@pytest.fixture
def die(die_factory: Callable[..., Die]) -> Die:
    """A fresh die: EEPROM erased, default noise, the session's board and seed."""
    return die_factory()

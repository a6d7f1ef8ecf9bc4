"""The die's pytest fixtures: ``die`` and ``die_factory``.

The core plugin (:mod:`fairdie.plugin`) loads this module for the registry
(:data:`fairdie.subjects.die.SUBJECT`'s ``fixtures``). The dice it makes
follow the session's firmware, board and seed, and record what a failing
test's evidence needs (:mod:`fairdie.subjects.die._evidence`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from fairdie.plugin import add_subject, board_option, option_value, session_board

if TYPE_CHECKING:
    from fairdie.board import Board
    from fairdie.sim import Firmware
    from fairdie.subjects.die import Die

__all__ = ["DEFAULT_BOARD", "die", "die_board", "die_factory"]

#: the dice's board when the session names none
DEFAULT_BOARD = "die-direct"


@pytest.fixture(scope="session")
def die_board(pytestconfig: pytest.Config) -> Board:
    """The session's board (``--fairdie-board``), else :data:`DEFAULT_BOARD`."""
    return session_board(pytestconfig, DEFAULT_BOARD)


@pytest.fixture(scope="session")
def _die_given(pytestconfig: pytest.Config, die_board: Board) -> Firmware | None:
    """The firmware given to the session (``--fairdie-firmware``) for the die's board."""
    from fairdie.errors import FairdieError
    from fairdie.sim import load_firmware

    path = option_value(pytestconfig, "fairdie_firmware")
    if not path:
        return None
    try:
        return load_firmware(Path(path), mcu=die_board.mcu, default_f_cpu=die_board.f_cpu)
    except FairdieError as e:
        raise pytest.UsageError(str(e)) from None


@pytest.fixture(scope="session")
def die_factory(
    pytestconfig: pytest.Config,
    _die_given: Firmware | None,
    die_board: Board,
    fairdie_seed: int,
) -> Callable[..., Die]:
    """``die_factory(board=None, f_cpu=None, eeprom=None, noise=None, seed=None, roll=None)``.

    ``board`` is a shipped name, path or Board (default: the session's board);
    ``eeprom`` the starting EEPROM (default: the firmware's own, else erased);
    ``noise`` a model or name. Each call makes a new die, so the factory is
    session-wide and safe inside ``@given``. Each die records its last press's
    pins, ADC conversions, EEPROM writes and power for a failing test's evidence.
    """
    from fairdie._trace import EVIDENCE_KINDS
    from fairdie.board import Board as BoardType
    from fairdie.board import load_board
    from fairdie.subjects.die._board import same_die
    from fairdie.subjects.die._evidence import DieRecipe, die_subject, recording_die
    from fairdie.toolchain import shipped_targets

    # a build (its board's firmware target, variant, MCU and clock) as loaded
    # with its model, made once a session (a die made from scratch checks the
    # build's sources against its cache: more than the chip itself costs);
    # each die still gets a chip of its own. load_board keeps parsed boards.
    builds: dict[tuple[object, ...], tuple[Firmware, Any]] = {}
    targets = set(shipped_targets())

    def make(
        *,
        board: BoardType | str | Path | None = None,
        f_cpu: int | None = None,
        eeprom: bytes | None = None,
        noise: Any = None,
        seed: int | None = None,
        roll: str | None = None,
    ) -> Die:
        bd = die_board if board is None else board
        if not isinstance(bd, BoardType):
            bd = load_board(bd)
        # a board wired as the session's, naming the same build, is the same
        # die under another name: the given firmware runs on it too
        same = same_die(bd, die_board) and f_cpu in (None, die_board.f_cpu)
        if _die_given is not None and not same:
            pytest.skip(
                f"needs a build for board {bd.name} at {f_cpu or bd.f_cpu} Hz;"
                f" the given firmware is for {die_board.name}"
            )
        build = (same, bd.firmware, bd.variant, bd.mcu, bd.f_cpu, f_cpu)
        firmware, model = builds.get(build, (_die_given if same else None, None))
        die = recording_die(
            board=bd,
            firmware=firmware,
            model=model,
            f_cpu=f_cpu,
            eeprom=eeprom,
            noise=noise,
            seed=fairdie_seed if seed is None else seed,
            roll=roll,
        )
        if bd.firmware in targets:  # a shipped target: its sources do not change
            builds.setdefault(build, (die.chip.firmware, die.model))
        die.chip.trace_kinds |= EVIDENCE_KINDS
        recipe = DieRecipe(
            board=board_option(pytestconfig, board, bd),
            firmware=str(Path(option_value(pytestconfig, "fairdie_firmware") or "").resolve())
            if _die_given is not None
            else None,
            f_cpu=f_cpu,
            seed=die.seed,
            noise=noise,
            roll=roll,
            eeprom=eeprom,
        )
        add_subject(pytestconfig, die_subject(die, recipe))
        return die

    return make


@pytest.fixture
def die(die_factory: Callable[..., Die]) -> Die:
    """A fresh die: its firmware's starting EEPROM (else erased), default noise,
    the session's board and seed."""
    return die_factory()

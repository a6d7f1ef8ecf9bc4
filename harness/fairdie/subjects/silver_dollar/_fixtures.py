"""The game's pytest fixtures: ``game_board``, ``game_factory`` and ``game``.

The core plugin (:mod:`fairdie.plugin`) loads this module for the registry
(:data:`fairdie.subjects.silver_dollar.SUBJECT`'s ``fixtures``). The games it
makes run the session's firmware (``--fairdie-firmware``) on the session's
board (``--fairdie-board``, else silver-dollar) from the session's seed, and
each is a subject of a failing test's evidence (a VCD of its trace).

A test that needs another build than the one given (a mutant, or a position
placed in EEPROM, which only a test-position build reads) skips, saying
why. A given firmware that does start from a placed position (a build with
``SDG_TEST_POSITION=1``, a mutant's too) runs those tests: whether it does
is seen once per session, by placing a position and looking at the strip.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from fairdie.plugin import add_subject, option_value, session_board

if TYPE_CHECKING:
    from fairdie.board import Board
    from fairdie.device import Setup
    from fairdie.subjects.silver_dollar._game import Game
    from fairdie.subjects.silver_dollar._solver import Position

__all__ = ["DEFAULT_BOARD", "TEST_POSITION", "game", "game_board", "game_factory"]

#: the game's board when the session names none
DEFAULT_BOARD = "silver-dollar"
#: the build variant that starts from a position placed in EEPROM, the device to move
TEST_POSITION = "test-position"
#: the define that makes any variant read a placed position (main.c's banner)
_PLACED = {"SDG_TEST_POSITION": 1}
#: a position with a reply, placed to see whether a given firmware reads one
_PROBE = 0b1001_0010_0101  # cells 12, 9, 6, 3, 1
_PROBE_S = 0.05


@pytest.fixture(scope="session")
def game_board(pytestconfig: pytest.Config) -> Board:
    """The session's board (``--fairdie-board``), else :data:`DEFAULT_BOARD`."""
    return session_board(pytestconfig, DEFAULT_BOARD)


@pytest.fixture(scope="session")
def _game_given(pytestconfig: pytest.Config, game_board: Board) -> Setup | None:
    """The firmware given to the session (``--fairdie-firmware``) on the game's board."""
    from fairdie.device import Setup
    from fairdie.errors import FairdieError

    path = option_value(pytestconfig, "fairdie_firmware")
    if not path:
        return None
    try:
        return Setup.make(Path(path), board=game_board)
    except FairdieError as e:
        raise pytest.UsageError(str(e)) from None


def _game(setup: Setup, seed: int) -> Game:
    from fairdie.subjects.silver_dollar._game import Game

    made = setup.with_seed(seed)
    assert made.board is not None
    return Game(made.chip(), made.board, seed=seed)


def _reads_a_placed_position(setup: Setup) -> bool:
    """Whether a firmware starts from a position placed in EEPROM: then the
    device replies at once and the strip shows five cells, not the idle light."""
    probe = _game(setup, 0)
    probe.place(_PROBE)
    probe.power_on()
    probe.chip.run(seconds=_PROBE_S)
    return len(probe.lit()) > 1


@pytest.fixture(scope="session")
def game_factory(
    pytestconfig: pytest.Config,
    _game_given: Setup | None,
    game_board: Board,
    fairdie_seed: int,
) -> Callable[..., Game]:
    """``game_factory(variant=None, position=None, chance=0, seed=None)``: a new
    :class:`~fairdie.subjects.silver_dollar._game.Game`, powered off.

    ``variant`` is a build of the board's firmware target (default: the
    board's own, or the firmware given); ``position`` is placed in EEPROM
    with ``chance`` (32 bits the firmware stirs into its choices), so that at
    power-on the device moves first from it (that variant's build combined
    with the test position). ``seed`` (default: the session's) seeds the
    chip and the buttons' bounce. Session-wide: builds are made once.
    """
    from fairdie.device import Setup
    from fairdie.toolchain import build

    made: dict[tuple[str, bool], Setup] = {}
    reads: list[bool] = []

    def given(variant: str | None, placed: bool) -> Setup:
        assert _game_given is not None
        if variant is not None and variant != game_board.variant:
            pytest.skip(f"needs the {variant} build; the session was given a firmware")
        if placed:
            if not reads:
                reads.append(_reads_a_placed_position(_game_given))
            if not reads[0]:
                pytest.skip(
                    "needs a position placed in EEPROM: the given firmware reads none"
                    " (a build with SDG_TEST_POSITION=1 does)"
                )
        return _game_given

    def ours(variant: str | None, placed: bool) -> Setup:
        v = variant or game_board.variant
        if game_board.firmware is None or v is None:
            raise pytest.UsageError(
                f"board {game_board.name} names no firmware target: give --fairdie-firmware"
            )
        key = (v, placed)
        if key not in made:
            if placed and v != TEST_POSITION:
                b = build(
                    game_board.firmware,
                    variant=v,
                    defines=_PLACED,
                    mcu=game_board.mcu,
                    f_cpu=game_board.f_cpu,
                )
                made[key] = Setup.make(b.elf, board=game_board, variant=None)
            else:
                made[key] = Setup.make(board=game_board, variant=v)
        return made[key]

    def make(
        variant: str | None = None,
        position: Position | None = None,
        chance: int = 0,
        seed: int | None = None,
    ) -> Game:
        from fairdie._evidence import Subject

        placed = position is not None
        setup = given(variant, placed) if _game_given is not None else ours(variant, placed)
        game = _game(setup, fairdie_seed if seed is None else seed)
        if position is not None:
            game.place(position, chance)
        add_subject(pytestconfig, Subject(game.chip, what="game", board=game.board))
        return game

    return make


@pytest.fixture
def game(game_factory: Callable[..., Game]) -> Game:
    """A fresh game, powered off: the session's firmware, board and seed."""
    return game_factory()

"""The game's verify checks (``fairdie verify`` of the Silver Dollar Game's
firmware on its board).

They apply to a board with the game's strip (a display ``strip`` of the 12
LEDs ``c12``..``c1``) and its buttons ``1``..``5`` and ``go``; a board
whose firmware target is the game's (``sdg_t84a``) without them is bad
input. In order: the starts (:mod:`._play`), the device's replies against
the solver (from positions placed by the test-position build of the same
variant; skipped for a file that is none of the game's builds), what a
press does, the tunes, the idle power-down and the display
(:mod:`._device`). The subject registers :data:`CHECKS`
(``Subject.checks``); its options are :mod:`._options`.
"""

from __future__ import annotations

from fairdie.board import Board
from fairdie.errors import BoardError
from fairdie.subjects.silver_dollar._game import is_game_board
from fairdie.subjects.silver_dollar._trials import TARGET
from fairdie.subjects.silver_dollar.checks._device import game_display, game_sleep, game_tones
from fairdie.subjects.silver_dollar.checks._options import OPTIONS, GameOptions, game_options
from fairdie.subjects.silver_dollar.checks._play import (
    ALPHA,
    game_presses,
    game_reply,
    game_start,
)
from fairdie.verify import Check, Checks

__all__ = ["ALPHA", "CHECKS", "GameOptions", "applies", "game_options"]

_PARTS = "a display strip of the 12 LEDs c12..c1, buttons 1..5 and go"


def applies(board: Board) -> str | None:
    """None for the game's board (its strip and buttons), else why the game's
    checks are skipped; a board of the game's target without them is bad input."""
    if is_game_board(board):
        return None
    if board.firmware == TARGET:
        raise BoardError(
            f"board {board.name} names firmware {TARGET} but lacks the game's parts: {_PARTS}"
        )
    return f"board {board.name} is no Silver Dollar Game: it lacks {_PARTS}"


#: the game's checks, in the order they run
CHECKS = Checks(
    subject="silver_dollar",
    applies=applies,
    checks=(
        Check(
            "game-start",
            "games from power-on: every start has its leftmost dollar on cell 12 or 11 and is"
            " won for the human (the solver)",
            game_start,
        ),
        Check(
            "game-reply",
            "from placed positions the device's reply is a winning one when it has one (the"
            " solver), uniform among them (chi-square), a legal one otherwise",
            game_reply,
            weight=2.0,
        ),
        Check(
            "game-presses",
            "an invalid press (GO before a move, a blocked dollar, a second dollar) beeps and"
            " changes nothing; a valid press steps its dollar one cell with a click",
            game_presses,
        ),
        Check(
            "game-tones",
            "the tunes at a game's end are notes C5..B5, A5 within one Timer1 step of 880 Hz",
            game_tones,
        ),
        Check(
            "game-sleep",
            "after 30 s idle: display off, power-down, no interrupt while asleep, its current"
            " (verify's energy model); GO wakes it with the position intact",
            game_sleep,
        ),
        Check(
            "game-display",
            "each lit cell refreshed at about 1 kHz, no other LED lit at any moment (no"
            " ghosting), each cell on its own LED",
            game_display,
        ),
    ),
    options=OPTIONS,
)

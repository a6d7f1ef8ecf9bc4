"""The game's verify checks (``fairdie verify`` of the Silver Dollar Game's
firmware on its board).

They apply to a board with the game's strip (a display ``strip`` of the 12
LEDs ``c12``..``c1``) and its buttons ``1``..``5`` and ``go``, or whose
firmware target is the game's (``sdg_t84a``); a board of the game's target
without them is bad input. In order: the starts (:mod:`._play`), the
device's replies against the solver (from positions placed by the
test-position build of the same variant; skipped for a file that is not one
of the game's builds), what a press does, the tunes, the idle power-down and
the display (:mod:`._device`). The subject registers :data:`CHECKS`
(``Subject.checks``); its options are :mod:`._options`.
"""

from __future__ import annotations

from fairdie.board import Board
from fairdie.errors import BoardError
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

__all__ = ["ALPHA", "BUTTONS", "CELLS_LEDS", "CHECKS", "GameOptions", "applies", "game_options"]

#: the strip's LEDs, cell 12 (left) to cell 1
CELLS_LEDS = tuple(f"c{c}" for c in range(12, 0, -1))
#: the game's buttons: the dollars from the left, and GO
BUTTONS = ("1", "2", "3", "4", "5", "go")


def _missing(board: Board) -> list[str]:
    out = []
    strip = next((d for d in board.displays if d.name == "strip"), None)
    if strip is None:
        out.append("a display named strip")
    elif set(strip.leds) != set(CELLS_LEDS):
        out.append(f"a strip of the 12 LEDs {CELLS_LEDS[0]}..{CELLS_LEDS[-1]}")
    names = {b.name for b in board.input_buttons}
    lacking = [b for b in BUTTONS if b not in names]
    if lacking:
        out.append(f"buttons {', '.join(lacking)}")
    return out


def applies(board: Board) -> str | None:
    """None for the game's board (its strip and buttons, or its firmware
    target), else why the game's checks are skipped; a board of the game's
    target that lacks its strip or buttons is bad input."""
    missing = _missing(board)
    if not missing:
        return None
    if board.firmware == TARGET:
        raise BoardError(
            f"board {board.name} names firmware {TARGET} but lacks {'; '.join(missing)}"
        )
    return f"board {board.name} is no Silver Dollar Game: no {missing[0]}"


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

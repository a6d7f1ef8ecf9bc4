"""What a press does, heard on the speaker and seen on the strip.

- An invalid press (GO before any step, a blocked dollar, a second dollar)
  beeps, C5 for 150 ms, and changes nothing.
- A valid step moves its dollar one cell and clicks, B5 for 20 ms.
- The tunes play their notes (the device's win: A5 F5 D5 C5), A5 within
  one Timer1 step of 880 Hz.
- Under the board's bounce model, one press is one step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from fairdie.subjects.silver_dollar._solver import (
    Move,
    Position,
    apply,
    button,
    cells,
    format_position,
    legal_moves,
    parse_position,
)
from fairdie.subjects.silver_dollar.suite._support import (
    A5_HZ,
    BEEP,
    CLICK,
    DEVICE_WINS,
    ONE_TIMER_STEP_HZ,
    Factory,
    names,
    starts,
)

if TYPE_CHECKING:
    from fairdie.subjects.silver_dollar._game import Game, Note

pytestmark = pytest.mark.sim

#: a sound's length may differ from the banner's by this much (a frame or two)
SOUND_SLACK_S = 0.005
#: after a press, the longest sound it makes (the beep) has ended by then
HEARD_S = 0.2
#: how many starts a test looks through for one it needs
LOOK = 20


def _sounds(notes: list[Note]) -> list[tuple[str, float]]:
    return [(n.name, n.seconds) for n in notes]


def _is(sound: tuple[tuple[str, float], ...], notes: list[Note]) -> bool:
    return len(notes) == len(sound) and all(
        n.name == name and abs(n.seconds - s) <= SOUND_SLACK_S
        for n, (name, s) in zip(notes, sound, strict=True)
    )


def _press(game: Game, name: str) -> tuple[Position, list[Note]]:
    """Press one button; the position shown after it and the sounds it made."""
    mark = game.chip.trace.mark()
    game.tap(name)
    game.chip.run(seconds=HEARD_S)
    return game.position(), game.notes(mark)


def _room(pos: Position, cell: int) -> int:
    """Empty cells right of the dollar on ``cell``."""
    right = [c for c in cells(pos) if c < cell]
    return cell - (right[0] if right else 0) - 1


def _step(cell: int) -> Move:
    """One cell to the right, for the dollar on ``cell``."""
    return Move(cell, cell - 1)


def _free(pos: Position) -> list[int]:
    return [c for c in cells(pos) if _room(pos, c) > 0]


def _a_start(
    factory: Factory, seed: int, want: Callable[[Position], bool], what: str
) -> tuple[Game, Position]:
    """The first of up to :data:`LOOK` fresh games whose start is ``want``."""
    for game, start in starts(factory, LOOK, seed):
        if want(start):
            return game, start
    pytest.fail(f"no start in {LOOK} games had {what}")


def _check_beeps(game: Game, pos: Position, name: str, what: str) -> None:
    shown, notes = _press(game, name)
    assert _is(BEEP, notes), f"{what}: heard {_sounds(notes)}, not a beep {BEEP}"
    assert shown == pos, f"{what}: the strip went from {format_position(pos)} to {shown}"


def test_an_invalid_press_beeps_and_changes_nothing(
    game_factory: Factory, fairdie_seed: int
) -> None:
    game, start = _a_start(
        game_factory,
        fairdie_seed,
        lambda p: len(_free(p)) in (2, 3, 4),
        "a blocked dollar and two free ones",
    )
    blocked = [c for c in cells(start) if _room(start, c) == 0]
    _check_beeps(game, start, "go", "GO before any step")
    which = str(button(start, _step(blocked[0])))
    _check_beeps(game, start, which, f"the blocked dollar on cell {blocked[0]} (button {which})")
    first, second = _free(start)[:2]
    moved, _ = _press(game, str(button(start, _step(first))))
    other = str(button(moved, _step(second)))
    _check_beeps(game, moved, other, f"a second dollar (button {other}) after a step of another")


def test_a_valid_step_moves_one_dollar_one_cell_and_clicks(
    game_factory: Factory, fairdie_seed: int
) -> None:
    for game, start in starts(game_factory, 3, fairdie_seed):
        cell = _free(start)[-1]
        step = _step(cell)
        shown, notes = _press(game, str(button(start, step)))
        want = apply(start, step)
        assert shown == want, (
            f"one press of the dollar on {cell} turned {format_position(start)}"
            f" into {format_position(shown)}, not {format_position(want)}"
        )
        assert _is(CLICK, notes), f"a step: heard {_sounds(notes)}, not a click {CLICK}"


def test_the_devices_tune_plays_its_notes_a5_at_880_hz(game_factory: Factory) -> None:
    before = parse_position("6,4,3,2,1")  # the device's only move is its last
    game = game_factory(position=before)
    game.power_on()
    mark = game.chip.trace.mark()
    assert game.wait_reply(before) == Move(6, 5)
    game.chip.run(seconds=1.0)
    notes = game.notes(mark)
    assert names(notes) == DEVICE_WINS, f"the device's win: heard {_sounds(notes)}"
    a5 = notes[0].hz
    assert abs(a5 - A5_HZ) < ONE_TIMER_STEP_HZ, f"A5 at {a5:.1f} Hz"


def test_one_press_is_one_step_under_the_boards_bounce(
    game_factory: Factory, fairdie_seed: int
) -> None:
    game, start = _a_start(
        game_factory,
        fairdie_seed,
        lambda p: max(_room(p, c) for c in cells(p)) >= 3,
        "a dollar with three free cells",
    )
    cell = max(cells(start), key=lambda c: _room(start, c))
    which = str(button(start, _step(cell)))
    if game.button(which).bounce.count == 0:
        pytest.skip(f"board {game.board.name}: button {which} does not bounce")
    pos = start
    for n in range(1, 4):
        shown, notes = _press(game, which)
        pos = apply(pos, _step(cell - n + 1))
        assert shown == pos, (
            f"press {n} of button {which} (the dollar from {cell}), bouncing"
            f" {game.button(which).bounce}: the strip shows {format_position(shown)},"
            f" not {format_position(pos)}"
        )
        assert _is(CLICK, notes), f"press {n}: heard {_sounds(notes)}"
    assert legal_moves(pos)

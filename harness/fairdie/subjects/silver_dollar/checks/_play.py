"""The game's play, judged by the solver: starts from power-on, the device's
replies from placed positions (a chi-square test where it has a choice),
and what a press does (a step clicks, an invalid press beeps and changes
nothing, one press is one step under the board's bounce)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from fairdie.errors import FairdieError
from fairdie.subjects.silver_dollar._solver import (
    START_CELLS,
    Move,
    Position,
    all_positions,
    cells,
    format_position,
    legal_moves,
    move_between,
    winning_moves,
    wins,
)
from fairdie.subjects.silver_dollar._stats import uniform_fit
from fairdie.subjects.silver_dollar._trials import draw
from fairdie.subjects.silver_dollar.checks._options import game_options
from fairdie.subjects.silver_dollar.checks._state import GameState
from fairdie.verify import Context, Result, fail, ok, skip

if TYPE_CHECKING:
    from fairdie.subjects.silver_dollar._game import Game

__all__ = ["ALPHA", "game_presses", "game_reply", "game_start"]

#: the reply check's significance level, over all the positions it tests
#: (each is tested at ALPHA / positions: Bonferroni)
ALPHA = 0.01
#: positions with one winning reply, and with none, the reply check tries besides
_SINGLE = 4
_LOST = 4


def game_start(ctx: Context) -> Result:
    st, n = GameState.of(ctx), game_options(ctx).games
    starts: list[Position] = []
    for i in range(n):
        try:
            _, start = st.started(i)
        except FairdieError as e:
            return fail(f"game {i + 1} from power-on: {e}", games=i)
        ctx.tick(1 / n)
        bad = _bad_start(start)
        if bad:
            return fail(f"game {i + 1} started at {format_position(start)}: {bad}", games=i + 1)
        starts.append(start)
    distinct = len(set(starts))
    return ok(
        f"{n} games from power-on: every start has its leftmost dollar on cell 12 or 11 and"
        f" is won for the human (the solver); {distinct} distinct",
        starts=[format_position(p) for p in starts],
    )


def _bad_start(start: Position) -> str:
    left = cells(start)[0]
    if left not in START_CELLS:
        return f"its leftmost dollar is on cell {left}, not 12 or 11"
    if not wins(start):
        return "the human, to move, cannot force a win from it (the solver)"
    return ""


def game_reply(ctx: Context) -> Result:
    st, o = GameState.of(ctx), game_options(ctx)
    placing = st.placing()
    if isinstance(placing, str):
        return skip(placing)
    rng = draw(ctx.o.seed, "verify-positions", 0)
    choice = [p for p in all_positions() if len(winning_moves(p)) > 1]
    single = [p for p in all_positions() if len(winning_moves(p)) == 1]
    lost = [p for p in all_positions() if not winning_moves(p) and legal_moves(p)]
    tried = rng.sample(choice, min(o.positions, len(choice)))
    others = rng.sample(single, _SINGLE) + rng.sample(lost, _LOST)
    alpha = ALPHA / len(tried)
    total = len(tried) * o.trials + len(others)
    for p in [*tried, *others]:
        trials = o.trials if p in tried else 1
        counts: Counter[Move] = Counter()
        for t in range(trials):
            try:
                move = st.reply(p, t)
            except FairdieError as e:
                return fail(f"from {format_position(p)}: {e}")
            wrong = _wrong_reply(p, move)
            if wrong:
                return fail(f"from {format_position(p)} the device moved {move}: {wrong}")
            counts[move] += 1
            ctx.tick(1 / total)
        if p in tried:
            fit = uniform_fit([counts[m] for m in winning_moves(p)], alpha)
            if not fit.uniform:
                return fail(
                    f"from {format_position(p)} the winning replies"
                    f" {', '.join(map(str, winning_moves(p)))} came {fit}",
                    alpha=ALPHA,
                )
    return ok(
        f"{len(tried)} positions with a choice x {o.trials} replies: every one winning"
        f" (the solver), each choice uniform by chi-square (alpha {ALPHA:g} over them,"
        f" Bonferroni); {_SINGLE} with one winning reply took it, {_LOST} lost ones a legal move",
        positions=[format_position(p) for p in tried],
        trials=o.trials,
        alpha=ALPHA,
    )


def _wrong_reply(before: Position, move: Move) -> str:
    best = winning_moves(before)
    if best and move not in best:
        return f"it leaves the human a win; winning replies: {', '.join(map(str, best))}"
    return ""


def game_presses(ctx: Context) -> Result:
    st = GameState.of(ctx)
    try:
        game, start = st.started(0)
        wrong = _presses(game, start)
    except FairdieError as e:
        return fail(f"in a game: {e}")
    if wrong:
        return fail(wrong)
    return ok(
        "GO before a move, a blocked dollar and a second dollar each beeped and changed"
        " nothing; each valid press (the board's bounce) moved its dollar one cell, with a click"
    )


def press(game: Game, button: str) -> int:
    """Press and release ``button`` as a person would (:meth:`Game.tap`);
    the trace mark before it."""
    mark = game.chip.trace.mark()
    game.tap(button)
    return mark


def _sounds(game: Game, mark: int) -> str:
    notes = game.notes(mark)
    return ", ".join(n.name or f"{n.hz:.0f} Hz" for n in notes) or "silence"


def _invalid(game: Game, button: str, what: str, before: Position, beeps: list[str]) -> str:
    """An invalid press: one note (a beep, the same each time) and the same
    position; else what happened."""
    mark = press(game, button)
    game.chip.run(seconds=0.2)  # the beep plays out
    after = game.position()
    heard = game.notes(mark)
    if after != before:
        return f"{what} changed {format_position(before)} to {format_position(after)}"
    if len(heard) != 1:
        return f"{what} played {_sounds(game, mark)}, not one beep"
    beeps.append(heard[0].name)
    if beeps[0] != beeps[-1]:
        return f"{what} beeped {beeps[-1]}, another beep ({beeps[0]}) than before"
    return ""


def _presses(game: Game, start: Position) -> str:
    beeps: list[str] = []
    wrong = _invalid(game, "go", "GO before any move", start, beeps)
    if wrong:
        return wrong
    occupied = cells(start)
    room = [
        (occupied[k] - (occupied[k + 1] if k + 1 < len(occupied) else 0) - 1)
        for k in range(len(occupied))
    ]
    blocked = [k for k, r in enumerate(room) if r == 0]
    if blocked:
        what = f"dollar {blocked[0] + 1} (blocked)"
        wrong = _invalid(game, str(blocked[0] + 1), what, start, beeps)
        if wrong:
            return wrong
    k = max(range(len(room)), key=lambda i: room[i])  # the dollar with most room
    pos = start
    for n in range(min(room[k], 3)):
        src = cells(pos)[k]
        mark = press(game, str(k + 1))
        after = game.position()
        want = str(Move(src, src - 1))
        if after == pos:
            return f"press {n + 1} of dollar {k + 1} (on cell {src}) did not move it"
        moved = _moved(pos, after)
        if moved != want:
            return f"press {n + 1} of dollar {k + 1} moved {moved}, not {want}: one press, one step"
        heard = game.notes(mark)
        if len(heard) != 1 or heard[0].name == beeps[0]:
            heard_as = _sounds(game, mark)
            return f"the step {want} played {heard_as}, not one click (the beep is {beeps[0]})"
        pos = after
    other = next(i for i in range(len(room)) if i != k)
    what = f"dollar {other + 1} after dollar {k + 1} moved"
    return _invalid(game, str(other + 1), what, pos, beeps)


def _moved(before: Position, after: Position) -> str:
    try:
        return str(move_between(before, after))
    except FairdieError:
        return f"{format_position(before)} to {format_position(after)}"

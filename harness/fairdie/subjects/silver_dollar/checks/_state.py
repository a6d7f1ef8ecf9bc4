"""What the game's checks share in one verify run: fresh games of the file
on its board, the build that places a position (when the file is one of
ours), and a game started once for the checks that only look at it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairdie.subjects.silver_dollar._solver import Move, Position
from fairdie.subjects.silver_dollar._trials import (
    draw,
    game_on,
    placing_setup,
    reply_trial,
    start_game,
)
from fairdie.verify import Context

if TYPE_CHECKING:
    from fairdie.device import Setup
    from fairdie.subjects.silver_dollar._game import Game

__all__ = ["GameState"]


class GameState:
    """The game's part of a verify :class:`~fairdie.verify.Context`."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._placing: Setup | str | None = None
        self._made = 0

    @classmethod
    def of(cls, ctx: Context) -> GameState:
        state = ctx.state.get("silver_dollar")
        if not isinstance(state, GameState):
            state = ctx.state["silver_dollar"] = cls(ctx)
        return state

    @property
    def seed(self) -> int:
        return self.ctx.o.seed

    def game(self) -> Game:
        """A fresh game of the file on its board (each with its own bounce)."""
        self._made += 1
        rng = draw(self.seed, "verify", self._made)
        return game_on(self.ctx.c.setup, rng.getrandbits(32), self.ctx.track)

    def started(self, index: int) -> tuple[Game, Position]:
        """A fresh game started as :func:`start_trial` starts game ``index``:
        the game and its start."""
        return start_game(self.ctx.c.setup, self.seed, index, self.ctx.track)

    def placing(self) -> Setup | str:
        """The setup of the build that places a position (the file's own
        variant with the test position added), or why there is none."""
        if self._placing is None:
            c = self.ctx.c
            c.identify()
            self._placing = placing_setup(c.setup, c.identified)
            if isinstance(self._placing, str) and c.identified is None and c.identify_note:
                self._placing = f"{c.identify_note}: {self._placing}"
        return self._placing

    def reply(self, position: Position, index: int) -> Move:
        """The device's reply from ``position``, trial ``index`` (:func:`reply_trial`)."""
        setup = self.placing()
        assert not isinstance(setup, str)
        return reply_trial(setup, position, self.seed, index, self.ctx.track)

    def placed(self, position: Position, index: int) -> Game:
        """A fresh game of the placing build with ``position`` placed, powered on."""
        setup = self.placing()
        assert not isinstance(setup, str)
        rng = draw(self.seed, f"placed:{position}", index)
        game = game_on(setup, rng.getrandbits(32), self.ctx.track)
        game.place(position, rng.getrandbits(32))
        game.power_on()
        return game

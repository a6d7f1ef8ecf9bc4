"""The game's own ``fairdie verify`` options: how many games the start
check plays, and how many positions and trials the reply check takes. The
core lists them in ``--help`` under the game's name and hands the checks a
:class:`GameOptions` (:meth:`fairdie.verify.Options.of`)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from fairdie._cmdline import int_in
from fairdie.verify import Context, SubjectOptions

__all__ = ["OPTIONS", "GameOptions", "game_options"]


@dataclass(frozen=True)
class GameOptions:
    """What a verify run of the game may change."""

    games: int = 12  #: games from power-on in the start check
    positions: int = 12  #: positions with a choice of winning replies in the reply check
    trials: int = 40  #: replies from each of them


def _add(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--games",
        type=int_in(1, 10_000),
        default=GameOptions.games,
        metavar="N",
        help=f"games from power-on whose starts are checked (default {GameOptions.games})",
    )
    group.add_argument(
        "--positions",
        type=int_in(1, 272),
        default=GameOptions.positions,
        metavar="P",
        help="positions with several winning replies the reply check tries"
        f" (default {GameOptions.positions}; 272 is all)",
    )
    group.add_argument(
        "--trials",
        type=int_in(15, 10_000),
        default=GameOptions.trials,
        metavar="K",
        help=f"replies from each position (default {GameOptions.trials}; at least 15,"
        " five expected per reply for the chi-square test)",
    )


def _read(args: argparse.Namespace) -> GameOptions:
    return GameOptions(games=args.games, positions=args.positions, trials=args.trials)


#: what the game adds to ``fairdie verify``
OPTIONS = SubjectOptions(add=_add, read=_read, default=GameOptions())


def game_options(ctx: Context) -> GameOptions:
    """The game's options in this verify run."""
    from fairdie.subjects.silver_dollar.checks import CHECKS

    found = ctx.o.of(CHECKS)
    return found if isinstance(found, GameOptions) else GameOptions()

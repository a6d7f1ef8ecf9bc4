"""The game's exhaustive campaign: ``fairdie silver-dollar sweep``.

Every position of five dollars on twelve cells where the device has a move
is placed (the test-position build of the variant swept) and the device's
reply read off its LEDs: K times from each with a winning reply (636, by
the solver), every reply a winning one, and where there are several (272
positions) their counts tested for a uniform choice by chi-square at a
family-wise level ALPHA (Bonferroni: ALPHA / 272 each), plus the pooled
statistic over all of them; a few times from each with none, every reply
legal. Then N games from power-on: their starts, each valid and the
distinct ones counted against the solver's 444; and M games each of a
perfect player (who must win them all) and of a random one (its rate).

The work is cut into fixed pieces run on :func:`fairdie.campaigns.map_work`
(local processes or a Dask scheduler), and every trial is drawn from the
seed and its own index (:mod:`._trials`): the numbers depend only on the
seed and the sizes, never on the job count.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairdie._cmdline import (
    SEED,
    Parser,
    add_spread_options,
    int_in,
    parser_once,
    run_command,
)
from fairdie.errors import FairdieError
from fairdie.subjects.silver_dollar._solver import (
    all_positions,
    format_position,
    legal_moves,
    valid_starts,
    winning_moves,
)
from fairdie.subjects.silver_dollar._stats import chi2_critical, uniform_fit
from fairdie.subjects.silver_dollar._trials import (
    TARGET,
    draw,
    placing_setup,
    play_game,
    reply_trial,
    start_trial,
)

__all__ = ["ALPHA", "Sizes", "SweepError", "sweep", "sweep_main"]

#: the family-wise significance level of the uniform-choice tests
ALPHA = 0.01
#: replies from each position with no winning reply (each must be legal)
LOST_TRIALS = 3
#: positions, games per piece of work
_POSITIONS_PER_PIECE = 16
_STARTS_PER_PIECE = 250
_GAMES_PER_PIECE = 20


class SweepError(FairdieError):
    """The sweep cannot run (a build that fails, no scheduler)."""


@dataclass(frozen=True)
class Sizes:
    """How big a sweep is."""

    trials: int = 60  #: replies from each position with a winning reply
    games: int = 5000  #: games from power-on whose starts are read
    players: int = 200  #: games of each scripted player
    positions: int | None = None  #: a seeded sample of the positions (None: all)


@dataclass(frozen=True)
class _Piece:
    kind: str  #: "reply", "start", "perfect" or "random"
    firmware: str
    board: str
    seed: int
    index: int
    positions: tuple[int, ...] = ()
    trials: int = 0
    lo: int = 0
    hi: int = 0


def _run_piece(p: _Piece) -> tuple[int, Any]:
    from fairdie.device import Setup

    setup = Setup.make(Path(p.firmware), board=p.board, seed=p.seed)
    if p.kind == "reply":
        out = {}
        for pos in p.positions:
            n = p.trials if winning_moves(pos) else LOST_TRIALS
            out[pos] = [tuple(reply_trial(setup, pos, p.seed, t)) for t in range(n)]
        return p.index, out
    if p.kind == "start":
        return p.index, [start_trial(setup, p.seed, i) for i in range(p.lo, p.hi)]
    return p.index, [play_game(setup, p.kind, p.seed, i).human_won for i in range(p.lo, p.hi)]


def _pieces(sizes: Sizes, game_fw: str, placing_fw: str, board: str, seed: int) -> list[_Piece]:
    positions = [p for p in all_positions() if legal_moves(p)]
    if sizes.positions is not None:
        rng = draw(seed, "sweep-positions", 0)
        positions = sorted(rng.sample(positions, min(sizes.positions, len(positions))))
    out: list[_Piece] = []
    for i in range(0, len(positions), _POSITIONS_PER_PIECE):
        chunk = tuple(positions[i : i + _POSITIONS_PER_PIECE])
        out.append(_Piece("reply", placing_fw, board, seed, len(out), chunk, sizes.trials))
    for kind, n, per in (
        ("start", sizes.games, _STARTS_PER_PIECE),
        ("perfect", sizes.players, _GAMES_PER_PIECE),
        ("random", sizes.players, _GAMES_PER_PIECE),
    ):
        for lo in range(0, n, per):
            out.append(_Piece(kind, game_fw, board, seed, len(out), lo=lo, hi=min(n, lo + per)))
    return out


def sweep(
    sizes: Sizes,
    *,
    variant: str = "game",
    board: str = "silver-dollar",
    seed: int = 0,
    jobs: int = 1,
    scheduler: str | None = None,
) -> dict[str, Any]:
    """Run the sweep of build ``variant`` on ``board``; its numbers as a dict
    (``passed``: every claim held)."""
    from fairdie.campaigns import map_work
    from fairdie.device import Setup

    t0 = time.perf_counter()
    game = Setup.make(board=board, variant=variant, seed=seed)
    placing = placing_setup(game, variant)
    if isinstance(placing, str):
        raise SweepError(placing)
    pieces = _pieces(sizes, str(game.firmware), str(placing.firmware), board, seed)
    done = dict(map_work(_run_piece, pieces, jobs=jobs, scheduler=scheduler, error=SweepError))
    by_kind: dict[str, list[Any]] = {}
    for p in pieces:
        by_kind.setdefault(p.kind, []).append(done[p.index])
    replies: dict[int, list[tuple[int, int]]] = {}
    for part in by_kind.get("reply", []):
        replies.update(part)
    out: dict[str, Any] = {
        "target": TARGET,
        "variant": variant,
        "board": board,
        "seed": seed,
        "replies": _judge_replies(replies, sizes.trials),
        "starts": _judge_starts([s for part in by_kind.get("start", []) for s in part]),
        "players": {
            kind: _rate([w for part in by_kind.get(kind, []) for w in part])
            for kind in ("perfect", "random")
        },
    }
    perfect = out["players"]["perfect"]
    out["passed"] = (
        out["replies"]["passed"] and out["starts"]["passed"] and perfect["wins"] == perfect["games"]
    )
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out


def _rate(wins: list[bool]) -> dict[str, Any]:
    n = len(wins)
    return {"games": n, "wins": sum(wins), "rate": round(sum(wins) / n, 4) if n else None}


def _judge_replies(replies: dict[int, list[tuple[int, int]]], trials: int) -> dict[str, Any]:
    choice = [p for p in replies if len(winning_moves(p)) > 1]
    level = ALPHA / max(1, len(choice))
    wrong: list[str] = []
    uneven: list[str] = []
    pooled, df = 0.0, 0
    for pos, moves in sorted(replies.items()):
        best: list[tuple[int, int]] = [(m.src, m.dst) for m in winning_moves(pos)]
        legal = [(m.src, m.dst) for m in legal_moves(pos)]
        for m in moves:
            if m not in (best or legal):
                wrong.append(f"{format_position(pos)}: {m[0]}->{m[1]}")
        if len(best) > 1:
            counts = Counter(moves)
            fit = uniform_fit([counts[m] for m in best], level)
            pooled += fit.statistic
            df += fit.df
            if not fit.uniform:
                uneven.append(f"{format_position(pos)}: {fit}")
    critical = chi2_critical(df, ALPHA) if df else None
    return {
        "positions": len(replies),
        "with_winning_reply": sum(1 for p in replies if winning_moves(p)),
        "with_choice": len(choice),
        "trials": trials,
        "lost_trials": LOST_TRIALS,
        "replies": sum(len(m) for m in replies.values()),
        "wrong": len(wrong),
        "first_wrong": wrong[:3],
        "alpha": ALPHA,
        "alpha_each": level,
        "not_uniform": len(uneven),
        "first_not_uniform": uneven[:3],
        "pooled": {"statistic": round(pooled, 2), "df": df, "critical": critical},
        "passed": not wrong and not uneven and (critical is None or pooled <= critical),
    }


def _judge_starts(starts: list[int]) -> dict[str, Any]:
    valid = set(valid_starts())
    seen = Counter(starts)
    invalid = sorted(p for p in seen if p not in valid)
    return {
        "games": len(starts),
        "distinct": len(seen),
        "valid_starts": len(valid),
        "invalid": len(invalid),
        "first_invalid": [format_position(p) for p in invalid[:3]],
        "most_seen": max(seen.values(), default=0),
        "passed": not invalid,
    }


@parser_once
def _parser() -> Parser:
    p = Parser(
        prog="fairdie silver-dollar sweep",
        description="The exhaustive campaign: every position's replies against the solver"
        " (chi-square where the device has a choice), starts over many games, a perfect"
        " and a random player.",
    )
    d = Sizes()
    p.add_argument(
        "--trials",
        type=int_in(15, 100_000),
        default=d.trials,
        metavar="K",
        help=f"replies from each position with a winning reply (default {d.trials})",
    )
    p.add_argument(
        "--games",
        type=int_in(0, 1_000_000),
        default=d.games,
        metavar="N",
        help=f"games from power-on whose starts are read (default {d.games}; 0: none)",
    )
    p.add_argument(
        "--players",
        type=int_in(0, 100_000),
        default=d.players,
        metavar="M",
        help=f"games of each scripted player (default {d.players}; 0: none)",
    )
    p.add_argument(
        "--positions",
        type=int_in(1, 792),
        metavar="P",
        help="a seeded sample of P positions (default: all)",
    )
    p.add_argument("--variant", default="game", help="the build swept (default game)")
    p.add_argument("--seed", type=SEED, default=0, metavar="S")
    add_spread_options(p, pieces="pieces of the sweep")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def _command(a: argparse.Namespace) -> int:
    sizes = Sizes(a.trials, a.games, a.players, a.positions)
    out = sweep(sizes, variant=a.variant, seed=a.seed, jobs=a.jobs, scheduler=a.scheduler)
    out["replay"] = a.replay
    if a.json:
        print(json.dumps(out, indent=2))
    else:
        print(_text(out))
    return 0 if out["passed"] else 1


def _text(out: dict[str, Any]) -> str:
    r, s, pl = out["replies"], out["starts"], out["players"]
    pooled = r["pooled"]
    lines = [
        f"replies: {r['positions']} positions ({r['with_winning_reply']} with a winning reply"
        f" x {r['trials']}, the rest x {r['lost_trials']}): {r['replies']:,} replies,"
        f" {r['wrong']} wrong by the solver",
        f"  {r['with_choice']} with a choice: {r['not_uniform']} not uniform by chi-square"
        f" (alpha {r['alpha']:g} over them, {r['alpha_each']:.2g} each); pooled"
        f" {pooled['statistic']} on {pooled['df']} df (critical {pooled['critical'] or 0:.1f})",
        (
            f"starts: {s['games']:,} games, {s['distinct']} distinct of the solver's"
            f" {s['valid_starts']} valid, {s['invalid']} invalid"
            if s["games"]
            else "starts: none read (--games 0)"
        ),
        (
            f"players: perfect won {pl['perfect']['wins']}/{pl['perfect']['games']};"
            f" random won {pl['random']['wins']}/{pl['random']['games']}"
            f" ({100 * (pl['random']['rate'] or 0):.1f} %)"
            if pl["random"]["games"]
            else "players: none played (--players 0)"
        ),
        *(f"  wrong: {w}" for w in r["first_wrong"]),
        *(f"  not uniform: {w}" for w in r["first_not_uniform"]),
        *(f"  invalid start: {w}" for w in s["first_invalid"]),
        f"sweep {'passed' if out['passed'] else 'FAILED'} in {out['seconds']} s",
        f"replay: {out['replay']}",
    ]
    return "\n".join(lines)


def sweep_main(argv: list[str]) -> int:
    """``fairdie silver-dollar sweep ...``; returns the exit status."""
    return run_command(_parser(), argv, _command, replay=True)


if __name__ == "__main__":  # make campaigns
    import sys

    sys.exit(sweep_main(sys.argv[1:]))

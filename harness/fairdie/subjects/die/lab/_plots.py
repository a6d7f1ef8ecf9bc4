"""PNG plots of a campaign (matplotlib, the ``plot`` extra)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from fairdie.subjects.die.lab._predict import CURVE_STEP, Tally
from fairdie.verify._plots import new_figure, plain_numbers, save_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from fairdie.subjects.die.lab._campaign import CampaignResult

__all__ = ["write_plots"]


def _curves(
    path: Path,
    title: str,
    ylabel: str,
    curves: Sequence[tuple[str, Sequence[float]]],
    yscale: str = "linear",
) -> str:
    fig = new_figure((8, 4.5))
    ax = fig.subplots()
    for name, curve in curves:
        ax.plot([CURVE_STEP * (i + 1) for i in range(len(curve))], curve, label=name)
    ax.set(xlabel="presses", ylabel=ylabel, title=title)
    ax.set_yscale(yscale)
    if yscale != "linear":
        plain_numbers(ax.yaxis)
    ax.legend()
    return _save(fig, path)


def write_plots(folder: str, result: CampaignResult, refs: dict[str, Tally]) -> list[str]:
    """Spread over presses (firmware beside the reference systems), the face
    histogram and the player's guess rate over presses; the files written."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    t = result.tally
    title = f"{result.campaign.presses} presses, noise {result.campaign.noise}"
    tallies = [("firmware", t), *refs.items()]
    files = [
        _curves(
            out / "spread.png",
            f"Spread: {title}",
            "spread (max - min count)",
            [(name, r.spread_curve) for name, r in tallies],
            "symlog",  # the die's 3 beside the dice's hundreds
        ),
        _curves(
            out / "guess_rate.png",
            f"Guess rate: {title}",
            "player's guess rate",
            [(name, r.guess_curve) for name, r in tallies],
        ),
    ]
    fig = new_figure((6, 4))
    ax = fig.subplots()
    ax.bar([str(f) for f in range(1, 7)], t.counts)
    ax.set(xlabel="face", ylabel="times shown", title=f"Faces: {title}")
    files.append(_save(fig, out / "faces.png"))
    return files


def _save(fig: Figure, path: Path) -> str:
    save_figure(fig, path)
    return str(path)

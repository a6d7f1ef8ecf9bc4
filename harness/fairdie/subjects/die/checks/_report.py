"""What the die's checks add to verify's HTML report: the fairness campaign's
plots and table (the lab's, of the ``floating`` campaign), or, for a die with
no model, a histogram of the faces its rolls showed."""

from __future__ import annotations

import html
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fairdie.subjects.die.lab._campaign import CampaignResult

__all__ = ["FairnessReport", "RollsReport"]


def _e(text: object) -> str:
    return html.escape(str(text))


class FairnessReport:
    """The fairness campaigns: a table, and the lab's plots of one campaign."""

    def __init__(self, campaigns: Mapping[str, CampaignResult]) -> None:
        self.campaigns = dict(campaigns)

    def html(self) -> str:
        rows = "".join(
            f"<tr><td>{_e(n)}</td><td>{r.tally.worst_spread}</td>"
            f"<td>{r.tally.longest_absence}</td><td>{r.tally.entropy:.3f}</td>"
            f"<td>{r.tally.guess_rate:.3f}</td><td>{_e(list(r.tally.counts))}</td></tr>"
            for n, r in self.campaigns.items()
        )
        return (
            "<h2>Fairness campaign</h2><table><tr><th>noise</th><th>worst spread</th>"
            "<th>longest absence</th><th>player's entropy</th><th>guess rate</th>"
            f"<th>faces 1..6</th></tr>{rows}</table>"
        )

    def images(self, folder: Path) -> list[tuple[str, str]]:
        floating = self.campaigns.get("floating") or next(iter(self.campaigns.values()), None)
        if floating is None:
            return []
        from fairdie.subjects.die.lab._campaign import reference_tallies
        from fairdie.subjects.die.lab._plots import write_plots

        c = floating.campaign
        refs = reference_tallies(c.presses, c.seed)
        names = [Path(f).name for f in write_plots(str(folder), floating, refs)]
        titles = {
            "faces.png": f"Faces shown: {c.presses} presses, noise {c.noise}",
            "spread.png": "Spread over presses, beside dice, deck and dynamic dice",
            "guess_rate.png": "The player's guess rate over presses",
        }
        order = ("faces.png", "spread.png", "guess_rate.png")
        return [(titles[n], n) for n in order if n in names]


class RollsReport:
    """A die with no model: the faces its rolls showed."""

    def __init__(self, faces: list[int]) -> None:
        self.faces = faces

    def html(self) -> str:
        return ""

    def images(self, folder: Path) -> list[tuple[str, str]]:
        from fairdie.verify import new_figure, save_figure

        fig = new_figure((6, 4))
        ax = fig.subplots()
        counts = [self.faces.count(f) for f in range(1, 7)]
        ax.bar([str(f) for f in range(1, 7)], counts)
        ax.set(xlabel="face", ylabel="times shown", title=f"Faces: {len(self.faces)} rolls")
        return [("Faces shown (rolls of the faces check)", save_figure(fig, folder / "faces.png"))]

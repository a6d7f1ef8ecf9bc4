"""PNG plots of a campaign (matplotlib, the ``plot`` extra)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt

from fairdie.lab._campaign import CampaignResult
from fairdie.lab._predict import Tally

__all__ = ["write_plots"]

_STEP = 100  # the tallies' curves hold a point every 100 presses


def write_plots(folder: str, result: CampaignResult, refs: dict[str, Tally]) -> list[str]:
    """Spread over presses (firmware beside the reference systems), the face
    histogram and the player's guess rate over presses; the files written."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    t = result.tally
    title = f"{result.campaign.presses} presses, noise {result.campaign.noise}"
    files = []

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for name, curve in [("firmware", t.spread_curve)] + [
        (n, r.spread_curve) for n, r in refs.items()
    ]:
        ax.plot([_STEP * (i + 1) for i in range(len(curve))], curve, label=name)
    ax.set(xlabel="presses", ylabel="spread (max - min count)", title=f"Spread: {title}")
    ax.set_yscale("symlog")
    ax.legend()
    files.append(_save(fig, out / "spread.png"))

    fig, ax = plt.subplots(figsize=(6, 4))
    ax.bar([str(f) for f in range(1, 7)], t.counts)
    ax.set(xlabel="face", ylabel="times shown", title=f"Faces: {title}")
    files.append(_save(fig, out / "faces.png"))

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for name, curve in [("firmware", t.guess_curve)] + [
        (n, r.guess_curve) for n, r in refs.items()
    ]:
        ax.plot([_STEP * (i + 1) for i in range(len(curve))], curve, label=name)
    ax.set(xlabel="presses", ylabel="player's guess rate", title=f"Guess rate: {title}")
    ax.legend()
    files.append(_save(fig, out / "guess_rate.png"))
    return files


def _save(fig: plt.Figure, path: Path) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return str(path)

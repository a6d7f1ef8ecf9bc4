"""Text drawings the commands share: rows of dice and the die's table
(``fairdie press``, ``fairdie demo``, ``fairdie roll``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fairdie.board import Display

__all__ = ["draw_dice", "draw_table"]


def draw_dice(displays: Sequence[str], *, per_row: int = 9, faces: Display | None = None) -> str:
    """Draw displays ("1".."6", "all", "off", "invalid", or another symbol of
    the die's face display ``faces``, such as "fault") as dice side by side,
    ``per_row`` to a row."""
    from fairdie.subjects.die import POSITIONS, render_face, render_positions

    def draw(d: str) -> list[str]:
        if faces is not None and d in faces.symbol_names and set(faces.leds) <= set(POSITIONS):
            return render_positions(faces.lit_for(d))
        return render_face(d)

    rows: list[str] = []
    for i in range(0, len(displays), per_row):
        drawn = [draw(d) for d in displays[i : i + per_row]]
        rows.extend("  ".join(lines) for lines in zip(*drawn, strict=True))
    return "\n".join(rows)


def draw_table(
    table: Sequence[int], *, kind: str = "counts", shown: Sequence[int | None] | None = None
) -> str:
    """The die's table, face 1 first, under a row of faces, labelled as what it
    is (``kind``: "counts", or "offsets" for a rule that keeps no counts); with
    ``shown`` (the faces a run showed), a row of how often each was shown."""
    head = "face   " + " ".join(f"{f:>4}" for f in range(1, 7))
    label = "offset" if kind == "offsets" else "count"
    note = "  (counts above the least-shown face's)" if kind == "offsets" else ""
    rows = [head, f"{label:<7}" + " ".join(f"{c:>4}" for c in table) + note]
    if shown is not None:
        tally = [sum(1 for f in shown if f == face) for face in range(1, 7)]
        rows.append(
            "shown  "
            + " ".join(f"{c:>4}" for c in tally)
            + f"  ({sum(tally)} of {len(shown)} presses showed a face)"
        )
    return "\n".join(rows)

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


def draw_table(counts: Sequence[int]) -> str:
    """The table, face 1 first: a row of faces over a row of counts."""
    head = "face   " + " ".join(f"{f:>4}" for f in range(1, 7))
    row = "count  " + " ".join(f"{c:>4}" for c in counts)
    return f"{head}\n{row}"

"""What each check links to in the report: the files that show it (a VCD of
the press it judged, a drawing of the LEDs expected against those lit) and
the command that replays it.

A check adds evidence through its :class:`~fairdie.verify.Context`
(:meth:`Evidence.file`, :func:`led_svg`); the files live in memory until
``--report DIR`` writes them into ``DIR``, where the page links them.
"""

from __future__ import annotations

import html
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fairdie.board import Board

__all__ = ["Evidence", "led_svg"]


@dataclass(frozen=True)
class Evidence:
    """One link of a check: a file in the report folder, or a command."""

    title: str
    file: str | None = None  #: a file name in the report folder
    command: str | None = None  #: a command line that replays what the check saw

    def as_json(self) -> dict[str, str | None]:
        return {"title": self.title, "file": self.file, "command": self.command}


_CELL = 44
_R = 15
_LIT = "#d1242f"
_WANT = "#1a7f37"


def led_svg(board: Board, expected: Collection[str], lit: Collection[str], title: str) -> str:
    """An SVG of ``board``'s LEDs: those ``expected`` ringed in green, those
    ``lit`` filled red; placed at their ``x``/``y`` (else in a row)."""
    leds = board.leds
    placed = all(led.x is not None and led.y is not None for led in leds)
    spots = [
        (led.x, led.y) if placed and led.x is not None and led.y is not None else (i, 0)
        for i, led in enumerate(leds)
    ]
    cols = max((x for x, _ in spots), default=0) + 1
    rows = max((y for _, y in spots), default=0) + 1
    width, height = max(cols * _CELL + 20, 220), rows * _CELL + 70
    e = html.escape
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}'"
        f" viewBox='0 0 {width} {height}' font-family='sans-serif' font-size='11'>",
        f"<title>{e(title)}</title>",
        f"<rect x='0' y='0' width='{width}' height='{height}' fill='white'/>",
        f"<text x='10' y='16' font-size='12'>{e(title)}</text>",
    ]
    for led, (x, y) in zip(leds, spots, strict=True):
        cx, cy = 10 + x * _CELL + _CELL // 2, 26 + y * _CELL + _CELL // 2
        fill = _LIT if led.name in lit else "#eaeef2"
        stroke = _WANT if led.name in expected else "#8c959f"
        dash = "" if led.name in expected else " stroke-dasharray='3 3'"
        parts.append(
            f"<circle cx='{cx}' cy='{cy}' r='{_R}' fill='{fill}' stroke='{stroke}'"
            f" stroke-width='4'{dash}><title>{e(led.name)}</title></circle>"
        )
    key_y = height - 14
    parts.append(
        f"<circle cx='18' cy='{key_y - 4}' r='6' fill='#eaeef2' stroke='{_WANT}'"
        " stroke-width='3'/>"
        f"<text x='28' y='{key_y}'>expected</text>"
        f"<circle cx='100' cy='{key_y - 4}' r='6' fill='{_LIT}'/>"
        f"<text x='110' y='{key_y}'>lit</text>"
    )
    parts.append("</svg>\n")
    return "\n".join(parts)

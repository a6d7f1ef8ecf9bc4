"""The die's display: seven LED positions, lit in groups, read as a face.

Layout (pins.h)::

    C . B        A = centre
    D A D        B = top-right + bottom-left
    B . C        C = top-left + bottom-right
                 D = middle-left + middle-right

Faces: 1 = A, 2 = B, 3 = A+B, 4 = B+C, 5 = A+B+C, 6 = B+C+D; all seven
(A+B+C+D) confirms a cleared table; nothing lit is "off". Any other set of
lit positions is "invalid".
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from fairdie.board import Display

__all__ = [
    "DISPLAYS",
    "FACE_POSITIONS",
    "GROUPS",
    "POSITIONS",
    "decode_face",
    "render_face",
    "render_positions",
    "standard_faces",
]

#: The seven LED positions, as the die's board files name their LEDs.
POSITIONS: tuple[str, ...] = (
    "top-left",
    "top-right",
    "middle-left",
    "centre",
    "middle-right",
    "bottom-left",
    "bottom-right",
)

#: The LED groups the firmware drives together.
GROUPS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "A": frozenset({"centre"}),
        "B": frozenset({"top-right", "bottom-left"}),
        "C": frozenset({"top-left", "bottom-right"}),
        "D": frozenset({"middle-left", "middle-right"}),
    }
)


def _union(groups: str) -> frozenset[str]:
    return frozenset().union(*(GROUPS[g] for g in groups))


#: The lit positions of every display: "1".."6", "all" and "off".
FACE_POSITIONS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "1": _union("A"),
        "2": _union("B"),
        "3": _union("AB"),
        "4": _union("BC"),
        "5": _union("ABC"),
        "6": _union("BCD"),
        "all": _union("ABCD"),
        "off": frozenset(),
    }
)

#: Every value :func:`decode_face` returns.
DISPLAYS: tuple[str, ...] = (*FACE_POSITIONS, "invalid")

_BY_POSITIONS = {v: k for k, v in FACE_POSITIONS.items()}

# (column, row) of each position on the 3x3 grid.
_GRID = {
    "top-left": (0, 0),
    "top-right": (2, 0),
    "middle-left": (0, 1),
    "centre": (1, 1),
    "middle-right": (2, 1),
    "bottom-left": (0, 2),
    "bottom-right": (2, 2),
}

PIP = "●"
_TOP = "┌───────┐"
_BOTTOM = "└───────┘"


def standard_faces() -> Display:
    """The standard die's faces as a display: the default of a die board
    whose LEDs are named by position and that declares no face display."""
    return Display("face", POSITIONS, {v: k for k, v in FACE_POSITIONS.items() if k != "off"})


def decode_face(lit_positions: frozenset[str]) -> str:
    """The display shown by a set of lit positions: "1".."6", "all", "off" or
    "invalid". Raises ValueError for a name that is not one of :data:`POSITIONS`."""
    unknown = set(lit_positions) - _GRID.keys()
    if unknown:
        raise ValueError(f"not a die LED position: {sorted(unknown)[0]!r}")
    return _BY_POSITIONS.get(frozenset(lit_positions), "invalid")


def render_positions(lit_positions: frozenset[str]) -> list[str]:
    """Draw a die with exactly these positions lit, as 5 lines of text."""
    unknown = set(lit_positions) - _GRID.keys()
    if unknown:
        raise ValueError(f"not a die LED position: {sorted(unknown)[0]!r}")
    cells = [[" "] * 3 for _ in range(3)]
    for pos in lit_positions:
        col, row = _GRID[pos]
        cells[row][col] = PIP
    return [_TOP, *(f"│ {' '.join(row)} │" for row in cells), _BOTTOM]


def render_face(display: str) -> list[str]:
    """Draw a display ("1".."6", "all", "off", "invalid") as 5 lines of text:
    a frame with pips "●" and blanks " "; "invalid" is a frame with a "?"."""
    if display == "invalid":
        return [_TOP, "│       │", "│   ?   │", "│       │", _BOTTOM]
    try:
        lit = FACE_POSITIONS[display]
    except KeyError:
        raise ValueError(
            f"unknown display {display!r}: expected one of {', '.join(DISPLAYS)}"
        ) from None
    return render_positions(lit)

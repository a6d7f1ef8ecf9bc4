"""fairdie.die: dice as devices; our fair die's rule and faces.

- :class:`Die` rolls any die a board file describes (by its power switch or
  a button) and reads its faces and, if it keeps them, its counters;
- :mod:`fairdie.die` also re-exports the reference model of the rule
  (:func:`press`, :func:`choose`, :func:`candidates`, :func:`rebase`), which
  the firmware must match press for press, and the face decoding and drawing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fairdie.die._faces import (
    DISPLAYS,
    FACE_POSITIONS,
    GROUPS,
    POSITIONS,
    decode_face,
    render_face,
    render_positions,
    standard_faces,
)
from fairdie.die._rule import CLEARED, MAX_COUNT, Counts, candidates, choose, press, rebase

if TYPE_CHECKING:
    from fairdie.die._die import Die, Press

__all__ = [
    "CLEARED",
    "DISPLAYS",
    "FACE_POSITIONS",
    "GROUPS",
    "MAX_COUNT",
    "POSITIONS",
    "Counts",
    "Die",
    "Press",
    "candidates",
    "choose",
    "decode_face",
    "press",
    "rebase",
    "render_face",
    "render_positions",
    "standard_faces",
]

_DEVICE = {"Die", "Press"}


def __getattr__(name: str) -> Any:
    # the device needs the compiled simulator; the rule and faces do not
    if name in _DEVICE:
        from fairdie.die import _die

        return getattr(_die, name)
    raise AttributeError(f"module 'fairdie.die' has no attribute {name!r}")

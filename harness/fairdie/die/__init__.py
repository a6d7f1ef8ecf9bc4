"""fairdie.die: the fair die (firmware/die_t13a) as a device, its rule and its faces.

- :class:`Die` presses the emulated die and reads its LEDs and counters;
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
)
from fairdie.die._rule import CLEARED, MAX_COUNT, Counts, candidates, choose, press, rebase

if TYPE_CHECKING:
    from fairdie.die._device import COUNTER_ADDRESSES, SETTLE_S, Die, Press

__all__ = [
    "CLEARED",
    "COUNTER_ADDRESSES",
    "DISPLAYS",
    "FACE_POSITIONS",
    "GROUPS",
    "MAX_COUNT",
    "POSITIONS",
    "SETTLE_S",
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
]

_DEVICE = {"COUNTER_ADDRESSES", "SETTLE_S", "Die", "Press"}


def __getattr__(name: str) -> Any:
    # the device needs the compiled simulator; the rule and faces do not
    if name in _DEVICE:
        from fairdie.die import _device

        return getattr(_device, name)
    raise AttributeError(f"module 'fairdie.die' has no attribute {name!r}")

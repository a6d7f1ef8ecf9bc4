"""fairdie.device: a chip on its board, driven and read through the board's parts.

:class:`Device` is generic: any MCU, any board file. It presses buttons
(with seeded contact bounce, and again and again as a person would:
:meth:`Device.press_many` with a :class:`fairdie.stimulus.PressTiming`),
feeds analog inputs, switches the power, reads LEDs through the persistence
model, decodes displays by the board's symbol tables and reads tones off
the speaker pin. :class:`fairdie.subjects.die.Die` is one device; nothing here
knows a die.

Importing it does not load the compiled simulator: a :class:`Device` is
given a :class:`~fairdie.sim.Chip` made by its caller.
"""

from __future__ import annotations

from fairdie.device._device import MAX_HOLD_S, Device, check_hold
from fairdie.device._setup import Setup, resolve_clock
from fairdie.device._steady import lit_a_whole_window, steady_symbol
from fairdie.device._tones import Tone, tones_from_edges

__all__ = [
    "MAX_HOLD_S",
    "Device",
    "Setup",
    "Tone",
    "check_hold",
    "lit_a_whole_window",
    "resolve_clock",
    "steady_symbol",
    "tones_from_edges",
]

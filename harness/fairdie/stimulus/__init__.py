"""fairdie.stimulus: what the outside world does to a device, in time.

:class:`PressTiming` is how a person presses a button again and again: each
hold and each wait drawn, seeded, from a distribution (log-normal by
default, as human timing is). :func:`parse_timing` reads its compact form
(``human``, ``fixed``, ``human:interval=0.8,hold=0.12``), and
:func:`depends_on_seed` answers whether a run's outcome changes with its
seed. :meth:`fairdie.device.Device.press_many` presses a button with it.
Pure Python: importing it loads no simulator.
"""

from __future__ import annotations

from fairdie.stimulus._timing import (
    FIXED,
    HUMAN,
    MAX_HOLD_S,
    Duration,
    PressTime,
    PressTiming,
    TimingError,
    depends_on_seed,
    parse_timing,
)

__all__ = [
    "FIXED",
    "HUMAN",
    "MAX_HOLD_S",
    "Duration",
    "PressTime",
    "PressTiming",
    "TimingError",
    "depends_on_seed",
    "parse_timing",
]
